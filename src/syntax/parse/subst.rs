//! Command substitution `$(…)` and `` `…` ``, process substitution
//! `<(…)`/`>(…)` and arithmetic `$((…))` (XCU 2.6.3, 2.6.4). Substituted
//! commands are parsed recursively into a [`List`], so the guard sees every
//! command inside. `$((` that does not close with `))` is a command
//! substitution of a subshell, as in bash.

use super::super::ast::{List, ProcessDirection, Word, WordPart};
use super::word::{Parts, Quoting};
use super::{MAX_DEPTH, PResult, Parser, SyntaxError};

/// What follows `((`: decided by the first unmatched `)`.
pub(super) enum ParenScan {
    /// `))` closes it: arithmetic whose text is this many bytes long.
    Arithmetic(usize),
    /// A `)` not followed by `)`: nested subshells.
    Subshell,
    Unterminated,
    /// Parentheses nested deeper than [`MAX_DEPTH`], at this offset.
    TooDeep(usize),
}

/// Scan the text after `((` for the parenthesis that closes it, skipping
/// quoted text. Looks at each byte once.
pub(super) fn scan_double_paren(i: &[u8]) -> ParenScan {
    let mut depth = 0usize;
    let mut k = 0;
    while let Some(&c) = i.get(k) {
        match c {
            b'\\' => k += 1,
            b'\'' => match i[k + 1..].iter().position(|&b| b == b'\'') {
                Some(n) => k += n + 1,
                None => return ParenScan::Unterminated,
            },
            b'"' => {
                k += 1;
                while let Some(&d) = i.get(k) {
                    match d {
                        b'\\' => k += 1,
                        b'"' => break,
                        _ => {}
                    }
                    k += 1;
                }
            }
            b'(' => {
                depth += 1;
                if depth > 2 * MAX_DEPTH {
                    return ParenScan::TooDeep(k);
                }
            }
            b')' if depth == 0 => {
                return if i.get(k + 1) == Some(&b')') {
                    ParenScan::Arithmetic(k)
                } else if i.get(k + 1).is_none() {
                    ParenScan::Unterminated
                } else {
                    ParenScan::Subshell
                };
            }
            b')' => depth -= 1,
            _ => {}
        }
        k += 1;
    }
    ParenScan::Unterminated
}

/// The offset of the `)` closing a `(` just before `i`, counting
/// parentheses and skipping quoted text as [`scan_double_paren`] does.
fn matching_close(i: &[u8]) -> Option<usize> {
    let mut depth = 1usize;
    let mut k = 0;
    while let Some(&c) = i.get(k) {
        match c {
            b'\\' => k += 1,
            // `$'…'` honours backslash escapes; `'…'` does not.
            b'\'' if k > 0 && i[k - 1] == b'$' => k = skip_to_quote(i, k + 1, b'\'')?,
            b'\'' => k += i[k + 1..].iter().position(|&b| b == b'\'')? + 1,
            b'"' => k = skip_to_quote(i, k + 1, b'"')?,
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
        k += 1;
    }
    None
}

/// A here-document opened inside a substitution that closed before its body.
fn body_outside(open: super::Span) -> SyntaxError {
    SyntaxError::Unsupported {
        feature: "a here-document whose body is not inside its `$( … )` or backticks",
        at: open,
    }
}

/// The offset of the next unescaped `quote` at or after `k`.
pub(super) fn skip_to_quote(i: &[u8], mut k: usize, quote: u8) -> Option<usize> {
    loop {
        match *i.get(k)? {
            b'\\' => k += 2,
            c if c == quote => return Some(k),
            _ => k += 1,
        }
    }
}

impl<'a> Parser<'a> {
    /// The arithmetic text that is the first `len` bytes of `i` (a suffix
    /// of the input): `$(( ))`, `(( ))` and each part of `for (( ))`.
    #[inline(never)]
    pub(super) fn arith_word(&mut self, i: &'a [u8], len: usize) -> Result<Word, SyntaxError> {
        self.enter(i)?;
        let text = &i[..len];
        // `text` is no suffix of the input, so its offset is that of the
        // suffix it starts.
        let mut sub = self.nested(text, self.pos(i));
        sub.nesting.in_arithmetic = true;
        let parts = sub.arith_text();
        // The arithmetic text is a slice of this parser's text; what it
        // read as written counts even when it failed.
        self.literals.append(&mut sub.literals);
        let mut word = Word {
            parts: parts?,
            span: self.span(i, &i[len..]),
        };
        sub.finish_word(&mut word)?;
        self.leave();
        Ok(word)
    }

    /// `$(…)` or `$((…))` at `i` (which starts with `$(`).
    pub(super) fn dollar_paren(&mut self, i: &'a [u8]) -> PResult<'a, WordPart> {
        if i.starts_with(b"$((") {
            match scan_double_paren(&i[3..]) {
                ParenScan::Arithmetic(len) => {
                    let word = self.arith_word(&i[3..], len)?;
                    return Ok((&i[3 + len + 2..], WordPart::Arithmetic(word)));
                }
                ParenScan::TooDeep(at) => {
                    return Err(SyntaxError::TooDeep {
                        limit: MAX_DEPTH,
                        at: self.span_at(&i[3 + at..], 1),
                    });
                }
                ParenScan::Unterminated => {
                    return Err(SyntaxError::Unterminated {
                        what: "`$((`",
                        open: self.span_at(i, 3),
                    });
                }
                ParenScan::Subshell => {}
            }
        }
        let open = self.span_at(i, 2);
        let (r, list) = self.nested_list(&i[2..], "`$(`", open)?;
        self.check_paren_end(i, r)?;
        Ok((
            r,
            WordPart::CommandSubst {
                list,
                backtick: false,
            },
        ))
    }

    /// `<(…)` or `>(…)` at `i`.
    pub(super) fn process_subst(&mut self, i: &'a [u8]) -> PResult<'a, WordPart> {
        let direction = if i[0] == b'<' {
            ProcessDirection::Read
        } else {
            ProcessDirection::Write
        };
        let what = if i[0] == b'<' { "`<(`" } else { "`>(`" };
        let (r, list) = self.nested_list(&i[2..], what, self.span_at(i, 2))?;
        self.check_paren_end(i, r)?;
        Ok((r, WordPart::ProcessSubst { direction, list }))
    }

    /// `$((`, `<((` and `>((` that are not arithmetic: bash finds their
    /// end by counting parentheses rather than by parsing, so a case
    /// pattern's lone `)` inside ends them early. Refuse what bash would
    /// read differently from the grammar (`i` is at `$(`/`<(`/`>(`, `rest`
    /// just after the parsed closing `)`).
    fn check_paren_end(&self, i: &'a [u8], rest: &'a [u8]) -> Result<(), SyntaxError> {
        if i.get(2) != Some(&b'(') {
            return Ok(());
        }
        let parsed_end = i.len() - rest.len() - 1;
        match matching_close(&i[2..]) {
            Some(k) if k + 2 == parsed_end => Ok(()),
            _ => Err(SyntaxError::Unsupported {
                feature: "a `)` inside `$((…)` that bash reads as its end (write `$( (` with a space)",
                at: self.span_at(i, 3),
            }),
        }
    }

    /// A list in its own here-document scope, closed by `)`.
    fn nested_list(
        &mut self,
        i: &'a [u8],
        what: &'static str,
        open: super::Span,
    ) -> PResult<'a, List> {
        self.enter(i)?;
        let outer = std::mem::take(&mut self.pending);
        let (r, list) = self.list(i)?;
        let Some(r) = r.strip_prefix(b")") else {
            return Err(self.unclosed(r, what, open));
        };
        // The substitution is closed, so more input cannot supply the body:
        // not an "incomplete" error (bash runs it with an empty body).
        if let Some(p) = self.pending.first() {
            return Err(body_outside(p.open));
        }
        self.pending = outer;
        self.leave();
        Ok((r, list))
    }

    /// `` `…` `` at `i`: inside, `\$`, `` \` ``, `\\` (and `\"` within
    /// double quotes) stand for the escaped character; the rest is parsed
    /// as a list of its own.
    pub(super) fn backtick(&mut self, i: &'a [u8], in_double: bool) -> PResult<'a, WordPart> {
        let open = self.span_at(i, 1);
        let mut text = Vec::new();
        let mut k = 1;
        loop {
            match i.get(k) {
                None => {
                    return Err(SyntaxError::Unterminated {
                        what: "backtick",
                        open,
                    });
                }
                Some(b'`') => break,
                Some(b'\\') => match i.get(k + 1) {
                    Some(&e @ (b'$' | b'`' | b'\\')) => {
                        text.push(e);
                        k += 2;
                    }
                    Some(b'"') if in_double => {
                        text.push(b'"');
                        k += 2;
                    }
                    Some(&e) => {
                        text.extend_from_slice(&[b'\\', e]);
                        k += 2;
                    }
                    None => {
                        return Err(SyntaxError::Unterminated {
                            what: "backtick",
                            open,
                        });
                    }
                },
                Some(&c) => {
                    text.push(c);
                    k += 1;
                }
            }
        }
        self.enter(i)?;
        // The body is read again as a script of its own, so line
        // continuations the unescaping made are removed as bash does.
        let list = self
            .nested_program(&text, open.end())
            .map_err(|e| match e {
                SyntaxError::UnterminatedHereDoc { open, .. } => body_outside(open),
                e => e,
            })?;
        self.leave();
        Ok((
            &i[k + 1..],
            WordPart::CommandSubst {
                list,
                backtick: true,
            },
        ))
    }

    /// The text of `$((…))` (all of `src`): literal text with `$`
    /// expansions, backticks and double quotes as parts.
    pub(super) fn arith_text(&mut self) -> Result<Vec<WordPart>, SyntaxError> {
        let mut p = Parts::default();
        let mut rest = self.src;
        // Parentheses of the expression itself. `$((` found its end by
        // counting every parenthesis, also those a substitution's comment
        // hid; one that closes nothing in the expression is refused, as the
        // text printed back would end the arithmetic elsewhere.
        let mut open = 0usize;
        while let Some(&c) = rest.first() {
            match c {
                b'(' => {
                    open += 1;
                    p.lit(b"(");
                    rest = &rest[1..];
                }
                b')' => {
                    let Some(n) = open.checked_sub(1) else {
                        return Err(SyntaxError::Unsupported {
                            feature: "a `)` inside `$(( … ))` that closes no `(` of the expression",
                            at: self.span_at(rest, 1),
                        });
                    };
                    open = n;
                    p.lit(b")");
                    rest = &rest[1..];
                }
                b'$' => rest = self.dollar_into(rest, Quoting::Arith, &mut p)?,
                b'`' => {
                    let (r, part) = self.backtick(rest, false)?;
                    p.push(part);
                    rest = r;
                }
                b'"' => {
                    let (r, inner) = self.double_quoted(rest)?;
                    p.push(WordPart::DoubleQuoted(inner));
                    rest = r;
                }
                b'\'' | b'\\' => {
                    return Err(SyntaxError::Unsupported {
                        feature: "quotes or escapes inside `$(( … ))`",
                        at: self.span_at(rest, 1),
                    });
                }
                _ => {
                    p.lit(&rest[..1]);
                    rest = &rest[1..];
                }
            }
        }
        // `$[ (1 ]` (`$((` pairs its parentheses before it gets here): the
        // text printed back as `$(( (1 ))` would end elsewhere.
        if open > 0 {
            return Err(SyntaxError::Unsupported {
                feature: "a `(` inside `$[ … ]` that is not closed",
                at: self.span_at(self.src, self.src.len().min(1)),
            });
        }
        Ok(p.finish())
    }
}
