//! Check and run any text with lowered limits and a one-second watchdog (the Ctrl-C flag):
//! never a panic, never an internal error, every diagnostic inside the source.
#![no_main]
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Once};
use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;

static SETUP: Once = Once::new();

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    SETUP.call_once(|| {
        for (flag, value) in [
            ("--max-alloc", 64u64 << 20),
            ("--max-natural-bits", 1 << 16),
            ("--max-call-depth", 2000),
        ] {
            tessera::limits::by_flag(flag).unwrap().set(value);
        }
    });
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
    let mut session = tessera::Session::new(Box::new(std::io::sink()));
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
