//! Runtime errors: each is a `Diagnostic` with `Stage::Runtime`, wrapped in `Ctrl`.

use num_bigint::BigUint;
use num_traits::Zero;

use crate::diag::{CallFrame, Diagnostic, Origin, Stage, MAX_FRAMES};
use crate::syntax::span::Span;
use crate::types::Type;

use super::Ctrl;

/// The codes of the runtime errors.
pub const INDEX_OUT_OF_RANGE: &str = "R0001";
pub const DECODE_OUT_OF_RANGE: &str = "R0002";
pub const OVERFLOW: &str = "R0003";
pub const DIVISION_BY_ZERO: &str = "R0004";
pub const CONVERSION_OUT_OF_RANGE: &str = "R0005";
pub const NO_MATCH: &str = "R0006";
pub const TOO_LARGE: &str = "R0007";
pub const RECURSION_TOO_DEEP: &str = "R0008";
/// `assert` of a false condition.
pub const ASSERTION_FAILURE: &str = "R0009";
/// A shift count below 0 or not below the bit width.
pub const SHIFT_OUT_OF_RANGE: &str = "R0010";
/// A hoisted variable read before its initialiser has run.
pub const USED_BEFORE_INITIALISATION: &str = "R0011";
/// Evaluation stopped by the user (Ctrl-C).
pub const INTERRUPTED: &str = "R0012";
/// A file could not be opened, read, written or closed (missing, a directory, no permission,
/// a full disk, a closed handle).
pub const FILE_ERROR: &str = "R0013";
/// Text that a checked conversion (`parse_int`, `parse_double`) cannot read as a number.
pub const PARSE_ERROR: &str = "R0014";
/// A data file (`.npy`, `.npz`, CSV) that is malformed or does not match the type expected.
pub const DATA_FORMAT: &str = "R0015";
/// Sizes that differ where a run-time check needs them equal (a reshape, a loaded shape).
pub const SHAPE_MISMATCH: &str = "R0016";
/// A violated evaluator invariant (an IR shape the checker never produces); not a user error.
pub const INTERNAL: &str = "R0000";

/// A runtime error with the given code and message at `span`.
pub fn runtime_error(code: &'static str, message: impl Into<String>, span: Span) -> Ctrl {
    let message = message.into();
    let label = match code {
        INDEX_OUT_OF_RANGE => "index out of range",
        DECODE_OUT_OF_RANGE => "decode out of range",
        OVERFLOW => "integer overflow",
        DIVISION_BY_ZERO => "division by zero",
        CONVERSION_OUT_OF_RANGE => "conversion out of range",
        NO_MATCH => "no match case",
        TOO_LARGE => "allocation too large",
        RECURSION_TOO_DEEP => "recursion too deep",
        ASSERTION_FAILURE => "assertion failure",
        SHIFT_OUT_OF_RANGE => "shift count out of range",
        USED_BEFORE_INITIALISATION => "read before its initialiser has run",
        INTERRUPTED => "interrupted here",
        FILE_ERROR => "file error",
        PARSE_ERROR => "not a number",
        DATA_FORMAT => "malformed data",
        SHAPE_MISMATCH => "shapes differ",
        INTERNAL => "internal evaluator error",
        _ => "runtime error",
    };
    Ctrl::Error(Box::new(
        Diagnostic::new(Stage::Runtime, code, message, span).with_label(label),
    ))
}

/// A fault found by a kernel that does not know its span; the compiled node adds the span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub code: &'static str,
    pub message: String,
}

impl Fault {
    pub fn new(code: &'static str, message: impl Into<String>) -> Fault {
        Fault {
            code,
            message: message.into(),
        }
    }

    /// Ctrl-C noticed by a kernel (R0012, reported as `interrupted` at the kernel's span), or
    /// the memory budget passed (R0007).
    pub fn interrupted() -> Fault {
        if crate::memory::over() {
            return Fault::new(TOO_LARGE, over_budget_message());
        }
        Fault::new(INTERRUPTED, "Interrupted.")
    }

    pub fn at(self, span: Span) -> Ctrl {
        if self.code == INTERRUPTED {
            return interrupted(span);
        }
        runtime_error(self.code, self.message, span)
    }
}

/// `Err(Fault::interrupted())` when Ctrl-C has been pressed: the poll of a long built-in
/// kernel, made every `interrupt::POLL_INTERVAL` elements or so.
#[inline]
pub fn poll_interrupt() -> Result<(), Fault> {
    if crate::interrupt::kernel_poll() {
        Err(Fault::interrupted())
    } else {
        Ok(())
    }
}

/// R0013: `action` ("open", "read", "write", "close") of the file at `path` failed with
/// `error`. The message names the path and the operating system's reason.
pub fn file_error(action: &str, path: &str, error: &std::io::Error) -> Fault {
    let reason = match error.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        std::io::ErrorKind::IsADirectory => "it is a directory".to_string(),
        std::io::ErrorKind::StorageFull => "no space left on the device".to_string(),
        _ => {
            // The OS text without Rust's " (os error N)" suffix.
            let text = error.to_string();
            match text.find(" (os error") {
                Some(at) => text[..at].to_string(),
                None => text,
            }
        }
    };
    Fault::new(FILE_ERROR, format!("cannot {action} `{path}`: {reason}"))
}

/// R0011: the global `def` was read at `span` before its initialiser ran.
pub fn used_before_initialisation(def: &crate::core::ir::GlobalDef, span: Span) -> Ctrl {
    let name = &def.name;
    Ctrl::Error(Box::new(
        Diagnostic::new(
            Stage::Runtime,
            USED_BEFORE_INITIALISATION,
            format!("`{name}` is used before its initialiser has run"),
            span,
        )
        .with_label(format!("`{name}` has no value yet here"))
        .with_secondary(def.span, format!("`{name}` is defined here"))
        .with_help(format!(
            "definitions are visible in their whole scope, but `{name}` only gets its \
             value when its definition runs: move the definition before the first use"
        ))
        .in_secondary_unit(def.unit),
    ))
}

/// R0012: evaluation stopped by Ctrl-C at `span` (a loop header or a call); or R0007 when
/// what raised the flag was an allocation that took the heap past the memory budget (see
/// `memory`), noticed at the first poll after it.
pub fn interrupted(span: Span) -> Ctrl {
    if crate::memory::over() {
        return runtime_error(TOO_LARGE, over_budget_message(), span);
    }
    Ctrl::Error(Box::new(
        Diagnostic::new(Stage::Runtime, INTERRUPTED, "Interrupted.", span)
            .with_label("evaluation was here when Ctrl-C was pressed"),
    ))
}

fn over_budget_message() -> String {
    format!(
        "out of memory: the program's heap passed its memory budget of {} bytes (raise it with `--max-memory`)",
        crate::memory::budget()
    )
}

/// Record on a runtime error that it propagated out of a call of `function` (whose body is
/// in unit `unit`, see `Program::unit_of`) made at `call`: the call stack of its diagnostic,
/// innermost first, at most `MAX_FRAMES` frames kept and the deeper ones counted. Called only
/// on the error path of a call (`result.map_err(...)`); any other `Ctrl` passes unchanged.
///
/// A frame's call span is in the caller's unit, which is the unit of the next frame's
/// function: each call fills in the origin of the frame before it. The first frame's
/// function holds the error's own spans (`Diagnostic::origin`). The spans left without an
/// origin are in the unit that was run; `finish_frames` settles them.
#[cold]
#[inline(never)]
pub fn note_frame(ctrl: Ctrl, function: &str, unit: u32, call: Span) -> Ctrl {
    let Ctrl::Error(mut diag) = ctrl else {
        return ctrl;
    };
    match diag.frames.last_mut() {
        None => diag.origin = Origin::Unit(unit),
        Some(last) if last.call_origin == Origin::Here && diag.hidden_frames == 0 => {
            last.call_origin = Origin::Unit(unit);
        }
        Some(_) => {}
    }
    if diag.frames.len() < MAX_FRAMES {
        diag.frames.push(CallFrame {
            function: function.to_string(),
            call,
            call_origin: Origin::Here,
        });
    } else {
        diag.hidden_frames += 1;
    }
    Ctrl::Error(diag)
}

/// The diagnostic of an error that ended the run of unit `unit`: origins in that unit become
/// `Origin::Here` (the source it is reported with); those of other units stay for the session
/// to resolve.
pub fn finish_frames(mut diag: Diagnostic, unit: u32) -> Diagnostic {
    let here = |origin: &mut Origin| {
        if *origin == Origin::Unit(unit) {
            *origin = Origin::Here;
        }
    };
    here(&mut diag.origin);
    for frame in &mut diag.frames {
        here(&mut frame.call_origin);
    }
    diag
}

/// R0002: `shown` (a value as the message prints it) is not a code of `target`, which has
/// `size` codes.
pub(crate) fn decode_error(shown: &str, target: &Type, size: &BigUint, span: Span) -> Ctrl {
    let range = if size.is_zero() {
        "no codes".to_string()
    } else {
        format!("0 .. {}", size - 1u32)
    };
    runtime_error(
        DECODE_OUT_OF_RANGE,
        format!("{shown} is not a code of {target} ({range})"),
        span,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diagnostic(ctrl: Ctrl) -> Diagnostic {
        match ctrl {
            Ctrl::Error(diag) => *diag,
            other => panic!("not an error: {other:?}"),
        }
    }

    #[test]
    fn frames_are_kept_innermost_first_with_the_callers_units() {
        // `h` (unit 3) fails; `g` (unit 2) called it; `f` (unit 3) called `g`; the unit
        // that ran (5) called `f`.
        let error = runtime_error(DIVISION_BY_ZERO, "division by zero", Span::new(1, 2));
        let error = note_frame(error, "h", 3, Span::new(10, 11));
        let error = note_frame(error, "g", 2, Span::new(20, 21));
        let error = note_frame(error, "f", 3, Span::new(30, 31));
        let diag = finish_frames(diagnostic(error), 3);
        assert_eq!(diag.origin, Origin::Here);
        let frames: Vec<(&str, Span, &Origin)> = diag
            .frames
            .iter()
            .map(|f| (f.function.as_str(), f.call, &f.call_origin))
            .collect();
        assert_eq!(
            frames,
            vec![
                ("h", Span::new(10, 11), &Origin::Unit(2)),
                ("g", Span::new(20, 21), &Origin::Here),
                ("f", Span::new(30, 31), &Origin::Here),
            ]
        );
        assert_eq!(diag.hidden_frames, 0);
    }

    #[test]
    fn deep_stacks_keep_five_frames_and_count_the_rest() {
        let mut error = runtime_error(OVERFLOW, "overflow", Span::new(1, 2));
        for depth in 0..8 {
            // The fifth frame's call is in the function of the sixth: unit 99.
            let unit = if depth == 5 { 99 } else { 1 };
            error = note_frame(error, "down", unit, Span::new(depth, depth + 1));
        }
        let diag = diagnostic(error);
        assert_eq!(diag.frames.len(), MAX_FRAMES);
        assert_eq!(diag.hidden_frames, 3);
        assert_eq!(diag.frames[4].call, Span::new(4, 5));
        assert_eq!(diag.frames[4].call_origin, Origin::Unit(99));
        assert_eq!(diag.origin, Origin::Unit(1));
    }

    #[test]
    fn other_control_flow_passes_unchanged() {
        let ctrl = note_frame(Ctrl::Return, "f", 1, Span::new(0, 1));
        assert!(matches!(ctrl, Ctrl::Return));
    }
}
