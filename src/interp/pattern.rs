//! Shell patterns (XCU 2.13): `*`, `?`, bracket expressions with ranges,
//! negation and character classes; quoted characters match themselves.
//! With `extglob` (bash; always inside `[[ ]]`) also the groups `@(a|b)`,
//! `?(…)`, `*(…)`, `+(…)` and `!(…)`. Used by `case`, `[[ == ]]`,
//! `${x#p}`-style operators and pathname expansion.

use crate::system::{FileKind, System};
use std::path::Path;

/// One pattern byte and whether it was quoted (then it is literal).
pub type PatByte = (u8, bool);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Byte(u8),
    Any,
    Star,
    Class {
        negated: bool,
        items: Vec<ClassItem>,
    },
    /// An extended glob group: its operator (`@ ? * + !`) and each
    /// `|`-separated alternative.
    Group {
        op: u8,
        alternatives: Vec<Vec<Token>>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum ClassItem {
    Byte(u8),
    Range(u8, u8),
    Named(String),
}

/// Does the pattern contain an unquoted special character (with
/// `extglob`, also a group such as `@(`)?
pub fn has_magic(pat: &[PatByte], extglob: bool) -> bool {
    pat.iter().enumerate().any(|(i, &(b, quoted))| {
        !quoted && (matches!(b, b'*' | b'?' | b'[') || extglob && group_opens(pat, i))
    })
}

/// Whether an extended glob group opens at `pat[i]`: an unquoted
/// `@ ? * + !` then an unquoted `(`.
fn group_opens(pat: &[PatByte], i: usize) -> bool {
    matches!(pat[i], (b'@' | b'?' | b'*' | b'+' | b'!', false))
        && pat.get(i + 1) == Some(&(b'(', false))
}

/// The end of the group whose `(` is at `open` (the index after its `)`)
/// and its alternatives' spans; `None` when unbalanced (then the text is
/// literal, as in bash).
fn group_at(pat: &[PatByte], open: usize) -> Option<(usize, Vec<(usize, usize)>)> {
    let mut depth = 0usize;
    let mut start = open + 1;
    let mut alternatives = Vec::new();
    let mut i = open;
    while i < pat.len() {
        match pat[i] {
            (b'\\', false) => i += 1,
            (b'(', false) => depth += 1,
            (b')', false) => {
                depth -= 1;
                if depth == 0 {
                    alternatives.push((start, i));
                    return Some((i + 1, alternatives));
                }
            }
            (b'|', false) if depth == 1 => {
                alternatives.push((start, i));
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

fn compile(pat: &[PatByte], extglob: bool) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < pat.len() {
        let (b, quoted) = pat[i];
        if quoted {
            tokens.push(Token::Byte(b));
            i += 1;
            continue;
        }
        if extglob && group_opens(pat, i) {
            if let Some((next, spans)) = group_at(pat, i + 1) {
                let alternatives = spans
                    .into_iter()
                    .map(|(from, to)| compile(&pat[from..to], true))
                    .collect();
                tokens.push(Token::Group {
                    op: b,
                    alternatives,
                });
                i = next;
                continue;
            }
        }
        match b {
            b'*' => {
                if tokens.last() != Some(&Token::Star) {
                    tokens.push(Token::Star);
                }
                i += 1;
            }
            b'?' => {
                tokens.push(Token::Any);
                i += 1;
            }
            b'[' => match bracket(pat, i + 1) {
                Some((token, next)) => {
                    tokens.push(token);
                    i = next;
                }
                None => {
                    tokens.push(Token::Byte(b'['));
                    i += 1;
                }
            },
            b'\\' if i + 1 < pat.len() => {
                // A backslash left in a pattern (from an expansion) escapes.
                tokens.push(Token::Byte(pat[i + 1].0));
                i += 2;
            }
            _ => {
                tokens.push(Token::Byte(b));
                i += 1;
            }
        }
    }
    tokens
}

/// Parse a bracket expression starting after `[`; `None` if unterminated.
fn bracket(pat: &[PatByte], mut i: usize) -> Option<(Token, usize)> {
    let mut negated = false;
    if let Some(&(b, false)) = pat.get(i) {
        if b == b'!' || b == b'^' {
            negated = true;
            i += 1;
        }
    }
    let mut items = Vec::new();
    let mut first = true;
    loop {
        let &(b, quoted) = pat.get(i)?;
        if b == b']' && !quoted && !first {
            return Some((Token::Class { negated, items }, i + 1));
        }
        first = false;
        if b == b'[' && !quoted && pat.get(i + 1).map(|p| p.0) == Some(b':') {
            let rest: Vec<u8> = pat[i + 2..].iter().map(|p| p.0).collect();
            if let Some(end) = rest.windows(2).position(|w| w == b":]") {
                let name = String::from_utf8_lossy(&rest[..end]).into_owned();
                items.push(ClassItem::Named(name));
                i += 2 + end + 2;
                continue;
            }
        }
        let lo = if b == b'\\' && !quoted {
            i += 1;
            pat.get(i)?.0
        } else {
            b
        };
        if pat.get(i + 1).map(|p| p.0) == Some(b'-')
            && pat.get(i + 2).is_some_and(|p| p.0 != b']' || p.1)
        {
            let hi = pat[i + 2].0;
            items.push(ClassItem::Range(lo, hi));
            i += 3;
        } else {
            items.push(ClassItem::Byte(lo));
            i += 1;
        }
    }
}

fn class_has(name: &str, c: u8) -> bool {
    match name {
        "alpha" => c.is_ascii_alphabetic(),
        "digit" => c.is_ascii_digit(),
        "alnum" => c.is_ascii_alphanumeric(),
        "upper" => c.is_ascii_uppercase(),
        "lower" => c.is_ascii_lowercase(),
        "space" => c.is_ascii_whitespace() || c == 0x0b,
        "blank" => c == b' ' || c == b'\t',
        "punct" => c.is_ascii_punctuation(),
        "xdigit" => c.is_ascii_hexdigit(),
        "cntrl" => c.is_ascii_control(),
        "print" => (0x20..0x7f).contains(&c),
        "graph" => (0x21..0x7f).contains(&c),
        "word" => c.is_ascii_alphanumeric() || c == b'_',
        _ => false,
    }
}

/// What `?`, a bracket expression and a step of `*` take: one character
/// of a UTF-8 locale, or one byte of any other (the C locale), as bash
/// reads its locale from `LC_ALL`, `LC_CTYPE` and `LANG`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Byte,
    Utf8,
}

impl Unit {
    /// Length of the unit starting at `s[0]`.
    fn len(self, s: &[u8]) -> usize {
        match self {
            Unit::Byte => 1,
            Unit::Utf8 => char_len(s),
        }
    }
}

/// Length of the UTF-8 character starting at `s[0]` (1 for invalid bytes).
fn char_len(s: &[u8]) -> usize {
    let n = match s.first() {
        Some(b) if *b >= 0xf0 => 4,
        Some(b) if *b >= 0xe0 => 3,
        Some(b) if *b >= 0xc0 => 2,
        _ => 1,
    };
    if n <= s.len() && s[1..n].iter().all(|b| b & 0xc0 == 0x80) {
        n
    } else {
        1
    }
}

/// Does the token match at the start of `s`? Returns bytes consumed.
fn single(token: &Token, s: &[u8], unit: Unit) -> Option<usize> {
    let first = *s.first()?;
    match token {
        Token::Byte(b) => (first == *b).then_some(1),
        Token::Any => Some(unit.len(s)),
        Token::Class { negated, items } => {
            let hit = items.iter().any(|item| match item {
                ClassItem::Byte(b) => *b == first,
                ClassItem::Range(lo, hi) => *lo <= first && first <= *hi,
                ClassItem::Named(name) => class_has(name, first),
            });
            (hit != *negated).then_some(unit.len(s))
        }
        Token::Star | Token::Group { .. } => None,
    }
}

/// The matcher for patterns with groups: backtracking over every way to
/// split the text (groups are short in practice; `*` steps by character).
fn match_groups(tokens: &[Token], s: &[u8], unit: Unit) -> bool {
    let Some((first, rest)) = tokens.split_first() else {
        return s.is_empty();
    };
    match first {
        Token::Star => unit_ends(s, unit).any(|k| match_groups(rest, &s[k..], unit)),
        Token::Group { op, alternatives } => unit_ends(s, unit).any(|k| {
            group_matches(*op, alternatives, &s[..k], unit) && match_groups(rest, &s[k..], unit)
        }),
        token => single(token, s, unit).is_some_and(|n| match_groups(rest, &s[n..], unit)),
    }
}

/// Every index of `s` that ends a unit, 0 and `s.len()` included.
fn unit_ends(s: &[u8], unit: Unit) -> impl Iterator<Item = usize> + '_ {
    let mut at = Some(0);
    std::iter::from_fn(move || {
        let here = at?;
        at = (here < s.len()).then(|| here + unit.len(&s[here..]));
        Some(here)
    })
}

/// Whether the whole of `s` is what the group `op(alternatives)` matches.
fn group_matches(op: u8, alternatives: &[Vec<Token>], s: &[u8], unit: Unit) -> bool {
    match op {
        b'@' => one_of(alternatives, s, unit),
        b'?' => s.is_empty() || one_of(alternatives, s, unit),
        b'!' => !one_of(alternatives, s, unit),
        b'*' => s.is_empty() || repeated(alternatives, s, unit),
        _ => repeated(alternatives, s, unit),
    }
}

/// `s` is what one of the alternatives matches.
fn one_of(alternatives: &[Vec<Token>], s: &[u8], unit: Unit) -> bool {
    alternatives.iter().any(|a| match_groups(a, s, unit))
}

/// `s` is one or more matches of the alternatives, one after another.
fn repeated(alternatives: &[Vec<Token>], s: &[u8], unit: Unit) -> bool {
    one_of(alternatives, s, unit)
        || unit_ends(s, unit).skip(1).any(|k| {
            k < s.len()
                && one_of(alternatives, &s[..k], unit)
                && repeated(alternatives, &s[k..], unit)
        })
}

fn match_tokens(tokens: &[Token], s: &[u8], unit: Unit) -> bool {
    if tokens.iter().any(|t| matches!(t, Token::Group { .. })) {
        return match_groups(tokens, s, unit);
    }
    let (mut t, mut i) = (0usize, 0usize);
    let mut backtrack: Option<(usize, usize)> = None;
    loop {
        if t < tokens.len() {
            if tokens[t] == Token::Star {
                backtrack = Some((t, i));
                t += 1;
                continue;
            }
            if let Some(n) = single(&tokens[t], &s[i..], unit) {
                t += 1;
                i += n;
                continue;
            }
        } else if i == s.len() {
            return true;
        }
        match backtrack {
            Some((star, from)) if from < s.len() => {
                let next = from + unit.len(&s[from..]);
                backtrack = Some((star, next));
                t = star + 1;
                i = next;
            }
            _ => return false,
        }
    }
}

/// Does the whole of `s` match the pattern (groups read when `extglob`)?
pub fn matches(pat: &[PatByte], s: &[u8], extglob: bool, unit: Unit) -> bool {
    match_tokens(&compile(pat, extglob), s, unit)
}

/// A pattern compiled once, for the operators that try it against many
/// parts of one value (`${x#p}`, `${x/p/r}`).
pub struct Compiled(Vec<Token>, Unit);

impl Compiled {
    pub fn new(pat: &[PatByte], extglob: bool, unit: Unit) -> Compiled {
        Compiled(compile(pat, extglob), unit)
    }

    /// Does the whole of `s` match?
    pub fn matches(&self, s: &[u8]) -> bool {
        match_tokens(&self.0, s, self.1)
    }
}

/// Treat plain bytes as an unquoted pattern.
#[cfg(test)]
pub fn unquoted(bytes: &[u8]) -> Vec<PatByte> {
    bytes.iter().map(|&b| (b, false)).collect()
}

/// Quote removal of a pattern: the literal text it stands for.
pub fn literal(pat: &[PatByte]) -> Vec<u8> {
    pat.iter().map(|p| p.0).collect()
}

/// The shell options pathname expansion reads.
#[derive(Debug, Clone, Copy)]
pub struct GlobOptions {
    /// Names starting with `.` match without a leading `.` in the pattern.
    pub dotglob: bool,
    /// Groups such as `@(a|b)` are patterns.
    pub extglob: bool,
    /// What `?` takes in a name.
    pub unit: Unit,
    /// `shopt -u globskipdots`: `.` and `..` are names a pattern with a
    /// leading `.` may match.
    pub dots: bool,
}

/// Pathname expansion of `pat` relative to the working folder, reading
/// folders through `sys`; a folder whose real path `may_list` refuses is
/// read as an unreadable one is (no names). Sorted bytewise; empty when
/// nothing matches.
pub fn glob(
    sys: &dyn System,
    pat: &[PatByte],
    options: GlobOptions,
    may_list: &dyn Fn(&Path) -> bool,
) -> Vec<Vec<u8>> {
    let GlobOptions {
        dotglob,
        extglob,
        unit,
        dots,
    } = options;
    use std::os::unix::ffi::OsStrExt;
    let components: Vec<&[PatByte]> = pat.split(|p| p.0 == b'/').collect();
    let absolute = pat.first().is_some_and(|p| p.0 == b'/');
    let mut paths: Vec<Vec<u8>> = vec![if absolute { b"/".to_vec() } else { Vec::new() }];
    let last = components.len().saturating_sub(1);
    for (index, comp) in components.iter().enumerate() {
        if comp.is_empty() {
            if index != 0 && index != last {
                // `a//b`: keep the doubled slash out; nothing to match.
            }
            if index == last && index != 0 {
                for p in &mut paths {
                    if !p.ends_with(b"/") {
                        p.push(b'/');
                    }
                }
            }
            continue;
        }
        let mut next = Vec::new();
        for base in &paths {
            let join = |name: &[u8]| {
                let mut p = base.clone();
                if !p.is_empty() && !p.ends_with(b"/") {
                    p.push(b'/');
                }
                p.extend_from_slice(name);
                p
            };
            if !has_magic(comp, extglob) {
                next.push(join(&literal(comp)));
                continue;
            }
            let dir: &[u8] = if base.is_empty() { b"." } else { base };
            let listing = sys.dir_names(Path::new(std::ffi::OsStr::from_bytes(dir)));
            let Some(mut entries) = listing.ok().filter(|l| may_list(&l.real)).map(|l| l.names)
            else {
                continue;
            };
            let tokens = compile(comp, extglob);
            let leading_dot = comp.first().is_some_and(|p| p.0 == b'.');
            if dots && leading_dot {
                entries.extend([b".".to_vec(), b"..".to_vec()]);
            }
            let mut names: Vec<Vec<u8>> = entries
                .into_iter()
                .filter(|name| {
                    (!name.starts_with(b".") || leading_dot || dotglob)
                        && match_tokens(&tokens, name, unit)
                })
                .collect();
            names.sort();
            if index != last {
                names.retain(|n| {
                    let p = join(n);
                    sys.file_info(Path::new(std::ffi::OsStr::from_bytes(&p)), true)
                        .is_ok_and(|m| m.kind == FileKind::Dir)
                });
            }
            next.extend(names.iter().map(|n| join(n)));
        }
        paths = next;
    }
    paths.retain(|p| {
        !p.is_empty()
            && sys
                .file_info(Path::new(std::ffi::OsStr::from_bytes(p)), false)
                .is_ok()
    });
    if !has_magic(pat, extglob) {
        return paths;
    }
    paths.sort();
    paths
}

#[cfg(test)]
mod tests {
    use crate::system::fake::FakeSystem;
    use crate::system::{FileInfo, FileKind};

    /// A fake system whose working folder `/w` holds `a.txt`, `b.txt`,
    /// `.hidden` and `sub/c.txt`.
    fn tree() -> FakeSystem {
        let mut sys = FakeSystem::new();
        sys.cwd = "/w".into();
        let entries = [
            ("/w", FileKind::Dir),
            ("/w/a.txt", FileKind::File),
            ("/w/b.txt", FileKind::File),
            ("/w/.hidden", FileKind::File),
            ("/w/sub", FileKind::Dir),
            ("/w/sub/c.txt", FileKind::File),
        ];
        for (n, (path, kind)) in entries.into_iter().enumerate() {
            let info = FileInfo {
                kind,
                mode: 0o755,
                uid: 1000,
                gid: 1000,
                size: 0,
                id: (1, n as u64),
                modified: (0, 0),
                accessed: (0, 0),
            };
            sys.files.insert(path.into(), info);
        }
        sys
    }

    #[test]
    fn glob_reads_folders_through_the_system() {
        let sys = tree();
        let cases: &[(&str, bool, &[&str])] = &[
            ("*.txt", false, &["a.txt", "b.txt"]),
            ("*", false, &["a.txt", "b.txt", "sub"]),
            ("*", true, &[".hidden", "a.txt", "b.txt", "sub"]),
            (".*", false, &[".hidden"]),
            ("*/c.txt", false, &["sub/c.txt"]),
            ("*/", false, &["sub/"]),
            ("/w/?.txt", false, &["/w/a.txt", "/w/b.txt"]),
            ("none*", false, &[]),
            ("a.txt/*", false, &[]),
        ];
        for (pattern, dotglob, want) in cases {
            let options = GlobOptions {
                dotglob: *dotglob,
                extglob: false,
                unit: Unit::Utf8,
                dots: false,
            };
            let got = glob(&sys, &unquoted(pattern.as_bytes()), options, &|_| true);
            let got: Vec<String> = got
                .iter()
                .map(|p| String::from_utf8_lossy(p).into())
                .collect();
            assert_eq!(got, *want, "glob {pattern:?} (dotglob {dotglob})");
        }
    }

    use super::*;

    fn m(p: &str, s: &str) -> bool {
        matches(&unquoted(p.as_bytes()), s.as_bytes(), false, Unit::Utf8)
    }

    fn ext(p: &str, s: &str) -> bool {
        matches(&unquoted(p.as_bytes()), s.as_bytes(), true, Unit::Utf8)
    }

    #[test]
    fn extended_groups_match_like_bash() {
        let cases: &[(&str, &str, bool)] = &[
            ("@(ab|cd)", "ab", true),
            ("@(ab|cd)", "abcd", false),
            ("?(ab)x", "x", true),
            ("?(ab)x", "abx", true),
            ("?(ab)x", "ababx", false),
            ("*(ab)", "", true),
            ("*(ab)", "ababab", true),
            ("*(ab)", "aba", false),
            ("+(ab)", "", false),
            ("+(a|bc)", "abca", true),
            ("!(*.txt)", "a.rs", true),
            ("!(*.txt)", "a.txt", false),
            ("!(foo)bar", "foobar", false),
            ("!(foo)bar", "xbar", true),
            ("*.@(c|h)", "x.h", true),
            ("@(a|@(b|c))d", "cd", true),
            ("+([0-9])", "2024", true),
            ("+([0-9])", "20x4", false),
            ("@(a", "@(a", true),
            ("+(é)", "éé", true),
        ];
        for (p, s, want) in cases {
            assert_eq!(ext(p, s), *want, "{p} against {s}");
        }
        // Without extglob a group is text.
        assert!(!m("@(ab|cd)", "ab"));
        assert!(m("@(ab|cd)", "@(ab|cd)"));
        // A quoted group character is literal.
        let quoted = vec![(b'@', false), (b'(', true), (b'a', false), (b')', true)];
        assert!(!matches(&quoted, b"a", true, Unit::Utf8));
        assert!(matches(&quoted, b"@(a)", true, Unit::Utf8));
    }

    #[test]
    fn star_question_and_brackets_match_like_the_shell() {
        assert!(m("*.rs", "main.rs"));
        assert!(!m("*.rs", "main.rsx"));
        assert!(m("a?c", "abc"));
        assert!(m("[a-c]x", "bx"));
        assert!(!m("[!a-c]x", "bx"));
        assert!(m("[[:digit:]]*", "9lives"));
        assert!(m("*a*b*", "xxaxxbxx"));
        assert!(m("[]]", "]"));
        assert!(m("[", "["));
    }

    #[test]
    fn quoted_pattern_characters_are_literal() {
        let pat = vec![(b'*', true), (b'x', false)];
        assert!(matches(&pat, b"*x", false, Unit::Utf8));
        assert!(!matches(&pat, b"ax", false, Unit::Utf8));
    }

    #[test]
    fn a_question_mark_takes_a_character_in_utf8_and_a_byte_in_c() {
        let pat = unquoted("?".as_bytes());
        assert!(matches(&pat, "é".as_bytes(), false, Unit::Utf8));
        assert!(!matches(&pat, "é".as_bytes(), false, Unit::Byte));
        assert!(matches(&unquoted(b"??"), "é".as_bytes(), false, Unit::Byte));
        assert!(matches(
            &unquoted("[é]".as_bytes()),
            "é".as_bytes(),
            false,
            Unit::Utf8
        ));
        assert!(Compiled::new(&unquoted(b"h*?o"), false, Unit::Byte).matches("héo".as_bytes()));
    }
}
