//! Lex and parse any bytes (as UTF-8 when they are), through the session's check of a whole
//! program (a syntax error stops it before the checker): never a panic, every error inside
//! the source.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let settings = tessera::Settings::default().with_stdout(std::io::sink());
    let mut session = tessera::Session::new(settings);
    if let Err(diags) = session.check_source(src) {
        for diag in &diags {
            assert!(diag.span.start <= diag.span.end && diag.span.end <= src.len());
        }
    }
});
