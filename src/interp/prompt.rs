//! `PS1` and `PS2` as bash shows them: the backslash escapes decoded
//! (`\u \h \w \W \$ \n \[ \]`, times, numbers), then the text expanded as
//! if in double quotes. A prompt is shell text that runs (`$(pwd)`,
//! `$(git branch)`), so the expansion goes through the same parse, guard
//! and audit log as a line (origin `prompt`); a prompt without `$` or a
//! backquote is only decoded and leaves no record.

use super::Shell;
use crate::syntax::ast::{Command, Word, WordPart};

/// What the escapes of a prompt stand for, gathered once per prompt.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    pub user: Vec<u8>,
    /// The host name in full (`\H`); `\h` is its part before the first dot.
    pub host: Vec<u8>,
    pub pwd: Vec<u8>,
    pub home: Vec<u8>,
    pub root: bool,
    /// The shell's name (`\s`: the base name of `$0`).
    pub shell: Vec<u8>,
    /// `\#`: the number of this command in the session.
    pub command_number: usize,
    /// `\!`: the number this line will have in the history.
    pub history_number: usize,
    /// `\l`: the base name of the terminal on standard input.
    pub tty: Vec<u8>,
    /// When the prompt is shown, seconds since the epoch (`\t`, `\d`, `\D{…}`).
    pub now: i64,
}

/// `ps` with its escapes replaced, as bash's prompt decoder does. What an
/// escape stands for (a folder, a host name) is quoted for the expansion
/// that follows, so a folder named `$(x)` is shown, not run.
pub fn decode(ps: &[u8], facts: &Facts) -> Vec<u8> {
    let mut out = Vec::with_capacity(ps.len());
    let mut i = 0;
    while i < ps.len() {
        let c = ps[i];
        if c != b'\\' || i + 1 == ps.len() {
            out.push(c);
            i += 1;
            continue;
        }
        let e = ps[i + 1];
        i += 2;
        match e {
            b'u' => quoted(&mut out, &facts.user),
            b'h' => quoted(
                &mut out,
                facts.host.split(|&b| b == b'.').next().unwrap_or(&[]),
            ),
            b'H' => quoted(&mut out, &facts.host),
            b'w' => quoted(&mut out, &tilde_folder(&facts.pwd, &facts.home)),
            b'W' => quoted(&mut out, &base_folder(&facts.pwd, &facts.home)),
            b's' => quoted(&mut out, base_name(&facts.shell)),
            b'v' => out.extend_from_slice(b"5.2"),
            b'V' => out.extend_from_slice(b"5.2.0"),
            // Quoted: a lone `$` would start an expansion.
            b'$' => out.extend_from_slice(if facts.root { b"#" } else { b"\\$" }),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b'a' => out.push(0x07),
            b'e' => out.push(0x1b),
            b'\\' => out.extend_from_slice(b"\\\\"),
            // Readline's markers around text that takes no room; the line
            // editor measures escape sequences itself.
            b'[' | b']' => {}
            b'j' => out.push(b'0'),
            b'l' => quoted(&mut out, &facts.tty),
            b'#' => out.extend_from_slice(facts.command_number.to_string().as_bytes()),
            b'!' => out.extend_from_slice(facts.history_number.to_string().as_bytes()),
            b't' => quoted(&mut out, &clock(b"%H:%M:%S", facts)),
            b'T' => quoted(&mut out, &clock(b"%I:%M:%S", facts)),
            b'@' => quoted(&mut out, &clock(b"%I:%M %p", facts)),
            b'A' => quoted(&mut out, &clock(b"%H:%M", facts)),
            b'd' => quoted(&mut out, &clock(b"%a %b %d", facts)),
            b'D' if ps.get(i) == Some(&b'{') => match ps[i..].iter().position(|&b| b == b'}') {
                Some(close) => {
                    let format = &ps[i + 1..i + close];
                    let format: &[u8] = if format.is_empty() { b"%X" } else { format };
                    quoted(&mut out, &clock(format, facts));
                    i += close + 1;
                }
                None => out.extend_from_slice(b"\\D"),
            },
            b'0'..=b'7' => {
                // Up to three octal digits.
                let digits = ps[i - 1..]
                    .iter()
                    .take(3)
                    .take_while(|b| (b'0'..=b'7').contains(*b))
                    .count();
                let value = ps[i - 1..i - 1 + digits]
                    .iter()
                    .fold(0u32, |v, &d| v * 8 + u32::from(d - b'0'));
                let byte = (value & 0xff) as u8;
                // A decoded backslash, `$` or backquote stays text.
                quoted(&mut out, &[byte]);
                i += digits - 1;
            }
            // Any other escape stays as written, for the expansion.
            _ => out.extend_from_slice(&[b'\\', e]),
        }
    }
    out
}

/// Whether decoded `text` holds an unquoted `$` or backquote: an expansion
/// to parse, check and run.
pub fn needs_expansion(text: &[u8]) -> bool {
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            b'\\' => i += 2,
            b'$' | b'`' => return true,
            _ => i += 1,
        }
    }
    false
}

/// Decoded `text` that expands nothing, as the expansion would leave it.
pub fn unquote(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        match (text[i], text.get(i + 1)) {
            (b'\\', Some(b'\n')) => i += 2,
            (b'\\', Some(&e @ (b'$' | b'`' | b'\\' | b'"'))) => {
                out.push(e);
                i += 2;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// `value` escaped so that the double-quote expansion gives it back.
fn quoted(out: &mut Vec<u8>, value: &[u8]) {
    for &b in value {
        if matches!(b, b'$' | b'`' | b'\\' | b'"') {
            out.push(b'\\');
        }
        out.push(b);
    }
}

/// `\w`: the folder with `$HOME` at its start shown as `~`.
fn tilde_folder(pwd: &[u8], home: &[u8]) -> Vec<u8> {
    if !home.is_empty() && home != b"/" {
        if let Some(rest) = pwd.strip_prefix(home) {
            if rest.is_empty() || rest.starts_with(b"/") {
                return [b"~", rest].concat();
            }
        }
    }
    pwd.to_vec()
}

/// `\W`: the folder's base name, `~` for `$HOME`.
fn base_folder(pwd: &[u8], home: &[u8]) -> Vec<u8> {
    if !home.is_empty() && pwd == home {
        return b"~".to_vec();
    }
    if pwd == b"/" {
        return pwd.to_vec();
    }
    base_name(pwd).to_vec()
}

/// `format` (strftime's) of the prompt's time.
fn clock(format: &[u8], facts: &Facts) -> Vec<u8> {
    super::builtins::strftime_local(format, facts.now)
}

fn base_name(path: &[u8]) -> &[u8] {
    let path = path.strip_suffix(b"/").unwrap_or(path);
    path.rsplit(|&b| b == b'/').next().unwrap_or(path)
}

impl Shell<'_> {
    /// The prompt `name` (`PS1`, `PS2`) as bash shows it; `history_number`
    /// is what `\!` shows. A prompt whose expansion is refused or fails
    /// shows its decoded text unexpanded; `$?` is left as it was.
    pub(super) fn expanded_prompt(&mut self, name: &str, history_number: usize) -> Vec<u8> {
        let raw = self.vars.get(name).unwrap_or_default().to_vec();
        self.use_exported_time_zone();
        let facts = self.prompt_facts(&raw, history_number);
        let decoded = decode(&raw, &facts);
        if !needs_expansion(&decoded) {
            return unquote(&decoded);
        }
        let word = match crate::syntax::parse_prompt(&decoded) {
            Ok(word) => word,
            Err(e) => {
                self.error(&format!("{name}: syntax error at {}", e.render(&decoded)));
                return unquote(&decoded);
            }
        };
        // The prompt as a line of its own, `: "…"`, so the guard and the
        // audit log see it as they see any other.
        let mut line = b": ".to_vec();
        line.extend_from_slice(&crate::syntax::double_quoted_to_source(&word));
        let status = self.status;
        let shown = match self.admit(&line, "prompt") {
            Ok(list) => match prompt_word(&list) {
                Some(word) => self.expand_string(word).ok(),
                None => None,
            },
            Err(_) => None,
        };
        self.status = status;
        shown.unwrap_or_else(|| unquote(&decoded))
    }

    /// What the escapes of the prompt `ps` stand for now. The user, host
    /// and terminal are looked up only when `ps` asks for them.
    fn prompt_facts(&self, ps: &[u8], history_number: usize) -> Facts {
        let asks = |escapes: &[u8]| {
            ps.windows(2)
                .any(|w| w[0] == b'\\' && escapes.contains(&w[1]))
        };
        let user = if asks(b"u") {
            super::expand::passwd_entry(&*self.sys, None)
                .map(|(name, _)| name)
                .or_else(|| self.vars.get("USER").map(<[u8]>::to_vec))
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        let host = if asks(b"hH") {
            self.sys.host_name().unwrap_or_default()
        } else {
            Vec::new()
        };
        let tty = if asks(b"l") {
            self.sys
                .terminal_name(0)
                .map(|name| {
                    name.strip_prefix(b"/dev/")
                        .map_or(name.clone(), <[u8]>::to_vec)
                })
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        Facts {
            user,
            host,
            pwd: self.vars.get("PWD").unwrap_or_default().to_vec(),
            home: self.vars.get("HOME").unwrap_or_default().to_vec(),
            root: self.sys.effective_ids().0 == 0,
            shell: self.arg0.clone(),
            command_number: self.position.commands_read + 1,
            history_number,
            tty,
            now: self.sys.now(),
        }
    }
}

/// The one word after `:` in the line built from a prompt.
fn prompt_word(list: &crate::syntax::ast::List) -> Option<&Word> {
    let [item] = list.items.as_slice() else {
        return None;
    };
    let [element] = item.and_or.first.elements.as_slice() else {
        return None;
    };
    match &element.command {
        Command::Simple(simple) => match simple.words.as_slice() {
            [_, word] if matches!(word.parts.as_slice(), [WordPart::DoubleQuoted(_)]) => Some(word),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> Facts {
        Facts {
            user: b"ann".to_vec(),
            host: b"box.example.org".to_vec(),
            pwd: b"/home/ann/src/x$y".to_vec(),
            home: b"/home/ann".to_vec(),
            root: false,
            shell: b"/usr/bin/guard-sh".to_vec(),
            command_number: 3,
            history_number: 7,
            tty: b"1".to_vec(),
            now: 0,
        }
    }

    fn shown(ps: &str) -> String {
        String::from_utf8_lossy(&unquote(&decode(ps.as_bytes(), &facts()))).into_owned()
    }

    #[test]
    fn escapes_decode_as_bash_decodes_them() {
        assert_eq!(shown(r"\u@\h:\w\$ "), "ann@box:~/src/x$y$ ");
        assert_eq!(
            shown(r"[\W] \H \s \v \# \! \l"),
            "[x$y] box.example.org guard-sh 5.2 3 7 1"
        );
        assert_eq!(
            shown(r"\[\e[1m\]>\[\e[0m\] \101\\ \q"),
            "\x1b[1m>\x1b[0m A\\ \\q"
        );
        assert_eq!(shown("a\\\"b \\n"), "a\"b \n");
    }

    #[test]
    fn what_an_escape_stands_for_is_not_expanded() {
        // The folder's `$y` is quoted; the prompt's own `$?` is not.
        let decoded = decode(br"\w $?", &facts());
        assert_eq!(decoded, br"~/src/x\$y $?");
        assert!(needs_expansion(&decoded));
        assert!(!needs_expansion(&decode(br"\w \$ ", &facts())));
    }

    #[test]
    fn root_gets_a_hash_and_home_is_a_tilde() {
        let mut f = facts();
        f.root = true;
        f.pwd = f.home.clone();
        assert_eq!(unquote(&decode(br"\W \w \$", &f)), b"~ ~ #");
        f.pwd = b"/home/annex".to_vec();
        assert_eq!(unquote(&decode(br"\w", &f)), b"/home/annex");
    }
}
