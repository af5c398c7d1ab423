//! Stage 1: shell text → [`ast::List`]. No I/O; works on bytes.
//!
//! Anything the grammar does not cover is a [`SyntaxError::Unsupported`],
//! so the shell fails closed instead of guessing. The same tree is what the
//! guard checks and the interpreter runs.

pub mod ast;
pub mod display;
pub mod error;
mod lex;
mod parse;
pub mod sexp;
pub mod span;
mod visit;

pub use display::{to_source, without_spans};
pub use error::SyntaxError;
pub use parse::{MAX_DEPTH, ends_in_continuation};

/// Parse a whole command line or script.
///
/// Errors carry the span they are about; render them with
/// [`SyntaxError::render`]. A NUL byte anywhere is an error.
pub fn parse(source: &[u8]) -> Result<ast::List, SyntaxError> {
    if let Some(k) = source.iter().position(|&b| b == 0) {
        return Err(SyntaxError::NulByte {
            at: span::Span::new(k, k + 1),
        });
    }
    parse::parse_program(source)
}
