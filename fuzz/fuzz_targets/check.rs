//! Parse and check any text: never a panic, every diagnostic inside the source and static.
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
            assert!(diag.span.end <= src.len(), "{} at {:?}", diag.code, diag.span);
            assert!(diag.code.starts_with('E'), "{}: {}", diag.code, diag.message);
        }
    }
});
