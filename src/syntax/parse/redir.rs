//! Redirections (XCU 2.7): `[n]op word`, with bash's `&>`, `&>>`, `<<<`.
//! A here-document's body is left empty here and queued; it is read
//! after the end of the line (see [`super::heredoc`]).

use super::super::ast::{HereDoc, RedirOp, RedirTarget, Redirect, Word, WordPart};
use super::super::lex::{RedirToken, blanks, digits, redir_op};
use super::heredoc::PendingHereDoc;
use super::{PResult, Parser, SyntaxError};

impl<'a> Parser<'a> {
    /// The redirection at `i`, if one starts there.
    pub(super) fn redirect(&mut self, i: &'a [u8]) -> PResult<'a, Option<Redirect>> {
        let (r, fd) = match digits(i) {
            Some((r, d)) if matches!(r.first(), Some(b'<' | b'>')) => {
                let fd = std::str::from_utf8(d)
                    .ok()
                    .and_then(|s| s.parse::<u32>().ok());
                match fd {
                    Some(fd) => (r, Some(fd)),
                    None => {
                        return Err(SyntaxError::Expected {
                            expected: "a file descriptor number",
                            found: super::describe(i),
                            at: self.span_at(i, d.len()),
                        });
                    }
                }
            }
            _ => (i, None),
        };
        let Some((r, tok)) = redir_op(r) else {
            return Ok((i, None));
        };
        if fd.is_some() && matches!(tok, RedirToken::OutputBoth | RedirToken::AppendBoth) {
            return Ok((i, None));
        }
        // `>(…)` / `<(…)` (also after digits: `2>(…)` is one word in bash)
        // is a process substitution, not a redirection.
        if matches!(tok, RedirToken::Input | RedirToken::Output) && r.first() == Some(&b'(') {
            return Ok((i, None));
        }
        let op = match tok {
            RedirToken::HereString => RedirOp::HereString,
            RedirToken::HereDoc(_) => RedirOp::HereDoc,
            RedirToken::DupInput => RedirOp::DupInput,
            RedirToken::ReadWrite => RedirOp::ReadWrite,
            RedirToken::Input => RedirOp::Input,
            RedirToken::Append => RedirOp::Append,
            RedirToken::DupOutput => RedirOp::DupOutput,
            RedirToken::Clobber => RedirOp::Clobber,
            RedirToken::Output => RedirOp::Output,
            RedirToken::AppendBoth => RedirOp::AppendBoth,
            RedirToken::OutputBoth => RedirOp::OutputBoth,
        };
        let target_at = blanks(r);
        // Digits right before `<`/`>` are the next redirection's descriptor
        // (`>2>&1`), not this one's target: bash reports the missing target.
        // After `>&`/`<&` bash takes them as the descriptor (`2>&1>f`).
        let dup = matches!(tok, RedirToken::DupInput | RedirToken::DupOutput);
        if let Some((after, _)) = digits(target_at).filter(|_| !dup) {
            if matches!(after.first(), Some(b'<' | b'>')) && after.get(1) != Some(&b'(') {
                return Err(SyntaxError::Expected {
                    expected: "a word after a redirection operator",
                    found: super::describe(target_at),
                    at: self.span_at(target_at, 1),
                });
            }
        }
        let (rest, word) = match self.word(target_at, false)? {
            (rest, Some(w)) => (rest, w),
            (rest, None) => {
                let rest = blanks(rest);
                return Err(SyntaxError::Expected {
                    expected: "a word after a redirection operator",
                    found: super::describe(rest),
                    at: self.span_at(rest, 1),
                });
            }
        };
        let target = if let RedirToken::HereDoc(strip_tabs) = tok {
            // bash finds the end of `$((` in the raw text, pairing quotes
            // and counting parentheses across a body and its delimiter
            // line; text printed back pairs them another way.
            if self.nesting.in_arithmetic {
                return Err(SyntaxError::Unsupported {
                    feature: "a here-document inside `$(( … ))`",
                    at: self.span(i, rest),
                });
            }
            let (delimiter, quoted) = self.delimiter(&word)?;
            self.pending.push(PendingHereDoc {
                key: self.pos(i),
                delimiter: delimiter.clone(),
                quoted,
                strip_tabs,
                open: self.span(i, rest),
            });
            let body = Word {
                parts: Vec::new(),
                span: self.span(rest, rest),
            };
            RedirTarget::HereDoc(HereDoc {
                delimiter,
                quoted,
                strip_tabs,
                body,
            })
        } else {
            RedirTarget::Word(word)
        };
        Ok((
            rest,
            Some(Redirect {
                fd,
                op,
                target,
                span: self.span(i, rest),
            }),
        ))
    }

    /// A here-document delimiter after quote removal, and whether any part
    /// of it was quoted. An expansion in it is not expanded: as in bash, the
    /// delimiter is then the word's text with its quotes removed.
    fn delimiter(&self, word: &Word) -> Result<(Vec<u8>, bool), SyntaxError> {
        let mut text = Vec::new();
        let mut quoted = false;
        for part in &word.parts {
            match part {
                WordPart::Literal(b) => text.extend_from_slice(b),
                WordPart::Tilde(user) => {
                    text.push(b'~');
                    text.extend(user.iter().flatten());
                }
                WordPart::SingleQuoted(b) | WordPart::Escaped(b) => {
                    quoted = true;
                    text.extend_from_slice(b);
                }
                WordPart::DoubleQuoted(inner)
                    if inner.iter().all(|p| matches!(p, WordPart::Literal(_))) =>
                {
                    quoted = true;
                    for p in inner {
                        if let WordPart::Literal(b) = p {
                            text.extend_from_slice(b);
                        }
                    }
                }
                _ => return self.written_delimiter(word),
            }
        }
        Ok((text, quoted))
    }

    /// The delimiter as written, quotes removed (bash's
    /// `string_quote_removal`): for a word holding an expansion.
    fn written_delimiter(&self, word: &Word) -> Result<(Vec<u8>, bool), SyntaxError> {
        let written = word
            .span
            .start()
            .checked_sub(self.base)
            .zip(word.span.end().checked_sub(self.base))
            .and_then(|(start, end)| self.src.get(start..end))
            .ok_or_else(|| self.bad_delimiter(word))?;
        let mut text = Vec::new();
        let mut quoted = false;
        let mut bytes = written.iter().copied();
        while let Some(b) = bytes.next() {
            match b {
                b'\\' => {
                    quoted = true;
                    text.extend(bytes.next());
                }
                b'\'' => {
                    quoted = true;
                    text.extend(bytes.by_ref().take_while(|&c| c != b'\''));
                }
                b'"' => {
                    quoted = true;
                    while let Some(c) = bytes.next() {
                        match c {
                            b'"' => break,
                            b'\\' => match bytes.next() {
                                Some(e @ (b'$' | b'`' | b'"' | b'\\')) => text.push(e),
                                Some(e) => text.extend([b'\\', e]),
                                None => text.push(b'\\'),
                            },
                            c => text.push(c),
                        }
                    }
                }
                b => text.push(b),
            }
        }
        Ok((text, quoted))
    }

    fn bad_delimiter(&self, word: &Word) -> SyntaxError {
        SyntaxError::Unsupported {
            feature: "expansions in a here-document delimiter",
            at: word.span,
        }
    }
}
