//! Parameter expansion (XCU 2.6.2) and the dispatch on `$`: `$name`,
//! `$1`, `$?`…, `${…}` with its operators (the operand words are parsed as
//! words, with their own quotes and expansions), and the hand-off to
//! command substitution, arithmetic and `$'…'`.

use super::super::ast::{
    ParamExpansion, ParamOp, Parameter, ReplaceMode, SpecialParam, Word, WordPart,
};
use super::super::lex::{char_len, digits, name};
use super::word::{Parts, Quoting, tilde};
use super::{PResult, Parser, SyntaxError};

fn special(b: u8) -> Option<SpecialParam> {
    Some(match b {
        b'?' => SpecialParam::Status,
        b'#' => SpecialParam::Count,
        b'@' => SpecialParam::AtSign,
        b'*' => SpecialParam::Star,
        b'$' => SpecialParam::Pid,
        b'!' => SpecialParam::LastBackground,
        b'-' => SpecialParam::Flags,
        _ => return None,
    })
}

/// How a `${…}` operand word is read.
#[derive(Clone, Copy)]
struct Operand {
    /// Bytes (besides `}`) that end the operand.
    stop: &'static [u8],
    /// The expansion is inside double quotes (or a here-document).
    quoted: bool,
    /// Inside double quotes (not a here-document): bash's `extquote`
    /// (on by default) still decodes `$'…'` there.
    extquote: bool,
    /// A value word (`-`, `=`, `?`, `+`) rather than a pattern: inside
    /// double quotes its single quotes are ordinary characters, as in bash.
    value: bool,
}

impl<'a> Parser<'a> {
    /// The expansion starting at the `$` at `i`; `None` (input unchanged
    /// past the `$`) when the `$` is literal.
    pub(super) fn dollar(&mut self, i: &'a [u8], q: Quoting) -> PResult<'a, Option<WordPart>> {
        let after = &i[1..];
        let Some(&c) = after.first() else {
            return Ok((after, None));
        };
        match c {
            b'(' => {
                let (r, part) = self.dollar_paren(i)?;
                Ok((r, Some(part)))
            }
            b'{' => {
                let (r, pe) = self.braced(i, q)?;
                Ok((r, Some(WordPart::Parameter(pe))))
            }
            b'\'' if q == Quoting::Unquoted => {
                let (r, text) = self.ansi_c(i)?;
                Ok((r, Some(WordPart::AnsiC(text))))
            }
            b'"' if q == Quoting::Unquoted => Err(SyntaxError::Unsupported {
                feature: "`$\"…\"` locale strings (use `\"…\"`)",
                at: self.span_at(i, 2),
            }),
            b'[' => Err(SyntaxError::Unsupported {
                feature: "`$[ … ]` arithmetic (use `$(( … ))`)",
                at: self.span_at(i, 2),
            }),
            _ => {
                let (r, param) = if let Some((r, nm)) = name(after) {
                    (
                        r,
                        Parameter::Named(String::from_utf8_lossy(nm).into_owned()),
                    )
                } else if c.is_ascii_digit() {
                    (&after[1..], Parameter::Positional(u32::from(c - b'0')))
                } else if let Some(sp) = special(c) {
                    (&after[1..], Parameter::Special(sp))
                } else {
                    return Ok((after, None));
                };
                let span = self.span(i, r);
                Ok((
                    r,
                    Some(WordPart::Parameter(ParamExpansion {
                        param,
                        op: ParamOp::Plain,
                        braced: false,
                        span,
                    })),
                ))
            }
        }
    }

    /// The parameter at `i` inside braces: a name, digits or a special.
    fn param_name(&self, i: &'a [u8]) -> Result<Option<(&'a [u8], Parameter)>, SyntaxError> {
        if let Some((r, nm)) = name(i) {
            return Ok(Some((
                r,
                Parameter::Named(String::from_utf8_lossy(nm).into_owned()),
            )));
        }
        if let Some((r, d)) = digits(i) {
            let n = std::str::from_utf8(d)
                .ok()
                .and_then(|s| s.parse::<u32>().ok());
            return match n {
                Some(n) => Ok(Some((r, Parameter::Positional(n)))),
                None => Err(SyntaxError::BadSubstitution {
                    at: self.span_at(i, d.len()),
                }),
            };
        }
        Ok(i.first()
            .and_then(|&b| special(b))
            .map(|sp| (&i[1..], Parameter::Special(sp))))
    }

    /// `${…}` at `i` (which starts with `${`).
    fn braced(&mut self, i: &'a [u8], q: Quoting) -> PResult<'a, ParamExpansion> {
        self.enter(i)?;
        let open = self.span_at(i, 2);
        let quoted = q != Quoting::Unquoted;
        let extquote = q == Quoting::Double;
        let inner = &i[2..];
        let done = |p: &Self, r: &'a [u8], param, op| -> PResult<'a, ParamExpansion> {
            match r.strip_prefix(b"}") {
                Some(rest) => Ok((
                    rest,
                    ParamExpansion {
                        param,
                        op,
                        braced: true,
                        span: p.span(i, rest),
                    },
                )),
                None if r.is_empty() => Err(SyntaxError::Unterminated { what: "`${`", open }),
                None => Err(SyntaxError::BadSubstitution {
                    at: p.span_at(r, char_len(r)),
                }),
            }
        };
        // `${#x}` (length), `${#}` (the count).
        if let Some(after_hash) = inner.strip_prefix(b"#") {
            if let Some((r, param)) = self.param_name(after_hash)? {
                if r.first() == Some(&b'}') {
                    let res = done(self, r, param, ParamOp::Length);
                    self.leave();
                    return res;
                }
            }
        }
        if inner.first() == Some(&b'!') && inner.get(1) != Some(&b'}') {
            return Err(SyntaxError::Unsupported {
                feature: "`${!…}` indirect expansion",
                at: self.span_at(i, 3),
            });
        }
        let Some((r, param)) = self.param_name(inner)? else {
            if inner.is_empty() {
                return Err(SyntaxError::Unterminated { what: "`${`", open });
            }
            return Err(SyntaxError::BadSubstitution {
                at: self.span_at(inner, char_len(inner)),
            });
        };
        if r.first() == Some(&b'[') {
            return Err(SyntaxError::Unsupported {
                feature: "arrays (`${a[i]}`)",
                at: self.span_at(r, 1),
            });
        }
        let value = Operand {
            stop: b"",
            quoted,
            extquote,
            value: true,
        };
        let pattern = Operand {
            stop: b"",
            quoted,
            extquote,
            value: false,
        };
        let (r, op) = match r {
            [b'}', ..] => (r, ParamOp::Plain),
            [b':', c @ (b'-' | b'=' | b'?' | b'+'), ..] => {
                let (r, word) = self.operand(&r[2..], value, open)?;
                (r, value_op(*c, true, word))
            }
            [c @ (b'-' | b'=' | b'?' | b'+'), ..] => {
                let (r, word) = self.operand(&r[1..], value, open)?;
                (r, value_op(*c, false, word))
            }
            [b':', ..] => {
                let (r, offset) = self.operand(
                    &r[1..],
                    Operand {
                        stop: b":",
                        quoted,
                        extquote,
                        value: false,
                    },
                    open,
                )?;
                let (r, length) = match r.strip_prefix(b":") {
                    Some(r) => {
                        let (r, l) = self.operand(r, pattern, open)?;
                        (r, Some(l))
                    }
                    None => (r, None),
                };
                (r, ParamOp::Substring { offset, length })
            }
            [c @ (b'#' | b'%'), ..] => {
                let longest = r.get(1) == Some(c);
                let (r, pat) = self.operand(&r[if longest { 2 } else { 1 }..], pattern, open)?;
                if *c == b'#' {
                    (
                        r,
                        ParamOp::RemovePrefix {
                            longest,
                            pattern: pat,
                        },
                    )
                } else {
                    (
                        r,
                        ParamOp::RemoveSuffix {
                            longest,
                            pattern: pat,
                        },
                    )
                }
            }
            [b'/', ..] => {
                let (mode, skip) = match r.get(1) {
                    Some(b'/') => (ReplaceMode::All, 2),
                    Some(b'#') => (ReplaceMode::Prefix, 2),
                    Some(b'%') => (ReplaceMode::Suffix, 2),
                    _ => (ReplaceMode::First, 1),
                };
                let (r, pat) = self.operand(
                    &r[skip..],
                    Operand {
                        stop: b"/",
                        quoted,
                        extquote,
                        value: false,
                    },
                    open,
                )?;
                let (r, replacement) = match r.strip_prefix(b"/") {
                    Some(r) => self.operand(
                        r,
                        Operand {
                            stop: b"",
                            quoted,
                            extquote,
                            value: true,
                        },
                        open,
                    )?,
                    None => (
                        r,
                        Word {
                            parts: Vec::new(),
                            span: self.span(r, r),
                        },
                    ),
                };
                (
                    r,
                    ParamOp::Replace {
                        mode,
                        pattern: pat,
                        replacement,
                    },
                )
            }
            [c @ (b'^' | b','), ..] => {
                let all = r.get(1) == Some(c);
                let r = &r[if all { 2 } else { 1 }..];
                if r.first().is_some_and(|&b| b != b'}') {
                    return Err(SyntaxError::Unsupported {
                        feature: "case modification with a pattern (`${x^^p}`)",
                        at: self.span_at(r, 1),
                    });
                }
                (
                    r,
                    ParamOp::Case {
                        upper: *c == b'^',
                        all,
                    },
                )
            }
            [b'@', ..] => {
                return Err(SyntaxError::Unsupported {
                    feature: "`${x@…}` transformations",
                    at: self.span_at(r, 2),
                });
            }
            _ => (r, ParamOp::Plain),
        };
        let res = done(self, r, param, op);
        self.leave();
        res
    }

    /// The operand word of a `${…}` operator, up to its closing `}` (or a
    /// byte of `how.stop`); the terminator is not consumed.
    fn operand(&mut self, i: &'a [u8], how: Operand, open: super::Span) -> PResult<'a, Word> {
        let mut p = Parts::default();
        let mut rest = i;
        if how.value && !how.quoted && rest.first() == Some(&b'~') {
            if let Some((r, user)) = tilde(rest, |b| matches!(b, b'/' | b'}' | b':')) {
                p.push(WordPart::Tilde(user));
                rest = r;
            }
        }
        loop {
            let Some(&c) = rest.first() else {
                return Err(SyntaxError::Unterminated { what: "`${`", open });
            };
            if c == b'}' || how.stop.contains(&c) {
                break;
            }
            match c {
                b'\\' => match rest.get(1) {
                    Some(b'\n') => rest = &rest[2..],
                    Some(_) => {
                        let n = char_len(&rest[1..]);
                        p.push(WordPart::Escaped(rest[1..1 + n].to_vec()));
                        rest = &rest[1 + n..];
                    }
                    None => return Err(SyntaxError::Unterminated { what: "`${`", open }),
                },
                b'\'' if !(how.quoted && how.value) => {
                    let (r, text) = self.single_quoted(rest)?;
                    p.push(WordPart::SingleQuoted(text));
                    rest = r;
                }
                b'"' => {
                    let (r, inner) = self.double_quoted(rest)?;
                    p.push(WordPart::DoubleQuoted(inner));
                    rest = r;
                }
                b'$' if how.extquote && rest.get(1) == Some(&b'\'') => {
                    let (r, text) = self.ansi_c(rest)?;
                    p.push(WordPart::AnsiC(text));
                    rest = r;
                }
                b'$' if how.extquote && rest.get(1) == Some(&b'"') => {
                    return Err(SyntaxError::Unsupported {
                        feature: "`$\"…\"` locale strings (use `\"…\"`)",
                        at: self.span_at(rest, 2),
                    });
                }
                b'$' => {
                    let q = if how.quoted {
                        Quoting::Double
                    } else {
                        Quoting::Unquoted
                    };
                    rest = self.dollar_into(rest, q, &mut p)?;
                }
                b'`' => {
                    let (r, part) = self.backtick(rest, how.quoted)?;
                    p.push(part);
                    rest = r;
                }
                _ => {
                    p.lit(&rest[..1]);
                    rest = &rest[1..];
                }
            }
        }
        let span = self.span(i, rest);
        Ok((
            rest,
            Word {
                parts: p.finish(),
                span,
            },
        ))
    }
}

fn value_op(c: u8, colon: bool, word: Word) -> ParamOp {
    match c {
        b'-' => ParamOp::Default { colon, word },
        b'=' => ParamOp::Assign { colon, word },
        b'?' => ParamOp::Error { colon, word },
        _ => ParamOp::Alternative { colon, word },
    }
}
