//! How the shell writes a value back as text it reads again (`set -x`,
//! `printf %q`, `declare -p`, `alias`, `set`, `${x@Q}`/`@K`), and how it
//! decodes backslash escapes (`echo -e`, `printf`, `${x@E}`): used by the
//! builtins and by expansion alike, so it sits below both.

use super::{Value, lossy};

/// Whether `s` needs no quotes to be read back as itself: not empty, and
/// only letters, digits and `_ - . / : , + @ % =`.
fn reads_back_bare(s: &[u8]) -> bool {
    !s.is_empty()
        && s.iter().all(|&b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'_' | b'-' | b'.' | b'/' | b':' | b',' | b'+' | b'@' | b'%' | b'='
                )
        })
}

/// Quote `s` so the shell reads it back as one word (bash's style: bare
/// when safe, else single quotes).
pub fn quote(s: &[u8]) -> String {
    let text = String::from_utf8_lossy(s);
    if reads_back_bare(s) {
        return text.into_owned();
    }
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// A string as `set` lists it: nothing when empty, `$'…'` when only that
/// keeps its bytes (a value with a newline stays on its line, so the
/// listing reads back line by line), else as `quote` writes it.
pub fn set_text(s: &[u8]) -> String {
    if needs_ansi_c(s) {
        ansi_c_quote(s)
    } else if s.is_empty() {
        String::new()
    } else {
        quote(s)
    }
}

/// Does bash write `s` as `$'…'`: it holds a control byte, or a byte
/// that is part of no UTF-8 character (which no other quoting keeps).
fn needs_ansi_c(s: &[u8]) -> bool {
    s.iter().any(u8::is_ascii_control) || std::str::from_utf8(s).is_err()
}

/// `$'…'` as bash writes it: its escapes for the control characters it
/// names, octal for every other control byte and every byte that is part
/// of no character; the rest as it is.
fn ansi_c_quote(s: &[u8]) -> String {
    let mut out = String::from("$'");
    let octal = |out: &mut String, bytes: &[u8]| {
        for b in bytes {
            out.push_str(&format!("\\{b:03o}"));
        }
    };
    for chunk in s.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                '\u{7}' => out.push_str("\\a"),
                '\u{8}' => out.push_str("\\b"),
                '\u{1b}' => out.push_str("\\E"),
                '\u{c}' => out.push_str("\\f"),
                '\u{b}' => out.push_str("\\v"),
                '\'' => out.push_str("\\'"),
                '\\' => out.push_str("\\\\"),
                c if c.is_control() => octal(&mut out, c.encode_utf8(&mut [0; 4]).as_bytes()),
                c => out.push(c),
            }
        }
        octal(&mut out, chunk.invalid());
    }
    out.push('\'');
    out
}

/// A value as `declare -p`, `set` and `@K` write it: `"…"`, or `$'…'`
/// when only that keeps its bytes.
pub fn value_text(v: &[u8]) -> String {
    if needs_ansi_c(v) {
        ansi_c_quote(v)
    } else {
        dq_quote(v)
    }
}

/// `printf %q`: backslash-escape shell-special characters.
pub fn quote_q(s: &[u8]) -> String {
    if s.is_empty() {
        return "''".into();
    }
    if needs_ansi_c(s) {
        return ansi_c_quote(s);
    }
    let text = String::from_utf8_lossy(s);
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric()
            || matches!(c, '_' | '-' | '.' | '/' | ':' | ',' | '+' | '@' | '%' | '=')
            || !c.is_ascii()
        {
            out.push(c);
        } else {
            out.push('\\');
            out.push(c);
        }
    }
    out
}

/// Where backslash escapes are decoded: each reads octal its own way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Escapes {
    /// `echo -e`: `\0NNN` only.
    Echo,
    /// `printf %b`: `\0NNN` or `\NNN`.
    PrintfB,
    /// `printf`'s format: `\NNN` (a leading 0 is one of the three).
    Format,
}

/// Decode `echo -e` / `%b` / format escapes. Returns the bytes and whether
/// `\c` asked to stop all output.
pub fn backslash_escapes(s: &[u8], mode: Escapes) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        if s[i] != b'\\' || i + 1 >= s.len() {
            out.push(s[i]);
            i += 1;
            continue;
        }
        let c = s[i + 1];
        i += 2;
        match c {
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'c' => return (out, true),
            b'e' | b'E' => out.push(0x1b),
            b'f' => out.push(12),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(11),
            b'\\' => out.push(b'\\'),
            b'0'..=b'7' => {
                // echo: \0NNN (up to 3 after the 0); %b: \0NNN or \NNN;
                // a format: \NNN, its 0 one of the three.
                let (mut n, mut digits) = (0u32, 0);
                let mut j = i - 1;
                if c == b'0' && mode != Escapes::Format {
                    j = i;
                } else if mode == Escapes::Echo {
                    out.push(b'\\');
                    out.push(c);
                    continue;
                }
                while digits < 3 && j < s.len() && (b'0'..=b'7').contains(&s[j]) {
                    n = n * 8 + u32::from(s[j] - b'0');
                    j += 1;
                    digits += 1;
                }
                out.push((n & 0xff) as u8);
                i = j;
            }
            b'x' => {
                let (mut n, mut j) = (0u32, i);
                while j < s.len() && j < i + 2 && s[j].is_ascii_hexdigit() {
                    n = n * 16 + (s[j] as char).to_digit(16).unwrap_or(0);
                    j += 1;
                }
                if j == i {
                    out.extend_from_slice(b"\\x");
                } else {
                    out.push(n as u8);
                    i = j;
                }
            }
            b'u' | b'U' => {
                let max = if c == b'u' { 4 } else { 8 };
                let (mut n, mut j) = (0u32, i);
                while j < s.len() && j < i + max && s[j].is_ascii_hexdigit() {
                    n = n * 16 + (s[j] as char).to_digit(16).unwrap_or(0);
                    j += 1;
                }
                match char::from_u32(n) {
                    Some(ch) if j > i => {
                        let mut buf = [0u8; 4];
                        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        i = j;
                    }
                    _ => {
                        out.push(b'\\');
                        out.push(c);
                    }
                }
            }
            other => {
                out.push(b'\\');
                out.push(other);
            }
        }
    }
    (out, false)
}

/// `"…"` as bash's `declare -p` and `@K` write a value.
fn dq_quote(v: &[u8]) -> String {
    format!("\"{}\"", escape_dq(v))
}

/// An associative array's key as `declare -p` and `@K` write it: bare when
/// safe, else double-quoted.
pub fn quote_key(k: &[u8]) -> String {
    if reads_back_bare(k) {
        lossy(k)
    } else {
        value_text(k)
    }
}

/// A value's text inside `"…"`: `" \\ $ `` ` `` backslashed.
fn escape_dq(v: &[u8]) -> String {
    let mut out = String::new();
    for c in lossy(v).chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// An array as `declare -p` and `set` print it: `([0]="x" [1]="y")`, an
/// associative one `([k]="v" )` (bash's trailing blank).
pub fn array_text(value: &Value) -> String {
    let mut out = String::from("(");
    match value {
        Value::Scalar(v) => out.push_str(&format!("[0]={}", value_text(v))),
        Value::Indexed(map) => {
            let items: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("[{k}]={}", value_text(v)))
                .collect();
            out.push_str(&items.join(" "));
        }
        Value::Assoc(map) => {
            for (k, v) in map.iter() {
                let key = quote_key(k);
                out.push_str(&format!("[{key}]={} ", value_text(v)));
            }
        }
    }
    out.push(')');
    out
}

/// `bytes` up to its first NUL: what a shell string keeps of bytes that
/// hold one (bash's strings are C strings: `printf -v`, `${x@E}`,
/// `mapfile`).
pub fn up_to_nul(mut bytes: Vec<u8>) -> Vec<u8> {
    if let Some(nul) = bytes.iter().position(|&b| b == 0) {
        bytes.truncate(nul);
    }
    bytes
}
