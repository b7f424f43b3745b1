//! The library's syntax tree stored in the binary: every run starts by loading the library,
//! and parsing its text was most of a start-up, so a run reads its tree instead.
//!
//! `stdlib/prelude.ast` is a header (a magic word, then a fingerprint of the text it was
//! parsed from) followed by the tree in postcard's encoding. It is read only when the
//! fingerprint is that of the text compiled in, so an edited library is parsed again until the
//! file is written again. The test `stored_tree_is_the_parse` writes the file when it is not
//! the encoding of today's parse, and fails: a change of the library's text, or of the tree's
//! types, is caught by the tests and mended by running them again.

use super::ast;

/// The first bytes of a stored tree (the last two digits number the layout of the header).
const MAGIC: &[u8; 8] = b"TSSAST01";

/// The header: the magic word and the fingerprint of the text.
const HEADER: usize = MAGIC.len() + 8;

/// The stored form of `stmts`, the parse of `src` (written by the tests).
#[cfg(test)]
pub fn encode(src: &str, stmts: &[ast::Stmt]) -> Vec<u8> {
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&fingerprint(src).to_le_bytes());
    // Encoding plain data into a vector fails only when memory does.
    bytes.extend(postcard::to_allocvec(stmts).expect("a syntax tree encodes"));
    bytes
}

/// The tree `encode` stored for `src`; `None` when `bytes` were stored for another text or are
/// not a stored tree at all.
pub fn decode(src: &str, bytes: &[u8]) -> Option<Vec<ast::Stmt>> {
    if bytes.len() < HEADER || &bytes[..MAGIC.len()] != MAGIC {
        return None;
    }
    let stored = u64::from_le_bytes(bytes[MAGIC.len()..HEADER].try_into().ok()?);
    if stored != fingerprint(src) {
        return None;
    }
    postcard::from_bytes(&bytes[HEADER..]).ok()
}

/// FNV-1a of the text and its length: the same on every build and platform, unlike the
/// standard library's hasher.
fn fingerprint(src: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in src
        .as_bytes()
        .iter()
        .chain(&(src.len() as u64).to_le_bytes())
    {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse_program;

    #[test]
    fn stored_tree_is_the_parse() {
        let (stmts, errors) = parse_program(crate::PRELUDE);
        assert!(errors.is_empty(), "{errors:?}");
        let fresh = encode(crate::PRELUDE, &stmts);
        if fresh != crate::PRELUDE_TREE {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/stdlib/prelude.ast");
            std::fs::write(path, &fresh).expect("stdlib/prelude.ast is writable");
            panic!(
                "stdlib/prelude.ast was not the parse of stdlib/prelude.flx (the library or the \
                 syntax tree's types changed); it has been written again: run the tests again"
            );
        }
        // What a start-up reads is the tree the parser gives, spans included (which `==` on
        // the tree ignores, so the encodings are compared).
        let read = decode(crate::PRELUDE, crate::PRELUDE_TREE).expect("the stored tree reads");
        assert_eq!(encode(crate::PRELUDE, &read), fresh);
        assert_eq!(read, stmts);
    }

    #[test]
    fn a_tree_stored_for_another_text_is_not_read() {
        let (stmts, _) = parse_program("val x = 1;\nprintln x;\n");
        let bytes = encode("val x = 1;\nprintln x;\n", &stmts);
        assert_eq!(decode("val x = 1;\nprintln x;\n", &bytes), Some(stmts));
        assert_eq!(decode("val x = 2;\nprintln x;\n", &bytes), None);
        assert_eq!(
            decode("val x = 1;\nprintln x;\n", &bytes[..HEADER - 1]),
            None
        );
        assert_eq!(
            decode("val x = 1;\nprintln x;\n", &bytes[..bytes.len() - 1]),
            None
        );
        assert_eq!(decode("", b"not a stored tree at all"), None);
    }
}
