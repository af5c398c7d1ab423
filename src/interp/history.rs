//! History expansion of an interactive shell's lines (`!!`, `!N`, `!-N`,
//! `!TEXT`, `!?TEXT?`, `!$`, `!^`, `!*`, `^OLD^NEW`), done on the line as
//! typed, before it is parsed, as bash does: the expanded line is what the
//! guard checks, the log records and the history keeps. What bash would
//! expand and this does not (word designators after `:`, modifiers) is
//! refused with a message rather than run as typed.

/// Lines kept (bash's `HISTSIZE` default).
pub const KEPT: usize = 500;

/// The session's lines, oldest first, at most [`KEPT`]: the one list
/// `history` prints, `!!` expands and the line editor's ↑, ↓ and Ctrl-R
/// browse.
#[derive(Debug, Clone, Default)]
pub struct History(Vec<Vec<u8>>);

impl History {
    /// Keep `line` (its newline dropped), unless it is blank, as bash does.
    pub fn remember(&mut self, line: &[u8]) {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        if self.0.len() == KEPT {
            self.0.remove(0);
        }
        self.0.push(line.to_vec());
    }

    /// The lines, oldest first.
    pub fn entries(&self) -> &[Vec<u8>] {
        &self.0
    }

    /// `history -c`.
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// The number the next line will have (a prompt's `\!`).
    pub fn next_number(&self) -> usize {
        self.0.len() + 1
    }
}

/// How expanding a line went.
#[derive(Debug, PartialEq, Eq)]
pub enum Expansion {
    /// Nothing to expand: run the line as typed.
    Unchanged,
    /// The line with its events replaced (bash echoes it before running).
    Expanded(Vec<u8>),
    /// An event that names nothing, or a form not supported: bash's
    /// message (without the shell's name); the line does not run.
    Failed(String),
}

/// Expand the history events of `line` against `history` (oldest first).
pub fn expand(line: &[u8], history: &[Vec<u8>]) -> Expansion {
    if let Some(rest) = line.strip_prefix(b"^") {
        return quick_substitution(rest, history);
    }
    let mut out = Vec::with_capacity(line.len());
    let mut changed = false;
    let mut single = false;
    let mut double = false;
    let mut i = 0;
    while i < line.len() {
        let b = line[i];
        match b {
            b'\\' if !single => {
                out.extend_from_slice(&line[i..(i + 2).min(line.len())]);
                i += 2;
                continue;
            }
            b'\'' if !double => single = !single,
            b'"' if !single => double = !double,
            b'!' if !single && expands_here(line.get(i + 1).copied(), double) => {
                let (event, used) = match event(&line[i + 1..], history) {
                    Ok(found) => found,
                    Err(message) => return Expansion::Failed(message),
                };
                out.extend_from_slice(&event);
                i += 1 + used;
                changed = true;
                continue;
            }
            _ => {}
        }
        out.push(b);
        i += 1;
    }
    if changed {
        Expansion::Expanded(out)
    } else {
        Expansion::Unchanged
    }
}

/// Whether a `!` followed by `next` starts an event: not before a blank,
/// the end of the line, `=` or `(`, nor before the `"` that closes a
/// double-quoted string.
fn expands_here(next: Option<u8>, in_double: bool) -> bool {
    match next {
        None | Some(b' ' | b'\t' | b'\n' | b'\r' | b'=' | b'(') => false,
        Some(b'"') => !in_double,
        Some(_) => true,
    }
}

/// The text of the event at the start of `spec` (what follows a `!`), and
/// how many bytes of `spec` it took.
fn event(spec: &[u8], history: &[Vec<u8>]) -> Result<(Vec<u8>, usize), String> {
    let shown = |used: usize| format!("!{}", String::from_utf8_lossy(&spec[..used]));
    let last = || history.last().cloned();
    let (found, used) = match spec[0] {
        b'!' => (last(), 1),
        b'$' | b'^' | b'*' => {
            let words = last().map(|line| words(&line)).unwrap_or_default();
            let picked = match spec[0] {
                b'$' => words.last().cloned(),
                b'^' => words.get(1).cloned(),
                _ => Some(words.get(1..).unwrap_or_default().join(&b' ')),
            };
            match picked {
                Some(text) => return Ok((text, 1)),
                None => return Err(format!("{}: bad word specifier", shown(1))),
            }
        }
        b'?' => {
            let end = spec[1..].iter().position(|b| matches!(b, b'?' | b'\n'));
            let text = &spec[1..end.map_or(spec.len(), |e| e + 1)];
            let used = end.map_or(spec.len(), |e| e + 2 - usize::from(spec[e + 1] == b'\n'));
            let found = history
                .iter()
                .rev()
                .find(|line| contains(line, text))
                .cloned();
            (found, used)
        }
        b'-' | b'0'..=b'9' => {
            let digits = spec[1..].iter().take_while(|b| b.is_ascii_digit()).count() + 1;
            let number: Option<usize> =
                std::str::from_utf8(&spec[usize::from(spec[0] == b'-')..digits])
                    .ok()
                    .and_then(|d| d.parse().ok());
            let found = match (spec[0], number) {
                (b'-', Some(back)) if back >= 1 => history.len().checked_sub(back),
                (b'-', _) => None,
                (_, Some(n)) if n >= 1 => Some(n - 1),
                _ => None,
            };
            (found.and_then(|at| history.get(at)).cloned(), digits)
        }
        _ => {
            let used = spec
                .iter()
                .take_while(|b| !b" \t\n;&|()<>\"':".contains(b))
                .count();
            let prefix = &spec[..used];
            let found = history
                .iter()
                .rev()
                .find(|line| line.starts_with(prefix))
                .cloned();
            (found, used)
        }
    };
    if spec.get(used) == Some(&b':') {
        return Err(format!(
            "{}: word designators and modifiers (`:…`) are not supported",
            shown(used)
        ));
    }
    match found {
        Some(text) => Ok((text, used)),
        None => Err(format!("{}: event not found", shown(used))),
    }
}

/// `^OLD^NEW[^]`: the last line with the first OLD replaced by NEW.
fn quick_substitution(rest: &[u8], history: &[Vec<u8>]) -> Expansion {
    let rest = rest.strip_suffix(b"\n").unwrap_or(rest);
    let mut parts = rest.splitn(3, |b| *b == b'^');
    let old = parts.next().unwrap_or_default();
    let new = parts.next().unwrap_or_default();
    let tail = parts.next().unwrap_or_default();
    let Some(last) = history.last() else {
        return Expansion::Failed("^: event not found".into());
    };
    let Some(at) = find(last, old).filter(|_| !old.is_empty()) else {
        return Expansion::Failed(format!(
            "^{}^{}: substitution failed",
            String::from_utf8_lossy(old),
            String::from_utf8_lossy(new)
        ));
    };
    let mut line = [&last[..at], new, &last[at + old.len()..], tail].concat();
    line.push(b'\n');
    Expansion::Expanded(line)
}

/// The blank-separated words of a history line (the command first).
fn words(line: &[u8]) -> Vec<Vec<u8>> {
    line.split(|b| b.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len().max(1))
        .position(|w| w == needle)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || find(haystack, needle).is_some()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic, clippy::expect_used)] // test code reports failures by panicking
    use super::*;

    fn history() -> Vec<Vec<u8>> {
        vec![
            b"echo hi".to_vec(),
            b"tea issues list --repo o/r".to_vec(),
            b"grep -c open out.txt".to_vec(),
        ]
    }

    fn expanded(line: &str) -> String {
        match expand(line.as_bytes(), &history()) {
            Expansion::Expanded(text) => String::from_utf8(text).expect("utf-8"),
            other => panic!("{line}: {other:?}"),
        }
    }

    fn failed(line: &str) -> String {
        match expand(line.as_bytes(), &history()) {
            Expansion::Failed(message) => message,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn events_expand_as_bash_expands_them() {
        assert_eq!(expanded("!!\n"), "grep -c open out.txt\n");
        assert_eq!(
            expanded("echo \"x!!y\"\n"),
            "echo \"xgrep -c open out.txty\"\n"
        );
        assert_eq!(expanded("!1 there\n"), "echo hi there\n");
        assert_eq!(expanded("!-2\n"), "tea issues list --repo o/r\n");
        assert_eq!(
            expanded("!tea; !e\n"),
            "tea issues list --repo o/r; echo hi\n"
        );
        assert_eq!(expanded("!?repo?\n"), "tea issues list --repo o/r\n");
        assert_eq!(expanded("cat !$\n"), "cat out.txt\n");
        assert_eq!(expanded("echo !^ !*\n"), "echo -c -c open out.txt\n");
        assert_eq!(expanded("^open^closed\n"), "grep -c closed out.txt\n");
    }

    #[test]
    fn quoted_escaped_and_lone_bangs_stay() {
        for line in [
            "echo '!!'\n",
            "echo \\!!\n",
            "echo hi!\n",
            "echo \"hi!\"\n",
            "x=! ; [ ! -f x ]\n",
            "echo !=\n",
        ] {
            assert_eq!(
                expand(line.as_bytes(), &history()),
                Expansion::Unchanged,
                "{line}"
            );
        }
    }

    #[test]
    fn unknown_events_and_unsupported_forms_fail_with_bash_words() {
        assert_eq!(failed("!nope\n"), "!nope: event not found");
        assert_eq!(failed("!9\n"), "!9: event not found");
        assert_eq!(failed("!-7\n"), "!-7: event not found");
        assert_eq!(
            failed("!!:1\n"),
            "!!: word designators and modifiers (`:…`) are not supported"
        );
        assert_eq!(failed("^zzz^y\n"), "^zzz^y: substitution failed");
        assert_eq!(
            expand(b"!!\n", &[]),
            Expansion::Failed("!!: event not found".into())
        );
    }
}
