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

pub use display::{array_to_source, command_to_source, to_source, without_spans, word_to_source};
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

/// A here-document that the end of the input closed (bash accepts it with
/// a warning): its delimiter and the line of its `<<`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HereDocAtEnd {
    pub delimiter: String,
    pub line: usize,
}

impl HereDocAtEnd {
    /// bash's warning.
    pub fn warning(&self) -> String {
        format!(
            "warning: here-document at line {} delimited by end-of-file (wanted `{}')",
            self.line, self.delimiter
        )
    }
}

/// Parse `source` as complete input (a `-c` string, a script, the last of
/// standard input): a here-document still open at the end is closed there,
/// as bash does, and named in the notes. The tree is that of `source` with
/// each missing delimiter line added, so the guard and the interpreter,
/// which both parse through here, see the same commands.
pub fn parse_complete(source: &[u8]) -> Result<(ast::List, Vec<HereDocAtEnd>), SyntaxError> {
    let mut text = source.to_vec();
    let mut closed = Vec::new();
    loop {
        match parse(&text) {
            Ok(list) => return Ok((list, closed)),
            Err(SyntaxError::UnterminatedHereDoc { delimiter, open }) if closed.len() < 64 => {
                let line = 1 + source[..open.start.min(source.len())]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count();
                if !text.ends_with(b"\n") {
                    text.push(b'\n');
                }
                text.extend_from_slice(delimiter.as_bytes());
                text.push(b'\n');
                closed.push(HereDocAtEnd { delimiter, line });
            }
            Err(e) => return Err(e),
        }
    }
}
