//! Parameter expansion (XCU 2.6.2) and the dispatch on `$`: `$name`,
//! `$1`, `$?`…, `${…}` with its operators (the operand words are parsed as
//! words, with their own quotes and expansions), and the hand-off to
//! command substitution, arithmetic and `$'…'`.

use super::super::ast::{
    Element, ParamExpansion, ParamOp, Parameter, ReplaceMode, SpecialParam, Subscript, Word,
    WordPart,
};
use super::super::lex::{char_len, digits, name};
use super::super::span::Span;
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
pub(super) struct Operand {
    /// Bytes (besides `}`) that end the operand.
    pub(super) stop: &'static [u8],
    /// The expansion is inside double quotes (or a here-document).
    pub(super) quoted: bool,
    /// Inside double quotes (not a here-document): bash's `extquote`
    /// (on by default) still decodes `$'…'` there.
    pub(super) extquote: bool,
    /// A value word (`-`, `=`, `?`, `+`) rather than a pattern: inside
    /// double quotes its single quotes are ordinary characters, as in bash.
    pub(super) value: bool,
    /// A leading `~` is a tilde prefix: a value word's outside double
    /// quotes; the pattern of `#`, `%`, `/` and `//` and the replacement
    /// of `/` even inside them (bash 5.2).
    pub(super) tilde: bool,
}

impl Operand {
    /// An array subscript, up to its `]`.
    pub(super) fn subscript(q: Quoting) -> Operand {
        Operand {
            stop: b"]",
            quoted: q != Quoting::Unquoted,
            extquote: q == Quoting::Double,
            value: false,
            tilde: false,
        }
    }
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
                let (r, part) = self.braced(i, q)?;
                Ok((r, Some(part)))
            }
            b'\'' if q == Quoting::Unquoted => {
                let (r, text) = self.ansi_c(i)?;
                Ok((r, Some(WordPart::AnsiC(text))))
            }
            // A locale string: bash translates it only with a message
            // catalog for `TEXTDOMAIN`, which no arm has; as `"…"`.
            b'"' if q == Quoting::Unquoted => {
                let (r, inner) = self.double_quoted(&i[1..])?;
                Ok((r, Some(WordPart::DoubleQuoted(inner))))
            }
            b'[' => {
                let Some(len) = closing_bracket(&i[2..]) else {
                    return Err(SyntaxError::Unterminated {
                        what: "`$[`",
                        open: self.span_at(i, 2),
                    });
                };
                // Its end is the first `]` that closes nothing, found
                // without regard to quotes: text that quotes or substitutes
                // could end elsewhere once printed as `$(( … ))`.
                let text = &i[2..2 + len];
                if let Some(k) = text.iter().enumerate().position(|(k, &b)| {
                    matches!(b, b'"' | b'\'' | b'`' | b'\\') || text[k..].starts_with(b"$(")
                }) {
                    return Err(SyntaxError::Unsupported {
                        feature: "quotes, backslashes or command substitutions inside `$[ … ]` (use `$(( … ))`)",
                        at: self.span_at(&i[2 + k..], 1),
                    });
                }
                // Printed as `$(( … ))`, whose end bash finds by counting
                // every parenthesis of the raw text: they must pair.
                let mut depth = 0i64;
                for (k, &b) in text.iter().enumerate() {
                    depth += match b {
                        b'(' => 1,
                        b')' => -1,
                        _ => 0,
                    };
                    if depth < 0 || (k + 1 == text.len() && depth != 0) {
                        return Err(SyntaxError::Unsupported {
                            feature: "parentheses that do not pair inside `$[ … ]` (use `$(( … ))`)",
                            at: self.span_at(&i[2 + k..], 1),
                        });
                    }
                }
                let word = self.arith_word(&i[2..], len)?;
                Ok((&i[2 + len + 1..], Some(WordPart::Arithmetic(word))))
            }
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
                    Some(WordPart::Parameter(Box::new(ParamExpansion {
                        param,
                        op: ParamOp::Plain,
                        braced: false,
                        indirect: false,
                        span,
                    }))),
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

    /// `${…}` at `i` (which starts with `${`). One that is no expansion
    /// bash knows but whose `}` is found is bash's run-time error, not a
    /// syntax error: [`WordPart::BadSubstitution`].
    fn braced(&mut self, i: &'a [u8], q: Quoting) -> PResult<'a, WordPart> {
        self.enter(i)?;
        let res = match self.braced_inner(i, q) {
            Ok((r, pe)) => Ok((r, WordPart::Parameter(Box::new(pe)))),
            Err(SyntaxError::BadSubstitution { at }) => self.bad_substitution(i, q, at),
            Err(e) => Err(e),
        };
        self.leave();
        res
    }

    /// The text of `${…}` at `i` up to its `}`, read as bash finds the end
    /// (quotes and nested expansions paired), as a bad substitution; the
    /// error at `at` when there is no such `}` (or, when the input ends
    /// first, that it is unterminated).
    fn bad_substitution(&mut self, i: &'a [u8], q: Quoting, at: Span) -> PResult<'a, WordPart> {
        let open = self.span_at(i, 2);
        let anything = Operand {
            stop: b"",
            quoted: q != Quoting::Unquoted,
            extquote: q == Quoting::Double,
            value: true,
            tilde: false,
        };
        match self.operand(&i[2..], anything, open) {
            Ok((r, _)) if r.first() == Some(&b'}') => {
                let end = i.len() - r.len() + 1;
                Ok((&r[1..], WordPart::BadSubstitution(i[..end].into())))
            }
            // The input ended before its `}`: a line reader reads on.
            Err(e) if e.is_incomplete() => Err(e),
            _ => Err(SyntaxError::BadSubstitution { at }),
        }
    }

    /// `[@]`, `[*]` or `[word]` at `i` (which starts with `[`).
    fn subscript(&mut self, i: &'a [u8], q: Quoting, open: super::Span) -> PResult<'a, Subscript> {
        match i {
            [b'[', b'@', b']', ..] => Ok((&i[3..], Subscript::At)),
            [b'[', b'*', b']', ..] => Ok((&i[3..], Subscript::Star)),
            _ => {
                let (r, word) = self.operand(&i[1..], Operand::subscript(q), open)?;
                match r.strip_prefix(b"]") {
                    Some(r) => Ok((r, Subscript::Index(word))),
                    None => Err(SyntaxError::BadSubstitution {
                        at: self.span_at(r, char_len(r)),
                    }),
                }
            }
        }
    }

    /// The parameter at `i` inside braces, with its subscript if it has one.
    fn param_with_subscript(
        &mut self,
        i: &'a [u8],
        q: Quoting,
        open: super::Span,
    ) -> Result<Option<(&'a [u8], Parameter)>, SyntaxError> {
        let Some((r, param)) = self.param_name(i)? else {
            return Ok(None);
        };
        match (param, r.first()) {
            (Parameter::Named(name), Some(b'[')) => {
                let (r, index) = self.subscript(r, q, open)?;
                Ok(Some((
                    r,
                    Parameter::Element(Box::new(Element { name, index })),
                )))
            }
            (param, _) => Ok(Some((r, param))),
        }
    }

    fn braced_inner(&mut self, i: &'a [u8], q: Quoting) -> PResult<'a, ParamExpansion> {
        let open = self.span_at(i, 2);
        let quoted = q != Quoting::Unquoted;
        let extquote = q == Quoting::Double;
        let mut inner = &i[2..];
        let mut indirect = false;
        let done = |p: &Self, r: &'a [u8], param, op, indirect| -> PResult<'a, ParamExpansion> {
            match r.strip_prefix(b"}") {
                Some(rest) => Ok((
                    rest,
                    ParamExpansion {
                        param,
                        op,
                        braced: true,
                        indirect,
                        span: p.span(i, rest),
                    },
                )),
                None if r.is_empty() => Err(SyntaxError::Unterminated { what: "`${`", open }),
                None => Err(SyntaxError::BadSubstitution {
                    at: p.span_at(r, char_len(r)),
                }),
            }
        };
        // `${#x}` (length), `${#a[@]}`, `${#}` (the count).
        if let Some(after_hash) = inner.strip_prefix(b"#") {
            if let Some((r, param)) = self.param_with_subscript(after_hash, q, open)? {
                if r.first() == Some(&b'}') {
                    return done(self, r, param, ParamOp::Length, false);
                }
            }
        }
        // `${!…}`; `${!}` is `$!`.
        if let Some(after_bang) = inner
            .strip_prefix(b"!")
            .filter(|r| r.first() != Some(&b'}'))
        {
            if let Some((r, nm)) = name(after_bang) {
                let name = String::from_utf8_lossy(nm).into_owned();
                match r {
                    [b'[', b @ (b'@' | b'*'), b']', b'}', ..] => {
                        let index = if *b == b'@' {
                            Subscript::At
                        } else {
                            Subscript::Star
                        };
                        let param = Parameter::Element(Box::new(Element { name, index }));
                        return done(self, &r[3..], param, ParamOp::Keys, false);
                    }
                    [b @ (b'@' | b'*'), b'}', ..] => {
                        let op = ParamOp::Names { star: *b == b'*' };
                        return done(self, &r[1..], Parameter::Named(name), op, false);
                    }
                    _ => {}
                }
            }
            inner = after_bang;
            indirect = true;
        }
        let Some((r, param)) = self.param_with_subscript(inner, q, open)? else {
            if inner.is_empty() {
                return Err(SyntaxError::Unterminated { what: "`${`", open });
            }
            return Err(SyntaxError::BadSubstitution {
                at: self.span_at(inner, char_len(inner)),
            });
        };
        let (r, op) = self.param_operator(r, quoted, extquote, open)?;
        done(self, r, param, op, indirect)
    }

    /// The operator after the parameter in `${…}` (`-`, `:=`, `#`, `%%`,
    /// `/`, `:off:len`, `^^`, `@Q`, …), up to (not including) the `}`.
    fn param_operator(
        &mut self,
        r: &'a [u8],
        quoted: bool,
        extquote: bool,
        open: Span,
    ) -> PResult<'a, ParamOp> {
        let value = Operand {
            stop: b"",
            quoted,
            extquote,
            value: true,
            tilde: !quoted,
        };
        let pattern = Operand {
            stop: b"",
            quoted,
            extquote,
            value: false,
            tilde: true,
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
            [b':', ..] => self.substring_operator(&r[1..], pattern, open)?,
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
            [b'/', ..] => self.replace_operator(r, quoted, extquote, open)?,
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
            [b'@', b'P', ..] => {
                return Err(SyntaxError::Unsupported {
                    feature: "`${x@P}` (it would run the command substitutions a value holds)",
                    at: self.span_at(r, 2),
                });
            }
            [
                b'@',
                c @ (b'Q' | b'E' | b'A' | b'K' | b'k' | b'a' | b'u' | b'U' | b'L'),
                ..,
            ] => (&r[2..], ParamOp::Transform(*c)),
            [b'@', ..] => {
                return Err(SyntaxError::BadSubstitution {
                    at: self.span_at(r, char_len(r)),
                });
            }
            _ => (r, ParamOp::Plain),
        };
        Ok((r, op))
    }

    /// `${p:offset}` and `${p:offset:length}`, after the first `:`: read
    /// as `pattern` is, without a tilde prefix (they are arithmetic).
    fn substring_operator(
        &mut self,
        r: &'a [u8],
        pattern: Operand,
        open: Span,
    ) -> PResult<'a, ParamOp> {
        let arithmetic = Operand {
            tilde: false,
            ..pattern
        };
        let (r, offset) = self.operand(
            r,
            Operand {
                stop: b":",
                ..arithmetic
            },
            open,
        )?;
        // `${x:}`: bash's bad substitution (`${x::2}` is offset 0).
        if offset.parts.is_empty() && r.first() == Some(&b'}') {
            return Err(SyntaxError::BadSubstitution {
                at: self.span_at(r, 1),
            });
        }
        let (r, length) = match r.strip_prefix(b":") {
            Some(r) => {
                let (r, l) = self.operand(r, arithmetic, open)?;
                (r, Some(l))
            }
            None => (r, None),
        };
        Ok((r, ParamOp::Substring { offset, length }))
    }

    /// `${p/pattern/replacement}` and its `//`, `/#`, `/%` forms, from the
    /// first `/`.
    fn replace_operator(
        &mut self,
        r: &'a [u8],
        quoted: bool,
        extquote: bool,
        open: Span,
    ) -> PResult<'a, ParamOp> {
        let (mode, skip) = match r.get(1) {
            Some(b'/') => (ReplaceMode::All, 2),
            Some(b'#') => (ReplaceMode::Prefix, 2),
            Some(b'%') => (ReplaceMode::Suffix, 2),
            _ => (ReplaceMode::First, 1),
        };
        // `${x////c}`: after `//` a `/` starts the pattern (bash).
        let slash_first = mode == ReplaceMode::All && r.get(2) == Some(&b'/');
        let skip = skip + usize::from(slash_first);
        let (r, mut pat) = self.operand(
            &r[skip..],
            Operand {
                stop: b"/",
                quoted,
                extquote,
                value: false,
                // After `/#` and `/%` the anchor comes first.
                tilde: matches!(mode, ReplaceMode::All | ReplaceMode::First) && !slash_first,
            },
            open,
        )?;
        if slash_first {
            match pat.parts.first_mut() {
                Some(WordPart::Literal(text)) => text.insert(0, b'/'),
                _ => pat.parts.insert(0, WordPart::Literal(b"/".to_vec())),
            }
        }
        // The replacement's quotes are removed inside double quotes too
        // (bash 5.2): it is read as a pattern is.
        let (r, replacement) = match r.strip_prefix(b"/") {
            Some(r) => self.operand(
                r,
                Operand {
                    stop: b"",
                    quoted,
                    extquote,
                    value: false,
                    tilde: true,
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
        Ok((
            r,
            ParamOp::Replace {
                mode,
                pattern: pat,
                replacement,
            },
        ))
    }

    /// The operand word of a `${…}` operator, up to its closing `}` (or a
    /// byte of `how.stop`); the terminator is not consumed.
    pub(super) fn operand(
        &mut self,
        i: &'a [u8],
        how: Operand,
        open: super::Span,
    ) -> PResult<'a, Word> {
        let mut p = Parts::default();
        let mut rest = i;
        let mut tilde_here = how.tilde;
        let after_colon = how.tilde && how.value && self.assignment_value;
        // A subscript's own brackets (`a[b[0]+1]`) nest.
        let mut brackets = 0usize;
        // Inside double quotes a value word's single quotes are ordinary
        // characters, but bash pairs them to find the word's end: a `}`
        // between two of them does not end it (`"${x-'}'}"` is `'}'`).
        let mut in_single = false;
        loop {
            if std::mem::take(&mut tilde_here)
                && let Some((r, part)) = operand_tilde(rest, how.stop)
            {
                p.push(part);
                rest = r;
                continue;
            }
            let Some(&c) = rest.first() else {
                return Err(SyntaxError::Unterminated { what: "`${`", open });
            };
            if c == b':' && after_colon {
                tilde_here = true;
            }
            if how.stop == b"]" && c == b'[' {
                brackets += 1;
            } else if how.stop == b"]" && c == b']' && brackets > 0 {
                brackets -= 1;
                p.lit(b"]");
                rest = &rest[1..];
                continue;
            }
            if !in_single && (c == b'}' || how.stop.contains(&c)) {
                break;
            }
            // bash finds the end of `$((` by pairing quotes in the raw
            // text, `${…}` operands included: quoted text there could end
            // the arithmetic elsewhere once printed.
            if self.nesting.in_arithmetic && matches!(c, b'"' | b'\'' | b'\\') {
                return Err(SyntaxError::Unsupported {
                    feature: "quotes or escapes inside `$(( … ))`",
                    at: self.span_at(rest, 1),
                });
            }
            match c {
                b'\\' => {
                    rest = operand_escape(rest, how, &mut p)
                        .ok_or(SyntaxError::Unterminated { what: "`${`", open })?
                }
                b'\'' if how.quoted && how.value => {
                    in_single = !in_single;
                    p.lit(b"'");
                    rest = &rest[1..];
                }
                b'\'' => {
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
                    let (r, inner) = self.double_quoted(&rest[1..])?;
                    p.push(WordPart::DoubleQuoted(inner));
                    rest = r;
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

/// The backslash at `i` in an operand into `p`; the rest after it, or
/// `None` when the input ends there.
fn operand_escape<'a>(i: &'a [u8], how: Operand, p: &mut Parts) -> Option<&'a [u8]> {
    match i.get(1)? {
        b'\n' => Some(&i[2..]),
        // Inside double quotes a backslash escapes only `$`, `` ` ``, `"`,
        // `\` and `}`; before anything else it stays.
        &e if how.quoted && how.value && !matches!(e, b'$' | b'`' | b'"' | b'\\' | b'}') => {
            p.lit(b"\\");
            Some(&i[1..])
        }
        _ => {
            let n = char_len(&i[1..]);
            p.push(WordPart::Escaped(i[1..1 + n].to_vec()));
            Some(&i[1 + n..])
        }
    }
}

/// A tilde prefix at `i` in an operand that `stop`'s bytes (or `/`, `}`,
/// `:`) end.
fn operand_tilde<'a>(i: &'a [u8], stop: &[u8]) -> Option<(&'a [u8], WordPart)> {
    if i.first() != Some(&b'~') {
        return None;
    }
    let ends = |b: u8| matches!(b, b'/' | b'}' | b':') || stop.contains(&b);
    tilde(i, ends).map(|(r, user)| (r, WordPart::Tilde(user)))
}

fn value_op(c: u8, colon: bool, word: Word) -> ParamOp {
    match c {
        b'-' => ParamOp::Default { colon, word },
        b'=' => ParamOp::Assign { colon, word },
        b'?' => ParamOp::Error { colon, word },
        _ => ParamOp::Alternative { colon, word },
    }
}

/// The length of the text before the `]` that closes a `[` just before
/// `i`, counting nested brackets (`$[ a[1] + 2 ]`).
fn closing_bracket(i: &[u8]) -> Option<usize> {
    let mut depth = 0usize;
    for (k, &b) in i.iter().enumerate() {
        match b {
            b'[' => depth += 1,
            b']' if depth == 0 => return Some(k),
            b']' => depth -= 1,
            _ => {}
        }
    }
    None
}
