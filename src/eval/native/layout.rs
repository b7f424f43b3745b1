//! What native code knows of the evaluator's data: the layout of a `Value` (a `repr(u8)`
//! enum, so fixed) and the offsets of the `Runtime` fields it reads, taken from the compiler
//! (`offset_of!`), never assumed.

use std::mem::{offset_of, size_of};

use crate::eval::value::Value;
use crate::eval::{Globals, Runtime};

/// Bytes of one `Value` (a frame or global slot).
pub const VALUE_SIZE: usize = size_of::<Value>();
/// The tag byte of a `Value` is at offset 0; these are the tags native code writes.
pub const TAG_UNIT: u8 = 0;
pub const TAG_INT: u8 = 1;
pub const TAG_FLOAT: u8 = 2;
/// The offset of the payload of `Value::Int` and `Value::Float`.
pub const PAYLOAD: i32 = 8;

/// The offset in `Runtime` of the current call depth (`Cell<u32>`).
pub fn depth() -> i32 {
    offset_of!(Runtime<'static>, depth) as i32
}

/// The offset in `Runtime` of the call-depth limit (`u32`).
pub fn max_depth() -> i32 {
    offset_of!(Runtime<'static>, max_depth) as i32
}

/// The offset in `Runtime` of the lowest stack position with room for a call (`Cell<usize>`).
pub fn stack_floor() -> i32 {
    offset_of!(Runtime<'static>, stack_floor) as i32
}

/// The offset in `Runtime` of the failure flag set by a runtime helper (`Cell<u8>`).
pub fn failed() -> i32 {
    offset_of!(Runtime<'static>, native_failed) as i32
}

/// The offset in `Runtime` of the label of a `break` or `continue` leaving a fallback
/// statement (`Cell<u32>`).
pub fn label() -> i32 {
    offset_of!(Runtime<'static>, native_label) as i32
}

/// The offset in `Runtime` of the address of global slot 0 (`Cell<*mut Value>`).
pub fn globals_base() -> i32 {
    (offset_of!(Runtime<'static>, globals) + offset_of!(Globals, base)) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(value: &Value) -> [u8; VALUE_SIZE] {
        // SAFETY: reading the bytes of a live value of a `repr(u8)` enum; the tag and the
        // payload of `Int` and `Float` are initialised.
        unsafe { std::mem::transmute_copy(value) }
    }

    #[test]
    fn scalar_values_have_the_layout_native_code_assumes() {
        let int = bytes(&Value::Int(0x0102_0304_0506_0708));
        assert_eq!(int[0], TAG_INT);
        assert_eq!(
            i64::from_ne_bytes(int[8..16].try_into().unwrap()),
            0x0102_0304_0506_0708
        );
        let float = bytes(&Value::Float(2.5));
        assert_eq!(float[0], TAG_FLOAT);
        assert_eq!(f64::from_ne_bytes(float[8..16].try_into().unwrap()), 2.5);
        assert_eq!(bytes(&Value::Unit)[0], TAG_UNIT);
        assert_eq!(VALUE_SIZE % 8, 0);
    }
}
