//! Parsing a long program that is known to be valid (the library) in pieces on several
//! threads at once.

use super::{ast, parse_program_with, ParseOptions, SyntaxError};

/// Parses a program on up to `threads` threads at once, each parsing a run of its top-level
/// definitions: for the library, whose parse every run pays at start-up. A run starts at a
/// line beginning `fun ` or `proc ` at the left margin after a line that ends a statement
/// (`;` or `}`). Each thread parses the whole text with the rest blanked out, so spans stay
/// the source's. When any run has an error (a split inside a block or a comment, or a real
/// error), the program is parsed again as a whole, whose errors are the ones to report.
pub fn parse_program_parallel(
    src: &str,
    options: ParseOptions,
    threads: usize,
) -> (Vec<ast::Stmt>, Vec<SyntaxError>) {
    let starts = split_points(src, threads);
    if starts.len() < 2 {
        return parse_program_with(src, options);
    }
    let piece = |k: usize| {
        let start = starts[k];
        let end = starts.get(k + 1).copied().unwrap_or(src.len());
        let mut text = " ".repeat(start);
        text.push_str(&src[start..end]);
        parse_program_with(&text, options)
    };
    let pieces: Vec<(Vec<ast::Stmt>, Vec<SyntaxError>)> = std::thread::scope(|scope| {
        let others: Vec<_> = (1..starts.len())
            .map(|k| {
                std::thread::Builder::new()
                    .stack_size(PIECE_STACK)
                    .spawn_scoped(scope, move || piece(k))
            })
            .collect();
        let mut pieces = vec![piece(0)];
        for other in others {
            match other.map(|handle| handle.join()) {
                Ok(Ok(parsed)) => pieces.push(parsed),
                // No thread, or a panic (reported again by the whole parse): parse it whole.
                _ => return Vec::new(),
            }
        }
        pieces
    });
    if pieces.len() != starts.len() || pieces.iter().any(|(_, errors)| !errors.is_empty()) {
        return parse_program_with(src, options);
    }
    (
        pieces.into_iter().flat_map(|(stmts, _)| stmts).collect(),
        Vec::new(),
    )
}

/// The stack of a thread parsing a piece of a program (as deep as the interpreter's parses
/// go: the nesting limit bounds the recursion).
const PIECE_STACK: usize = 64 << 20;

/// Where the runs of `parse_program_parallel` start: 0, then for each further run the
/// definition start nearest to its share of the text.
fn split_points(src: &str, threads: usize) -> Vec<usize> {
    let mut candidates = Vec::new();
    let mut offset = 0;
    let mut ends_statement = false;
    for line in src.split_inclusive('\n') {
        if ends_statement && (line.starts_with("fun ") || line.starts_with("proc ")) {
            candidates.push(offset);
        }
        let content = line.trim_end();
        if !content.is_empty() {
            ends_statement = content.ends_with(';') || content.ends_with('}');
        }
        offset += line.len();
    }
    let mut starts = vec![0];
    for k in 1..threads.max(1) {
        let target = src.len() * k / threads;
        let nearest = candidates
            .iter()
            .copied()
            .filter(|&c| c > *starts.last().unwrap_or(&0))
            .min_by_key(|&c| c.abs_diff(target));
        if let Some(c) = nearest {
            starts.push(c);
        }
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse_program;

    #[test]
    fn the_library_parsed_in_pieces_is_the_library_parsed_whole() {
        let whole = parse_program(crate::PRELUDE);
        assert!(whole.1.is_empty(), "the prelude parses: {:?}", whole.1);
        for threads in [2, 3, 5] {
            let pieces = parse_program_parallel(crate::PRELUDE, ParseOptions::default(), threads);
            assert_eq!(pieces, whole, "{threads} pieces");
        }
        assert!(split_points(crate::PRELUDE, 2).len() == 2);
    }

    #[test]
    fn a_program_parsed_in_pieces_reports_the_errors_of_the_whole_parse() {
        // The second piece would start inside the block comment; the third has a real error.
        let src = "fun f () => 1;\n/* the old g;\nfun g () => 2;\n*/\nfun h () => 3;\nproc p () { x = ; }\nfun k () => 4;\n";
        for threads in [2, 3, 4] {
            let pieces = parse_program_parallel(src, ParseOptions::default(), threads);
            assert_eq!(pieces, parse_program(src), "{threads} pieces");
            assert_eq!(pieces.1.len(), 1, "one error: {:?}", pieces.1);
        }
    }
}
