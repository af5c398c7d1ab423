//! Which words are fixed before run time.
//!
//! A word is *static* when its value after expansion is known now: only
//! literal and quoted text, no expansion, and no unquoted pattern or brace
//! character that could turn one word into other words. Everything else is
//! decided by the dynamic check on the final argv.

use crate::syntax::ast::{Parameter, Word, WordPart};

/// The value of `word` if it is known before run time.
pub fn static_value(word: &Word) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    for part in &word.parts {
        push_static(part, false, &mut out)?;
    }
    if opens_bracket_pattern(word) {
        return None;
    }
    Some(out)
}

/// An unquoted `[` is a pattern only when an unquoted `]` follows it in the
/// same word (`[abc]`); a lone `[` (the test command) is literal.
fn opens_bracket_pattern(word: &Word) -> bool {
    let unquoted: Vec<u8> = word
        .parts
        .iter()
        .filter_map(|p| match p {
            WordPart::Literal(bytes) => Some(bytes.as_slice()),
            _ => None,
        })
        .flatten()
        .copied()
        .collect();
    match unquoted.iter().position(|&b| b == b'[') {
        Some(open) => unquoted[open + 1..].contains(&b']'),
        None => false,
    }
}

/// The variable a declaration-builtin operand (`export NAME=value`,
/// `export NAME`) names, when that name is fixed even if the value is not.
pub fn declared_name(word: &Word) -> Option<String> {
    let mut name = Vec::new();
    for part in &word.parts {
        let WordPart::Literal(bytes) = part else {
            break;
        };
        match bytes.iter().position(|&b| b == b'=') {
            Some(eq) => {
                name.extend_from_slice(&bytes[..eq]);
                let name = name.strip_suffix(b"+").unwrap_or(&name);
                return Some(String::from_utf8_lossy(name).into_owned());
            }
            None => name.extend_from_slice(bytes),
        }
    }
    static_value(word).map(|v| String::from_utf8_lossy(&v).into_owned())
}

fn push_static(part: &WordPart, in_double_quotes: bool, out: &mut Vec<u8>) -> Option<()> {
    match part {
        WordPart::Literal(bytes) => {
            if !in_double_quotes && bytes.iter().any(|b| is_unquoted_special(*b)) {
                return None;
            }
            out.extend_from_slice(bytes);
        }
        WordPart::SingleQuoted(bytes) | WordPart::AnsiC(bytes) | WordPart::Escaped(bytes) => {
            out.extend_from_slice(bytes)
        }
        WordPart::DoubleQuoted(parts) => {
            for inner in parts {
                push_static(inner, true, out)?;
            }
        }
        WordPart::Tilde(_)
        | WordPart::Parameter(_)
        | WordPart::CommandSubst { .. }
        | WordPart::Arithmetic(_)
        | WordPart::ProcessSubst { .. }
        | WordPart::Array(_)
        | WordPart::BadSubstitution(_) => return None,
    }
    Some(())
}

/// Unquoted bytes whose meaning depends on run time: pattern characters
/// (pathname expansion; `[` is judged per word; an unquoted `(` in a word
/// opens an extended glob group such as `@(a|b)`) and braces (brace
/// expansion).
fn is_unquoted_special(b: u8) -> bool {
    matches!(b, b'*' | b'?' | b'{' | b'}' | b'(')
}

/// Source-like text of a word for messages (quotes dropped, expansions shown
/// as `$…`).
pub fn describe(word: &Word) -> String {
    let mut out = Vec::new();
    for part in &word.parts {
        describe_part(part, &mut out);
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn describe_part(part: &WordPart, out: &mut Vec<u8>) {
    match part {
        WordPart::Literal(b)
        | WordPart::SingleQuoted(b)
        | WordPart::AnsiC(b)
        | WordPart::Escaped(b) => out.extend_from_slice(b),
        WordPart::DoubleQuoted(parts) => parts.iter().for_each(|p| describe_part(p, out)),
        WordPart::Tilde(user) => {
            out.push(b'~');
            if let Some(u) = user {
                out.extend_from_slice(u);
            }
        }
        WordPart::Parameter(expansion) => {
            let name = match &expansion.param {
                Parameter::Named(name) => name.clone(),
                Parameter::Positional(n) => n.to_string(),
                Parameter::Special(_) => "…".to_string(),
                Parameter::Element(element) => format!("{}[…]", element.name),
            };
            out.extend_from_slice(format!("${{{name}}}").as_bytes())
        }
        WordPart::CommandSubst { .. } => out.extend_from_slice("$(…)".as_bytes()),
        WordPart::Arithmetic(_) => out.extend_from_slice("$((…))".as_bytes()),
        WordPart::ProcessSubst { .. } => out.extend_from_slice("<(…)".as_bytes()),
        WordPart::Array(_) => out.extend_from_slice("(…)".as_bytes()),
        WordPart::BadSubstitution(text) => out.extend_from_slice(text),
    }
}
