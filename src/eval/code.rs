//! The types of compiled code: what the compiler (`compile/`) builds and the runtime
//! (`closure.rs`, the library kernels) runs. Each is a boxed closure over a call's frame.

use super::value::Value;
use super::{Ctrl, Frame};

/// Compiled expression: evaluates to a value.
pub type ExprCode = Box<dyn Fn(&mut Frame<'_, '_>) -> Result<Value, Ctrl> + Send + Sync>;
/// Compiled statement.
pub type StmtCode = Box<dyn Fn(&mut Frame<'_, '_>) -> Result<(), Ctrl> + Send + Sync>;
/// Compiled expression of an integer-like type (an integer, a char, a 64-bit compact code):
/// evaluates to the unboxed `i64` that `Value::Int` would hold.
pub type IntCode = Box<dyn Fn(&mut Frame<'_, '_>) -> Result<i64, Ctrl> + Send + Sync>;
/// Compiled expression of type `double` or `float`: evaluates to the unboxed `f64` that
/// `Value::Float` would hold.
pub type FloatCode = Box<dyn Fn(&mut Frame<'_, '_>) -> Result<f64, Ctrl> + Send + Sync>;
/// Compiled condition.
pub type CondCode = Box<dyn Fn(&mut Frame<'_, '_>) -> Result<bool, Ctrl> + Send + Sync>;
/// Compiled pattern: tests a value, binding variables as it goes.
pub type BindCode = Box<dyn Fn(&mut Frame<'_, '_>, &Value) -> Result<bool, Ctrl> + Send + Sync>;
/// Compiled code returning an unboxed scalar (`IntCode` and `FloatCode` are two of them).
pub type ScalarCode<T> = Box<dyn Fn(&mut Frame<'_, '_>) -> Result<T, Ctrl> + Send + Sync>;
