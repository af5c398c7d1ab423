//! `trap` and the points where trap actions run. A trap action is shell
//! text: it is parsed and guarded like any line each time it runs
//! ([`Shell::run_guarded`]). Signals are only recorded by their handler
//! (`os::signals`, reached through the [`crate::system::System`] trait's
//! signal calls); their actions run at a safe point, after the
//! command that was running when the signal came has finished (the `wait`
//! builtin returns early instead). EXIT runs when the shell (or a subshell)
//! ends, ERR after a failing command where `set -e` would act.

use super::lossy;
use super::{Flow, Shell, Status};
use crate::audit::Event;
use crate::os::signals;
use crate::system::Disposition;

/// Conditions that are not signals: `DEBUG` fires before each command of
/// the shell itself, `RETURN` when a function or sourced file ends.
const STORED_ONLY: &[&str] = &["DEBUG", "RETURN"];

/// Signals whose trap is stored and listed but never fires: `CHLD` and
/// the job-control stops (the shell's own job control uses them), the
/// faults (the shell's own fault must not return to where it faulted),
/// and `KILL` and `STOP`, which no process can catch (bash takes and
/// lists them all).
const STORED_SIGNALS: &[(&str, i32)] = &[
    ("ILL", libc::SIGILL),
    ("TRAP", libc::SIGTRAP),
    ("ABRT", libc::SIGABRT),
    ("BUS", libc::SIGBUS),
    ("FPE", libc::SIGFPE),
    ("KILL", libc::SIGKILL),
    ("SEGV", libc::SIGSEGV),
    ("STKFLT", libc::SIGSTKFLT),
    ("CHLD", libc::SIGCHLD),
    ("STOP", libc::SIGSTOP),
    ("TSTP", libc::SIGTSTP),
    ("TTIN", libc::SIGTTIN),
    ("TTOU", libc::SIGTTOU),
];

/// The number of a signal whose trap is only stored.
fn stored_signal(name: &str) -> Option<i32> {
    STORED_SIGNALS
        .iter()
        .find(|(stored, _)| *stored == name)
        .map(|(_, n)| *n)
}

/// The canonical name of a trap condition (`INT`, `EXIT`, …).
fn condition_name(spec: &[u8]) -> Option<String> {
    let text = lossy(spec).to_uppercase();
    let bare = text.strip_prefix("SIG").unwrap_or(&text);
    if let Ok(n) = bare.parse::<i32>() {
        if n == 0 {
            return Some("EXIT".into());
        }
        if let Some((name, _)) = STORED_SIGNALS.iter().find(|(_, stored)| *stored == n) {
            return Some((*name).into());
        }
        return signals::trappable_name(n).map(str::to_string);
    }
    let known = ["EXIT", "ERR"].contains(&bare)
        || STORED_ONLY.contains(&bare)
        || stored_signal(bare).is_some()
        || signals::number(bare).is_some();
    known.then(|| bare.to_string())
}

/// Listing order: EXIT, signals by number, then DEBUG, ERR, RETURN (bash's).
fn order(name: &str) -> i32 {
    match name {
        "EXIT" => 0,
        "DEBUG" => 100,
        "ERR" => 101,
        "RETURN" => 102,
        other => signals::number(other)
            .or_else(|| stored_signal(other))
            .unwrap_or(99),
    }
}

/// How bash lists a condition (`SIGINT`, `EXIT`).
fn listed(name: &str) -> String {
    if signals::number(name).is_some() || stored_signal(name).is_some() {
        format!("SIG{name}")
    } else {
        name.to_string()
    }
}

fn quote_always(v: &[u8]) -> String {
    format!("'{}'", lossy(v).replace('\'', "'\\''"))
}

impl Shell<'_> {
    /// List the signals ignored when the shell started as `trap -- ''`
    /// (bash does); call once [`signals::install`] has found them.
    pub fn note_signals_ignored_at_entry(&mut self) {
        for (name, n) in signals::trappable() {
            if self.sys.ignored_at_entry(n) {
                self.traps.actions.insert(name.to_string(), Vec::new());
            }
        }
    }

    /// The `trap` builtin.
    pub(super) fn trap(&mut self, args: &[Vec<u8>]) -> Status {
        let args = match args.first().map(Vec::as_slice) {
            Some(b"--") => &args[1..],
            _ => args,
        };
        if args.first().map(Vec::as_slice) == Some(b"-l") {
            return Ok(self.write_out(signals::table().as_bytes(), "trap"));
        }
        if args.is_empty() || args[0] == b"-p" {
            let wanted: Vec<String> = args
                .iter()
                .skip(1)
                .filter_map(|a| condition_name(a))
                .collect();
            let traps = self.traps.listed.as_ref().unwrap_or(&self.traps.actions);
            // Named conditions in the order given; all of them in bash's.
            let names: Vec<&String> = if wanted.is_empty() {
                let mut all: Vec<&String> = traps.keys().collect();
                all.sort_by_key(|n| order(n));
                all
            } else {
                wanted.iter().filter(|n| traps.contains_key(*n)).collect()
            };
            let mut out = String::new();
            for name in names {
                out.push_str(&format!(
                    "trap -- {} {}\n",
                    quote_always(&traps[name]),
                    listed(name)
                ));
            }
            return Ok(self.write_out(out.as_bytes(), "trap"));
        }
        if let Some(option) = args
            .first()
            .filter(|a| a.len() > 1 && a[0] == b'-' && a.as_slice() != b"-p")
        {
            self.error(&format!("trap: {}: invalid option", lossy(option)));
            let _ = self
                .sys
                .write_all(2, b"trap: usage: trap [-lp] [[arg] signal_spec ...]\n");
            return Ok(2);
        }
        // A first operand that is a number is a condition too (bash):
        // `trap 0 2` puts EXIT and INT back.
        let number_first = !args[0].is_empty() && args[0].iter().all(u8::is_ascii_digit);
        let (action, specs) = if args.len() == 1 || args[0] == b"-" || number_first {
            (None, if args[0] == b"-" { &args[1..] } else { args })
        } else {
            (Some(args[0].clone()), &args[1..])
        };
        self.traps.listed = None;
        let mut status = 0;
        for spec in specs {
            let Some(name) = condition_name(spec) else {
                self.error(&format!(
                    "trap: {}: invalid signal specification",
                    lossy(spec)
                ));
                status = 1;
                continue;
            };
            let disposition = match &action {
                Some(text) if text.is_empty() => Disposition::Ignore,
                Some(_) => Disposition::Catch,
                None => Disposition::Default,
            };
            if let Some(n) = signals::number(&name) {
                if self.sys.ignored_at_entry(n) {
                    continue;
                }
                self.sys.set_signal(n, disposition);
            }
            match &action {
                Some(text) => {
                    self.notice_command_name(text);
                    self.traps.actions.insert(name, text.clone());
                }
                None => {
                    self.traps.actions.remove(&name);
                }
            }
        }
        Ok(status)
    }

    /// Run a trap action with `$?` kept; `exit` in it ends the shell, a
    /// denial aborts the line.
    fn run_trap_action(&mut self, action: &[u8]) -> Result<(), Flow> {
        let saved = self.status;
        let was = std::mem::replace(&mut self.traps.running, true);
        let r = self.run_guarded(action, "trap");
        self.traps.running = was;
        self.status = saved;
        match r {
            Err(flow @ (Flow::Exit(_) | Flow::Abort(_))) => Err(flow),
            _ => Ok(()),
        }
    }

    /// Between commands: end the shell on an untrapped SIGTERM/SIGHUP,
    /// end the line once it has run past its wall-time bound, reap
    /// finished background jobs, end the line if a copy of the shell
    /// running on its own (a background job, a process substitution)
    /// reported a denial, and run the actions of trapped signals that
    /// arrived.
    pub(super) fn safe_point(&mut self) -> Result<(), Flow> {
        if let Some(signal) = self.sys.pending_termination() {
            return Err(Flow::Exit(128 + signal));
        }
        if self.sys.line_bound_passed() {
            return Err(self.out_of_time());
        }
        self.reap_jobs();
        if self.take_child_abort() {
            return Err(Flow::Abort(126));
        }
        for signal in self.sys.take_trapped() {
            let name = signals::trappable_name(signal);
            let action = name.and_then(|n| self.traps.actions.get(n).cloned());
            if let Some(action) = action.filter(|a| !a.is_empty()) {
                self.run_trap_action(&action)?;
            }
        }
        Ok(())
    }

    /// The line has run past its wall-time bound (the commands it waited
    /// for were ended by [`crate::system::Processes::wait`]): said and
    /// recorded once, by the shell that read the line, and the line ends
    /// with 124 (as `timeout`'s). A copy of the shell only ends.
    fn out_of_time(&mut self) -> Flow {
        if !self.in_child() {
            let limit = self.policy.bounds.line_seconds;
            // Said once: the rest of the line unwinds without the bound.
            self.sys.bound_line(None);
            self.error(&format!(
                "the line ran past its wall-time bound ({limit} s): what it ran was ended"
            ));
            let _ = self.sink().record(Event::Bound {
                bound: "line-seconds".into(),
                limit,
            });
        }
        Flow::Abort(124)
    }

    /// After a failing command where `set -e` would act: the ERR action
    /// (not inside functions or another trap action: no `set -E`).
    /// Before a simple command, `[[ ]]`, `(( ))`, `for` or `case`:
    /// `BASH_COMMAND` names it (except inside a trap's action, where it
    /// keeps naming the command the trap interrupted, as in bash), and
    /// `trap … DEBUG` runs (not inside functions, which do not inherit it,
    /// as in bash without `set -T`).
    pub(super) fn run_debug_trap(&mut self, command: impl FnOnce() -> Vec<u8>) -> Result<(), Flow> {
        if self.traps.running {
            return Ok(());
        }
        let debug = match self.traps.actions.get("DEBUG") {
            Some(action) if !action.is_empty() && self.depth.functions == 0 => Some(action.clone()),
            _ => None,
        };
        if debug.is_some() || self.traps.names_commands {
            self.vars.set_internal("BASH_COMMAND", command());
        }
        match debug {
            Some(action) => self.run_trap_action(&action),
            None => Ok(()),
        }
    }

    /// Keep `BASH_COMMAND` from now on if `text`, which the shell takes in
    /// (a line, `eval`'s text, a trap's action), spells it.
    pub(super) fn notice_command_name(&mut self, text: &[u8]) {
        const NAME: &[u8] = b"BASH_COMMAND";
        if !self.traps.names_commands && text.windows(NAME.len()).any(|w| w == NAME) {
            self.traps.names_commands = true;
        }
    }

    /// `trap … RETURN`, when a function or sourced file ends.
    pub(super) fn run_return_trap(&mut self) -> Result<(), Flow> {
        if self.traps.running {
            return Ok(());
        }
        match self.traps.actions.get("RETURN").cloned() {
            Some(action) if !action.is_empty() => self.run_trap_action(&action),
            _ => Ok(()),
        }
    }

    pub(super) fn run_err_trap(&mut self) -> Result<(), Flow> {
        if self.traps.running || self.depth.functions > 0 {
            return Ok(());
        }
        match self.traps.actions.get("ERR").cloned() {
            Some(action) if !action.is_empty() => self.run_trap_action(&action),
            _ => Ok(()),
        }
    }

    /// Run the EXIT trap once, when the shell or a subshell ends; returns
    /// the final status (`exit N` in the action changes it). A shell ended
    /// by an untrapped SIGTERM/SIGHUP then dies by that signal, as bash does.
    pub fn run_exit_trap(&mut self) -> i32 {
        if let Some(action) = self.traps.actions.remove("EXIT") {
            if let Err(Flow::Exit(s)) = self.run_trap_action(&action) {
                self.status = s;
            }
        }
        if let Some(signal) = self.sys.pending_termination() {
            return self.sys.die_by(signal);
        }
        self.status
    }
}
