//! Stage 1, tokens: the byte-level recognizers (nom combinators) the
//! grammar in [`super::parse`] is built from. Each recognizer only looks at
//! its input and never allocates; none of them can fail other than by
//! "not here", so the grammar decides what a mismatch means.

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while, take_while1};
use nom::character::complete::digit1;
use nom::combinator::{recognize, value};
use nom::sequence::pair;
use nom::{IResult, Parser};

/// A recognizer's result; errors carry no information beyond "no match".
type Lex<'a, T> = IResult<&'a [u8], T, ()>;

/// Bytes that end an unquoted word (XCU 2.2, "metacharacters").
pub fn is_meta(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'<' | b'>' | b'(' | b')'
    )
}

pub fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

pub fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Skip spaces, tabs and backslash-newline continuations.
pub fn blanks(mut i: &[u8]) -> &[u8] {
    loop {
        let r: Lex<'_, &[u8]> = take_while(|b| b == b' ' || b == b'\t')(i);
        if let Ok((rest, _)) = r {
            i = rest;
        }
        match i.strip_prefix(b"\\\n") {
            Some(rest) => i = rest,
            None => return i,
        }
    }
}

/// A comment from `#` to the end of the line (the newline is not consumed).
pub fn comment(i: &[u8]) -> Option<&[u8]> {
    let r: Lex<'_, &[u8]> = recognize(pair(tag(&b"#"[..]), take_while(|b| b != b'\n'))).parse(i);
    r.ok().map(|(rest, _)| rest)
}

/// A variable name: `[A-Za-z_][A-Za-z0-9_]*` (XCU 3.216).
pub fn name(i: &[u8]) -> Option<(&[u8], &[u8])> {
    let r: Lex<'_, &[u8]> =
        recognize(pair(take_while1(is_name_start), take_while(is_name_byte))).parse(i);
    r.ok()
}

/// A run of decimal digits.
pub fn digits(i: &[u8]) -> Option<(&[u8], &[u8])> {
    let r: Lex<'_, &[u8]> = digit1(i);
    r.ok()
}

/// The maximal run of bytes up to the next metacharacter: the text a
/// reserved word is compared against.
pub fn token(i: &[u8]) -> &[u8] {
    let r: Lex<'_, &[u8]> = take_while(|b| !is_meta(b))(i);
    r.map_or(&[][..], |(_, t)| t)
}

/// Control operators (XCU 2.10.1), longest match first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlOp {
    DoubleSemiAmp,
    DoubleSemi,
    SemiAmp,
    Semi,
    AndIf,
    OrIf,
    PipeAmp,
    Pipe,
    Amp,
}

impl ControlOp {
    pub fn text(self) -> &'static str {
        match self {
            ControlOp::DoubleSemiAmp => ";;&",
            ControlOp::DoubleSemi => ";;",
            ControlOp::SemiAmp => ";&",
            ControlOp::Semi => ";",
            ControlOp::AndIf => "&&",
            ControlOp::OrIf => "||",
            ControlOp::PipeAmp => "|&",
            ControlOp::Pipe => "|",
            ControlOp::Amp => "&",
        }
    }
}

/// A control operator at the start of `i`. `&>` and `&>>` are redirections,
/// not `&`, so they are not matched here.
pub fn control_op(i: &[u8]) -> Option<(&[u8], ControlOp)> {
    if i.starts_with(b"&>") {
        return None;
    }
    let r: Lex<'_, ControlOp> = alt((
        value(ControlOp::DoubleSemiAmp, tag(&b";;&"[..])),
        value(ControlOp::DoubleSemi, tag(&b";;"[..])),
        value(ControlOp::SemiAmp, tag(&b";&"[..])),
        value(ControlOp::Semi, tag(&b";"[..])),
        value(ControlOp::AndIf, tag(&b"&&"[..])),
        value(ControlOp::OrIf, tag(&b"||"[..])),
        value(ControlOp::PipeAmp, tag(&b"|&"[..])),
        value(ControlOp::Pipe, tag(&b"|"[..])),
        value(ControlOp::Amp, tag(&b"&"[..])),
    ))
    .parse(i);
    r.ok()
}

/// Redirection operators (XCU 2.7 and bash's `&>`, `&>>`, `<<<`), longest
/// match first. The bool of `HereDoc` is `<<-`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirToken {
    HereString,
    HereDoc(bool),
    DupInput,
    ReadWrite,
    Input,
    Append,
    DupOutput,
    Clobber,
    Output,
    AppendBoth,
    OutputBoth,
}

/// A redirection operator at the start of `i`.
pub fn redir_op(i: &[u8]) -> Option<(&[u8], RedirToken)> {
    let r: Lex<'_, RedirToken> = alt((
        value(RedirToken::HereString, tag(&b"<<<"[..])),
        value(RedirToken::HereDoc(true), tag(&b"<<-"[..])),
        value(RedirToken::HereDoc(false), tag(&b"<<"[..])),
        value(RedirToken::DupInput, tag(&b"<&"[..])),
        value(RedirToken::ReadWrite, tag(&b"<>"[..])),
        value(RedirToken::Input, tag(&b"<"[..])),
        value(RedirToken::Append, tag(&b">>"[..])),
        value(RedirToken::DupOutput, tag(&b">&"[..])),
        value(RedirToken::Clobber, tag(&b">|"[..])),
        value(RedirToken::Output, tag(&b">"[..])),
        value(RedirToken::AppendBoth, tag(&b"&>>"[..])),
        value(RedirToken::OutputBoth, tag(&b"&>"[..])),
    ))
    .parse(i);
    r.ok()
}

/// Length of the character starting at `i[0]`: a whole UTF-8 sequence when
/// valid, else one byte (invalid UTF-8 is kept byte by byte).
pub fn char_len(i: &[u8]) -> usize {
    let want = match i.first() {
        None => return 0,
        Some(&b) if b < 0x80 => return 1,
        Some(&b) if b >> 5 == 0b110 => 2,
        Some(&b) if b >> 4 == 0b1110 => 3,
        Some(&b) if b >> 3 == 0b11110 => 4,
        Some(_) => return 1,
    };
    match i.get(..want) {
        Some(seq) if std::str::from_utf8(seq).is_ok() => want,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_op_prefers_longest_match() {
        assert_eq!(
            control_op(b";;& x").map(|r| r.1),
            Some(ControlOp::DoubleSemiAmp)
        );
        assert_eq!(control_op(b"&& x").map(|r| r.1), Some(ControlOp::AndIf));
        assert_eq!(control_op(b"&> x").map(|r| r.1), None);
        assert_eq!(control_op(b"|& x").map(|r| r.1), Some(ControlOp::PipeAmp));
    }

    #[test]
    fn redir_op_prefers_longest_match() {
        assert_eq!(redir_op(b"<<<x").map(|r| r.1), Some(RedirToken::HereString));
        assert_eq!(
            redir_op(b"<<-x").map(|r| r.1),
            Some(RedirToken::HereDoc(true))
        );
        assert_eq!(redir_op(b"&>>x").map(|r| r.1), Some(RedirToken::AppendBoth));
        assert_eq!(redir_op(b">|x").map(|r| r.1), Some(RedirToken::Clobber));
    }

    #[test]
    fn blanks_skip_line_continuations() {
        assert_eq!(blanks(b" \\\n\t x"), b"x");
    }

    #[test]
    fn char_len_keeps_invalid_utf8_bytewise() {
        assert_eq!(char_len("é".as_bytes()), 2);
        assert_eq!(char_len(b"\xc3("), 1);
        assert_eq!(char_len(b"\xff"), 1);
    }
}
