//! Lex and parse any bytes (as UTF-8 when they are): never a panic, every error inside the
//! source.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let (_, errors) = tessera::syntax::parse_program(src);
    for error in errors {
        assert!(error.span.start <= error.span.end && error.span.end <= src.len());
    }
    let _ = tessera::syntax::parse_chunk(src);
});
