//! Brace expansion (bash): `a{b,c}d` and sequences `{1..5}`, `{a..e}`,
//! `{01..10..3}`, applied only to unquoted literal text of a word. Quoted
//! text and expansions are opaque items that braces never split.

use crate::syntax::ast::WordPart;

/// A word as brace expansion sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item<'w> {
    /// One byte of unquoted literal text.
    Char(u8),
    /// Any other part, untouched.
    Part(&'w WordPart),
}

/// The tilde prefix a word made by brace expansion starts with: how many
/// items it takes and the user it names (`None`: `~` alone, the home).
/// Only unquoted name bytes up to the first `/` (or the end) form one, as
/// the parser reads a prefix; a word whose first part the parser already
/// read as a tilde has none here.
pub fn tilde_prefix(word: &[Item<'_>]) -> Option<(usize, Option<Vec<u8>>)> {
    let Some(Item::Char(b'~')) = word.first() else {
        return None;
    };
    let mut user = Vec::new();
    for item in &word[1..] {
        match item {
            Item::Char(b'/') => break,
            Item::Char(c) if crate::syntax::is_tilde_name_byte(*c) => user.push(*c),
            Item::Char(_) | Item::Part(_) => return None,
        }
    }
    let len = 1 + user.len();
    Some((len, (!user.is_empty()).then_some(user)))
}

/// Upper bound on the words one brace expression may produce.
pub const MAX_WORDS: usize = 100_000;

/// A brace expression would produce more than [`MAX_WORDS`] words; it is
/// refused rather than cut short (bash would give them all).
#[derive(Debug, PartialEq, Eq)]
pub struct TooManyWords;

/// Expand every brace expression in `items`, left to right.
pub fn expand<'w>(items: &[Item<'w>]) -> Result<Vec<Vec<Item<'w>>>, TooManyWords> {
    let mut out = Vec::new();
    expand_into(items, &mut out)?;
    Ok(out)
}

fn expand_into<'w>(items: &[Item<'w>], out: &mut Vec<Vec<Item<'w>>>) -> Result<(), TooManyWords> {
    for open in 0..items.len() {
        if items[open] != Item::Char(b'{') {
            continue;
        }
        let Some(close) = matching_close(items, open) else {
            continue;
        };
        let inner = &items[open + 1..close];
        let prefix = &items[..open];
        let suffix = &items[close + 1..];
        let alternatives = split_commas(inner);
        if alternatives.len() >= 2 {
            for alt in alternatives {
                if out.len() >= MAX_WORDS {
                    return Err(TooManyWords);
                }
                let mut word: Vec<Item<'w>> = prefix.to_vec();
                word.extend_from_slice(alt);
                word.extend_from_slice(suffix);
                // Braces in the prefix were already found not to expand.
                expand_into(&word, out)?;
            }
            return Ok(());
        }
        if let Some(seq) = sequence(inner) {
            for text in seq {
                if out.len() >= MAX_WORDS {
                    return Err(TooManyWords);
                }
                let mut word: Vec<Item<'w>> = prefix.to_vec();
                word.extend(text.iter().map(|&b| Item::Char(b)));
                word.extend_from_slice(suffix);
                expand_into(&word, out)?;
            }
            return Ok(());
        }
    }
    out.push(items.to_vec());
    Ok(())
}

fn matching_close(items: &[Item<'_>], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, item) in items.iter().enumerate().skip(open) {
        match item {
            Item::Char(b'{') => depth += 1,
            Item::Char(b'}') => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

fn split_commas<'a, 'w>(inner: &'a [Item<'w>]) -> Vec<&'a [Item<'w>]> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, item) in inner.iter().enumerate() {
        match item {
            Item::Char(b'{') => depth += 1,
            Item::Char(b'}') => depth = depth.saturating_sub(1),
            Item::Char(b',') if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
}

/// `x..y[..step]` over integers or single letters.
fn sequence(inner: &[Item<'_>]) -> Option<Vec<Vec<u8>>> {
    let mut text = Vec::new();
    for item in inner {
        match item {
            Item::Char(b) => text.push(*b),
            Item::Part(_) => return None,
        }
    }
    let text = String::from_utf8(text).ok()?;
    let pieces: Vec<&str> = text.split("..").collect();
    if pieces.len() != 2 && pieces.len() != 3 {
        return None;
    }
    let step: i64 = match pieces.get(2) {
        Some(s) => s.parse().ok()?,
        None => 1,
    };
    let step = if step == 0 { 1 } else { step.abs() };
    if let (Ok(a), Ok(b)) = (pieces[0].parse::<i64>(), pieces[1].parse::<i64>()) {
        let padded = |s: &str| {
            let digits = s.trim_start_matches('-');
            digits.len() > 1 && digits.starts_with('0')
        };
        let width = if padded(pieces[0]) || padded(pieces[1]) {
            pieces[0].len().max(pieces[1].len())
        } else {
            0
        };
        let out = range_terms(a, b, step, MAX_WORDS + 1)
            .into_iter()
            .map(|n| {
                if n < 0 {
                    format!("-{:0w$}", n.unsigned_abs(), w = width.saturating_sub(1))
                } else {
                    format!("{n:0width$}")
                }
                .into_bytes()
            })
            .collect();
        return Some(out);
    }
    let (a, b) = (pieces[0].as_bytes(), pieces[1].as_bytes());
    if a.len() == 1 && b.len() == 1 && a[0].is_ascii_alphabetic() && b[0].is_ascii_alphabetic() {
        let (a, b) = (i64::from(a[0]), i64::from(b[0]));
        let out = range_terms(a, b, step, MAX_WORDS + 1)
            .into_iter()
            .map(|n| vec![n as u8])
            .collect();
        return Some(out);
    }
    None
}

/// The terms from `a` towards `b` by `step` (> 0), at most `limit` of them;
/// a step that would pass `b` or overflow ends the range.
fn range_terms(a: i64, b: i64, step: i64, limit: usize) -> Vec<i64> {
    let mut out = Vec::new();
    let mut n = a;
    while out.len() < limit {
        out.push(n);
        let next = if a <= b {
            n.checked_add(step).filter(|m| *m <= b)
        } else {
            n.checked_sub(step).filter(|m| *m >= b)
        };
        match next {
            Some(m) => n = m,
            None => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        let items: Vec<Item<'_>> = s.bytes().map(Item::Char).collect();
        expand(&items)
            .unwrap_or_default()
            .into_iter()
            .map(|w| {
                w.iter()
                    .map(|i| match i {
                        Item::Char(b) => *b as char,
                        Item::Part(_) => '?',
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn alternatives_and_nesting_expand_left_to_right() {
        assert_eq!(words("a{b,c}d"), ["abd", "acd"]);
        assert_eq!(words("{a,b{1,2}}"), ["a", "b1", "b2"]);
        assert_eq!(words("{x,y}{1,2}"), ["x1", "x2", "y1", "y2"]);
        assert_eq!(words("{a}"), ["{a}"]);
        assert_eq!(words("{}"), ["{}"]);
    }

    #[test]
    fn sequences_count_up_down_with_steps_and_padding() {
        assert_eq!(words("{1..4}"), ["1", "2", "3", "4"]);
        assert_eq!(words("{3..1}"), ["3", "2", "1"]);
        assert_eq!(words("{1..10..4}"), ["1", "5", "9"]);
        assert_eq!(words("{08..10}"), ["08", "09", "10"]);
        assert_eq!(words("{a..c}"), ["a", "b", "c"]);
        assert_eq!(words("{1..b}"), ["{1..b}"]);
    }

    #[test]
    fn more_words_than_the_limit_is_an_error_not_a_shorter_list() {
        let items = |s: &str| -> Vec<Item<'static>> { s.bytes().map(Item::Char).collect() };
        let at_limit = expand(&items("{1..100000}")).map(|w| w.len());
        assert_eq!(at_limit, Ok(MAX_WORDS));
        assert_eq!(expand(&items("{1..100001}")), Err(TooManyWords));
        assert_eq!(expand(&items("{a,b}{1..50001}")), Err(TooManyWords));
    }
}
