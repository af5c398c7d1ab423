//! Line editing and history for an interactive shell on a terminal.
//!
//! Hand-written rather than a line-editing crate: those read the terminal
//! in blocks of up to a kilobyte and keep what follows the line they
//! return, so a command that reads standard input (`read x`, `cat`) would
//! not get the text typed or pasted after it, and a pasted here-document
//! could lose its lines. bash's readline reads a byte at a time; so does
//! this editor. It draws with backspaces, spaces and rewritten text only,
//! so it works on any terminal, `TERM=dumb` included.
//!
//! Keys (emacs style, as readline's defaults): printable text, ←/→,
//! Home/End, Ctrl-A/E/B/F, Backspace, Delete, Ctrl-D (end of input on an
//! empty line), Ctrl-K/U/W, ↑/↓ and Ctrl-P/N through the history, Ctrl-R
//! (search the history backwards as you type; Ctrl-G gives up), Tab
//! (complete the word before the cursor: the shell supplies the
//! candidates), Ctrl-L (clear the screen), Ctrl-C (drop the line), Enter.

use crate::system::{Fd, System};

/// What reading a line gave.
#[derive(Debug, PartialEq, Eq)]
pub enum Read {
    /// The line, with its newline.
    Line(Vec<u8>),
    /// Ctrl-C: the line was dropped.
    Interrupted,
    /// Ctrl-D on an empty line, or the terminal closed.
    End,
}

/// The editor's state: the line and the cursor; the history it browses
/// is the shell's, given with each key. Keys go in, the bytes that redraw
/// the line come out, so it is tested without a terminal.
#[derive(Debug, Default)]
pub struct Editor {
    /// The line being edited, one entry per character (UTF-8 sequence).
    line: Vec<Vec<u8>>,
    cursor: usize,
    /// The history entry shown (`history.len()`: the new line).
    shown: usize,
    /// The new line, kept while the history is browsed.
    draft: Vec<Vec<u8>>,
    /// The prompt's last line, as shown before the line (redrawn after a
    /// clear, a completion listing or a search).
    prompt: Vec<u8>,
    /// A Ctrl-R search under way.
    search: Option<Search>,
}

/// A reverse incremental search of the history (Ctrl-R).
#[derive(Debug, Default)]
struct Search {
    query: Vec<u8>,
    /// The history entry that matches, if one does.
    found: Option<usize>,
    /// The line as it was when the search began (Ctrl-G brings it back).
    saved: Vec<Vec<u8>>,
    /// Characters the search line took on screen.
    drawn: usize,
}

/// The word before the cursor, for the shell to complete (Tab).
#[derive(Debug, PartialEq, Eq)]
pub struct Completing {
    pub word: Vec<u8>,
    /// The word is where a command name goes (the line's first, or after
    /// `|`, `;`, `&`, `(`).
    pub command: bool,
}

/// One decoded key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    Text(Vec<u8>),
    Enter,
    Left,
    Right,
    Home,
    End,
    Backspace,
    Delete,
    /// Ctrl-D: delete, or the end of input on an empty line.
    DeleteOrEnd,
    KillToEnd,
    KillToStart,
    KillWord,
    Up,
    Down,
    Interrupt,
    /// Tab.
    Complete,
    /// Ctrl-L.
    ClearScreen,
    /// Ctrl-R.
    Search,
    /// Ctrl-G.
    Cancel,
    /// A key the editor does not bind.
    Ignored,
}

/// What a key did to the line.
#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    Editing,
    Done(Read),
    /// Tab: the shell finds the candidates and calls [`Editor::complete`].
    Complete(Completing),
}

impl Editor {
    /// Start a new line after `prompt` (already shown), below the
    /// `history` it will browse.
    pub fn start(&mut self, prompt: &[u8], history: &[Vec<u8>]) {
        self.line.clear();
        self.cursor = 0;
        self.shown = history.len();
        self.draft.clear();
        self.search = None;
        let last_line = prompt.rsplit(|b| *b == b'\n').next().unwrap_or_default();
        self.prompt = last_line.to_vec();
    }

    /// Apply `key` (browsing `history`, the shell's, oldest first); what to
    /// write to the terminal goes into `out`.
    pub fn key(&mut self, key: Key, history: &[Vec<u8>], out: &mut Vec<u8>) -> Step {
        if self.search.is_some() {
            match self.search_key(key, history, out) {
                Some(key) => return self.key(key, history, out),
                None => return Step::Editing,
            }
        }
        match key {
            Key::Text(text) => {
                let chars = split_chars(&text);
                let n = chars.len();
                self.line.splice(self.cursor..self.cursor, chars);
                self.cursor += n;
                self.redraw_from(self.cursor - n, out);
            }
            Key::Enter => {
                self.move_to(self.line.len(), out);
                out.push(b'\n');
                let mut line = self.line.concat();
                line.push(b'\n');
                return Step::Done(Read::Line(line));
            }
            Key::Left if self.cursor > 0 => self.move_to(self.cursor - 1, out),
            Key::Right if self.cursor < self.line.len() => self.move_to(self.cursor + 1, out),
            Key::Home => self.move_to(0, out),
            Key::End => self.move_to(self.line.len(), out),
            Key::Backspace if self.cursor > 0 => {
                self.move_to(self.cursor - 1, out);
                self.delete(self.cursor..self.cursor + 1, out);
            }
            Key::DeleteOrEnd if self.line.is_empty() => return Step::Done(Read::End),
            Key::Delete | Key::DeleteOrEnd if self.cursor < self.line.len() => {
                self.delete(self.cursor..self.cursor + 1, out);
            }
            Key::KillToEnd => self.delete(self.cursor..self.line.len(), out),
            Key::KillToStart => {
                let end = self.cursor;
                self.move_to(0, out);
                self.delete(0..end, out);
            }
            Key::KillWord => {
                let end = self.cursor;
                let mut start = end;
                while start > 0 && is_blank(&self.line[start - 1]) {
                    start -= 1;
                }
                while start > 0 && !is_blank(&self.line[start - 1]) {
                    start -= 1;
                }
                self.move_to(start, out);
                self.delete(start..end, out);
            }
            Key::Up if self.shown > 0 => self.show(self.shown - 1, history, out),
            Key::Down if self.shown < history.len() => self.show(self.shown + 1, history, out),
            Key::Interrupt => {
                self.move_to(self.line.len(), out);
                out.extend_from_slice(b"^C\n");
                return Step::Done(Read::Interrupted);
            }
            Key::Complete => return Step::Complete(self.completing()),
            Key::ClearScreen => {
                out.extend_from_slice(b"\x1b[H\x1b[2J");
                self.redraw_all(0, out);
            }
            Key::Search => {
                self.search = Some(Search {
                    saved: self.line.clone(),
                    ..Search::default()
                });
                self.draw_search(history, out);
            }
            _ => {}
        }
        Step::Editing
    }

    /// The word before the cursor and whether a command name goes there.
    fn completing(&self) -> Completing {
        let mut start = self.cursor;
        while start > 0 && !is_blank(&self.line[start - 1]) && !is_separator(&self.line[start - 1])
        {
            start -= 1;
        }
        let before = &self.line[..start];
        let command = before
            .iter()
            .rev()
            .find(|c| !is_blank(c))
            .is_none_or(|c| is_separator(c));
        Completing {
            word: self.line[start..self.cursor].concat(),
            command,
        }
    }

    /// Complete `what` from `candidates` (whole words starting with it;
    /// a folder ends in `/`): one is put in, with a space after it unless
    /// it is a folder; several put in what they share, or are listed when
    /// they share no more than the word; none rings the bell.
    pub fn complete(&mut self, what: &Completing, mut candidates: Vec<Vec<u8>>, out: &mut Vec<u8>) {
        candidates.retain(|c| c.starts_with(&what.word));
        candidates.sort();
        candidates.dedup();
        let shared = candidates.iter().skip(1).fold(
            candidates.first().cloned().unwrap_or_default(),
            |common, c| {
                let n = common.iter().zip(c).take_while(|(a, b)| a == b).count();
                common[..n].to_vec()
            },
        );
        match candidates.as_slice() {
            [] => out.push(0x07),
            [one] => {
                let mut rest = one[what.word.len()..].to_vec();
                if !one.ends_with(b"/") {
                    rest.push(b' ');
                }
                self.key(Key::Text(rest), &[], out);
            }
            _ if shared.len() > what.word.len() => {
                self.key(Key::Text(shared[what.word.len()..].to_vec()), &[], out);
            }
            _ => {
                let names: Vec<&[u8]> = candidates
                    .iter()
                    .map(|c| {
                        let name = c.strip_suffix(b"/").unwrap_or(c);
                        let base = name.rsplit(|b| *b == b'/').next().unwrap_or(name);
                        &c[c.len() - base.len() - usize::from(c.ends_with(b"/"))..]
                    })
                    .collect();
                self.move_to(self.line.len(), out);
                out.push(b'\n');
                out.extend_from_slice(&names.join(&b"  "[..]));
                out.push(b'\n');
                let cursor = self.cursor;
                self.cursor = self.line.len();
                self.redraw_all(0, out);
                self.move_to(cursor, out);
            }
        }
    }

    /// A key while a Ctrl-R search is under way; `Some(key)` when the key
    /// ends the search (with the match as the line) and is to act as usual.
    fn search_key(&mut self, key: Key, history: &[Vec<u8>], out: &mut Vec<u8>) -> Option<Key> {
        let search = self.search.as_mut()?;
        match key {
            Key::Text(text) => {
                search.query.extend_from_slice(&text);
                search.found = find_back(history, &search.query, history.len());
            }
            Key::Backspace => {
                let chars = split_chars(&search.query);
                search.query = chars[..chars.len().saturating_sub(1)].concat();
                search.found = find_back(history, &search.query, history.len());
            }
            Key::Search => {
                let before = search.found.unwrap_or(history.len());
                if let Some(older) = find_back(history, &search.query, before) {
                    search.found = Some(older);
                }
            }
            Key::Cancel | Key::Interrupt => {
                let search = self.search.take()?;
                self.line = search.saved;
                self.cursor = self.line.len();
                self.redraw_all(search.drawn, out);
                return None;
            }
            other => {
                let search = self.search.take()?;
                if let Some(entry) = search.found.and_then(|n| history.get(n)) {
                    self.line = split_chars(entry);
                }
                self.cursor = self.line.len();
                self.redraw_all(search.drawn, out);
                return Some(other);
            }
        }
        self.draw_search(history, out);
        None
    }

    /// `(reverse-i-search)`QUERY': MATCH` over the line, as readline shows it.
    fn draw_search(&mut self, history: &[Vec<u8>], out: &mut Vec<u8>) {
        let Some(search) = self.search.as_mut() else {
            return;
        };
        let found = search.found.and_then(|n| history.get(n));
        let label: &[u8] = if found.is_some() || search.query.is_empty() {
            b"(reverse-i-search)`"
        } else {
            b"(failed reverse-i-search)`"
        };
        let text = [
            label,
            &search.query,
            b"': ",
            found.map_or(&[][..], Vec::as_slice),
        ]
        .concat();
        let width = split_chars(&text).len();
        out.push(b'\r');
        out.extend_from_slice(&text);
        let blank = search.drawn.saturating_sub(width);
        out.extend(std::iter::repeat_n(b' ', blank));
        back(out, blank);
        search.drawn = width;
    }

    /// Redraw the prompt and the line from the start of the screen line,
    /// blanking what is left of `drawn` characters shown before; the
    /// cursor ends at `self.cursor`.
    fn redraw_all(&mut self, drawn: usize, out: &mut Vec<u8>) {
        out.push(b'\r');
        out.extend_from_slice(&self.prompt);
        for c in &self.line {
            out.extend_from_slice(c);
        }
        let width = split_chars(&self.prompt).len() + self.line.len();
        let blank = drawn.saturating_sub(width);
        out.extend(std::iter::repeat_n(b' ', blank));
        back(out, blank + self.line.len() - self.cursor);
    }

    /// Replace the line by history entry `n` (or the draft).
    fn show(&mut self, n: usize, history: &[Vec<u8>], out: &mut Vec<u8>) {
        if self.shown == history.len() {
            self.draft = self.line.clone();
        }
        self.shown = n;
        let text = match history.get(n) {
            Some(entry) => split_chars(entry),
            None => self.draft.clone(),
        };
        self.move_to(0, out);
        let old = self.line.len();
        self.line = text;
        self.cursor = 0;
        self.rewrite_tail(old, out);
        // As readline: the cursor at the end of the recalled line.
        self.move_to(self.line.len(), out);
    }

    /// Delete the characters of `range` (the cursor at its start).
    fn delete(&mut self, range: std::ops::Range<usize>, out: &mut Vec<u8>) {
        let old = self.line.len();
        self.line.drain(range);
        self.rewrite_tail(old, out);
    }

    /// Redraw from character `from` (where the terminal's cursor is) to
    /// the end, then put the cursor back at `self.cursor`.
    fn redraw_from(&mut self, from: usize, out: &mut Vec<u8>) {
        for c in &self.line[from..] {
            out.extend_from_slice(c);
        }
        back(out, self.line.len() - self.cursor);
    }

    /// The terminal's cursor is at `self.cursor`, the line there changed
    /// and was `old` characters long: rewrite the rest, blank what is left
    /// of the old line, come back.
    fn rewrite_tail(&mut self, old: usize, out: &mut Vec<u8>) {
        for c in &self.line[self.cursor..] {
            out.extend_from_slice(c);
        }
        let extra = old.saturating_sub(self.line.len());
        out.extend(std::iter::repeat_n(b' ', extra));
        back(out, self.line.len() - self.cursor + extra);
    }

    /// Move the terminal's cursor (at `self.cursor`) to character `to`.
    fn move_to(&mut self, to: usize, out: &mut Vec<u8>) {
        if to < self.cursor {
            back(out, self.cursor - to);
        } else {
            for c in &self.line[self.cursor..to] {
                out.extend_from_slice(c);
            }
        }
        self.cursor = to;
    }
}

fn back(out: &mut Vec<u8>, n: usize) {
    out.extend(std::iter::repeat_n(b'\x08', n));
}

fn is_blank(c: &[u8]) -> bool {
    matches!(c, b" " | b"\t")
}

/// A character after which a command name goes.
fn is_separator(c: &[u8]) -> bool {
    matches!(c, b"|" | b";" | b"&" | b"(")
}

/// The newest history entry before `before` that holds `query`.
fn find_back(history: &[Vec<u8>], query: &[u8], before: usize) -> Option<usize> {
    history[..before.min(history.len())]
        .iter()
        .rposition(|entry| query.is_empty() || entry.windows(query.len()).any(|w| w == query))
}

/// `text` as characters: a UTF-8 sequence is one, any other byte one.
fn split_chars(text: &[u8]) -> Vec<Vec<u8>> {
    let mut chars = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let len = match text[i] {
            0xc0..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf7 => 4,
            _ => 1,
        };
        let end = (i + len).min(text.len());
        chars.push(text[i..end].to_vec());
        i = end;
    }
    chars
}

/// Reads keys a byte at a time from a terminal.
pub struct Keys<'s> {
    pub sys: &'s mut dyn System,
    pub fd: Fd,
}

impl Keys<'_> {
    fn byte(&mut self) -> Option<u8> {
        let mut b = [0u8; 1];
        loop {
            match self.sys.read(self.fd, &mut b) {
                Ok(1) => return Some(b[0]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                _ => return None,
            }
        }
    }

    /// The next key; `None` when the terminal closed.
    pub fn next(&mut self) -> Option<Key> {
        let b = self.byte()?;
        Some(match b {
            b'\r' | b'\n' => Key::Enter,
            0x01 => Key::Home,
            0x02 => Key::Left,
            0x03 => Key::Interrupt,
            0x04 => Key::DeleteOrEnd,
            0x05 => Key::End,
            0x06 => Key::Right,
            0x07 => Key::Cancel,
            0x08 | 0x7f => Key::Backspace,
            0x0b => Key::KillToEnd,
            0x0c => Key::ClearScreen,
            0x0e => Key::Down,
            0x10 => Key::Up,
            0x12 => Key::Search,
            0x15 => Key::KillToStart,
            0x17 => Key::KillWord,
            0x1b => self.escape()?,
            b'\t' => Key::Complete,
            0x00..=0x1f => Key::Ignored,
            0xc0..=0xf7 => {
                let len = if b < 0xe0 {
                    2
                } else if b < 0xf0 {
                    3
                } else {
                    4
                };
                let mut text = vec![b];
                for _ in 1..len {
                    text.push(self.byte()?);
                }
                Key::Text(text)
            }
            _ => Key::Text(vec![b]),
        })
    }

    /// The rest of an escape sequence (`ESC [ A`, `ESC O H`, `ESC [ 3 ~`).
    fn escape(&mut self) -> Option<Key> {
        let kind = self.byte()?;
        if kind != b'[' && kind != b'O' {
            return Some(Key::Ignored);
        }
        let mut params = Vec::new();
        loop {
            let b = self.byte()?;
            if (0x40..=0x7e).contains(&b) {
                return Some(match (b, params.as_slice()) {
                    (b'A', _) => Key::Up,
                    (b'B', _) => Key::Down,
                    (b'C', _) => Key::Right,
                    (b'D', _) => Key::Left,
                    (b'H', _) => Key::Home,
                    (b'F', _) => Key::End,
                    (b'~', b"1" | b"7") => Key::Home,
                    (b'~', b"4" | b"8") => Key::End,
                    (b'~', b"3") => Key::Delete,
                    _ => Key::Ignored,
                });
            }
            if params.len() < 16 {
                params.push(b);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic)] // test code reports failures by panicking
    use super::*;

    fn typed(editor: &mut Editor, history: &[Vec<u8>], keys: Vec<Key>) -> (Step, Vec<u8>) {
        editor.start(b"", history);
        let mut out = Vec::new();
        let mut step = Step::Editing;
        for key in keys {
            step = editor.key(key, history, &mut out);
        }
        (step, out)
    }

    fn text(s: &str) -> Key {
        Key::Text(s.as_bytes().to_vec())
    }

    /// What a terminal shows for `out` on its last line (backspace moves
    /// left, carriage return to the start, text overwrites; a newline or
    /// a clear starts a new line).
    fn screen(out: &[u8]) -> String {
        let out = String::from_utf8_lossy(out).replace("\x1b[H\x1b[2J", "\n");
        let mut cells: Vec<u8> = Vec::new();
        let mut at = 0;
        let mut new_line = false;
        for &b in out.as_bytes() {
            if new_line && b != b'\n' {
                cells.clear();
                at = 0;
                new_line = false;
            }
            match b {
                b'\x08' => at -= 1,
                b'\r' => at = 0,
                b'\n' => new_line = true,
                _ => {
                    if at == cells.len() {
                        cells.push(b);
                    } else {
                        cells[at] = b;
                    }
                    at += 1;
                }
            }
        }
        String::from_utf8_lossy(&cells).trim_end().to_string()
    }

    #[test]
    fn editing_keys_change_the_line_and_what_is_shown() {
        let mut e = Editor::default();
        let keys = vec![
            text("echo wrld"),
            Key::Left,
            Key::Left,
            Key::Left,
            text("o"),
            Key::End,
            text("!"),
            Key::Home,
            Key::Delete,
            text("E"),
            Key::Enter,
        ];
        let (step, out) = typed(&mut e, &[], keys);
        assert_eq!(step, Step::Done(Read::Line(b"Echo world!\n".to_vec())));
        assert_eq!(screen(&out), "Echo world!");
    }

    #[test]
    fn kills_and_backspace() {
        let mut e = Editor::default();
        let keys = vec![
            text("ls -la /tmp"),
            Key::KillWord,
            Key::Backspace,
            Key::Home,
            Key::Right,
            Key::Right,
            Key::KillToEnd,
            Key::Enter,
        ];
        let (step, out) = typed(&mut e, &[], keys);
        assert_eq!(step, Step::Done(Read::Line(b"ls\n".to_vec())));
        assert_eq!(screen(&out), "ls");
        let (step, _) = typed(&mut e, &[], vec![text("abc"), Key::KillToStart, Key::Enter]);
        assert_eq!(step, Step::Done(Read::Line(b"\n".to_vec())));
    }

    #[test]
    fn history_recalls_earlier_lines_and_keeps_the_draft() {
        let mut e = Editor::default();
        let mut h = crate::interp::history::History::default();
        h.remember(b"first\n");
        h.remember(b"  \n");
        h.remember(b"second one\n");
        assert_eq!(h.next_number(), 3);
        let keys = vec![text("dr"), Key::Up, Key::Up, Key::Up, Key::Enter];
        let (step, out) = typed(&mut e, h.entries(), keys);
        assert_eq!(step, Step::Done(Read::Line(b"first\n".to_vec())));
        assert_eq!(screen(&out), "first");
        let keys = vec![text("dr"), Key::Up, Key::Down, text("aft"), Key::Enter];
        let (step, out) = typed(&mut e, h.entries(), keys);
        assert_eq!(step, Step::Done(Read::Line(b"draft\n".to_vec())));
        assert_eq!(screen(&out), "draft");
    }

    #[test]
    fn ctrl_c_drops_the_line_and_ctrl_d_ends_only_an_empty_one() {
        let mut e = Editor::default();
        let (step, out) = typed(&mut e, &[], vec![text("for i in"), Key::Interrupt]);
        assert_eq!(step, Step::Done(Read::Interrupted));
        assert!(out.ends_with(b"^C\n"));
        let (step, _) = typed(&mut e, &[], vec![text("ab"), Key::Left, Key::DeleteOrEnd]);
        assert_eq!(step, Step::Editing);
        assert_eq!(e.line.concat(), b"a");
        let (step, _) = typed(&mut e, &[], vec![Key::DeleteOrEnd]);
        assert_eq!(step, Step::Done(Read::End));
    }

    #[test]
    fn multibyte_characters_move_as_one() {
        let mut e = Editor::default();
        let keys = vec![text("né"), Key::Left, Key::Backspace, Key::Enter];
        let (step, _) = typed(&mut e, &[], keys);
        assert_eq!(step, Step::Done(Read::Line("é\n".as_bytes().to_vec())));
    }

    #[test]
    fn tab_completes_one_candidate_the_shared_part_or_lists_them() {
        let mut e = Editor::default();
        e.start(b"P> ", &[]);
        let mut out = Vec::new();
        e.key(text("ec"), &[], &mut out);
        let what = match e.key(Key::Complete, &[], &mut out) {
            Step::Complete(what) => what,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            what,
            Completing {
                word: b"ec".to_vec(),
                command: true
            }
        );
        e.complete(&what, vec![b"echo".to_vec()], &mut out);
        e.key(text("x | gr"), &[], &mut out);
        let Step::Complete(what) = e.key(Key::Complete, &[], &mut out) else {
            panic!("no completion asked");
        };
        assert!(what.command, "after a pipe a command goes");
        e.complete(&what, vec![b"grep".to_vec(), b"group".to_vec()], &mut out);
        assert_eq!(
            e.line.concat(),
            b"echo x | gr",
            "nothing shared beyond the word"
        );
        // Listed on their own line, then the prompt and the line again.
        assert!(String::from_utf8_lossy(&out).contains("\ngrep  group\n"));
        assert_eq!(screen(&out), "P> echo x | gr");
        e.key(text(" sr"), &[], &mut out);
        let Step::Complete(what) = e.key(Key::Complete, &[], &mut out) else {
            panic!("no completion asked");
        };
        assert!(!what.command);
        e.complete(&what, vec![b"src/".to_vec()], &mut out);
        e.complete(
            &Completing {
                word: b"src/".to_vec(),
                command: false,
            },
            vec![b"src/main.rs".to_vec(), b"src/mod.rs".to_vec()],
            &mut out,
        );
        assert_eq!(e.line.concat(), b"echo x | gr src/m");
        let mut bell = Vec::new();
        e.complete(
            &Completing {
                word: b"zz".to_vec(),
                command: true,
            },
            Vec::new(),
            &mut bell,
        );
        assert_eq!(bell, b"\x07");
    }

    #[test]
    fn ctrl_l_clears_and_redraws_the_prompt_and_line() {
        let mut e = Editor::default();
        e.start(b"first\nP> ", &[]);
        let mut out = Vec::new();
        e.key(text("ls -l"), &[], &mut out);
        e.key(Key::Left, &[], &mut out);
        out.clear();
        e.key(Key::ClearScreen, &[], &mut out);
        assert!(out.starts_with(b"\x1b[H\x1b[2J\rP> ls -l"), "{out:?}");
        assert!(out.ends_with(b"\x08"), "the cursor goes back where it was");
        assert_eq!(screen(&out), "P> ls -l");
    }

    #[test]
    fn ctrl_r_finds_older_lines_as_typed_and_ctrl_g_gives_up() {
        let mut e = Editor::default();
        let mut history = crate::interp::history::History::default();
        for line in ["tea issues list", "echo one", "tea repos", "echo two"] {
            history.remember(line.as_bytes());
        }
        let h = history.entries();
        e.start(b"P> ", h);
        let mut out = Vec::new();
        e.key(text("draft"), h, &mut out);
        e.key(Key::Search, h, &mut out);
        e.key(text("tea"), h, &mut out);
        assert_eq!(screen(&out), "(reverse-i-search)`tea': tea repos");
        e.key(Key::Search, h, &mut out);
        assert_eq!(screen(&out), "(reverse-i-search)`tea': tea issues list");
        e.key(text("x"), h, &mut out);
        assert_eq!(screen(&out), "(failed reverse-i-search)`teax':");
        e.key(Key::Backspace, h, &mut out);
        e.key(Key::Cancel, h, &mut out);
        assert_eq!(screen(&out), "P> draft");
        assert_eq!(e.line.concat(), b"draft");
        e.key(Key::Search, h, &mut out);
        e.key(text("one"), h, &mut out);
        let step = e.key(Key::Enter, h, &mut out);
        assert_eq!(step, Step::Done(Read::Line(b"echo one\n".to_vec())));
        assert_eq!(screen(&out), "P> echo one");
        // Another key ends the search with the match as the line, and acts.
        e.start(b"P> ", h);
        let mut out = Vec::new();
        e.key(Key::Search, h, &mut out);
        e.key(text("two"), h, &mut out);
        e.key(Key::Home, h, &mut out);
        e.key(text("#"), h, &mut out);
        assert_eq!(e.line.concat(), b"#echo two");
        assert_eq!(screen(&out), "P> #echo two");
    }
}
