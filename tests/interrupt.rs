//! Ctrl-C (R0012): the evaluator notices the interrupt flag at loop back-edges, function entry,
//! between the chunks of parallel loops and inside long built-in kernels (`sort`, `\sum`,
//! `\prod`); the REPL keeps its session and the definitions made before the chunk. (Its own
//! test binary: the flag is process-wide, so the tests here take turns.)

use std::sync::Mutex;
use std::time::{Duration, Instant};

use tessera::Diagnostic;
use tessera::{ChunkResult, Session, Settings};

/// One test at a time: an interrupt raised for one would stop another's evaluation.
static TURN: Mutex<()> = Mutex::new(());

fn take_turn() -> std::sync::MutexGuard<'static, ()> {
    TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn done(session: &mut Session, src: &str) {
    let result = session.eval_chunk(src);
    assert!(matches!(result, ChunkResult::Done), "{src}: {result:?}");
}

fn interrupted(result: ChunkResult) -> Diagnostic {
    let ChunkResult::Failed(diags) = result else {
        panic!("expected R0012, got {result:?}");
    };
    assert_eq!(diags[0].code, "R0012", "{diags:?}");
    assert_eq!(diags[0].message, "Interrupted.");
    diags.into_iter().next().expect("one diagnostic")
}

#[test]
fn an_interrupt_stops_loops_and_calls_and_the_session_goes_on() {
    let _turn = take_turn();
    let mut session = Session::new(Settings::default().with_stdout(std::io::sink()));
    done(&mut session, "var k = 7;\n");
    // The flag is cleared when a chunk starts; a thread raises it while the loop runs.
    let raiser = std::thread::spawn(|| {
        std::thread::sleep(Duration::from_millis(300));
        tessera::interrupt::request();
    });
    let result = session.eval_chunk("var j = 1;\nfor i in ..[2 \\^ 100] do ++k; k = k - 1; done\n");
    raiser.join().unwrap();
    interrupted(result);
    // `k` is kept, and so is `j`: the interrupted chunk's definitions and effects stay, as
    // for any runtime error.
    done(&mut session, "k + 1\n");
    done(&mut session, "j\n");

    // A loop calling a function is stopped too (at the call or the back-edge).
    done(&mut session, "fun f (x:int) : int => x + 1;\n");
    let raiser = std::thread::spawn(|| {
        std::thread::sleep(Duration::from_millis(300));
        tessera::interrupt::request();
    });
    let result = session.eval_chunk("while true do k = f k - 1; done\n");
    raiser.join().unwrap();
    interrupted(result);
    done(&mut session, "f k\n");

    // Counting loops up to a variable, which poll once per chunk of iterations, are stopped
    // too, and so is one over a darray's elements up to its count.
    done(
        &mut session,
        "var n = 2000000000;\nvar d = darray[int] ();\n",
    );
    done(
        &mut session,
        "for i in 0 ..< 10000 do push_back (d, i); done\n",
    );
    for chunk in [
        "var m = 0L;\nfor r in 0 ..< n do for i in 0 ..< n do m += 1L; done done\n",
        "var t = 0L;\nfor r in 0 ..< n do for i in 0 ..< (len d).int do t += d.i.long; done done\n",
    ] {
        let raiser = std::thread::spawn(|| {
            std::thread::sleep(Duration::from_millis(300));
            tessera::interrupt::request();
        });
        let result = session.eval_chunk(chunk);
        raiser.join().unwrap();
        interrupted(result);
    }
    done(&mut session, "n\n");
}

/// A session with arrays of millions of elements: `a` (ints, sorted in three blocks), `ones`,
/// `d` (doubles) and `pairs` (tuples, sorted by the generic comparison), and a pure function
/// `inc`.
fn session_with_arrays() -> Session {
    session_with_arrays_jit(true)
}

fn session_with_arrays_jit(jit: bool) -> Session {
    let mut session = Session::new(
        Settings::default()
            .with_stdout(std::io::sink())
            .with_jit(jit),
    );
    // A sort of numbers polls between blocks of 2^20 of them: the arrays sorted here have
    // three blocks.
    done(
        &mut session,
        "var a : int ^ 3000000;\n\
         for i in ..[3000000] do &a.i <- ((i :>> int) * 37) % 100003; done\n\
         var ones : int ^ 1000000;\n\
         for i in ..[1000000] do &ones.i <- 1; done\n\
         var d : double ^ 3000000;\n\
         for i in ..[3000000] do &d.i <- (((i :>> int) * 37) % 100003).double; done\n\
         var pairs : (int * int) ^ 300000;\n\
         for i in ..[300000] do &pairs.i <- ((i :>> int) % 1000, 1); done\n\
         fun inc (x:int) : int => x + 1;\n",
    );
    session
}

/// Each long kernel notices Ctrl-C pressed while it runs: the interrupt is raised at the
/// kernel's third poll (deterministic, unlike a timer), and the kernel stops there with R0012
/// at its own expression; the session goes on and the kernel's result was not defined.
#[test]
fn long_kernels_poll_the_interrupt_flag() {
    let _turn = take_turn();
    for jit in [true, false] {
        kernels_poll_the_interrupt_flag(jit);
    }
}

/// The kernels of `long_kernels_poll_the_interrupt_flag`, with native code on or off. With
/// native code on, a `map` whose function is known is a native loop, which polls the flag
/// itself at every back-edge (not through the kernels' countdown): it is checked with the
/// closure compiler only. A `fold_left` whose function is known is a loop on both paths, no
/// kernel (its back-edges poll, as the loops of the first test).
fn kernels_poll_the_interrupt_flag(jit: bool) {
    let mut session = session_with_arrays_jit(jit);
    for (chunk, kernel) in [
        ("val s = sort a;\n", "sort a"),
        ("val s = sort d;\n", "sort d"),
        ("val s = sort pairs;\n", "sort pairs"),
        ("val s = \\sum a;\n", "\\sum a"),
        ("val s = \\prod ones;\n", "\\prod ones"),
        ("val s = \\sum d;\n", "\\sum d"),
        ("val s = \\prod d;\n", "\\prod d"),
        ("val s = map inc a;\n", "map inc a"),
    ] {
        if jit && chunk.contains("map ") {
            continue;
        }
        tessera::interrupt::request_at_kernel_poll(3);
        let diag = interrupted(session.eval_chunk(chunk));
        tessera::interrupt::request_at_kernel_poll(0);
        assert_eq!(
            &chunk[diag.span.start..diag.span.end],
            kernel,
            "{chunk}: {diag:?}"
        );
        assert!(
            matches!(session.eval_chunk("s\n"), ChunkResult::Failed(_)),
            "{chunk}: `s` was defined"
        );
    }
    // Without an interrupt the same kernels run to their end.
    for chunk in [
        "(sort a).(0 :>> 3000000) == 0\n",
        "\\sum ones\n",
        "\\prod ones\n",
        "(map inc a).(1 :>> 3000000)\n",
        "fold_left (fun (acc:int) (v:int) => acc + v) 0 ones\n",
    ] {
        done(&mut session, chunk);
    }
}

/// Ctrl-C from another thread while a long sort runs stops it promptly (the generous bound
/// only guards against a kernel that would never poll: each poll is 64K elements apart).
#[test]
fn ctrl_c_from_another_thread_stops_a_long_sort() {
    let _turn = take_turn();
    let mut session = session_with_arrays();
    let raised = std::sync::Arc::new(Mutex::new(None::<Instant>));
    let raiser = {
        let raised = raised.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            *raised.lock().unwrap() = Some(Instant::now());
            tessera::interrupt::request();
        })
    };
    let result =
        session.eval_chunk("var s = a;\nvar e = d;\nwhile true do s = sort a; e = sort d; done\n");
    let returned = Instant::now();
    raiser.join().unwrap();
    interrupted(result);
    let raised = raised.lock().unwrap().expect("the interrupt was raised");
    assert!(
        returned.duration_since(raised) < Duration::from_secs(20),
        "the sort went on for {:?} after Ctrl-C",
        returned.duration_since(raised)
    );
    done(&mut session, "\\sum ones\n");
}
