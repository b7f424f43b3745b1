//! TEMP stub (the format branch provides this file; this commit is to be dropped at merge).
use crate::eval::value::Value;
use crate::types::Type;
pub fn strr_value(v: &Value, ty: &Type) -> String {
    let _ = (v, ty);
    todo!("format")
}
