//! Words (XCU 2.2, 2.3, 2.6.1): unquoted text, `'…'`, `"…"`, `$'…'`,
//! backslash escapes and tildes, split into [`WordPart`]s exactly as
//! written so the guard sees which parts are fixed. Line continuations are
//! removed before the parse (see `join`).

use super::super::ast::{Word, WordPart};
use super::super::lex::{char_len, is_meta, is_name_byte, is_name_start};
use super::{PResult, Parser, SyntaxError};

/// Where a `$` or backtick appears: decides which forms are recognized.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Quoting {
    Unquoted,
    Double,
    HereDoc,
    Arith,
}

/// Parts being collected; adjacent literal bytes are merged.
#[derive(Default)]
pub(super) struct Parts {
    parts: Vec<WordPart>,
    lit: Vec<u8>,
}

impl Parts {
    pub fn lit(&mut self, bytes: &[u8]) {
        self.lit.extend_from_slice(bytes);
    }

    pub fn push(&mut self, part: WordPart) {
        self.flush();
        self.parts.push(part);
    }

    fn flush(&mut self) {
        if !self.lit.is_empty() {
            self.parts
                .push(WordPart::Literal(std::mem::take(&mut self.lit)));
        }
    }

    pub fn is_empty(&self) -> bool {
        self.parts.is_empty() && self.lit.is_empty()
    }

    /// Only literal text so far, and it is a name (or `name+`).
    fn is_assignment_prefix(&self) -> bool {
        let text = self.lit.strip_suffix(b"+").unwrap_or(&self.lit);
        self.parts.is_empty()
            && text.first().is_some_and(|&b| is_name_start(b))
            && text.iter().all(|&b| is_name_byte(b))
    }

    pub fn finish(mut self) -> Vec<WordPart> {
        // Most words are one literal: one exact allocation.
        if self.parts.is_empty() && !self.lit.is_empty() {
            return vec![WordPart::Literal(self.lit)];
        }
        self.flush();
        // A first push reserves several slots; most words have one part.
        self.parts.shrink_to_fit();
        self.parts
    }
}

impl<'a> Parser<'a> {
    /// An unquoted word at `i`, ending at a metacharacter; `None` when no
    /// word starts there. `assign_value` is set for the value of an
    /// assignment (tildes after `:` expand there too).
    pub(super) fn word(&mut self, i: &'a [u8], assign_value: bool) -> PResult<'a, Option<Word>> {
        let mut p = Parts::default();
        let mut rest = i;
        let mut tilde_ok = true;
        let mut assign_like = assign_value;
        // A `#` that begins a word starts a comment (XCU 2.3), so no word
        // starts here; in an assignment value it is ordinary text.
        if !assign_value && i.first() == Some(&b'#') {
            return Ok((i, None));
        }
        loop {
            if std::mem::take(&mut tilde_ok) && rest.first() == Some(&b'~') {
                if let Some((r, user)) = tilde(rest, |b| is_meta(b) || b == b'/' || b == b':') {
                    p.push(WordPart::Tilde(user));
                    rest = r;
                    continue;
                }
            }
            let Some(&c) = rest.first() else { break };
            match c {
                // `<(`/`>(` is a process substitution anywhere in a word, as in bash.
                b'<' | b'>' if rest.get(1) == Some(&b'(') => {
                    let (r, part) = self.process_subst(rest)?;
                    p.push(part);
                    rest = r;
                }
                _ if is_meta(c) => break,
                b'\\' | b'\'' | b'"' | b'$' | b'`' => {
                    let outer = std::mem::replace(&mut self.assignment_value, assign_value);
                    let read = self.quoted_or_expansion_into(rest, &mut p);
                    self.assignment_value = outer;
                    rest = read?;
                }
                b'@' | b'!' | b'+' | b'*' | b'?' if rest.get(1) == Some(&b'(') => {
                    rest = self.extglob_group_into(rest, &mut p)?;
                }
                b'=' if !assign_like && p.is_assignment_prefix() => {
                    assign_like = true;
                    tilde_ok = true;
                    p.lit(b"=");
                    rest = &rest[1..];
                }
                b':' if assign_like => {
                    tilde_ok = true;
                    p.lit(b":");
                    rest = &rest[1..];
                }
                _ => {
                    p.lit(&rest[..1]);
                    rest = &rest[1..];
                }
            }
        }
        if p.is_empty() {
            return Ok((rest, None));
        }
        let span = self.span(i, rest);
        Ok((
            rest,
            Some(Word {
                parts: p.finish(),
                span,
            }),
        ))
    }

    /// A backslash escape, a quoted part or an expansion at `i` (an unquoted
    /// word's `\\ ' " $` and backtick), read into `p`.
    fn quoted_or_expansion_into(
        &mut self,
        i: &'a [u8],
        p: &mut Parts,
    ) -> Result<&'a [u8], SyntaxError> {
        match i[0] {
            b'\\' => match i.get(1) {
                Some(b'\n') => Ok(&i[2..]),
                Some(_) => {
                    let n = char_len(&i[1..]);
                    p.push(WordPart::Escaped(i[1..1 + n].to_vec()));
                    Ok(&i[1 + n..])
                }
                None => Err(SyntaxError::Unterminated {
                    what: "line (ends with `\\`)",
                    open: self.span_at(i, 1),
                }),
            },
            b'\'' => {
                let (r, text) = self.single_quoted(i)?;
                p.push(WordPart::SingleQuoted(text));
                Ok(r)
            }
            b'"' => {
                let (r, inner) = self.double_quoted(i)?;
                p.push(WordPart::DoubleQuoted(inner));
                Ok(r)
            }
            b'$' => self.dollar_into(i, Quoting::Unquoted, p),
            _ => {
                let (r, part) = self.backtick(i, false)?;
                p.push(part);
                Ok(r)
            }
        }
    }

    /// An extended glob group (`@(…)`, `!(…)`, `+(…)`, `*(…)`, `?(…)`) at
    /// `i`, read into `p` as unquoted text up to its matching `)`: blanks,
    /// `|` and inner groups are the pattern's own, quotes and expansions
    /// are read as in any word. Read whether or not `extglob` is set, so a
    /// line parses one way whatever an earlier line set (bash's parse
    /// depends on it); it matches as a pattern only with `extglob` on, or
    /// inside `[[ ]]`.
    fn extglob_group_into(&mut self, i: &'a [u8], p: &mut Parts) -> Result<&'a [u8], SyntaxError> {
        p.lit(&i[..2]);
        let mut rest = &i[2..];
        let mut depth = 1usize;
        loop {
            let Some(&c) = rest.first() else {
                return Err(SyntaxError::Unterminated {
                    what: "extended glob pattern",
                    open: self.span_at(i, 2),
                });
            };
            match c {
                b'\\' | b'\'' | b'"' | b'$' | b'`' => {
                    rest = self.quoted_or_expansion_into(rest, p)?
                }
                _ => {
                    depth = match c {
                        b'(' => depth + 1,
                        b')' => depth - 1,
                        _ => depth,
                    };
                    p.lit(&rest[..1]);
                    rest = &rest[1..];
                    if depth == 0 {
                        return Ok(rest);
                    }
                }
            }
        }
    }

    /// `'…'` at `i`: the bytes between the quotes.
    pub(super) fn single_quoted(&mut self, i: &'a [u8]) -> PResult<'a, Vec<u8>> {
        match i[1..].iter().position(|&b| b == b'\'') {
            Some(k) => {
                self.literal(&i[1..], &i[k + 1..], false);
                Ok((&i[k + 2..], i[1..k + 1].to_vec()))
            }
            None => {
                // Joining lines cannot close the quote: what follows stays.
                self.literal(&i[1..], &i[i.len()..], false);
                Err(SyntaxError::Unterminated {
                    what: "single quote",
                    open: self.span_at(i, 1),
                })
            }
        }
    }

    /// `"…"` at `i`: inside, `\` escapes only `$ \` " \ newline`.
    pub(super) fn double_quoted(&mut self, i: &'a [u8]) -> PResult<'a, Vec<WordPart>> {
        let mut p = Parts::default();
        let mut rest = &i[1..];
        loop {
            let Some(&c) = rest.first() else {
                return Err(SyntaxError::Unterminated {
                    what: "double quote",
                    open: self.span_at(i, 1),
                });
            };
            match c {
                b'"' => return Ok((&rest[1..], p.finish())),
                b'\\' => match rest.get(1) {
                    Some(b'\n') => rest = &rest[2..],
                    Some(&e @ (b'$' | b'`' | b'"' | b'\\')) => {
                        p.lit(&[e]);
                        rest = &rest[2..];
                    }
                    _ => {
                        p.lit(b"\\");
                        rest = &rest[1..];
                    }
                },
                b'$' => rest = self.dollar_into(rest, Quoting::Double, &mut p)?,
                b'`' => {
                    let (r, part) = self.backtick(rest, true)?;
                    p.push(part);
                    rest = r;
                }
                _ => {
                    p.lit(&rest[..1]);
                    rest = &rest[1..];
                }
            }
        }
    }

    /// An unquoted here-document body (all of `src`): like double-quoted
    /// text, but `"` is an ordinary character and `\"` stays as written.
    pub(super) fn here_doc_text(&mut self) -> Result<Vec<WordPart>, SyntaxError> {
        self.expanding_text(b"$`\\")
    }

    /// A prompt (all of `src`) once its escapes are decoded: bash expands
    /// it as if in double quotes, where a lone `"` is an ordinary
    /// character and `\"` a quote.
    pub(super) fn prompt_text(&mut self) -> Result<Vec<WordPart>, SyntaxError> {
        self.expanding_text(b"$`\\\"")
    }

    /// All of `src` as text that expands `$…` and backquotes, where a
    /// backslash quotes the characters of `escapable` (and removes a
    /// newline) and is kept before any other.
    fn expanding_text(&mut self, escapable: &[u8]) -> Result<Vec<WordPart>, SyntaxError> {
        let mut p = Parts::default();
        let mut rest = self.src;
        while let Some(&c) = rest.first() {
            match c {
                b'\\' => match rest.get(1) {
                    Some(b'\n') => rest = &rest[2..],
                    Some(&e) if escapable.contains(&e) => {
                        p.lit(&[e]);
                        rest = &rest[2..];
                    }
                    _ => {
                        p.lit(b"\\");
                        rest = &rest[1..];
                    }
                },
                b'$' => rest = self.dollar_into(rest, Quoting::HereDoc, &mut p)?,
                b'`' => {
                    let (r, part) = self.backtick(rest, false)?;
                    p.push(part);
                    rest = r;
                }
                _ => {
                    p.lit(&rest[..1]);
                    rest = &rest[1..];
                }
            }
        }
        Ok(p.finish())
    }

    /// The expansion at the `$` at `i` into `p`, or a literal `$` when
    /// nothing expandable follows.
    pub(super) fn dollar_into(
        &mut self,
        i: &'a [u8],
        q: Quoting,
        p: &mut Parts,
    ) -> Result<&'a [u8], SyntaxError> {
        match self.dollar(i, q)? {
            (r, Some(part)) => {
                p.push(part);
                Ok(r)
            }
            (r, None) => {
                p.lit(b"$");
                Ok(r)
            }
        }
    }

    /// `$'…'` at `i` (bash): the bytes after decoding the escapes.
    pub(super) fn ansi_c(&mut self, i: &'a [u8]) -> PResult<'a, Vec<u8>> {
        let mut out = Vec::new();
        let mut k = 2;
        loop {
            let Some(&c) = i.get(k) else {
                return Err(SyntaxError::Unterminated {
                    what: "`$'`",
                    open: self.span_at(i, 2),
                });
            };
            match c {
                b'\'' => {
                    self.literal(&i[2..], &i[k..], false);
                    // A NUL (`\0`, `\x00`, `\c@`) ends the string, as in
                    // bash: its strings are C strings.
                    if let Some(nul) = out.iter().position(|&b| b == 0) {
                        out.truncate(nul);
                    }
                    return Ok((&i[k + 1..], out));
                }
                b'\\' => {
                    let Some(&e) = i.get(k + 1) else {
                        return Err(SyntaxError::Unterminated {
                            what: "`$'`",
                            open: self.span_at(i, 2),
                        });
                    };
                    k += 2;
                    match e {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'a' => out.push(0x07),
                        b'b' => out.push(0x08),
                        b'e' | b'E' => out.push(0x1b),
                        b'f' => out.push(0x0c),
                        b'v' => out.push(0x0b),
                        b'\\' | b'\'' | b'"' | b'?' => out.push(e),
                        b'x' => {
                            let (v, n) = hex_value(&i[k..], 2);
                            if n == 0 {
                                out.extend_from_slice(b"\\x");
                            } else {
                                out.push(v as u8);
                            }
                            k += n;
                        }
                        b'u' | b'U' => {
                            let (v, n) = hex_value(&i[k..], if e == b'u' { 4 } else { 8 });
                            if n == 0 {
                                out.push(b'\\');
                                out.push(e);
                            } else {
                                let ch = char::from_u32(v).unwrap_or(char::REPLACEMENT_CHARACTER);
                                let mut buf = [0u8; 4];
                                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                            }
                            k += n;
                        }
                        b'0'..=b'7' => {
                            let mut v: u32 = u32::from(e - b'0');
                            let mut n = 0;
                            while n < 2 {
                                match i.get(k) {
                                    Some(&d @ b'0'..=b'7') => {
                                        v = v * 8 + u32::from(d - b'0');
                                        k += 1;
                                        n += 1;
                                    }
                                    _ => break,
                                }
                            }
                            out.push((v & 0xff) as u8);
                        }
                        // bash's TOCTRL: `?` is DEL, anything else its
                        // upper case masked to five bits; `\c\\` takes
                        // the escaped backslash.
                        b'c' => match i.get(k) {
                            Some(b'?') => {
                                out.push(0x7f);
                                k += 1;
                            }
                            Some(b'\\') => {
                                out.push(0x1c);
                                k += if i.get(k + 1) == Some(&b'\\') { 2 } else { 1 };
                            }
                            Some(&x) if x != b'\'' => {
                                out.push(x.to_ascii_uppercase() & 0x1f);
                                k += 1;
                            }
                            _ => out.extend_from_slice(b"\\c"),
                        },
                        _ => {
                            out.push(b'\\');
                            out.push(e);
                        }
                    }
                }
                _ => {
                    out.push(c);
                    k += 1;
                }
            }
        }
    }
}

/// Up to `max` hex digits at the start of `i`: their value and count.
fn hex_value(i: &[u8], max: usize) -> (u32, usize) {
    let mut v: u32 = 0;
    let mut n = 0;
    while n < max {
        match i.get(n).and_then(|&b| (b as char).to_digit(16)) {
            Some(d) => {
                v = v.wrapping_mul(16).wrapping_add(d);
                n += 1;
            }
            None => break,
        }
    }
    (v, n)
}

/// A byte a tilde prefix's login name may hold (`+` and `-` for `~+`,
/// `~-`); a prefix with any other is literal text.
pub fn is_tilde_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b'+')
}

/// A tilde prefix at `i` (which starts with `~`): the login name, if any,
/// when the prefix ends where `is_end` says (or at end of input) and holds
/// only plain name bytes; otherwise the `~` is literal.
pub(super) fn tilde(i: &[u8], is_end: impl Fn(u8) -> bool) -> Option<(&[u8], Option<Vec<u8>>)> {
    let user_len = i[1..]
        .iter()
        .take_while(|&&b| is_tilde_name_byte(b))
        .count();
    let after = &i[1 + user_len..];
    if !after.first().is_none_or(|&b| is_end(b)) {
        return None;
    }
    let user = (user_len > 0).then(|| i[1..1 + user_len].to_vec());
    Some((after, user))
}
