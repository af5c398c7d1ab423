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
//! empty line), Ctrl-K/U/W, ↑/↓ and Ctrl-P/N through the history, Ctrl-C
//! (drop the line), Enter.

use crate::system::{Fd, System};

/// Lines kept.
const HISTORY_SIZE: usize = super::history::KEPT;

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

/// The editor's state: the line, the cursor, the history. Keys go in,
/// the bytes that redraw the line come out, so it is tested without a
/// terminal.
#[derive(Debug, Default)]
pub struct Editor {
    /// The line being edited, one entry per character (UTF-8 sequence).
    line: Vec<Vec<u8>>,
    cursor: usize,
    history: Vec<Vec<u8>>,
    /// The history entry shown (`history.len()`: the new line).
    shown: usize,
    /// The new line, kept while the history is browsed.
    draft: Vec<Vec<u8>>,
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
    /// A key the editor does not bind.
    Ignored,
}

/// What a key did to the line.
#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    Editing,
    Done(Read),
}

impl Editor {
    /// The number the next line will have in the history (`\!`).
    pub fn next_number(&self) -> usize {
        self.history.len() + 1
    }

    /// Keep `line` (without its newline) in the history, as bash does for
    /// a line that is not empty.
    pub fn remember(&mut self, line: &[u8]) {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        if self.history.len() == HISTORY_SIZE {
            self.history.remove(0);
        }
        self.history.push(line.to_vec());
    }

    /// Start a new line.
    pub fn start(&mut self) {
        self.line.clear();
        self.cursor = 0;
        self.shown = self.history.len();
        self.draft.clear();
    }

    /// Apply `key`; what to write to the terminal goes into `out`.
    pub fn key(&mut self, key: Key, out: &mut Vec<u8>) -> Step {
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
            Key::Up if self.shown > 0 => self.show(self.shown - 1, out),
            Key::Down if self.shown < self.history.len() => self.show(self.shown + 1, out),
            Key::Interrupt => {
                self.move_to(self.line.len(), out);
                out.extend_from_slice(b"^C\n");
                return Step::Done(Read::Interrupted);
            }
            _ => {}
        }
        Step::Editing
    }

    /// Replace the line by history entry `n` (or the draft).
    fn show(&mut self, n: usize, out: &mut Vec<u8>) {
        if self.shown == self.history.len() {
            self.draft = self.line.clone();
        }
        self.shown = n;
        let text = match self.history.get(n) {
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
            0x08 | 0x7f => Key::Backspace,
            0x0b => Key::KillToEnd,
            0x0e => Key::Down,
            0x10 => Key::Up,
            0x15 => Key::KillToStart,
            0x17 => Key::KillWord,
            0x1b => self.escape()?,
            b'\t' => Key::Text(b"\t".to_vec()),
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
    use super::*;

    fn typed(editor: &mut Editor, keys: Vec<Key>) -> (Step, Vec<u8>) {
        editor.start();
        let mut out = Vec::new();
        let mut step = Step::Editing;
        for key in keys {
            step = editor.key(key, &mut out);
        }
        (step, out)
    }

    fn text(s: &str) -> Key {
        Key::Text(s.as_bytes().to_vec())
    }

    /// What a terminal shows for `out` (backspace moves left, text
    /// overwrites).
    fn screen(out: &[u8]) -> String {
        let mut cells: Vec<u8> = Vec::new();
        let mut at = 0;
        for &b in out {
            match b {
                b'\x08' => at -= 1,
                b'\n' => {}
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
        let (step, out) = typed(&mut e, keys);
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
        let (step, out) = typed(&mut e, keys);
        assert_eq!(step, Step::Done(Read::Line(b"ls\n".to_vec())));
        assert_eq!(screen(&out), "ls");
        let (step, _) = typed(&mut e, vec![text("abc"), Key::KillToStart, Key::Enter]);
        assert_eq!(step, Step::Done(Read::Line(b"\n".to_vec())));
    }

    #[test]
    fn history_recalls_earlier_lines_and_keeps_the_draft() {
        let mut e = Editor::default();
        e.remember(b"first\n");
        e.remember(b"  \n");
        e.remember(b"second one\n");
        assert_eq!(e.next_number(), 3);
        let keys = vec![text("dr"), Key::Up, Key::Up, Key::Up, Key::Enter];
        let (step, out) = typed(&mut e, keys);
        assert_eq!(step, Step::Done(Read::Line(b"first\n".to_vec())));
        assert_eq!(screen(&out), "first");
        let keys = vec![text("dr"), Key::Up, Key::Down, text("aft"), Key::Enter];
        let (step, out) = typed(&mut e, keys);
        assert_eq!(step, Step::Done(Read::Line(b"draft\n".to_vec())));
        assert_eq!(screen(&out), "draft");
    }

    #[test]
    fn ctrl_c_drops_the_line_and_ctrl_d_ends_only_an_empty_one() {
        let mut e = Editor::default();
        let (step, out) = typed(&mut e, vec![text("for i in"), Key::Interrupt]);
        assert_eq!(step, Step::Done(Read::Interrupted));
        assert!(out.ends_with(b"^C\n"));
        let (step, _) = typed(&mut e, vec![text("ab"), Key::Left, Key::DeleteOrEnd]);
        assert_eq!(step, Step::Editing);
        assert_eq!(e.line.concat(), b"a");
        let (step, _) = typed(&mut e, vec![Key::DeleteOrEnd]);
        assert_eq!(step, Step::Done(Read::End));
    }

    #[test]
    fn multibyte_characters_move_as_one() {
        let mut e = Editor::default();
        let keys = vec![text("né"), Key::Left, Key::Backspace, Key::Enter];
        let (step, _) = typed(&mut e, keys);
        assert_eq!(step, Step::Done(Read::Line("é\n".as_bytes().to_vec())));
    }
}
