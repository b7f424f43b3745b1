//! Builders for hand-written IR in tests.
