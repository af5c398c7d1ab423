//! Stage 1: shell text → [`ast::List`]. No I/O; works on bytes.
//!
//! Anything the grammar does not cover is a [`SyntaxError::Unsupported`],
//! so the shell fails closed instead of guessing.

pub mod ast;
pub mod error;
pub mod span;

pub use error::SyntaxError;

/// Parse a whole command line or script.
pub fn parse(source: &[u8]) -> Result<ast::List, SyntaxError> {
    let _ = source;
    Err(SyntaxError::Unsupported {
        feature: "parser not written yet",
        at: span::Span::new(0, 0),
    })
}
