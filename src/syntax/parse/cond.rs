//! `[[ expression ]]` (bash): words are not split or globbed, `<` and `>`
//! compare strings, the right side of `==`/`!=`/`=` is a pattern and that
//! of `=~` an extended regular expression, whose `(`, `)` and `|` are part
//! of the word.

use super::super::ast::{CompoundKind, CondExpr, Word, WordPart};
use super::super::lex::{blanks, is_meta};
use super::{PResult, Parser, SyntaxError};
use crate::syntax::span::Span;

/// Unary operators, as bash's `[[` knows them.
const UNARY: [&str; 25] = [
    "-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-p", "-r", "-s", "-t", "-u", "-w", "-x",
    "-G", "-L", "-N", "-O", "-S", "-z", "-n", "-v", "-o",
];
/// Binary operators written as words (`<` and `>` are operators of their own).
const BINARY: [&str; 13] = [
    "==", "=", "!=", "=~", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef",
];

/// Blanks and newlines between the tokens of `[[ ]]`.
fn gap(mut i: &[u8]) -> &[u8] {
    loop {
        i = blanks(i);
        match i.first() {
            Some(b'\n') => i = &i[1..],
            _ => return i,
        }
    }
}

/// `]]` as a token at `i`.
fn at_close(i: &[u8]) -> bool {
    i.starts_with(b"]]") && i.get(2).is_none_or(|&b| is_meta(b))
}

/// The word's text when it is one unquoted literal.
fn literal(word: &Word) -> Option<&[u8]> {
    match word.parts.as_slice() {
        [WordPart::Literal(bytes)] => Some(bytes),
        _ => None,
    }
}

impl<'a> Parser<'a> {
    /// `[[ expression ]]` at `i` (which starts with `[[`). Never inlined:
    /// its locals would widen the frame of every nested compound command,
    /// and the parser's depth is bounded by stack used.
    #[inline(never)]
    pub(super) fn conditional(&mut self, i: &'a [u8]) -> PResult<'a, CompoundKind> {
        let open = self.span_at(i, 2);
        let r = gap(&i[2..]);
        if at_close(r) {
            return Err(self.expected(r, "an expression in `[[ … ]]`"));
        }
        let (r, expr) = self.cond_or(r, open)?;
        let r = gap(r);
        if r.is_empty() {
            return Err(SyntaxError::Unterminated { what: "`[[`", open });
        }
        if !at_close(r) {
            return Err(self.expected(r, "`]]`"));
        }
        Ok((&r[2..], CompoundKind::Conditional(Box::new(expr))))
    }

    fn expected(&self, i: &[u8], what: &'static str) -> SyntaxError {
        SyntaxError::InConditional {
            expected: what,
            found: super::describe(i).into(),
            at: self.span_at(i, 1),
        }
    }

    fn cond_or(&mut self, i: &'a [u8], open: Span) -> PResult<'a, CondExpr> {
        let (mut r, mut left) = self.cond_and(i, open)?;
        loop {
            let r2 = gap(r);
            let Some(r3) = r2.strip_prefix(b"||") else {
                return Ok((r, left));
            };
            let (r4, right) = self.cond_and(gap(r3), open)?;
            left = CondExpr::Or(Box::new(left), Box::new(right));
            r = r4;
        }
    }

    fn cond_and(&mut self, i: &'a [u8], open: Span) -> PResult<'a, CondExpr> {
        let (mut r, mut left) = self.cond_not(i, open)?;
        loop {
            let r2 = gap(r);
            let Some(r3) = r2.strip_prefix(b"&&") else {
                return Ok((r, left));
            };
            let (r4, right) = self.cond_not(gap(r3), open)?;
            left = CondExpr::And(Box::new(left), Box::new(right));
            r = r4;
        }
    }

    fn cond_not(&mut self, i: &'a [u8], open: Span) -> PResult<'a, CondExpr> {
        let i = gap(i);
        if i.first() == Some(&b'!') && i.get(1).is_none_or(|&b| is_meta(b)) {
            self.enter(i)?;
            let (r, inner) = self.cond_not(&i[1..], open)?;
            self.leave();
            return Ok((r, CondExpr::Not(Box::new(inner))));
        }
        self.cond_primary(i, open)
    }

    fn cond_primary(&mut self, i: &'a [u8], open: Span) -> PResult<'a, CondExpr> {
        let i = gap(i);
        if let Some(inner) = i.strip_prefix(b"(") {
            self.enter(i)?;
            let (r, expr) = self.cond_or(gap(inner), open)?;
            self.leave();
            let r = gap(r);
            let Some(r) = r.strip_prefix(b")") else {
                return Err(self.expected(r, "`)` in `[[ … ]]`"));
            };
            return Ok((r, expr));
        }
        let (r, first) = self.cond_word(i)?;
        let after = gap(r);
        // A unary operator applies when an operand follows it.
        if let Some(op) = literal(&first).filter(|w| UNARY.iter().any(|u| u.as_bytes() == *w)) {
            let op = String::from_utf8_lossy(op).into_owned();
            let operand_at = gap(r);
            let ends = operand_at.is_empty()
                || at_close(operand_at)
                || operand_at.starts_with(b"&&")
                || operand_at.starts_with(b"||")
                || operand_at.starts_with(b")");
            if !ends {
                let (r, operand) = self.cond_word(operand_at)?;
                return Ok((r, CondExpr::Unary { op, operand }));
            }
            if !after.is_empty() && !at_close(after) {
                return Err(self.expected(after, "an operand"));
            }
            return Err(self.expected(after, "an operand after the unary operator"));
        }
        // `<` and `>` compare strings; other binary operators are words.
        let (r2, op) = match after.first() {
            Some(&c @ (b'<' | b'>')) => (&after[1..], String::from(c as char)),
            _ if at_close(after)
                || after.is_empty()
                || after.starts_with(b"&&")
                || after.starts_with(b"||")
                || after.starts_with(b")") =>
            {
                return Ok((r, CondExpr::Word(first)));
            }
            _ => {
                let (r2, op_word) = self.cond_word(after)?;
                match literal(&op_word).filter(|w| BINARY.iter().any(|b| b.as_bytes() == *w)) {
                    Some(op) => (r2, String::from_utf8_lossy(op).into_owned()),
                    None => return Err(self.expected(after, "a binary operator in `[[ … ]]`")),
                }
            }
        };
        let right_at = gap(r2);
        if right_at.is_empty() || at_close(right_at) {
            return Err(self.expected(right_at, "an operand after the binary operator"));
        }
        let (r3, right) = if op == "=~" {
            self.regex_word(right_at)?
        } else {
            self.cond_word(right_at)?
        };
        Ok((
            r3,
            CondExpr::Binary {
                op,
                left: first,
                right,
            },
        ))
    }

    /// One operand of `[[ ]]`.
    fn cond_word(&mut self, i: &'a [u8]) -> PResult<'a, Word> {
        match self.word(i, false)? {
            (r, Some(w)) => Ok((r, w)),
            (_, None) => Err(self.expected(i, "an operand in `[[ … ]]`")),
        }
    }

    /// The right side of `=~`: up to a blank outside parentheses; `(`,
    /// `)` and `|` are literal parts of it.
    fn regex_word(&mut self, i: &'a [u8]) -> PResult<'a, Word> {
        let mut parts = Vec::new();
        let mut depth = 0usize;
        let mut r = i;
        loop {
            match r.first() {
                None => break,
                Some(b' ' | b'\t' | b'\n') if depth == 0 => break,
                Some(b')') if depth == 0 => break,
                Some(b'|') if depth == 0 && r.starts_with(b"||") => break,
                // `?(`, `*(`… are a regex's own, never extended globs.
                Some(&c @ (b'?' | b'*' | b'+' | b'@' | b'!')) if r.get(1) == Some(&b'(') => {
                    parts.push(WordPart::Literal(vec![c]));
                    r = &r[1..];
                }
                Some(&c @ (b'(' | b')' | b'|' | b' ' | b'\t' | b'<' | b'>' | b'&' | b';')) => {
                    match c {
                        b'(' => depth += 1,
                        b')' => depth -= 1,
                        _ => {}
                    }
                    parts.push(WordPart::Literal(vec![c]));
                    r = &r[1..];
                }
                Some(_) => match self.word(r, false)? {
                    (r2, Some(w)) => {
                        parts.extend(w.parts);
                        r = r2;
                    }
                    (_, None) => return Err(self.expected(r, "a regular expression")),
                },
            }
        }
        if parts.is_empty() {
            return Err(self.expected(r, "a regular expression"));
        }
        Ok((
            r,
            Word {
                parts,
                span: self.span(i, r),
            },
        ))
    }
}
