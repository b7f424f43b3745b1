//! What native code knows of the evaluator's data: the layout of a `Value` (a `repr(u8)`
//! enum, so fixed) and the offsets of the `Runtime` fields it reads, taken from the compiler
//! (`offset_of!`), never assumed.

use std::mem::{offset_of, size_of};

use crate::eval::value::{sum_node_offsets, ArgForm, Value};
use crate::eval::{Globals, Runtime};

/// Bytes of one `Value` (a frame or global slot).
pub const VALUE_SIZE: usize = size_of::<Value>();
/// The tag byte of a `Value` is at offset 0; these are the tags native code writes.
pub const TAG_UNIT: u8 = 0;
pub const TAG_INT: u8 = 1;
pub const TAG_FLOAT: u8 = 2;
/// The offset of the payload of `Value::Int` and `Value::Float`.
pub const PAYLOAD: i32 = 8;
/// The tags of `Value::Tuple` and `Value::Sum`, whose parts native code reaches in place.
pub const TAG_TUPLE: u8 = 5;
pub const TAG_SUM: u8 = 6;

/// Where a `Value::Sum`'s case and argument are (`value::SumNode`): the word at `word` points
/// at the shared allocation; the case (`u32`) is `tag` bytes past it, the form of the
/// argument (`value::ArgForm`, a byte) `form` bytes past it, and the parts (consecutive
/// `Value`s: the argument itself when held whole) `parts` bytes past it.
#[derive(Clone, Copy, Debug)]
pub struct SumParts {
    pub word: i32,
    pub tag: i32,
    pub form: i32,
    pub parts: i32,
}

/// Where a `Value::Tuple`'s parts are: the word at `word` points at the shared allocation,
/// whose first part is `parts` bytes past it (the parts are consecutive `Value`s).
#[derive(Clone, Copy, Debug)]
pub struct TupleParts {
    pub word: i32,
    pub parts: i32,
}

/// Read the word at byte `at` of `value`.
fn word_at(value: &Value, at: usize) -> usize {
    // SAFETY: `at` is 8 or 16, inside the value (checked against its size), and the payload
    // words of `Sum` and `Tuple` are initialised pointers or lengths.
    assert!(at + 8 <= VALUE_SIZE);
    unsafe {
        std::ptr::read_unaligned((value as *const Value as *const u8).add(at) as *const usize)
    }
}

/// The layout of a sum's allocation, measured on a probe value once (what `Arc` puts before
/// the data, and the order of a slice pointer's words, are not promised by the standard
/// library, so they are observed, never assumed): `None` if the node pointer's words are not
/// (address, length) in some order.
pub fn sum_parts() -> Option<SumParts> {
    static PARTS: std::sync::OnceLock<Option<SumParts>> = std::sync::OnceLock::new();
    *PARTS.get_or_init(|| {
        let mut parts = [Value::Unit, Value::Unit, Value::Unit];
        let value = Value::sum_taking(7, ArgForm::Tuple, &mut parts);
        let Value::Sum(node) = &value else {
            return None;
        };
        let data = std::sync::Arc::as_ptr(node) as *const u8 as usize;
        let (word, pointer) = match (word_at(&value, 8), word_at(&value, 16)) {
            (p, 3) => (8, p),
            (3, p) => (16, p),
            _ => return None,
        };
        let header = data.checked_sub(pointer).filter(|&h| h < 64)?;
        let (tag, form, first) = sum_node_offsets();
        Some(SumParts {
            word,
            tag: (header + tag) as i32,
            form: (header + form) as i32,
            parts: (header + first) as i32,
        })
    })
}

/// The layout of a tuple's allocation, measured on a probe value once: `None` if the slice
/// pointer's words are not (address, length) in some order.
pub fn tuple_parts() -> Option<TupleParts> {
    static PARTS: std::sync::OnceLock<Option<TupleParts>> = std::sync::OnceLock::new();
    *PARTS.get_or_init(|| {
        let arc: std::sync::Arc<[Value]> = vec![Value::Unit, Value::Unit, Value::Unit].into();
        let value = Value::Tuple(arc.clone());
        let first = std::sync::Arc::as_ptr(&arc) as *const Value as usize;
        let (a, b) = (word_at(&value, 8), word_at(&value, 16));
        let (word, pointer) = match (a, b) {
            (p, 3) => (8, p),
            (3, p) => (16, p),
            _ => return None,
        };
        let parts = first.checked_sub(pointer)?;
        (parts < 64).then_some(TupleParts {
            word,
            parts: parts as i32,
        })
    })
}

/// Where native code finds what it needs to call a function value's native function
/// straight (`lower/call.rs`, `call_value`): the tag of `Value::Fun`; the word of the value
/// pointing at the closure's shared allocation; and, that many bytes past the word, the
/// closure's `Direct` fields (`closure::Closure::direct_offsets`: the groups a call gives,
/// the instance's address, the first capture's address); in the instance, its `NativeCall`
/// (the function's address and its signature's shape).
#[derive(Clone, Copy, Debug)]
pub struct Dispatch {
    pub tag: u8,
    pub word: i32,
    pub groups: i32,
    pub instance: i32,
    pub captures: i32,
    pub func: i32,
    pub shape: i32,
}

/// The layout of a function value, measured on a probe closure once (what `Arc` puts before
/// the data is not promised, so it is observed): `None` if the probe does not read back.
pub fn dispatch() -> Option<Dispatch> {
    use crate::eval::closure::{Closure, Instance, NativeCall};
    use std::sync::Arc;
    static DISPATCH: std::sync::OnceLock<Option<Dispatch>> = std::sync::OnceLock::new();
    *DISPATCH.get_or_init(|| {
        let instance = Arc::new(Instance {
            name: String::new(),
            unit: 0,
            n_groups: 3,
            cell_slots: Vec::new(),
            captures: Vec::new(),
            code: Default::default(),
            native: Default::default(),
            native_call: Default::default(),
        });
        let captures: Arc<[Value]> = vec![Value::Unit].into();
        let closure = Arc::new(Closure::new(instance.clone(), captures.clone(), Vec::new()));
        let value = Value::Fun(closure.clone());
        // SAFETY: the tag byte of a `repr(u8)` enum is at offset 0.
        let tag = unsafe { *(&value as *const Value as *const u8) };
        let word = 8;
        let header = (Arc::as_ptr(&closure) as usize).checked_sub(word_at(&value, word))?;
        if header >= 64 {
            return None;
        }
        let [groups, inst, caps] = Closure::direct_offsets().map(|at| (header + at) as i32);
        let call = offset_of!(Instance, native_call);
        let d = Dispatch {
            tag,
            word: word as i32,
            groups,
            instance: inst,
            captures: caps,
            func: (call + offset_of!(NativeCall, func)) as i32,
            shape: (call + offset_of!(NativeCall, shape)) as i32,
        };
        let at = |off: i32| word_at(&value, word) + off as usize;
        // SAFETY: the offsets were computed for the live closure the value holds.
        let read = |off: i32| unsafe { *(at(off) as *const usize) };
        let fits = read(d.groups) == 3
            && read(d.instance) == Arc::as_ptr(&instance) as usize
            && read(d.captures) == captures.as_ptr() as usize;
        fits.then_some(d)
    })
}

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

/// The offset in `Runtime` of the result a cold helper's stub leaves (`Cell<u64>`): an
/// offset from the runtime pointer, which native code holds anyway, where a stack buffer's
/// address would be a value Cranelift hoists out of the loop and keeps in a register.
pub fn native_result() -> i32 {
    offset_of!(Runtime<'static>, native_result) as i32
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

    fn tag_of(value: &Value) -> u8 {
        // SAFETY: the tag byte of a `repr(u8)` enum is at offset 0, always initialised.
        unsafe { *(value as *const Value as *const u8) }
    }

    #[test]
    fn sums_and_tuples_are_read_where_the_probes_say() {
        let parts = sum_parts().expect("a node pointer is an address and a length");
        let sum = Value::sum(9, ArgForm::Whole, Value::Int(-4));
        let at = word_at(&sum, parts.word as usize);
        assert_eq!(tag_of(&sum), TAG_SUM);
        // SAFETY: the probed offsets point into the live sum's allocation.
        unsafe {
            assert_eq!(*((at + parts.tag as usize) as *const u32), 9);
            assert_eq!(
                *((at + parts.form as usize) as *const u8),
                ArgForm::Whole as u8
            );
            assert!(matches!(
                *((at + parts.parts as usize) as *const Value),
                Value::Int(-4)
            ));
        }
        let pair = Value::sum(
            3,
            ArgForm::Tuple,
            Value::Tuple(vec![Value::Int(5), Value::Float(0.5)].into()),
        );
        let at = word_at(&pair, parts.word as usize);
        // SAFETY: as above, for a node holding a pair as its two parts.
        unsafe {
            assert_eq!(*((at + parts.tag as usize) as *const u32), 3);
            assert_eq!(
                *((at + parts.form as usize) as *const u8),
                ArgForm::Tuple as u8
            );
            let first = at + parts.parts as usize;
            assert!(matches!(*(first as *const Value), Value::Int(5)));
            let second = &*((first + VALUE_SIZE) as *const Value);
            assert!(matches!(second, Value::Float(x) if *x == 0.5));
        }
        let tuple = Value::Tuple(vec![Value::Int(1), Value::Float(2.5)].into());
        let parts = tuple_parts().expect("a slice pointer is an address and a length");
        assert_eq!(tag_of(&tuple), TAG_TUPLE);
        let first = word_at(&tuple, parts.word as usize) + parts.parts as usize;
        // SAFETY: as above, for the tuple's parts.
        unsafe {
            assert!(matches!(*(first as *const Value), Value::Int(1)));
            let second = &*((first + VALUE_SIZE) as *const Value);
            assert!(matches!(second, Value::Float(x) if *x == 2.5));
        }
    }

    #[test]
    fn function_values_are_read_where_the_probe_says() {
        use crate::eval::closure::{Closure, Instance};
        use std::sync::Arc;
        let d = dispatch().expect("a closure's shared allocation is found");
        let instance = Arc::new(Instance {
            name: "f".into(),
            unit: 0,
            n_groups: 2,
            cell_slots: Vec::new(),
            captures: Vec::new(),
            code: Default::default(),
            native: Default::default(),
            native_call: Default::default(),
        });
        instance
            .native_call
            .func
            .store(0x1234, std::sync::atomic::Ordering::Release);
        instance
            .native_call
            .shape
            .store(7, std::sync::atomic::Ordering::Release);
        let captures: Arc<[Value]> = vec![Value::Int(3), Value::Int(4)].into();
        let whole = Value::Fun(Arc::new(Closure::new(
            instance.clone(),
            captures.clone(),
            Vec::new(),
        )));
        let partial = Value::Fun(Arc::new(Closure::new(
            instance.clone(),
            captures,
            vec![Value::Int(1)],
        )));
        for (value, groups) in [(&whole, 2), (&partial, 0)] {
            assert_eq!(tag_of(value), d.tag);
            let closure = word_at(value, d.word as usize);
            // SAFETY: the probed offsets point into the live closure and its instance.
            unsafe {
                let read = |at: usize| *(at as *const usize);
                assert_eq!(read(closure + d.groups as usize), groups);
                let inst = read(closure + d.instance as usize);
                assert_eq!(inst, Arc::as_ptr(&instance) as usize);
                assert_eq!(read(inst + d.func as usize), 0x1234);
                assert_eq!(read(inst + d.shape as usize), 7);
                let first = read(closure + d.captures as usize) as *const Value;
                assert!(matches!(*first, Value::Int(3)));
                assert!(matches!(*first.add(1), Value::Int(4)));
            }
        }
    }
}
