//! Stage 1, grammar: a recursive-descent parser over bytes, built from the
//! nom recognizers in [`super::lex`]. One file per construct.
//!
//! Guarantees: every input either yields the whole [`List`] or one
//! [`SyntaxError`] with a position; recursion is bounded by
//! [`MAX_DEPTH`] (so no input can overflow the stack); every byte is
//! looked at a bounded number of times (linear time).

mod command;
mod compound;
mod cond;
mod heredoc;
mod join;
mod list;
mod param;
mod redir;
mod subst;
mod word;

use std::collections::HashMap;

use super::ast::{List, Span, Word};
use super::error::SyntaxError;
pub use command::is_declaration_name;
use heredoc::PendingHereDoc;
pub use join::ends_in_continuation;
pub(crate) use join::parse_program;
pub use word::is_tilde_name_byte;

/// Deepest nesting of subshells, groups, compound commands and
/// substitutions accepted before [`SyntaxError::TooDeep`].
pub const MAX_DEPTH: usize = 256;

/// Most stack one parse may use below the frame that called [`parse_program`].
/// Nesting levels cost very different amounts of stack (and several times
/// more in unoptimized builds), so besides counting levels the parser
/// measures its stack: this keeps a parse on a thread with the default
/// 2 MiB stack safe, whatever the input.
const STACK_BUDGET: usize = 1 << 20;

/// The address of a local of the calling frame: a stack-depth probe.
#[inline(never)]
fn stack_address() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// A parse step: the rest of the input and what was recognized.
type PResult<'a, T> = Result<(&'a [u8], T), SyntaxError>;

/// Parser state for one buffer. Nested text that has to be rewritten first
/// (backtick bodies, `<<-` here-document bodies) gets its own `Parser` whose
/// `base` maps its offsets back into the original source.
pub(crate) struct Parser<'a> {
    src: &'a [u8],
    /// Offset of `src[0]` in the original source (for spans).
    base: usize,
    nesting: Nesting,
    /// Here-documents whose `<<` was seen and whose body starts after the
    /// next newline, in order.
    pending: Vec<PendingHereDoc>,
    /// Bodies read so far, by the offset of their redirection.
    bodies: HashMap<usize, Word>,
    /// Text read as written, where a line continuation stays (see
    /// [`join`]): single-quoted and `$'…'` text, comments, bodies of
    /// here-documents with a quoted delimiter.
    literals: Vec<join::Literal>,
    /// Reading the expansions of an assignment's value: in a `${…}` value
    /// word there, a tilde after `:` expands too (`x=${u-~:~}`). Not in a
    /// declaration builtin's operand, where bash expands it too: the
    /// parser does not know which command a word belongs to.
    assignment_value: bool,
}

/// What a nested parser inherits from the one that made it.
#[derive(Clone, Copy)]
struct Nesting {
    depth: usize,
    /// [`stack_address`] when the outermost parser started.
    stack_base: usize,
    /// Inside the text of `$(( … ))`, whose end bash found by counting
    /// every parenthesis, those in comments too.
    in_arithmetic: bool,
}

impl Nesting {
    /// The nesting of a parse that starts here.
    fn outermost() -> Nesting {
        Nesting {
            depth: 0,
            stack_base: stack_address(),
            in_arithmetic: false,
        }
    }
}

impl<'a> Parser<'a> {
    /// A parser for all of `src`, whose offsets start at `base`.
    fn new(src: &'a [u8], base: usize, nesting: Nesting) -> Parser<'a> {
        Parser {
            src,
            base,
            nesting,
            pending: Vec::new(),
            bodies: HashMap::new(),
            literals: Vec::new(),
            assignment_value: false,
        }
    }

    /// A parser for rewritten nested text `src` (a backtick body, a
    /// here-document body, arithmetic text) whose offsets start at `base`
    /// in the original source; it continues this parser's nesting count.
    fn nested<'b>(&self, src: &'b [u8], base: usize) -> Parser<'b> {
        Parser::new(src, base, self.nesting)
    }

    /// All of `src` as a prompt's text (see [`crate::syntax::parse_prompt`]).
    pub(crate) fn prompt(src: &[u8]) -> Result<Word, SyntaxError> {
        let mut parser = Parser::new(src, 0, Nesting::outermost());
        let mut word = Word {
            parts: parser.prompt_text()?,
            span: Span::new(0, src.len()),
        };
        parser.finish_word(&mut word)?;
        Ok(word)
    }

    /// Parse all of `src` as a script.
    pub(crate) fn program(&mut self) -> Result<List, SyntaxError> {
        let (rest, mut list) = self.list(self.src)?;
        if !rest.is_empty() {
            return Err(self.unexpected(rest));
        }
        if let Some(p) = self.pending.first() {
            return Err(p.unterminated());
        }
        heredoc::fill_bodies(&mut list, &mut self.bodies);
        Ok(list)
    }

    /// Note the text from `from` to `to` (suffixes of `src`) as read as
    /// written; `comment` for a comment.
    fn literal(&mut self, from: &[u8], to: &[u8], comment: bool) {
        self.literals.push(join::Literal {
            start: self.pos(from),
            end: self.pos(to),
            comment,
        });
    }

    /// Absolute offset of the position `i` (a suffix of `src`).
    fn pos(&self, i: &[u8]) -> usize {
        self.base + self.src.len().saturating_sub(i.len())
    }

    /// Span from the start of `from` to the start of `to` (both suffixes).
    fn span(&self, from: &[u8], to: &[u8]) -> Span {
        Span::new(self.pos(from), self.pos(to))
    }

    /// A span of `len` bytes at `i`.
    fn span_at(&self, i: &[u8], len: usize) -> Span {
        let p = self.pos(i);
        Span::new(p, p + len.min(i.len()))
    }

    /// Enter one level of nesting at `i`.
    fn enter(&mut self, i: &[u8]) -> Result<(), SyntaxError> {
        // The stack grows down on every supported target; were it to grow
        // up, the difference saturates to 0 and only the count applies.
        let used = self.nesting.stack_base.saturating_sub(stack_address());
        if self.nesting.depth >= MAX_DEPTH || used > STACK_BUDGET {
            return Err(SyntaxError::TooDeep {
                limit: self.nesting.depth,
                at: self.span_at(i, 1),
            });
        }
        self.nesting.depth += 1;
        Ok(())
    }

    fn leave(&mut self) {
        self.nesting.depth = self.nesting.depth.saturating_sub(1);
    }

    /// "unexpected `TOKEN`" for whatever starts at `i`.
    fn unexpected(&self, i: &[u8]) -> SyntaxError {
        SyntaxError::Unexpected {
            found: describe(i),
            at: self.span_at(i, 1),
        }
    }

    /// An error for a construct opened at `open` that is missing its
    /// closing part at `i`: unterminated at end of input, else unexpected.
    fn unclosed(&self, i: &[u8], what: &'static str, open: Span) -> SyntaxError {
        if i.is_empty() {
            SyntaxError::Unterminated { what, open }
        } else {
            self.unexpected(i)
        }
    }
}

/// The token at `i`, quoted for a message.
fn describe(i: &[u8]) -> String {
    if i.is_empty() {
        return "end of input".to_string();
    }
    if i[0] == b'\n' {
        return "newline".to_string();
    }
    if let Some((_, op)) = super::lex::control_op(i) {
        let text = op.text();
        return if text == ";;" || text == ";&" || text == ";;&" {
            format!("`{text}` (outside `case`)")
        } else {
            format!("`{text}`")
        };
    }
    let tok = super::lex::token(i);
    let tok = if tok.is_empty() { &i[..1] } else { tok };
    let shown: Vec<u8> = tok.iter().copied().take(40).collect();
    format!("`{}`", String::from_utf8_lossy(&shown))
}
