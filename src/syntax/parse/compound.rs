//! Compound commands (XCU 2.9.4): `{ }`, `( )`, `if`, `while`/`until`,
//! `for`, `case`, each with the redirections after it. Bodies must not be
//! empty (as in bash), and every opener must meet its closer.

use super::super::ast::{
    ArithForLoop, CaseArm, CaseTerminator, CompoundCommand, CompoundKind, List, Word,
};
use super::super::lex::{ControlOp, blanks, control_op, name, token};
use super::command::reserved_at;
use super::subst::{ParenScan, scan_double_paren};
use super::{PResult, Parser, SyntaxError};

impl<'a> Parser<'a> {
    /// The compound command at `i` (which starts with `(` or a reserved
    /// word that opens one) and its trailing redirections.
    pub(super) fn compound(&mut self, i: &'a [u8]) -> PResult<'a, CompoundCommand> {
        self.enter(i)?;
        let (r, kind) = if i.first() == Some(&b'(') {
            self.subshell(i)?
        } else {
            match reserved_at(i) {
                Some("{") => self.brace_group(i)?,
                Some("if") => self.if_command(i)?,
                Some("while") => self.loop_command(i, false)?,
                Some("until") => self.loop_command(i, true)?,
                Some("for") => self.for_command(i)?,
                Some("case") => self.case_command(i)?,
                Some("[[") => self.conditional(i)?,
                _ => return Err(self.unexpected(i)),
            }
        };
        self.leave();
        let mut redirects = Vec::new();
        let mut rest = r;
        let mut end = r;
        loop {
            let r2 = blanks(rest);
            match self.redirect(r2)? {
                (r3, Some(redir)) => {
                    redirects.push(redir);
                    rest = r3;
                    end = r3;
                }
                (_, None) => break,
            }
        }
        Ok((
            rest,
            CompoundCommand {
                kind,
                redirects,
                span: self.span(i, end),
            },
        ))
    }

    /// `( list )`, or `(( expression ))` when `((` closes with `))`.
    fn subshell(&mut self, i: &'a [u8]) -> PResult<'a, CompoundKind> {
        if i.starts_with(b"((") {
            match scan_double_paren(&i[2..]) {
                ParenScan::Arithmetic(len) => {
                    let word = self.arith_word(&i[2..], len)?;
                    return Ok((&i[2 + len + 2..], CompoundKind::Arithmetic(word)));
                }
                ParenScan::TooDeep(at) => {
                    return Err(SyntaxError::TooDeep {
                        limit: super::MAX_DEPTH,
                        at: self.span_at(&i[2 + at..], 1),
                    });
                }
                ParenScan::Unterminated | ParenScan::Subshell => {}
            }
        }
        let open = self.span_at(i, 1);
        let (r, body) = self.list(&i[1..])?;
        if body.items.is_empty() {
            return Err(self.unclosed(r, "`(`", open));
        }
        let Some(r) = r.strip_prefix(b")") else {
            return Err(self.unclosed(r, "`(`", open));
        };
        Ok((r, CompoundKind::Subshell(body)))
    }

    /// `{ list ; }`
    fn brace_group(&mut self, i: &'a [u8]) -> PResult<'a, CompoundKind> {
        let open = self.span_at(i, 1);
        let (r, body) = self.list(&i[1..])?;
        self.non_empty(&body, r, "`{`", open)?;
        let r = self.keyword(r, "}", "`{`", open)?;
        Ok((r, CompoundKind::BraceGroup(body)))
    }

    /// `if list then list { elif list then list } [ else list ] fi`
    fn if_command(&mut self, i: &'a [u8]) -> PResult<'a, CompoundKind> {
        let open = self.span_at(i, 2);
        let mut branches = Vec::new();
        let mut rest = &i[2..];
        let else_body = loop {
            let (r, cond) = self.list(rest)?;
            self.non_empty(&cond, r, "`if`", open)?;
            let r = self.keyword(r, "then", "`if`", open)?;
            let (r, body) = self.list(r)?;
            self.non_empty(&body, r, "`if`", open)?;
            branches.push((cond, body));
            match reserved_at(r) {
                Some("elif") => rest = &r[4..],
                Some("else") => {
                    let (r, body) = self.list(&r[4..])?;
                    self.non_empty(&body, r, "`if`", open)?;
                    rest = self.keyword(r, "fi", "`if`", open)?;
                    break Some(body);
                }
                _ => {
                    rest = self.keyword(r, "fi", "`if`", open)?;
                    break None;
                }
            }
        };
        Ok((
            rest,
            CompoundKind::If {
                branches,
                else_body,
            },
        ))
    }

    /// `while list do list done` / `until list do list done`
    fn loop_command(&mut self, i: &'a [u8], until: bool) -> PResult<'a, CompoundKind> {
        let (len, what) = if until {
            (5, "`until`")
        } else {
            (5, "`while`")
        };
        let open = self.span_at(i, len);
        let (r, condition) = self.list(&i[len..])?;
        self.non_empty(&condition, r, what, open)?;
        let (r, body) = self.do_group(r, what, open)?;
        Ok((
            r,
            CompoundKind::Loop {
                until,
                condition,
                body,
            },
        ))
    }

    /// `do list done`
    fn do_group(
        &mut self,
        i: &'a [u8],
        what: &'static str,
        open: super::Span,
    ) -> PResult<'a, List> {
        let r = self.keyword(i, "do", what, open)?;
        let (r, body) = self.list(r)?;
        self.non_empty(&body, r, what, open)?;
        let r = self.keyword(r, "done", what, open)?;
        Ok((r, body))
    }

    /// `for (( init; condition; step )) [;] do list done`, at `((`. Never
    /// inlined: its locals would widen the frame of every nested compound
    /// command, and the parser's depth is bounded by stack used.
    #[inline(never)]
    fn arith_for(&mut self, i: &'a [u8], open: super::Span) -> PResult<'a, CompoundKind> {
        let len = match scan_double_paren(&i[2..]) {
            ParenScan::Arithmetic(len) => len,
            ParenScan::TooDeep(at) => {
                return Err(SyntaxError::TooDeep {
                    limit: super::MAX_DEPTH,
                    at: self.span_at(&i[2 + at..], 1),
                });
            }
            ParenScan::Unterminated | ParenScan::Subshell => {
                return Err(SyntaxError::Unterminated {
                    what: "`for ((`",
                    open,
                });
            }
        };
        let text = &i[2..2 + len];
        let semis = top_level_semicolons(text);
        let [first, second] = semis[..] else {
            return Err(SyntaxError::Expected {
                expected: "`for (( init; condition; step ))` with two `;`",
                found: super::describe(text),
                at: self.span_at(&i[2..], len.max(1)),
            });
        };
        let init = self.arith_word(&i[2..], first)?;
        let condition = self.arith_word(&i[2 + first + 1..], second - first - 1)?;
        let step = self.arith_word(&i[2 + second + 1..], len - second - 1)?;
        let mut r = blanks(&i[2 + len + 2..]);
        if let Some((r2, ControlOp::Semi)) = control_op(r) {
            r = r2;
        }
        let r = self.linebreaks(r)?;
        let (r, body) = self.do_group(r, "`for`", open)?;
        Ok((
            r,
            CompoundKind::ArithFor(Box::new(ArithForLoop {
                init,
                condition,
                step,
                body,
            })),
        ))
    }

    /// `for name [ in words ] ; do list done` (also `for name do …`).
    fn for_command(&mut self, i: &'a [u8]) -> PResult<'a, CompoundKind> {
        let open = self.span_at(i, 3);
        let r = blanks(&i[3..]);
        if r.starts_with(b"((") {
            return self.arith_for(r, open);
        }
        // A word that is not a name (`for - in …`) is bash's run-time
        // error, not a syntax error; one with quotes or expansions is
        // refused here.
        let is_meta = super::super::lex::is_meta;
        let plain_word = || {
            let len = r.iter().position(|&b| is_meta(b)).unwrap_or(r.len());
            let plain = len > 0 && !r[..len].iter().any(|b| b"'\"\\$`".contains(b));
            plain.then(|| (&r[len..], &r[..len]))
        };
        let Some((after_name, var)) = name(r)
            .filter(|(rest, _)| rest.first().is_none_or(|&b| is_meta(b)))
            .or_else(plain_word)
        else {
            if r.is_empty() {
                return Err(SyntaxError::Unterminated {
                    what: "`for`",
                    open,
                });
            }
            return Err(SyntaxError::Expected {
                expected: "a variable name after `for`",
                found: super::describe(r),
                at: self.span_at(r, 1),
            });
        };
        let variable = String::from_utf8_lossy(var).into_owned();
        let mut r = blanks(after_name);
        let mut words = None;
        if let Some((r2, ControlOp::Semi)) = control_op(r) {
            r = r2;
        } else if token(r) == b"in" || r.first() == Some(&b'\n') {
            let after = self.linebreaks(r)?;
            if token(after) != b"in" {
                let r = after;
                let (r, body) = self.do_group(r, "`for`", open)?;
                return Ok((
                    r,
                    CompoundKind::For {
                        variable,
                        words,
                        body,
                    },
                ));
            }
            let mut r2 = &after[2..];
            let mut list: Vec<Word> = Vec::new();
            loop {
                r2 = blanks(r2);
                match r2.first() {
                    None => {
                        return Err(SyntaxError::Unterminated {
                            what: "`for`",
                            open,
                        });
                    }
                    Some(b'\n') => break,
                    Some(b';') if control_op(r2).map(|x| x.1) == Some(ControlOp::Semi) => {
                        r2 = &r2[1..];
                        break;
                    }
                    Some(b'#') => {
                        r2 = self.skip_comment(r2)?;
                        continue;
                    }
                    Some(_) => {}
                }
                match self.word(r2, false)? {
                    (r3, Some(w)) => {
                        list.push(w);
                        r2 = r3;
                    }
                    (r3, None) if r3.len() < r2.len() => r2 = r3,
                    (_, None) => return Err(self.unexpected(r2)),
                }
            }
            words = Some(list);
            r = r2;
        }
        let r = self.linebreaks(r)?;
        let (r, body) = self.do_group(r, "`for`", open)?;
        Ok((
            r,
            CompoundKind::For {
                variable,
                words,
                body,
            },
        ))
    }

    /// `case word in [ [(] pattern { | pattern } ) list terminator ] … esac`
    fn case_command(&mut self, i: &'a [u8]) -> PResult<'a, CompoundKind> {
        let open = self.span_at(i, 4);
        let r = blanks(&i[4..]);
        let (r, subject) = match self.word(r, false)? {
            (r, Some(w)) => (r, w),
            (r, None) => return Err(self.unclosed_expected(r, "a word after `case`", open)),
        };
        let r = self.linebreaks(r)?;
        if token(r) != b"in" {
            return Err(self.unclosed_expected(r, "`in`", open));
        }
        let mut rest = &r[2..];
        let mut arms = Vec::new();
        loop {
            rest = self.linebreaks(rest)?;
            if reserved_at(rest) == Some("esac") {
                rest = &rest[4..];
                break;
            }
            if rest.is_empty() {
                return Err(SyntaxError::Unterminated {
                    what: "`case`",
                    open,
                });
            }
            let mut r = rest;
            if r.first() == Some(&b'(') {
                r = blanks(&r[1..]);
            }
            let mut patterns = Vec::new();
            loop {
                r = blanks(r);
                match self.word(r, false)? {
                    (r2, Some(w)) => {
                        patterns.push(w);
                        r = blanks(r2);
                    }
                    (r2, None) => return Err(self.unclosed_expected(r2, "a pattern", open)),
                }
                match r.first() {
                    Some(b'|') => r = &r[1..],
                    Some(b')') => {
                        r = &r[1..];
                        break;
                    }
                    _ => return Err(self.unclosed_expected(r, "`)` after a case pattern", open)),
                }
            }
            let (r, body) = self.list(r)?;
            let r = blanks(r);
            let (r, terminator, last) = match control_op(r) {
                Some((r2, ControlOp::DoubleSemi)) => (r2, CaseTerminator::Break, false),
                Some((r2, ControlOp::SemiAmp)) => (r2, CaseTerminator::FallThrough, false),
                Some((r2, ControlOp::DoubleSemiAmp)) => (r2, CaseTerminator::Continue, false),
                _ if reserved_at(r) == Some("esac") => (&r[4..], CaseTerminator::Break, true),
                _ => return Err(self.unclosed(r, "`case`", open)),
            };
            arms.push(CaseArm {
                patterns,
                body,
                terminator,
            });
            rest = r;
            if last {
                break;
            }
        }
        Ok((rest, CompoundKind::Case { subject, arms }))
    }

    /// The reserved word `word` at `i` (after blanks), closing what opened at `open`.
    fn keyword(
        &mut self,
        i: &'a [u8],
        word: &'static str,
        what: &'static str,
        open: super::Span,
    ) -> Result<&'a [u8], SyntaxError> {
        let r = self.linebreaks(i)?;
        if token(r) == word.as_bytes() {
            Ok(&r[word.len()..])
        } else {
            Err(self.unclosed(r, what, open))
        }
    }

    /// Compound bodies must hold at least one command (bash agrees).
    fn non_empty(
        &self,
        list: &List,
        at: &'a [u8],
        what: &'static str,
        open: super::Span,
    ) -> Result<(), SyntaxError> {
        if list.items.is_empty() {
            return Err(self.unclosed(blanks(at), what, open));
        }
        Ok(())
    }

    fn unclosed_expected(
        &self,
        i: &'a [u8],
        expected: &'static str,
        open: super::Span,
    ) -> SyntaxError {
        let i = blanks(i);
        if i.is_empty() {
            SyntaxError::Unterminated {
                what: "`case`",
                open,
            }
        } else {
            SyntaxError::Expected {
                expected,
                found: super::describe(i),
                at: self.span_at(i, 1),
            }
        }
    }
}

/// Offsets of the `;` in `text` outside parentheses and quotes: where the
/// three parts of `for (( ; ; ))` end.
fn top_level_semicolons(text: &[u8]) -> Vec<usize> {
    let mut found = Vec::new();
    let mut depth = 0usize;
    let mut quote = None;
    let mut k = 0;
    while let Some(&c) = text.get(k) {
        match (quote, c) {
            (_, b'\\') => k += 1,
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, b'\'' | b'"') => quote = Some(c),
            (None, b'(') => depth += 1,
            (None, b')') => depth = depth.saturating_sub(1),
            (None, b';') if depth == 0 => found.push(k),
            _ => {}
        }
        k += 1;
    }
    found
}
