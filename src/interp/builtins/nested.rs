//! `bash` and `sh` on a line: a new shell, which is this interpreter in a
//! fresh state in a forked copy, never another program. Its text (`-c`,
//! a script file, standard input) is recorded, parsed and checked as a
//! line is before any of it runs, against the same policy; the copy keeps
//! the line's wall-time bound and the process's confinement.

use super::super::Options;
use crate::guard::builtins::{NewShell, NewShellSource, new_shell};
use crate::interp::session::Input;
use crate::interp::{Shell, Status, lossy};
use crate::system::ProcessGroup;
use std::time::Instant;

impl Shell<'_> {
    /// `bash`/`sh` [OPTION…] [`-c` TEXT [NAME [ARG…]] | SCRIPT [ARG…]]: a
    /// new shell in a forked copy, its status the copy's.
    pub(super) fn nested_shell(&mut self, name: &str, args: &[Vec<u8>]) -> Status {
        let invocation = new_shell(name, args);
        if let Some(message) = &invocation.error {
            self.error(&format!("{name}: {message}"));
            return Ok(2);
        }
        if invocation.version {
            let text = format!(
                "guard-sh {} (a restricted shell that runs the commands of a line as bash does)\n",
                env!("CARGO_PKG_VERSION")
            );
            return Ok(self.write_out(text.as_bytes(), name));
        }
        let at_terminal = self.sys.isatty(0) && (self.sys.isatty(2) || invocation.interactive);
        if invocation.source == NewShellSource::Stdin && at_terminal {
            // bash would start an interactive shell on the terminal.
            self.error(&format!(
                "{name}: an interactive new shell is not supported by guard-sh (give it -c TEXT or a script)"
            ));
            return Ok(2);
        }
        let t0 = Instant::now();
        let pid = self.fork_run(ProcessGroup::Inherit, |sh| {
            sh.run_new_shell(name, args, invocation)
        })?;
        self.wait_child(pid, t0, false)
    }

    /// In the forked copy: become a shell that just started, as bash's
    /// child would be, then run its commands.
    fn run_new_shell(&mut self, name: &str, args: &[Vec<u8>], invocation: NewShell) -> Status {
        self.start_afresh(name, args, &invocation);
        self.vars.set_internal("_", name.as_bytes().to_vec());
        if invocation.interactive {
            // Not at a terminal (refused above): no line editor, no job
            // control; bash's interactive variables and error handling.
            self.interactive = true;
            let home = self.vars.get("HOME").unwrap_or_default().to_vec();
            self.vars
                .set_default("HISTFILE", [home.as_slice(), b"/.bash_history"].concat());
            for name in ["HISTSIZE", "HISTFILESIZE"] {
                self.vars.set_default(name, b"500".to_vec());
            }
        }
        if !invocation.set.is_empty() {
            let status = self.set_builtin(&invocation.set)?;
            if status != 0 {
                return Ok(status);
            }
        }
        for (on, option) in &invocation.shopt {
            let flag = if *on { b"-s".to_vec() } else { b"-u".to_vec() };
            let status = self.shopt(&[flag, option.clone()])?;
            if status != 0 {
                return Ok(status);
            }
        }
        match invocation.source {
            NewShellSource::Text { at } => Ok(self.run_text(&args[at], name).status()),
            NewShellSource::Stdin => Ok(self.run_input(Input::Stdin(Vec::new()), name)),
            NewShellSource::Script { at } => {
                let file = args[at].clone();
                let path = self.absolute(&file);
                match self.open_script_checked(&path, &lossy(&file)) {
                    Ok(Ok(input)) => Ok(self.run_input(input, name)),
                    Ok(Err(deny)) => Err(self.deny(&deny, &[name.as_bytes().to_vec(), file])),
                    Err(e) => {
                        let why = crate::interp::redirect::describe_io(&e);
                        self.error(&format!("{}: {why}", lossy(&file)));
                        Ok(127)
                    }
                }
            }
        }
    }

    /// What a new shell keeps of this one: the exported variables (their
    /// values alone), the working folder, the descriptors, the ignored
    /// signals; everything else as at start.
    fn start_afresh(&mut self, name: &str, args: &[Vec<u8>], invocation: &NewShell) {
        self.vars.keep_exported_only();
        self.init_vars();
        self.functions.clear();
        self.aliases.clear();
        self.opts = Options::default();
        self.traps.listed = None;
        self.dir_stack.clear();
        self.func_names.clear();
        self.arg0 = match invocation.arg0_at {
            Some(at) => args[at].clone(),
            None => name.as_bytes().to_vec(),
        };
        self.positional = args[invocation.positional_at..].to_vec();
        self.command_mode = matches!(invocation.source, NewShellSource::Text { .. });
        self.jobs.outer_shells.push(self.shell_pid);
        self.jobs.table = Default::default();
        self.jobs.last_bg = None;
        self.shell_pid = self.sys.getpid();
        self.status = 0;
        self.pipestatus.clear();
        self.getopts_pos = 0;
        // Its own text is its top level (the copy stays a copy: the line's
        // time bound holds, see `run_text`).
        self.depth.texts = 0;
        self.depth.sources = 0;
        self.depth.functions = 0;
        self.depth.copies_before_shell = self.depth.copies;
        let level = self
            .vars
            .get("SHLVL")
            .and_then(|v| std::str::from_utf8(v).ok()?.parse::<i64>().ok());
        self.vars
            .set("SHLVL", (level.unwrap_or(0) + 1).to_string().into_bytes());
        self.vars.export("SHLVL", true);
    }
}
