//! Lists, and-or lists and pipelines (XCU 2.9.2, 2.9.3), and the
//! newlines between them, where pending here-document bodies are read.

use super::super::ast::{AndOr, AndOrOp, ListItem, PipeElement, Pipeline, TimeFormat};
use super::super::lex::{ControlOp, blanks, comment, control_op};
use super::{List, PResult, Parser, SyntaxError};

impl<'a> Parser<'a> {
    /// A sequence of and-or lists separated by `;`, `&` or newlines. Stops
    /// (without consuming) at end of input, at `)`, at `;;`-style case
    /// terminators and at a closing reserved word in command position; the
    /// caller decides whether what it stopped at is allowed.
    pub(super) fn list(&mut self, i: &'a [u8]) -> PResult<'a, List> {
        let mut items = Vec::new();
        let mut rest = self.linebreaks(i)?;
        while let (r, Some(and_or)) = self.and_or(rest)? {
            let r = blanks(r);
            let r = self.skip_comment(r)?;
            match control_op(r) {
                Some((r2, ControlOp::Amp)) => {
                    items.push(ListItem {
                        and_or,
                        background: true,
                    });
                    rest = self.linebreaks(r2)?;
                }
                Some((r2, ControlOp::Semi)) => {
                    items.push(ListItem {
                        and_or,
                        background: false,
                    });
                    rest = self.linebreaks(r2)?;
                }
                _ if r.first() == Some(&b'\n') => {
                    items.push(ListItem {
                        and_or,
                        background: false,
                    });
                    rest = self.linebreaks(r)?;
                }
                _ => {
                    items.push(ListItem {
                        and_or,
                        background: false,
                    });
                    rest = r;
                    break;
                }
            }
        }
        Ok((rest, List { items }))
    }

    /// `pipeline { (&& | ||) linebreak pipeline }`; `None` when no command
    /// starts at `i`.
    fn and_or(&mut self, i: &'a [u8]) -> PResult<'a, Option<AndOr>> {
        let (mut rest, Some(first)) = self.pipeline(i)? else {
            return Ok((i, None));
        };
        let mut more = Vec::new();
        loop {
            let r = blanks(rest);
            let (r, op) = match control_op(r) {
                Some((r, ControlOp::AndIf)) => (r, AndOrOp::And),
                Some((r, ControlOp::OrIf)) => (r, AndOrOp::Or),
                _ => break,
            };
            let text = if op == AndOrOp::And { "&&" } else { "||" };
            let r = self.linebreaks(r)?;
            match self.pipeline(r)? {
                (r, Some(p)) => {
                    more.push((op, p));
                    rest = r;
                }
                (r, None) => return Err(self.missing_command(r, text)),
            }
        }
        Ok((rest, Some(AndOr { first, rest: more })))
    }

    /// `[!] command { (| | |&) linebreak command }`.
    fn pipeline(&mut self, i: &'a [u8]) -> PResult<'a, Option<Pipeline>> {
        let start = blanks(i);
        let mut rest = start;
        let mut timed = None;
        // `time [-p]` (bash's reserved word, at the start of a pipeline).
        // A metacharacter ends the word too: `time&` is `time` then `&`.
        let word_ends = |r: &[u8], n: usize| {
            r.get(n)
                .is_none_or(|&b| matches!(b, b' ' | b'\t' | b'\n') || super::super::lex::is_meta(b))
        };
        if rest.starts_with(b"time") && word_ends(rest, 4) {
            timed = Some(TimeFormat::Default);
            rest = blanks(&rest[4..]);
            if rest.starts_with(b"-p") && word_ends(rest, 2) {
                timed = Some(TimeFormat::Posix);
                rest = blanks(&rest[2..]);
            }
        }
        let mut negated = false;
        // `!(…)` in a command's place is `!` and a subshell, as bash
        // reads it, not an extended glob group.
        if rest.first() == Some(&b'!')
            && rest
                .get(1)
                .is_none_or(|&b| matches!(b, b' ' | b'\t' | b'\n' | b'('))
        {
            negated = true;
            rest = blanks(&rest[1..]);
        }
        let mut elements = Vec::new();
        match self.command(rest)? {
            (r, Some(c)) => {
                elements.push(PipeElement {
                    command: c,
                    pipe_stderr: false,
                });
                rest = r;
            }
            (r, None) if negated => return Err(self.missing_command(r, "!")),
            (r, None) if timed.is_some() => return Err(self.missing_command(r, "time")),
            (_, None) => return Ok((i, None)),
        }
        let mut end = rest;
        loop {
            let r = blanks(rest);
            let (r, stderr, text) = match control_op(r) {
                Some((r, ControlOp::Pipe)) => (r, false, "|"),
                Some((r, ControlOp::PipeAmp)) => (r, true, "|&"),
                _ => break,
            };
            let r = self.linebreaks(r)?;
            match self.command(r)? {
                (r, Some(c)) => {
                    if let Some(last) = elements.last_mut() {
                        last.pipe_stderr = stderr;
                    }
                    elements.push(PipeElement {
                        command: c,
                        pipe_stderr: false,
                    });
                    rest = r;
                    end = r;
                }
                (r, None) => return Err(self.missing_command(r, text)),
            }
        }
        elements.shrink_to_fit();
        Ok((
            rest,
            Some(Pipeline {
                timed,
                negated,
                elements,
                span: self.span(start, end),
            }),
        ))
    }

    fn missing_command(&self, i: &'a [u8], op: &'static str) -> SyntaxError {
        let i = blanks(i);
        SyntaxError::MissingCommand {
            op,
            at: self.span_at(i, 1),
            at_end: i.is_empty(),
        }
    }

    /// Blanks, comments and newlines; after each newline the bodies of the
    /// pending here-documents are read (XCU 2.7.4).
    pub(super) fn linebreaks(&mut self, i: &'a [u8]) -> Result<&'a [u8], SyntaxError> {
        let mut rest = i;
        loop {
            rest = self.skip_comment(blanks(rest))?;
            match rest.strip_prefix(b"\n") {
                Some(r) => rest = self.read_pending_bodies(r)?,
                None => return Ok(rest),
            }
        }
    }
}

impl<'a> Parser<'a> {
    /// Skip a comment if one starts at `i` (its text is kept as written:
    /// a line continuation does not continue a comment).
    ///
    /// Inside `$(( … ))` a comment holding a parenthesis is refused: bash
    /// counted it to find the end of the arithmetic, and the printed
    /// tree, which has no comments, would end it elsewhere.
    pub(super) fn skip_comment(&mut self, i: &'a [u8]) -> Result<&'a [u8], SyntaxError> {
        let Some(rest) = comment(i) else {
            return Ok(i);
        };
        let text = &i[..i.len() - rest.len()];
        if self.nesting.in_arithmetic && text.iter().any(|&b| b == b'(' || b == b')') {
            return Err(SyntaxError::Unsupported {
                feature: "a comment holding a parenthesis inside `$(( … ))`",
                at: self.span(i, rest),
            });
        }
        self.literal(i, rest, true);
        Ok(rest)
    }
}
