//! Pipelines with real pipes between children, background jobs, waiting
//! for a child and handing it the terminal.

use super::{Started, command_text};
use crate::audit::Event;
use crate::guard;
use crate::interp::lossy;
use crate::interp::{Flow, Shell, Status};
use crate::syntax::ast::*;
use crate::system::{ExitStatus, Fd, Forked, Pid, ProcessGroup};
use std::time::Instant;

impl Shell<'_> {
    pub(super) fn run_pipeline(&mut self, p: &Pipeline) -> Status {
        let Some(format) = p.timed else {
            return self.run_pipeline_untimed(p);
        };
        let clock = crate::interp::timing::Clock::start(&*self.sys);
        let r = self.run_pipeline_untimed(p);
        let spent = clock.spent(&*self.sys);
        let format_var = self.vars.get("TIMEFORMAT").map(<[u8]>::to_vec);
        let report = crate::interp::timing::report(format, format_var.as_deref(), &spent);
        let _ = self.sys.write_all(2, &report);
        r
    }

    fn run_pipeline_untimed(&mut self, p: &Pipeline) -> Status {
        if self.interactive && !self.in_child() {
            // The job's text if it stops.
            self.jobs.table.foreground = lossy(&crate::syntax::pipeline_to_source(p));
        }
        let mut redirect_failed = false;
        // bash ignores `set -e` inside `! …` only when it was on as the
        // pipeline started: a `set -e` run inside one acts there.
        let ignore_errexit = p.negated && self.opts.errexit;
        let status = self.with_errexit_off(ignore_errexit, |sh| match p.elements.as_slice() {
            [only] => {
                let s = match &only.command {
                    Command::Compound(cc) => {
                        let (s, failed) = sh.run_compound_redirected(cc)?;
                        redirect_failed = failed;
                        s
                    }
                    command => sh.run_command(command)?,
                };
                if sets_pipestatus_alone(&only.command) {
                    sh.pipestatus = vec![s];
                }
                Ok(s)
            }
            _ => sh.run_multi(p),
        })?;
        let status = if p.negated && !redirect_failed {
            i32::from(status == 0)
        } else {
            status
        };
        self.status = status;
        if status != 0 && !p.negated && self.depth.errexit_off == 0 && super::judged_by_status(p) {
            self.run_err_trap()?;
        }
        Ok(status)
    }

    /// The process group for a new job's member (job control only when interactive).
    pub(super) fn job_group(&self, leader: Option<Pid>) -> ProcessGroup {
        if !self.interactive || self.in_child() {
            return ProcessGroup::Inherit;
        }
        match leader {
            Some(pid) => ProcessGroup::Join(pid),
            None => ProcessGroup::New,
        }
    }

    fn run_multi(&mut self, p: &Pipeline) -> Status {
        // Taken before any member is forked: a member's copy of the shell
        // may have more to run after a pipeline of its own.
        let drop_after_start = std::mem::take(&mut self.copy.drop_descriptors_after_pipeline);
        let n = p.elements.len();
        let mut started: Vec<Started> = Vec::new();
        let mut prev_r: Option<Fd> = None;
        let mut leader: Option<Pid> = None;
        let mut failure: Option<Flow> = None;
        for (i, element) in p.elements.iter().enumerate() {
            // bash runs the DEBUG trap for each member, in the shell, before
            // starting it (the forked copy runs none).
            if matches!(element.command, Command::Simple(_)) {
                if let Err(flow) = self.run_debug_trap(|| command_text(&element.command)) {
                    failure = Some(flow);
                    break;
                }
            }
            let next = if i + 1 < n {
                match self.sys.pipe() {
                    Ok(pair) => Some(pair),
                    Err(e) => {
                        self.error(&format!("pipe: {e}"));
                        failure = Some(Flow::Abort(1));
                        break;
                    }
                }
            } else {
                None
            };
            let mut saved = Vec::new();
            if let Some(r) = prev_r {
                saved.push(self.save_fd(0));
                let _ = self.sys.dup2(r, 0);
            }
            if let Some((_, w)) = next {
                saved.push(self.save_fd(1));
                let _ = self.sys.dup2(w, 1);
                if element.pipe_stderr {
                    saved.push(self.save_fd(2));
                    let _ = self.sys.dup2(w, 2);
                }
            }
            let pgroup = self.job_group(leader);
            let in_shell = i + 1 == n && self.opts.lastpipe && !self.interactive;
            let outcome = if in_shell {
                self.run_last_in_shell(&element.command)
            } else {
                self.start_element(&element.command, pgroup, next.map(|p| p.0))
            };
            self.restore_fds(saved);
            if let Some(r) = prev_r {
                let _ = self.sys.close(r);
            }
            if let Some((_, w)) = next {
                let _ = self.sys.close(w);
            }
            prev_r = next.map(|p| p.0);
            match outcome {
                Ok(s) => {
                    if let Started::Running(pid, _, _) = s {
                        leader.get_or_insert(pid);
                    }
                    started.push(s);
                }
                Err(flow) => {
                    failure = Some(flow);
                    break;
                }
            }
        }
        if let Some(r) = prev_r {
            let _ = self.sys.close(r);
        }
        if let Some(flow) = failure {
            self.end_started(started);
            return Err(flow);
        }
        if let Some(leader) = leader {
            self.give_terminal(leader);
        }
        let last_in_shell = self.opts.lastpipe && !self.interactive;
        if drop_after_start && !last_in_shell {
            self.sys.close_line_descriptors();
        }
        let (statuses, aborted) = self.wait_members(started);
        self.take_terminal();
        self.pipestatus = statuses.clone();
        if aborted {
            return Err(Flow::Abort(126));
        }
        let last = statuses.last().copied().unwrap_or(0);
        if self.opts.pipefail {
            return Ok(statuses
                .iter()
                .rev()
                .find(|&&s| s != 0)
                .copied()
                .unwrap_or(0));
        }
        Ok(last)
    }

    /// Wait for the members of a pipeline in order: their statuses, and
    /// whether a copy reported a denial. Once one stops (Ctrl-Z), the
    /// members after it join its job instead of being waited for.
    pub(in crate::interp) fn wait_members(&mut self, started: Vec<Started>) -> (Vec<i32>, bool) {
        let mut statuses = Vec::new();
        let mut aborted = false;
        self.jobs.table.stopped_now = None;
        for s in started {
            statuses.push(match s {
                Started::Done(code) => code,
                Started::Running(pid, t0, external) => match self.jobs.table.stopped_now {
                    // A member after one that stopped (Ctrl-Z): the rest of
                    // the pipeline is part of its job, stopped with it.
                    Some(number) => {
                        self.jobs.table.join(number, pid);
                        self.jobs.running.push(pid);
                        128 + libc::SIGTSTP
                    }
                    None => match self.wait_child(pid, t0, external) {
                        Ok(code) => code,
                        Err(_) => {
                            aborted = true;
                            126
                        }
                    },
                },
            });
        }
        (statuses, aborted)
    }

    /// Start one pipeline member with the pipe already on fds 0/1. Simple
    /// commands are expanded and checked here, in the shell itself.
    fn start_element(
        &mut self,
        command: &Command,
        pgroup: ProcessGroup,
        close_in_child: Option<Fd>,
    ) -> Result<Started, Flow> {
        // A member whose expansion has effects is expanded in its own copy of
        // the shell, as bash does (below, with compound members).
        let pure = match command {
            Command::Simple(sc) => crate::interp::pure::expansion_is_pure(sc, self.opts.nounset),
            _ => false,
        };
        if let (Command::Simple(sc), true) = (command, pure) {
            let Some((argv, assigns)) = self.expand_simple(sc)? else {
                return self.fork_element(command, pgroup, close_in_child);
            };
            let external = !argv.is_empty()
                && !self.functions.contains_key(&lossy(&argv[0]))
                && !guard::builtins::is_builtin(&argv[0]);
            if external {
                let redirects = &sc.redirects;
                let mark = self.pending_close.len();
                let result = self.with_redirects_started(redirects, |sh| {
                    sh.xtrace(&assigns, &argv);
                    sh.spawn_external(&argv, &assigns, pgroup)
                });
                self.close_pending(mark);
                return result;
            }
            let t0 = Instant::now();
            let pid = self.fork_run(pgroup, |sh| {
                if let Some(fd) = close_in_child {
                    let _ = sh.sys.close(fd);
                }
                sh.with_redirects(&sc.redirects, |sh| {
                    sh.xtrace(&assigns, &argv);
                    sh.dispatch(&argv, &assigns, true)
                })
            })?;
            return Ok(Started::Running(pid, t0, false));
        }
        self.fork_element(command, pgroup, close_in_child)
    }

    /// Run a pipeline member entirely in a forked copy of the shell.
    fn fork_element(
        &mut self,
        command: &Command,
        pgroup: ProcessGroup,
        close_in_child: Option<Fd>,
    ) -> Result<Started, Flow> {
        let t0 = Instant::now();
        let pid = self.fork_run(pgroup, |sh| {
            if let Some(fd) = close_in_child {
                let _ = sh.sys.close(fd);
            }
            match command {
                // The member's copy is the subshell (as in bash: one
                // process, `$BASH_SUBSHELL` one deeper, not two).
                Command::Compound(c) if c.redirects.is_empty() => match &c.kind {
                    CompoundKind::Subshell(list) => sh.run_list(list),
                    _ => sh.run_command(command),
                },
                _ => sh.run_command(command),
            }
        })?;
        Ok(Started::Running(pid, t0, false))
    }

    fn with_redirects_started(
        &mut self,
        redirects: &[Redirect],
        f: impl FnOnce(&mut Self) -> Result<Started, Flow>,
    ) -> Result<Started, Flow> {
        let saved = match self.apply_redirects(redirects) {
            Ok(saved) => saved,
            Err(crate::interp::redirect::RedirFail::Status(s)) => return Ok(Started::Done(s)),
            Err(crate::interp::redirect::RedirFail::Flow(flow)) => return Err(flow),
        };
        let r = f(self);
        self.restore_fds(saved);
        r
    }

    /// Fork a copy of the shell that runs `f` and exits with its status.
    pub(in crate::interp) fn fork_run(
        &mut self,
        pgroup: ProcessGroup,
        f: impl FnOnce(&mut Shell<'_>) -> Status,
    ) -> Result<Pid, Flow> {
        self.copy.forked_a_copy = true;
        match self.sys.fork_shell(pgroup) {
            Ok(Forked::Child) => {
                let status = self.run_as_copy(f);
                self.sys.exit_child(status)
            }
            Ok(Forked::Simulated(pid)) => {
                let status = self.simulated_copy().run_as_copy(f);
                self.sys.end_simulated_copy(status);
                Ok(pid)
            }
            Ok(Forked::Parent(pid)) => Ok(pid),
            Err(e) => {
                self.error(&format!("fork: {e}"));
                Err(Flow::Abort(1))
            }
        }
    }

    /// The forked copy's side of [`Shell::fork_run`]: forget what a copy
    /// does not inherit, run `f`, then the EXIT trap; the copy's status.
    fn run_as_copy(&mut self, f: impl FnOnce(&mut Self) -> Status) -> i32 {
        self.sys.copy_signal_defaults(self.interactive);
        self.depth.copies += 1;
        self.interactive = false;
        self.jobs.running.clear();
        self.jobs.done.clear();
        // The job table stays for `jobs` (as in bash: `$(jobs -p)` lists
        // the shell's jobs); a copy has no job control to act on it.
        // A subshell keeps only ignored signals; caught ones, EXIT and ERR
        // start unset (bash without `set -E`). `trap -p` lists the
        // parent's until one is set here.
        self.traps.listed = Some(self.traps.actions.clone());
        self.traps.actions.retain(|_, action| action.is_empty());
        // `break`/`continue` do not reach a loop outside the copy.
        self.depth.loops = 0;
        if let Some(reopen) = &self.audit_reopen {
            self.child_audit = Some(match reopen() {
                Ok(sink) => sink,
                Err(message) => Box::new(crate::interp::RefusingSink(message)),
            });
        }
        let status = match f(self) {
            Ok(s) => s,
            Err(Flow::Exit(s) | Flow::Abort(s) | Flow::Return(s)) => s,
            Err(Flow::Break(_) | Flow::Continue(_)) => self.status,
        };
        self.status = status;
        self.run_exit_trap();
        self.status
    }

    /// Wait for a child; a denial it reported aborts this line too. In an
    /// interactive shell a child that stops (Ctrl-Z) becomes a stopped job
    /// and the wait ends with `128+N`.
    pub(in crate::interp) fn wait_child(
        &mut self,
        pid: Pid,
        t0: Instant,
        external: bool,
    ) -> Status {
        let job_control = self.interactive && !self.in_child();
        let (sys, audit) = self.sys_and_sink();
        let waited = if job_control {
            sys.wait_or_stop(pid, audit)
        } else {
            sys.wait(pid, audit).map(Ok)
        };
        let status = match waited {
            Ok(Ok(s)) => s,
            Ok(Err(signal)) => return Ok(self.job_stopped(pid, signal)),
            Err(e) => {
                self.error(&format!("wait: {e}"));
                return Ok(127);
            }
        };
        if external {
            let (code, signal) = match status {
                ExitStatus::Exited(c) => (Some(c), None),
                ExitStatus::Signaled(s) => (None, Some(s)),
            };
            let _ = self.sink().record(Event::Exit {
                pid,
                status: code,
                signal,
                duration_ms: u64::try_from(t0.elapsed().as_millis()).unwrap_or(u64::MAX),
            });
        }
        if self.interactive && status == ExitStatus::Signaled(libc::SIGINT) {
            let _ = self.sys.write_all(2, b"\n");
        }
        if self.take_child_abort() {
            return Err(Flow::Abort(126));
        }
        Ok(status.code())
    }

    pub(in crate::interp) fn give_terminal(&mut self, pgid: Pid) {
        if self.interactive && !self.in_child() && self.sys.isatty(0) {
            let _ = self.sys.tcsetpgrp(0, pgid);
        }
    }

    pub(in crate::interp) fn take_terminal(&mut self) {
        if self.interactive && !self.in_child() && self.sys.isatty(0) {
            let pgid = self.jobs.shell_pgid;
            let _ = self.sys.tcsetpgrp(0, pgid);
        }
    }

    /// The line is aborted: end the pipeline's members already started.
    fn end_started(&mut self, started: Vec<Started>) {
        for s in &started {
            if let Started::Running(pid, _, _) = s {
                let _ = self.sys.kill(*pid, libc::SIGKILL);
            }
        }
        for s in started {
            if let Started::Running(pid, _, _) = s {
                let (sys, audit) = self.sys_and_sink();
                let _ = sys.wait(pid, audit);
            }
        }
    }

    /// The last member of a `lastpipe` pipeline, run by the shell itself
    /// while the members before it go on: a supervisor process answers
    /// their calls meanwhile (the shell is not waiting for them).
    fn run_last_in_shell(&mut self, command: &Command) -> Result<Started, Flow> {
        self.sys.hand_over_served();
        self.run_command(command).map(Started::Done)
    }

    pub(super) fn run_background(&mut self, ao: &AndOr) -> Status {
        let pgroup = self.job_group(None);
        let interactive = self.interactive;
        let pid = self.fork_run(pgroup, |sh| {
            // A job outlives its line, as in bash: the trial bounds it.
            sh.sys.bound_line(None);
            if !interactive {
                // Without job control a background job does not read the terminal.
                if let Ok(fd) = sh.sys.open(
                    std::path::Path::new("/dev/null"),
                    crate::system::OpenMode::Read,
                ) {
                    let _ = sh.sys.dup2(fd, 0);
                    let _ = sh.sys.close(fd);
                }
            }
            // The job is one plain pipeline: its copy of the shell ends
            // with it, so what it holds for the line can go early.
            let plain = ao.rest.is_empty() && !ao.first.negated && ao.first.timed.is_none();
            match ao.first.elements.as_slice() {
                [one] if plain && matches!(one.command, Command::Simple(_)) => {
                    sh.copy.drop_descriptors_after_spawn = true;
                }
                [_] if plain => sh.copy.redirects_for_good = true,
                _ => sh.copy.drop_descriptors_after_pipeline = plain,
            }
            sh.run_and_or(ao)
        })?;
        self.jobs.last_bg = Some(pid);
        self.jobs.running.push(pid);
        let text = lossy(&crate::syntax::and_or_to_source(ao));
        let group = self.sys.group_led_by(pid);
        let number = self.jobs.table.add(vec![pid], group, text, false);
        if interactive {
            let _ = self
                .sys
                .write_all(2, format!("[{number}] {pid}\n").as_bytes());
        }
        Ok(0)
    }
}

/// Whether `command`, a pipeline of its own, sets `PIPESTATUS` to its
/// status, as bash does for a simple command, a subshell, `[[ ]]` and
/// `(( ))`; a group, `if`, a loop, `case` or a function's definition
/// leaves it as the last pipeline they ran left it.
fn sets_pipestatus_alone(command: &Command) -> bool {
    match command {
        Command::Simple(_) => true,
        Command::FunctionDef(_) => false,
        Command::Compound(cc) => matches!(
            cc.kind,
            CompoundKind::Subshell(_) | CompoundKind::Conditional(_) | CompoundKind::Arithmetic(_)
        ),
    }
}
