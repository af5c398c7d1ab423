//! Reading commands line by line (stdin or a terminal), keeping state
//! between lines: a persistent session. A line that does not parse yet
//! because it is incomplete (open quote, `if` without `fi`, here-document)
//! is continued with the next line, as bash does.

use super::history::Expansion;
use super::line_editor::{self, Keys, Read, Step};
use super::{Flow, Outcome, Shell};
use crate::system::OpenMode;

/// Where the lines come from.
pub enum Input {
    /// Standard input, read a byte at a time: what follows a command
    /// stays for the commands that read it. A regular file is read in
    /// blocks instead: what was read past the last line waits here and is
    /// given back (`lseek`) before any command runs.
    Stdin(Vec<u8>),
    /// A script file, read a line at a time (bash reads its script as it
    /// goes: memory stays that of one command), at a descriptor out of the
    /// script's reach (bash keeps it at 255).
    File(Script),
    /// A terminal that a person or a persistent-session agent types into
    /// (interactive, standard input and error terminals): read through
    /// the line editor, whose history lives as long as the session.
    Terminal(Box<line_editor::Editor>),
}

/// A script being read through [`crate::system::System`]: its descriptor
/// and the bytes read past the last line returned.
pub struct Script {
    fd: crate::os::Fd,
    pending: Vec<u8>,
    ended: bool,
}

impl Shell<'_> {
    /// Open the script at `path` for [`Input::File`], at a private number.
    /// Its file is the script's own, not guard-sh's: the script may read
    /// it by name (`done < "$0"`), as in bash.
    pub fn open_script(&mut self, path: &std::path::Path) -> std::io::Result<Input> {
        let fd = self.sys.open(path, OpenMode::Read)?;
        let saved = self.sys.dup_saved(fd);
        let _ = self.sys.close(fd);
        let fd = saved?.ok_or_else(|| std::io::Error::from_raw_os_error(libc::EBADF))?;
        Ok(Input::File(Script {
            fd,
            pending: Vec::new(),
            ended: false,
        }))
    }

    /// [`Shell::open_script`] for a script a line names (`bash FILE`,
    /// `shown` as written): judged as a redirection's file is, before the
    /// open, by an open the system refuses and by the file the open
    /// reached; `Ok(Err)` when it is refused.
    pub(in crate::interp) fn open_script_checked(
        &mut self,
        path: &std::path::Path,
        shown: &str,
    ) -> std::io::Result<Result<Input, super::Deny>> {
        if let Err(deny) = self.check_open_target(path, OpenMode::Read) {
            return Ok(Err(deny));
        }
        let input = match self.open_script(path) {
            Ok(input) => input,
            Err(e) => return super::redirect::refused_open(&e, shown).map(Err).ok_or(e),
        };
        if let Input::File(script) = &input {
            if let Err(deny) = self.check_opened(script.fd, true) {
                let _ = self.sys.close(script.fd);
                return Ok(Err(deny));
            }
        }
        Ok(Ok(input))
    }

    /// The script's next line, newline included (`None` at its end); a
    /// read error ends it too, reported.
    fn script_line(&mut self, script: &mut Script) -> Option<Vec<u8>> {
        if !script.ended {
            match self.buffered_line(script.fd, &mut script.pending) {
                Buffered::Line(line) => return Some(line),
                Buffered::End(error) => {
                    if let Some(e) = error {
                        self.error(&format!("reading the script: {e}"));
                    }
                    script.ended = true;
                    let _ = self.sys.close(script.fd);
                }
            }
        }
        (!script.pending.is_empty()).then(|| std::mem::take(&mut script.pending))
    }

    /// The next line of `fd`, read in blocks into `pending`, which keeps
    /// what was read past it; at the end of the input (or a read error,
    /// given) `pending` holds what is left.
    fn buffered_line(&mut self, fd: crate::os::Fd, pending: &mut Vec<u8>) -> Buffered {
        // What is pending before `searched` holds no newline: only bytes
        // read since are searched (a long line is scanned once, not once
        // per block).
        let mut searched = 0;
        loop {
            if let Some(at) = pending[searched..].iter().position(|&b| b == b'\n') {
                return Buffered::Line(pending.drain(..=searched + at).collect());
            }
            searched = pending.len();
            let mut block = [0u8; 65536];
            match self.sys.read(fd, &mut block) {
                Ok(0) => return Buffered::End(None),
                Ok(n) => pending.extend_from_slice(&block[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Buffered::End(Some(e)),
            }
        }
    }
}

/// What [`Shell::buffered_line`] read.
enum Buffered {
    Line(Vec<u8>),
    /// The end of the input, or the read error that ended it.
    End(Option<std::io::Error>),
}

impl Shell<'_> {
    /// The next line of `input`, after the prompt `prompt` (`PS1` or
    /// `PS2`) when the shell is interactive.
    fn next_line(&mut self, input: &mut Input, prompt: &str) -> Read {
        let got = match input {
            Input::Stdin(ahead) => {
                self.prompt(prompt, 1);
                // Bytes read ahead came from a regular file (given back
                // before any command, which might change stdin, runs).
                if !ahead.is_empty() || self.sys.regular_file_at(0) {
                    self.read_line_ahead(ahead)
                } else {
                    self.read_line()
                }
            }
            Input::File(script) => self.script_line(script),
            Input::Terminal(editor) => return self.edit_line(editor, prompt),
        };
        got.map_or(Read::End, Read::Line)
    }

    /// A line typed at the terminal after the prompt `prompt`, edited as
    /// it is typed; without a terminal mode to set, read as a plain line.
    fn edit_line(&mut self, editor: &mut line_editor::Editor, prompt: &str) -> Read {
        // Expanded first (it may run commands), shown once the terminal is
        // in the editor's mode: a key sent on seeing the prompt is read as
        // a key, not taken by the terminal's own line editing.
        let text = self.expanded_prompt(prompt, self.history.next_number());
        let raw = self.sys.raw_terminal(0);
        let _ = self.sys.write_all(2, &text);
        if raw.is_none() {
            return self.read_line().map_or(Read::End, Read::Line);
        }
        editor.start(&text, self.history.entries());
        let mut out = Vec::new();
        loop {
            let Some(key) = (Keys {
                sys: &mut *self.sys,
                fd: 0,
            })
            .next() else {
                return Read::End;
            };
            out.clear();
            match editor.key(key, self.history.entries(), &mut out) {
                Step::Done(read) => {
                    let _ = self.sys.write_all(2, &out);
                    return read;
                }
                Step::Complete(what) => {
                    let candidates = self.completions(&what);
                    editor.complete(&what, candidates, &mut out);
                }
                Step::Editing => {}
            }
            let _ = self.sys.write_all(2, &out);
        }
    }

    /// History expansion of a line typed at an interactive shell (see
    /// [`super::history`]): the expanded line is echoed, as bash does, and
    /// kept in the history; `None` when an event names nothing (said; the
    /// line does not run and `$?` stays).
    fn expand_history(&mut self, line: Vec<u8>) -> Option<Vec<u8>> {
        let line = match super::history::expand(&line, self.history.entries()) {
            Expansion::Unchanged => line,
            Expansion::Expanded(text) => {
                let _ = self.sys.write_all(2, &text);
                text
            }
            Expansion::Failed(message) => {
                self.error(&message);
                return None;
            }
        };
        self.history.remember(&line);
        Some(line)
    }

    /// `history [N]`: the session's lines, numbered as bash numbers them
    /// (the last N); `history -c` forgets them.
    pub(super) fn history_builtin(&mut self, args: &[Vec<u8>]) -> super::Status {
        let count = match args.first().map(Vec::as_slice) {
            None => self.history.entries().len(),
            Some(b"-c") => {
                self.history.clear();
                return Ok(0);
            }
            Some(n) => match std::str::from_utf8(n).ok().and_then(|n| n.parse().ok()) {
                Some(n) => n,
                None => {
                    let arg = super::lossy(n);
                    self.error(&format!("history: {arg}: numeric argument required"));
                    return Ok(1);
                }
            },
        };
        let entries = self.history.entries();
        let first = entries.len().saturating_sub(count);
        let mut out = Vec::new();
        for (n, line) in entries.iter().enumerate().skip(first) {
            out.extend_from_slice(format!("{:5}  ", n + 1).as_bytes());
            out.extend_from_slice(line);
            out.push(b'\n');
        }
        Ok(self.write_out(&out, "history"))
    }

    /// Read one line from stdin (byte by byte, so nothing meant for a
    /// command that reads stdin is consumed). `None` at end of input.
    fn read_line(&mut self) -> Option<Vec<u8>> {
        let mut line = Vec::new();
        let mut byte = [0u8; 1];
        loop {
            // A shell that is not interactive ends on SIGTERM or SIGHUP
            // while it waits for input (bash dies of it there); an
            // interactive one reads on (bash's ignores SIGTERM at its
            // prompt but ends on SIGHUP: not followed yet).
            let read = if self.interactive {
                self.sys.read(0, &mut byte)
            } else {
                self.sys.read_unless_terminated(0, &mut byte)
            };
            match read {
                Ok(1) => {
                    line.push(byte[0]);
                    if byte[0] == b'\n' {
                        return Some(line);
                    }
                }
                _ => return if line.is_empty() { None } else { Some(line) },
            }
        }
    }

    /// [`Shell::read_line`] from a regular file on stdin: in blocks, the
    /// bytes read past the line kept in `ahead` until
    /// [`Shell::give_back_stdin`] returns them before a command runs.
    fn read_line_ahead(&mut self, ahead: &mut Vec<u8>) -> Option<Vec<u8>> {
        match self.buffered_line(0, ahead) {
            Buffered::Line(line) => Some(line),
            Buffered::End(_) => (!ahead.is_empty()).then(|| std::mem::take(ahead)),
        }
    }

    /// Before a command runs: what was read ahead of the line on stdin
    /// goes back to the file, for the commands that read it.
    fn give_back_stdin(&mut self, input: &mut Input) {
        if let Input::Stdin(ahead) = input
            && !ahead.is_empty()
        {
            if self.sys.rewind_by(0, ahead.len()).is_err() {
                self.error("standard input could not be rewound: the lines read ahead are lost to the commands");
            }
            ahead.clear();
        }
    }

    /// Show the prompt `name` (interactive shells only); `history_number`
    /// is what `\!` shows.
    fn prompt(&mut self, name: &str, history_number: usize) {
        if !self.interactive {
            return;
        }
        let text = self.expanded_prompt(name, history_number);
        let _ = self.sys.write_all(2, &text);
    }

    /// Run stdin line by line until end of input or `exit`; returns the
    /// exit status.
    pub fn run_lines(&mut self, origin: &str) -> i32 {
        let input = if self.interactive && self.sys.isatty(0) && self.sys.isatty(2) {
            Input::Terminal(Box::default())
        } else {
            Input::Stdin(Vec::new())
        };
        self.run_input(input, origin)
    }

    /// Run `input` one complete command at a time, as bash reads a script
    /// or standard input: each is parsed, checked and run before the next
    /// is read (memory stays that of one command; an error that ends a
    /// command goes on with the next). In a shell that is not interactive
    /// a syntax error ends it, with status 2 (or `$?` as it was, for one
    /// inside `[[ … ]]`), as in bash.
    pub fn run_input(&mut self, mut input: Input, origin: &str) -> i32 {
        self.running_script = matches!(input, Input::File(..));
        let mut chunker = if self.interactive {
            crate::syntax::Chunker::default()
        } else {
            crate::syntax::Chunker::batch()
        };
        loop {
            let prompt = if chunker.is_pending() { "PS2" } else { "PS1" };
            if prompt == "PS1" && self.interactive {
                self.give_back_stdin(&mut input);
                self.show_job_notices();
                if let Some(status) = self.run_prompt_command() {
                    return status;
                }
            }
            let line = match self.next_line(&mut input, prompt) {
                Read::Line(line) if self.interactive => match self.expand_history(line) {
                    Some(line) => Some(line),
                    None => continue,
                },
                Read::Line(line) => Some(line),
                Read::End => None,
                // Ctrl-C drops the line and what it continued, as in bash.
                Read::Interrupted => {
                    chunker = crate::syntax::Chunker::default();
                    self.status = 130;
                    continue;
                }
            };
            // A SIGTERM or SIGHUP that ended the wait: nothing of what was
            // read runs (the shell then dies of it, see `run_exit_trap`).
            if !self.interactive
                && let Some(signal) = self.sys.pending_termination()
            {
                return 128 + signal;
            }
            let at_end = line.is_none();
            // At the end, what is left runs too: the input ended inside a
            // construct, which the parser reports.
            let chunk = match &line {
                Some(line) => chunker.push_line(line),
                None => chunker.finish(),
            };
            if let Some(chunk) = chunk {
                // `$LINENO` and error positions count on across chunks.
                self.position.line_base = chunk.lines_before;
                if self.opts.verbose && !at_end {
                    let _ = self.sys.write_all(2, &chunk.text);
                }
                self.position.commands_read += 1;
                self.give_back_stdin(&mut input);
                if let Outcome::Exit(s) = self.run_text(&chunk.text, origin) {
                    return s;
                }
                if self.syntax_error_ends_input() {
                    return self.status;
                }
                if let Some(signal) = self.sys.pending_termination() {
                    return 128 + signal;
                }
            }
            if at_end {
                if self.interactive {
                    let _ = self.sys.write_all(2, b"exit\n");
                }
                return self.status;
            }
        }
    }

    /// `PROMPT_COMMAND` before each primary prompt of an interactive
    /// shell, as bash runs it: each element of an array in turn (bash 5.1),
    /// each a line of its own in the audit log (origin `prompt-command`),
    /// checked as any other; `$?` is kept for the prompt and the next line.
    /// `Some(status)` when it ran `exit`.
    fn run_prompt_command(&mut self) -> Option<i32> {
        let commands = self.vars.get_var("PROMPT_COMMAND")?.value.elements();
        let status = self.status;
        for text in commands.iter().filter(|text| !text.is_empty()) {
            if let Err(Flow::Exit(code)) = self.run_guarded(text, "prompt-command") {
                return Some(code);
            }
        }
        self.status = status;
        None
    }

    /// The chunk just run did not parse, in a shell that is not
    /// interactive: bash stops reading there.
    fn syntax_error_ends_input(&mut self) -> bool {
        std::mem::take(&mut self.syntax_error_seen) && !self.interactive
    }

    /// `set` with these arguments (for `-o NAME` on the command line).
    pub fn run_set(&mut self, args: &[Vec<u8>]) -> i32 {
        self.set_builtin(args).unwrap_or(2)
    }

    /// An interactive shell on a terminal leads its own process group and
    /// owns the terminal while no job runs.
    pub fn take_terminal_at_start(&mut self) {
        if !self.sys.isatty(0) {
            return;
        }
        let pid = self.sys.getpid();
        let _ = self.sys.set_process_group(0, 0);
        self.jobs.shell_pgid = pid;
        let _ = self.sys.tcsetpgrp(0, pid);
    }
}
