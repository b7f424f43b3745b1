//! Check and run any text with lowered limits and a one-second watchdog (the Ctrl-C flag):
//! never a panic, never an internal error, every diagnostic inside the source. The dictionary
//! `fuzz/tessera.dict` lists the syntax to splice in (`-dict=tessera.dict`).
#![no_main]
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    tessera::interrupt::clear();
    let done = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let done = done.clone();
        std::thread::spawn(move || {
            let start = Instant::now();
            while !done.load(Ordering::Relaxed) {
                if start.elapsed() > Duration::from_secs(1) {
                    tessera::interrupt::request();
                    return;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        })
    };
    let mut settings = tessera::Settings::default()
        .with_stdout(std::io::sink())
        .with_jit_all(true);
    settings.limits.max_alloc_bytes = 64 << 20;
    settings.limits.max_natural_bits = 1 << 16;
    settings.limits.max_call_depth = 2000;
    let mut session = tessera::Session::new(settings);
    let result = session.run_source(src);
    done.store(true, Ordering::Relaxed);
    watchdog.join().unwrap();
    if let Err(diags) = result {
        for diag in &diags {
            assert!(diag.span.end <= src.len(), "{} at {:?}", diag.code, diag.span);
            assert!(diag.code != "R0000", "internal error: {}", diag.message);
        }
    }
});
