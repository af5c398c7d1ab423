//! Syntax errors: one enum, each variant carrying the span it is about.
//! Rendered as `LINE:COL: message` (see [`SyntaxError::render`]).

use super::span::{Span, line_col};
use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SyntaxError {
    /// A quote, substitution or compound command still open at end of input
    /// (`what` is e.g. "single quote", "`$(`", "`if`").
    #[error("unterminated {what}")]
    Unterminated { what: &'static str, open: Span },
    #[error("here-document delimited by end of input (wanted `{delimiter}`)")]
    UnterminatedHereDoc {
        delimiter: String,
        /// `<<-`: the delimiter line may start with tabs.
        strip_tabs: bool,
        open: Span,
    },
    #[error("unexpected {found}")]
    Unexpected { found: String, at: Span },
    #[error("expected {expected}, found {found}")]
    Expected {
        expected: &'static str,
        found: String,
        at: Span,
    },
    /// An operand or operator missing or out of place inside `[[ … ]]`
    /// (`found` boxed: the error stays 48 bytes, and with it every parser
    /// frame that carries one).
    #[error("expected {expected}, found {found}")]
    InConditional {
        expected: &'static str,
        found: Box<str>,
        at: Span,
    },
    /// `|`, `&&`, `||` or `!` with no command after it; `at_end` when the
    /// input simply stopped there.
    #[error("missing command after `{op}`")]
    MissingCommand {
        op: &'static str,
        at: Span,
        at_end: bool,
    },
    #[error("bad substitution")]
    BadSubstitution { at: Span },
    #[error("nesting deeper than {limit} levels")]
    TooDeep { limit: usize, at: Span },
    #[error("NUL byte in input")]
    NulByte { at: Span },
    #[error("not supported by guard-sh: {feature}")]
    Unsupported { feature: &'static str, at: Span },
}

impl SyntaxError {
    /// The span the message is about (for an unterminated construct: where it opened).
    pub fn span(&self) -> Span {
        match self {
            SyntaxError::Unterminated { open, .. }
            | SyntaxError::UnterminatedHereDoc { open, .. } => *open,
            SyntaxError::Unexpected { at, .. }
            | SyntaxError::Expected { at, .. }
            | SyntaxError::InConditional { at, .. }
            | SyntaxError::MissingCommand { at, .. }
            | SyntaxError::BadSubstitution { at }
            | SyntaxError::TooDeep { at, .. }
            | SyntaxError::NulByte { at }
            | SyntaxError::Unsupported { at, .. } => *at,
        }
    }

    /// The same error with its span passed through `f`.
    pub(crate) fn map_span(mut self, f: impl FnOnce(Span) -> Span) -> Self {
        match &mut self {
            SyntaxError::Unterminated { open, .. }
            | SyntaxError::UnterminatedHereDoc { open, .. } => *open = f(*open),
            SyntaxError::Unexpected { at, .. }
            | SyntaxError::Expected { at, .. }
            | SyntaxError::InConditional { at, .. }
            | SyntaxError::MissingCommand { at, .. }
            | SyntaxError::BadSubstitution { at }
            | SyntaxError::TooDeep { at, .. }
            | SyntaxError::NulByte { at }
            | SyntaxError::Unsupported { at, .. } => *at = f(*at),
        }
        self
    }

    /// `true` when the input merely ended too early (an open quote,
    /// substitution, here-document or compound command, or an operator
    /// waiting for its command): a line-by-line reader may append the next
    /// line and parse again.
    pub fn is_incomplete(&self) -> bool {
        match self {
            SyntaxError::Unterminated { .. } | SyntaxError::UnterminatedHereDoc { .. } => true,
            // bash reads on after `|`, `&&`, `||` at the end of a line, but not
            // after a lone `!` (it negates an empty pipeline there).
            SyntaxError::MissingCommand { op, at_end, .. } => *at_end && *op != "!",
            _ => false,
        }
    }

    /// Does `$?` stay as it was? bash's parser of `[[ … ]]` reports its
    /// own errors and leaves the status alone where the shell's reading
    /// stops (a script, standard input, `-c`); every other syntax error,
    /// and any in `eval` or `source` text, sets 2.
    pub fn keeps_status(&self) -> bool {
        matches!(self, SyntaxError::InConditional { .. })
    }

    /// Would more lines complete `source`? Besides an unterminated
    /// construct, an error found at the end of the text (`[[ a ==` then a
    /// newline, `if true` alone) waits for the next line, as bash reads on.
    pub fn needs_more_input(&self, source: &[u8]) -> bool {
        let end = source.trim_ascii_end().len();
        self.is_incomplete() || self.span().start() >= end
    }

    /// `LINE:COL: message`, positions counted from 1 in `source`.
    pub fn render(&self, source: &[u8]) -> String {
        self.render_after(source, 0)
    }

    /// [`SyntaxError::render`] for a source that starts after `lines_before`
    /// lines of its input (a script read one command at a time).
    pub fn render_after(&self, source: &[u8], lines_before: usize) -> String {
        let mut at = line_col(source, self.span().start());
        at.line += lines_before;
        format!("{at}: {self}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every parser step returns a `Result` holding one: a variant that
    /// widened it would widen every frame of the recursive parser, and
    /// with them how deep a line may nest on the same stack.
    #[test]
    fn a_syntax_error_stays_48_bytes() {
        assert_eq!(std::mem::size_of::<SyntaxError>(), 48);
    }
}
