//! Ctrl-C (R0012): the evaluator notices the interrupt flag at loop back-edges, function entry
//! and between chunk kernels; the REPL keeps its session and the definitions made before the
//! chunk. (Its own test binary: the flag is process-wide.)

use tessera::{ChunkResult, Session};

#[test]
fn an_interrupt_stops_loops_and_calls_and_the_session_goes_on() {
    let mut session = Session::new(Box::new(std::io::sink()));
    assert!(matches!(
        session.eval_chunk("var k = 7;\n"),
        ChunkResult::Done
    ));
    // The flag is cleared when a chunk starts; a thread raises it while the loop runs.
    let raiser = std::thread::spawn(|| {
        std::thread::sleep(std::time::Duration::from_millis(300));
        tessera::interrupt::request();
    });
    let result = session.eval_chunk("var j = 1;\nfor i in ..[2 \\^ 100] do ++k; k = k - 1; done\n");
    raiser.join().unwrap();
    let ChunkResult::Failed(diags) = result else {
        panic!("expected R0012, got {result:?}");
    };
    assert_eq!(diags[0].code, "R0012");
    assert_eq!(diags[0].message, "Interrupted.");
    // `k` is kept, `j` (defined by the interrupted chunk) is not.
    assert!(matches!(session.eval_chunk("k + 1\n"), ChunkResult::Done));
    assert!(matches!(session.eval_chunk("j\n"), ChunkResult::Failed(_)));

    // A loop calling a function is stopped too (at the call or the back-edge).
    session.eval_chunk("fun f (x:int) : int => x + 1;\n");
    let raiser = std::thread::spawn(|| {
        std::thread::sleep(std::time::Duration::from_millis(300));
        tessera::interrupt::request();
    });
    let result = session.eval_chunk("while true do k = f k - 1; done\n");
    raiser.join().unwrap();
    let ChunkResult::Failed(diags) = result else {
        panic!("expected R0012, got {result:?}");
    };
    assert_eq!(diags[0].code, "R0012");
    assert!(matches!(session.eval_chunk("f k\n"), ChunkResult::Done));
}
