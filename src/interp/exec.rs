//! Running the tree: lists, and-or lists, pipelines with real pipes between
//! children, compound commands, functions and simple commands.
//!
//! Guarantee: an external command is reached only through
//! [`Shell::spawn_external`], which checks the final argv with
//! [`crate::guard::check_argv`], resolves the name in the policy's bin
//! folder only, builds the environment from the policy and records the
//! spawn before the child may exec.

use super::lossy;
use super::{Flow, MAX_NESTING, Outcome, Shell, Status};
use crate::audit::Event;
use crate::guard;
use crate::sandbox::SandboxSpec;
use crate::sandbox::env::{ShellVar, build_child_env};
use crate::syntax::ast::*;
use crate::system::{ExitStatus, Fd, Forked, Pid, ProcessGroup, SpawnError, SpawnRequest};
use std::os::unix::ffi::OsStrExt;
use std::rc::Rc;
use std::time::Instant;

/// A prefix assignment `NAME=value cmd`, expanded.
pub(super) type Assign = (String, Vec<u8>);

/// An expanded simple command: argv and prefix assignments.
type Expanded = (Vec<Vec<u8>>, Vec<Assign>);

/// A pipeline member that has been started.
enum Started {
    Running(Pid, Instant, bool),
    Done(i32),
}

impl Shell<'_> {
    /// Record, parse, statically check and run one top-level line (or a
    /// whole `-c` string or script).
    pub fn run_text(&mut self, text: &[u8], origin: &str) -> Outcome {
        let status = match self.run_guarded(text, origin) {
            Ok(s) => s,
            Err(Flow::Exit(s)) => {
                self.status = s;
                return Outcome::Exit(s);
            }
            Err(Flow::Abort(s)) | Err(Flow::Return(s)) => s,
            Err(Flow::Break(_)) | Err(Flow::Continue(_)) => self.status,
        };
        // A denial reported by a forked copy after its line ended.
        let status = if self.take_child_abort() { 126 } else { status };
        self.status = status;
        Outcome::Continue(status)
    }

    /// Parse, check and run `text` (a line, `eval` text or a sourced file).
    pub(super) fn run_guarded(&mut self, text: &[u8], origin: &str) -> Status {
        self.check_stack()?;
        if self.nesting >= MAX_NESTING {
            self.error(&format!("{origin}: nesting too deep"));
            return Err(Flow::Abort(1));
        }
        let list = match self.admit(text, origin) {
            Ok(list) => list,
            Err(status) => return status,
        };
        self.nesting += 1;
        let saved_lines = self.enter_text(text, origin);
        let result = self.run_list(&list);
        self.leave_text(saved_lines, origin);
        self.nesting -= 1;
        result
    }

    /// Record `text` in the audit log, parse it and check the whole tree:
    /// the tree to run, or how the line ends without running (a syntax
    /// error: status 2; a denial, or a record that could not be written:
    /// an abort with 126).
    pub(super) fn admit(
        &mut self,
        text: &[u8],
        origin: &str,
    ) -> Result<crate::syntax::ast::List, Status> {
        if !self.record(Event::Line {
            text: lossy(text),
            origin: origin.to_string(),
        }) {
            return Err(Err(Flow::Abort(126)));
        }
        let list = match crate::syntax::parse_complete(text) {
            Ok((list, closed)) => {
                for doc in closed {
                    self.error(&doc.warning());
                }
                list
            }
            Err(e) => {
                // Counted in the input, not in this command's text.
                let lines_before = if self.nesting == 0 && origin != "eval" {
                    self.line_base
                } else {
                    0
                };
                let message = format!("syntax error at {}", e.render_after(text, lines_before));
                self.error(&message);
                let _ = self.sink().record(Event::Error { message });
                self.status = 2;
                self.syntax_error_seen = self.nesting == 0;
                return Err(Ok(2));
            }
        };
        let protected = self
            .protected_paths
            .get_or_insert_with(|| std::rc::Rc::new(guard::ProtectedPaths::new(&self.policy)))
            .clone();
        let verdict = guard::check_list_in(&self.policy, &list, self.function_names(), &protected);
        let commands = serde_json::Value::Array(verdict.commands_json(text, 0));
        if !self.record(Event::Verdict {
            allowed: verdict.allowed,
            commands,
        }) {
            return Err(Err(Flow::Abort(126)));
        }
        if let Some(denied) = verdict.first_denial() {
            let reason = denied.reason.clone();
            self.error(&format!("denied: {reason}"));
            self.signal_abort();
            return Err(Err(Flow::Abort(126)));
        }
        Ok(list)
    }

    /// Count `$LINENO` in `text` from here on (in `eval` text: not at all).
    fn enter_text(&mut self, text: &[u8], origin: &str) -> (std::rc::Rc<Vec<usize>>, usize) {
        if origin == "eval" {
            self.lineno_frozen += 1;
            return (self.line_starts.clone(), self.line_base);
        }
        let starts: Vec<usize> = text
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .map(|(k, _)| k + 1)
            .collect();
        let saved = (
            std::mem::replace(&mut self.line_starts, std::rc::Rc::new(starts)),
            self.line_base,
        );
        if origin == "source" || origin == "." {
            self.line_base = 0;
        }
        saved
    }

    fn leave_text(&mut self, saved: (std::rc::Rc<Vec<usize>>, usize), origin: &str) {
        if origin == "eval" {
            self.lineno_frozen -= 1;
        }
        (self.line_starts, self.line_base) = saved;
    }

    pub(super) fn run_list(&mut self, list: &List) -> Status {
        let mut status = self.status;
        for item in &list.items {
            status = if item.background {
                self.run_background(&item.and_or)?
            } else {
                self.run_and_or(&item.and_or)?
            };
            self.status = status;
            self.safe_point()?;
            status = self.status;
        }
        Ok(status)
    }

    fn run_and_or(&mut self, ao: &AndOr) -> Status {
        let n = ao.rest.len();
        let mut status = self.with_errexit_off(n > 0, |sh| sh.run_pipeline(&ao.first))?;
        let mut last_ran = 0;
        for (i, (op, pipeline)) in ao.rest.iter().enumerate() {
            let run = match op {
                AndOrOp::And => status == 0,
                AndOrOp::Or => status != 0,
            };
            if run {
                let last = i + 1 == n;
                status = self.with_errexit_off(!last, |sh| sh.run_pipeline(pipeline))?;
                last_ran = i + 1;
            }
        }
        self.status = status;
        let final_pipeline = ao.rest.last().map_or(&ao.first, |(_, p)| p);
        if status != 0
            && last_ran == n
            && self.opts.errexit
            && self.errexit_off == 0
            && !final_pipeline.negated
        {
            return Err(Flow::Exit(status));
        }
        Ok(status)
    }

    /// Run `f` with `set -e` suspended when `off` (conditions).
    pub(super) fn with_errexit_off(
        &mut self,
        off: bool,
        f: impl FnOnce(&mut Self) -> Status,
    ) -> Status {
        if off {
            self.errexit_off += 1;
        }
        let r = f(self);
        if off {
            self.errexit_off -= 1;
        }
        r
    }

    fn run_pipeline(&mut self, p: &Pipeline) -> Status {
        let Some(format) = p.timed else {
            return self.run_pipeline_untimed(p);
        };
        let clock = super::timing::Clock::start();
        let r = self.run_pipeline_untimed(p);
        let spent = clock.spent();
        let format_var = self.vars.get("TIMEFORMAT").map(<[u8]>::to_vec);
        let report = super::timing::report(format, format_var.as_deref(), &spent);
        let _ = self.sys.write_all(2, &report);
        r
    }

    fn run_pipeline_untimed(&mut self, p: &Pipeline) -> Status {
        let status = self.with_errexit_off(p.negated, |sh| {
            if p.elements.len() == 1 {
                let s = sh.run_command(&p.elements[0].command)?;
                sh.pipestatus = vec![s];
                Ok(s)
            } else {
                sh.run_multi(p)
            }
        })?;
        let status = if p.negated {
            i32::from(status == 0)
        } else {
            status
        };
        self.status = status;
        if status != 0 && !p.negated && self.errexit_off == 0 && fires_err_trap(p) {
            self.run_err_trap()?;
        }
        Ok(status)
    }

    /// The process group for a new job's member (job control only when interactive).
    fn job_group(&self, leader: Option<Pid>) -> ProcessGroup {
        if !self.interactive || self.in_child {
            return ProcessGroup::Inherit;
        }
        match leader {
            Some(pid) => ProcessGroup::Join(pid),
            None => ProcessGroup::New,
        }
    }

    fn run_multi(&mut self, p: &Pipeline) -> Status {
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
                self.run_command(&element.command).map(Started::Done)
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
            // The line is aborted: end what already started.
            for s in &started {
                if let Started::Running(pid, _, _) = s {
                    let _ = self.sys.kill(*pid, libc::SIGKILL);
                }
            }
            for s in started {
                if let Started::Running(pid, _, _) = s {
                    let _ = self.sys.wait(pid);
                }
            }
            return Err(flow);
        }
        if let Some(leader) = leader {
            self.give_terminal(leader);
        }
        let mut statuses = Vec::new();
        let mut aborted = false;
        for s in started {
            statuses.push(match s {
                Started::Done(code) => code,
                Started::Running(pid, t0, external) => match self.wait_child(pid, t0, external) {
                    Ok(code) => code,
                    Err(_) => {
                        aborted = true;
                        126
                    }
                },
            });
        }
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
            Command::Simple(sc) => super::pure::expansion_is_pure(sc, self.opts.nounset),
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
            sh.run_command(command)
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
            Err(super::redirect::RedirFail::Status(s)) => return Ok(Started::Done(s)),
            Err(super::redirect::RedirFail::Flow(flow)) => return Err(flow),
        };
        let r = f(self);
        self.restore_fds(saved);
        r
    }

    /// Fork a copy of the shell that runs `f` and exits with its status.
    pub(super) fn fork_run(
        &mut self,
        pgroup: ProcessGroup,
        f: impl FnOnce(&mut Self) -> Status,
    ) -> Result<Pid, Flow> {
        // Forked copies share the parent's supervisor.
        self.ensure_supervisor()?;
        match self.sys.fork_shell(pgroup) {
            Ok(Forked::Child) => {
                let was_interactive = self.interactive;
                self.in_child = true;
                self.interactive = false;
                self.jobs.clear();
                self.done_jobs.clear();
                crate::os::signals::child_defaults(was_interactive);
                // A subshell keeps only ignored signals; caught ones, EXIT
                // and ERR start unset (bash without `set -E`). `trap -p`
                // lists the parent's until one is set here.
                self.listed_traps = Some(self.traps.clone());
                self.traps.retain(|_, action| action.is_empty());
                // `break`/`continue` do not reach a loop outside the copy.
                self.loop_depth = 0;
                if let Some(reopen) = &self.audit_reopen {
                    self.child_audit = Some(match reopen() {
                        Ok(sink) => sink,
                        Err(message) => Box::new(super::RefusingSink(message)),
                    });
                }
                let status = match f(self) {
                    Ok(s) => s,
                    Err(Flow::Exit(s) | Flow::Abort(s) | Flow::Return(s)) => s,
                    Err(Flow::Break(_) | Flow::Continue(_)) => self.status,
                };
                self.status = status;
                self.run_exit_trap();
                let status = self.status;
                self.sys.exit_child(status)
            }
            Ok(Forked::Parent(pid)) => Ok(pid),
            Err(e) => {
                self.error(&format!("fork: {e}"));
                Err(Flow::Abort(1))
            }
        }
    }

    /// Wait for a child; a denial it reported aborts this line too.
    pub(super) fn wait_child(&mut self, pid: Pid, t0: Instant, external: bool) -> Status {
        let status = match self.sys.wait(pid) {
            Ok(s) => s,
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

    fn give_terminal(&mut self, pgid: Pid) {
        if self.interactive && !self.in_child && self.sys.isatty(0) {
            let _ = self.sys.tcsetpgrp(0, pgid);
        }
    }

    fn take_terminal(&mut self) {
        if self.interactive && !self.in_child && self.sys.isatty(0) {
            let pgid = self.shell_pgid;
            let _ = self.sys.tcsetpgrp(0, pgid);
        }
    }

    fn run_background(&mut self, ao: &AndOr) -> Status {
        let pgroup = self.job_group(None);
        let interactive = self.interactive;
        let pid = self.fork_run(pgroup, |sh| {
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
            sh.run_and_or(ao)
        })?;
        self.last_bg = Some(pid);
        self.jobs.push(pid);
        Ok(0)
    }

    pub(super) fn run_command(&mut self, command: &Command) -> Status {
        match command {
            Command::Simple(sc) => self.run_simple(sc),
            Command::Compound(cc) => self.run_compound(cc),
            Command::FunctionDef(def) => {
                // A function may shadow a builtin: its body was checked with the
                // line defining it, and `command`/`builtin` still reach the builtin.
                self.functions
                    .insert(def.name.clone(), Rc::new(def.clone()));
                self.function_lines
                    .insert(def.name.clone(), (self.line_starts.clone(), self.line_base));
                Ok(0)
            }
        }
    }

    pub(super) fn run_compound(&mut self, cc: &CompoundCommand) -> Status {
        self.check_stack()?;
        self.with_redirects(&cc.redirects, |sh| sh.run_compound_body(&cc.kind))
    }

    fn run_compound_body(&mut self, kind: &CompoundKind) -> Status {
        // `for` loops fire it per iteration (in run_for, run_arith_for).
        // `for` loops fire it per iteration (in run_for) and `(( ))` and the
        // parts of `for (( ))` before each evaluation (in arith_test).
        if matches!(
            kind,
            CompoundKind::Conditional(_) | CompoundKind::Case { .. }
        ) {
            self.run_debug_trap(|| compound_head(kind))?;
        }
        match kind {
            CompoundKind::BraceGroup(list) => self.run_list(list),
            CompoundKind::Subshell(list) => {
                let t0 = Instant::now();
                let pid = self.fork_run(ProcessGroup::Inherit, |sh| sh.run_list(list))?;
                self.wait_child(pid, t0, false)
            }
            CompoundKind::If {
                branches,
                else_body,
            } => {
                for (condition, body) in branches {
                    let c = self.with_errexit_off(true, |sh| sh.run_list(condition))?;
                    if c == 0 {
                        return self.run_list(body);
                    }
                }
                match else_body {
                    Some(body) => self.run_list(body),
                    None => Ok(0),
                }
            }
            CompoundKind::Loop {
                until,
                condition,
                body,
            } => {
                self.loop_depth += 1;
                let r = self.run_loop(*until, condition, body);
                self.loop_depth -= 1;
                r
            }
            CompoundKind::For {
                variable,
                words,
                body,
            } => {
                let values = match words {
                    Some(words) => self.expand_words(words)?,
                    None => self.positional.clone(),
                };
                let head = if self.traps.contains_key("DEBUG") {
                    compound_head(kind)
                } else {
                    Vec::new()
                };
                self.loop_depth += 1;
                let r = self.run_for(variable, values, body, &head);
                self.loop_depth -= 1;
                r
            }
            CompoundKind::Case { subject, arms } => self.run_case(subject, arms),
            CompoundKind::Conditional(expr) => self.run_conditional(expr),
            CompoundKind::Arithmetic(word) => match self.arith_test(word)? {
                Some(value) => Ok(i32::from(value == 0)),
                None => Ok(1),
            },
            CompoundKind::ArithFor(arith_for) => {
                let ArithForLoop {
                    init,
                    condition,
                    step,
                    body,
                } = &**arith_for;
                self.loop_depth += 1;
                let r = self.run_arith_for(init, condition, step, body);
                self.loop_depth -= 1;
                r
            }
        }
    }

    /// Expand and evaluate the text of `(( ))` or a part of `for (( ))`.
    /// `None` after an error, reported as bash reports it (`((: …`): the
    /// command fails with status 1, the line goes on.
    fn arith_test(&mut self, word: &Word) -> Result<Option<i64>, Flow> {
        self.run_debug_trap(|| {
            crate::syntax::command_to_source(&Command::Compound(Box::new(CompoundCommand {
                kind: CompoundKind::Arithmetic(word.clone()),
                redirects: Vec::new(),
                span: crate::syntax::span::Span::new(0, 0),
            })))
        })?;
        let text = self.expand_string(word)?;
        match super::arith::eval(self, &text) {
            Ok(value) => Ok(Some(value)),
            Err(error) => match self.arith_fatal(&error) {
                Some(flow) => Err(flow),
                None => {
                    self.error(&format!("((: {error}"));
                    Ok(None)
                }
            },
        }
    }

    fn run_arith_for(&mut self, init: &Word, condition: &Word, step: &Word, body: &List) -> Status {
        if self.arith_test(init)?.is_none() {
            return Ok(1);
        }
        let mut status = 0;
        loop {
            let go_on = if condition.parts.is_empty() {
                Some(1)
            } else {
                self.arith_test(condition)?
            };
            match go_on {
                None => return Ok(1),
                Some(0) => return Ok(status),
                Some(_) => {}
            }
            match loop_step(self.run_list(body), self.status) {
                LoopStep::Ran(s) => status = s,
                LoopStep::Again => {}
                LoopStep::Leave(result) => return result,
            }
            if self.arith_test(step)?.is_none() {
                return Ok(1);
            }
        }
    }

    fn run_loop(&mut self, until: bool, condition: &List, body: &List) -> Status {
        let mut status = 0;
        loop {
            let c = match loop_step(
                self.with_errexit_off(true, |sh| sh.run_list(condition)),
                self.status,
            ) {
                LoopStep::Ran(c) => c,
                LoopStep::Again => continue,
                LoopStep::Leave(result) => return result,
            };
            if (c == 0) == until {
                return Ok(status);
            }
            match loop_step(self.run_list(body), self.status) {
                LoopStep::Ran(s) => status = s,
                LoopStep::Again => {}
                LoopStep::Leave(result) => return result,
            }
        }
    }

    fn run_for(
        &mut self,
        variable: &str,
        values: Vec<Vec<u8>>,
        body: &List,
        head: &[u8],
    ) -> Status {
        let mut status = 0;
        for value in values {
            self.run_debug_trap(|| head.to_vec())?;
            self.assign(variable, value)?;
            match loop_step(self.run_list(body), self.status) {
                LoopStep::Ran(s) => status = s,
                LoopStep::Again => {}
                LoopStep::Leave(result) => return result,
            }
        }
        Ok(status)
    }

    fn run_case(&mut self, subject: &Word, arms: &[CaseArm]) -> Status {
        let value = self.expand_string(subject)?;
        let mut status = 0;
        let mut fall = false;
        for arm in arms {
            let mut hit = fall;
            if !hit {
                for p in &arm.patterns {
                    let pat = self.expand_pattern(p)?;
                    if super::pattern::matches(&pat, &value) {
                        hit = true;
                        break;
                    }
                }
            }
            fall = false;
            if hit {
                status = self.run_list(&arm.body)?;
                match arm.terminator {
                    CaseTerminator::Break => return Ok(status),
                    CaseTerminator::FallThrough => fall = true,
                    CaseTerminator::Continue => {}
                }
            }
        }
        Ok(status)
    }

    /// Is this a declaration builtin whose `NAME=value` operands are not split?
    fn is_declaration(word: &Word) -> bool {
        guard::words::static_value(word)
            .is_some_and(|name| crate::syntax::is_declaration_name(&name))
    }

    /// Expand a simple command's words and prefix assignments. `None` when
    /// there is no command name (assignments only).
    fn expand_simple(&mut self, sc: &SimpleCommand) -> Result<Option<Expanded>, Flow> {
        self.subst_status = None;
        self.compound_args.clear();
        let argv = match sc.words.first() {
            Some(first) if Self::is_declaration(first) => {
                let mut argv = Vec::new();
                for word in &sc.words {
                    if let Some((WordPart::Array(items), head)) = word.parts.split_last() {
                        let mut text = Vec::new();
                        for part in head {
                            if let WordPart::Literal(bytes) = part {
                                text.extend_from_slice(bytes);
                            }
                        }
                        let items = self.expand_items(items)?;
                        self.compound_args.push((argv.len(), items));
                        argv.push(text);
                    } else if looks_like_assignment(word) {
                        argv.push(self.expand_string(word)?);
                    } else {
                        argv.extend(self.expand_words(std::slice::from_ref(word))?);
                    }
                }
                argv
            }
            _ => self.expand_words(&sc.words)?,
        };
        if argv.is_empty() {
            return Ok(None);
        }
        let mut assigns = Vec::new();
        // Each prefix assignment is seen by the ones after it
        // (`A=1 B=$A cmd`), as in bash; the shell's own values come back
        // before the command runs with all of them.
        let mut shadowed = Vec::new();
        let result = self.expand_prefix(sc, &mut assigns, &mut shadowed);
        for (name, old) in shadowed.into_iter().rev() {
            match old {
                Some(var) => self.vars.restore(&name, var),
                None => self.vars.unset_internal(&name),
            }
        }
        result?;
        Ok(Some((argv, assigns)))
    }

    fn expand_prefix(
        &mut self,
        sc: &SimpleCommand,
        assigns: &mut Vec<Assign>,
        shadowed: &mut Vec<(String, Option<super::Var>)>,
    ) -> Result<(), Flow> {
        for a in &sc.assignments {
            let AssignValue::Scalar(word) = &a.value else {
                return Err(self.array_prefix_refused(&a.name));
            };
            if a.index.is_some() {
                return Err(self.array_prefix_refused(&a.name));
            }
            let mut value = self.expand_string(word)?;
            if let Err(deny) = guard::check_assignment(&self.policy, &a.name) {
                return Err(self.deny(&deny, &[format!("{}=", a.name).into_bytes()]));
            }
            if a.append {
                let mut old = self.vars.get(&a.name).unwrap_or_default().to_vec();
                old.append(&mut value);
                value = old;
            }
            if !self.vars.is_readonly(&a.name) {
                shadowed.push((a.name.clone(), self.vars.get_var(&a.name).cloned()));
                self.vars.set(&a.name, value.clone());
            }
            assigns.push((a.name.clone(), value));
        }
        Ok(())
    }

    fn array_prefix_refused(&mut self, name: &str) -> Flow {
        self.error(&format!(
            "{name}: an array assignment before a command is not supported by guard-sh (assign it on its own line)"
        ));
        Flow::Abort(1)
    }

    /// `NAME=value` with no command: set shell variables.
    fn run_assignments_only(&mut self, sc: &SimpleCommand) -> Status {
        for a in &sc.assignments {
            match (&a.value, &a.index) {
                (AssignValue::Scalar(word), None) => {
                    let value = self.expand_string(word)?;
                    self.trace_assignment(&a.name, &super::builtins::quote(&value));
                    self.assign_maybe_append(&a.name, value, a.append)?;
                }
                (AssignValue::Scalar(word), Some(index)) => {
                    let text = self.expand_string(index)?;
                    if text.is_empty() && self.is_assoc(&a.name) {
                        let written = lossy(&crate::syntax::word_to_source(index));
                        self.error(&format!("{}[{written}]: bad array subscript", a.name));
                        return Err(Flow::Abort(1));
                    }
                    let key = self.key_of(&a.name, text)?;
                    let value = self.expand_string(word)?;
                    let shown = match &key {
                        super::arrays::Key::Index(i) => i.to_string(),
                        super::arrays::Key::Name(k) => lossy(k),
                    };
                    self.trace_assignment(
                        &format!("{}[{shown}]", a.name),
                        &super::builtins::quote(&value),
                    );
                    self.assign_element(&a.name, key, value, a.append)?;
                }
                (AssignValue::Array(items), _) => {
                    // bash shows a compound assignment as written.
                    let written = lossy(&crate::syntax::array_to_source(items));
                    self.trace_assignment(&a.name, &written);
                    let items = self.expand_items(items)?;
                    self.assign_array(&a.name, items, a.append, false)?;
                }
            }
        }
        let status = self.subst_status.unwrap_or(0);
        let mark = self.pending_close.len();
        let r = self.with_redirects(&sc.redirects, |_| Ok(status));
        self.close_pending(mark);
        r
    }

    fn trace_assignment(&mut self, name: &str, shown: &str) {
        if self.opts.xtrace {
            let line = format!("{}{name}={shown}\n", self.ps4());
            self.out(2, line.as_bytes());
        }
    }

    pub(super) fn run_simple(&mut self, sc: &SimpleCommand) -> Status {
        if self.lineno_frozen == 0 {
            let before = self.line_starts.partition_point(|&s| s <= sc.span.start());
            self.lineno = self.line_base + 1 + before;
        }
        self.run_debug_trap(|| command_text(&Command::Simple(sc.clone())))?;
        let mark = self.pending_close.len();
        let r = self.run_simple_inner(sc);
        self.close_pending(mark);
        r
    }

    fn run_simple_inner(&mut self, sc: &SimpleCommand) -> Status {
        let Some((argv, assigns)) = self.expand_simple(sc)? else {
            return self.run_assignments_only(sc);
        };
        let result = self.with_redirects(&sc.redirects, |sh| {
            sh.xtrace(&assigns, &argv);
            sh.dispatch(&argv, &assigns, true)
        });
        // `$_`: the last argument of the last simple command.
        if let Some(last) = argv.last() {
            self.vars.set_internal("_", last.clone());
            self.vars.export("_", false);
        }
        result
    }

    fn ps4(&self) -> String {
        lossy(self.vars.get("PS4").unwrap_or(b"+ "))
    }

    fn xtrace(&mut self, assigns: &[Assign], argv: &[Vec<u8>]) {
        if !self.opts.xtrace {
            return;
        }
        let mut line = self.ps4();
        let mut words: Vec<String> = assigns
            .iter()
            .map(|(n, v)| format!("{n}={}", super::builtins::quote(v)))
            .collect();
        words.extend(argv.iter().map(|a| super::builtins::quote(a)));
        line.push_str(&words.join(" "));
        line.push('\n');
        self.out(2, line.as_bytes());
    }

    pub(super) fn close_pending(&mut self, mark: usize) {
        if self.pending_close.len() > mark {
            let fds: Vec<Fd> = self.pending_close.drain(mark..).collect();
            for fd in fds {
                let _ = self.sys.close(fd);
            }
        }
    }

    /// Run a command by name: function, builtin, or external.
    pub(super) fn dispatch(
        &mut self,
        argv: &[Vec<u8>],
        assigns: &[Assign],
        functions: bool,
    ) -> Status {
        let name = lossy(&argv[0]);
        if functions {
            if let Some(def) = self.functions.get(&name).cloned() {
                return self.with_temp_assigns(assigns, |sh| sh.call_function(&def, argv));
            }
        }
        if guard::builtins::is_builtin(&argv[0]) {
            return self.with_temp_assigns(assigns, |sh| sh.run_builtin(argv));
        }
        let pgroup = self.job_group(None);
        match self.spawn_external(argv, assigns, pgroup)? {
            Started::Done(code) => Ok(code),
            Started::Running(pid, t0, _) => {
                self.give_terminal(pid);
                let r = self.wait_child(pid, t0, true);
                self.take_terminal();
                let code = r?;
                self.pipestatus = vec![code];
                Ok(code)
            }
        }
    }

    /// Variables set for the duration of one builtin or function call.
    fn with_temp_assigns(
        &mut self,
        assigns: &[Assign],
        f: impl FnOnce(&mut Self) -> Status,
    ) -> Status {
        if assigns.is_empty() {
            return f(self);
        }
        let mut saved = Vec::new();
        for (name, value) in assigns {
            if self.vars.is_readonly(name) {
                self.error(&format!("{name}: readonly variable"));
                return Ok(1);
            }
            saved.push((name.clone(), self.vars.get_var(name).cloned()));
            self.vars.set(name, value.clone());
            self.vars.export(name, true);
        }
        let r = f(self);
        for (name, old) in saved.into_iter().rev() {
            match old {
                Some(var) => {
                    if let Some(slot) = self.vars.get_var_mut(&name) {
                        *slot = var;
                    }
                }
                None => self.vars.unset_internal(&name),
            }
        }
        r
    }

    /// Start the exec supervisor if it is wanted and not running yet. Where
    /// it cannot start, a policy that requires the sandbox stops the line
    /// (126); otherwise the shell warns once and goes on with Landlock alone.
    fn ensure_supervisor(&mut self) -> Result<(), Flow> {
        let Some(start) = self.supervisor_start.take() else {
            return Ok(());
        };
        match start() {
            Ok(supervisor) => {
                self.supervisor = Some(supervisor);
                Ok(())
            }
            Err(e) => {
                let message = format!("cannot start the exec supervisor: {e}");
                let _ = self.sink().record(Event::Error {
                    message: message.clone(),
                });
                if self.policy.sandbox.mode == crate::policy::SandboxMode::Required {
                    self.error(&format!("sandbox: {message}"));
                    return Err(Flow::Abort(126));
                }
                self.error(&format!(
                    "warning: {message}; commands run with Landlock alone"
                ));
                Ok(())
            }
        }
    }

    /// Refuse to go deeper when the real stack is nearly used up (deep
    /// recursion through functions and nested groups), rather than let the
    /// process die of a stack overflow. Reported as bash reports
    /// `FUNCNEST`, status 1, the rest of the line discarded.
    fn check_stack(&mut self) -> Result<(), Flow> {
        if stacker::remaining_stack().is_some_and(|left| left < STACK_RESERVE) {
            let what = if self.func_depth > 0 {
                "maximum function nesting level exceeded"
            } else {
                "commands nested too deeply"
            };
            self.error(&format!("{what} (stack nearly exhausted)"));
            return Err(Flow::Abort(1));
        }
        Ok(())
    }

    fn call_function(&mut self, def: &FunctionDef, argv: &[Vec<u8>]) -> Status {
        // bash's FUNCNEST, when set to a positive number; our own bound
        // otherwise (bash has none and dies of the stack overflow).
        let funcnest = self
            .vars
            .get("FUNCNEST")
            .and_then(|v| lossy(v).trim().parse::<u32>().ok())
            .filter(|&n| n > 0);
        if let Some(limit) = funcnest.filter(|&n| self.func_depth >= n) {
            self.error(&format!(
                "{}: maximum function nesting level exceeded ({limit})",
                def.name
            ));
            return Err(Flow::Abort(1));
        }
        if self.func_depth >= MAX_NESTING {
            self.error(&format!(
                "{}: maximum function nesting level exceeded",
                def.name
            ));
            return Err(Flow::Abort(1));
        }
        let saved_args = std::mem::replace(&mut self.positional, argv[1..].to_vec());
        self.vars.push_frame();
        self.func_depth += 1;
        self.func_names.push(def.name.clone());
        let saved_loop = std::mem::replace(&mut self.loop_depth, 0);
        // A RETURN trap set outside is not the function's (bash without
        // `set -T`): hidden for the call; one the body sets fires at its end.
        let outer_return = self.traps.remove("RETURN");
        let lines = self.function_lines.get(&def.name).cloned();
        let saved_lines = lines.map(|l| {
            (
                std::mem::replace(&mut self.line_starts, l.0),
                std::mem::replace(&mut self.line_base, l.1),
            )
        });
        let mut r = self.run_compound(&def.body);
        if let Err(flow) = self.run_return_trap() {
            r = Err(flow);
        }
        if let Some(outer) = outer_return {
            self.traps.insert("RETURN".into(), outer);
        }
        if let Some(saved) = saved_lines {
            (self.line_starts, self.line_base) = saved;
        }
        self.loop_depth = saved_loop;
        self.func_names.pop();
        self.func_depth -= 1;
        self.vars.pop_frame();
        self.positional = saved_args;
        match r {
            Err(Flow::Return(s)) => Ok(s),
            other => other,
        }
    }

    /// Check, resolve, audit and start an external command.
    fn spawn_external(
        &mut self,
        argv: &[Vec<u8>],
        assigns: &[Assign],
        pgroup: ProcessGroup,
    ) -> Result<Started, Flow> {
        let policy = self.policy.clone();
        let rule = match guard::check_argv(&policy, &self.cwd, argv) {
            Ok(rule) => rule,
            Err(deny) => return Err(self.deny(&deny, argv)),
        };
        let name = lossy(&argv[0]);
        let path = policy.bin_dir.join(std::ffi::OsStr::from_bytes(&argv[0]));
        if !is_executable(&path) {
            self.error(&format!("{name}: command not found"));
            return Ok(Started::Done(127));
        }
        let mut shell_vars: Vec<ShellVar<'_>> = Vec::new();
        let sorted = self.vars.sorted();
        for (n, var) in &sorted {
            if assigns.iter().any(|(a, _)| a == *n) {
                continue;
            }
            // Arrays are never exported (bash cannot either).
            let crate::interp::Value::Scalar(value) = &var.value else {
                continue;
            };
            shell_vars.push(ShellVar {
                name: n.as_str(),
                value,
                exported: var.exported || self.opts.allexport,
                inherited: var.inherited,
            });
        }
        for (n, v) in assigns {
            shell_vars.push(ShellVar {
                name: n.as_str(),
                value: v,
                exported: true,
                inherited: false,
            });
        }
        let env = build_child_env(&policy, rule, shell_vars);
        let confinement = match crate::sandbox::landlock::Confinement::for_command(
            &policy, rule, &path, &self.cwd,
        ) {
            Ok(c) => c,
            Err(e) => {
                self.error(&format!("{name}: sandbox: {e}"));
                let _ = self.sink().record(Event::Error {
                    message: format!("{name}: sandbox: {e}"),
                });
                return Ok(Started::Done(126));
            }
        };
        self.ensure_supervisor()?;
        let supervise = match &self.supervisor {
            None => None,
            Some(supervisor) => {
                match crate::sandbox::supervisor::ExecPlan::for_command(rule, &path, &self.cwd) {
                    Ok(plan) => Some(crate::sandbox::supervisor::Attach::new(supervisor, &plan)),
                    Err(e) => {
                        self.error(&format!("{name}: supervisor: {e}"));
                        let _ = self.sink().record(Event::Error {
                            message: format!("{name}: supervisor: {e}"),
                        });
                        return Ok(Started::Done(126));
                    }
                }
            }
        };
        let req = SpawnRequest {
            path: path.clone(),
            argv: argv.to_vec(),
            envp: env.vars,
            cwd: self.cwd.clone(),
            pgroup,
            foreground_tty: None,
            sandbox: SandboxSpec {
                confinement,
                supervise,
            },
        };
        // The bin-folder link is what the audit verifier expects to see.
        let resolved = path;
        let event_argv: Vec<String> = argv.iter().map(|a| lossy(a)).collect();
        let added = env.added;
        let t0 = Instant::now();
        let audit: &mut dyn crate::audit::AuditSink = match &mut self.child_audit {
            Some(sink) => sink.as_mut(),
            None => &mut *self.audit,
        };
        let result = self.sys.spawn(&req, &mut |pid| {
            audit.record(Event::Spawn {
                pid,
                path: resolved.display().to_string(),
                argv: event_argv.clone(),
                env_added: added.clone(),
            })
        });
        match result {
            Ok(pid) => Ok(Started::Running(pid, t0, true)),
            Err(SpawnError::Refused(message)) => {
                self.error(&format!("audit log unavailable: {message}"));
                Err(Flow::Abort(126))
            }
            Err(SpawnError::Os(e)) => {
                self.error(&format!("{name}: {e}"));
                let _ = self.sink().record(Event::Error {
                    message: format!("{name}: {e}"),
                });
                Ok(Started::Done(if e.raw_os_error() == Some(libc::ENOENT) {
                    127
                } else {
                    126
                }))
            }
        }
    }

    /// Command substitution: run `list` in a forked copy, collect its stdout.
    pub(super) fn command_subst(&mut self, list: &List) -> Result<Vec<u8>, Flow> {
        let (r, w) = match self.sys.pipe() {
            Ok(p) => p,
            Err(e) => {
                self.error(&format!("pipe: {e}"));
                return Err(Flow::Abort(1));
            }
        };
        let t0 = Instant::now();
        let forked = self.fork_run(ProcessGroup::Inherit, |sh| {
            let _ = sh.sys.close(r);
            let _ = sh.sys.dup2(w, 1);
            let _ = sh.sys.close(w);
            // As in bash (outside POSIX mode): `set -e` does not reach into
            // a command substitution.
            sh.opts.errexit = false;
            match file_read_form(list) {
                // `$(< FILE)`: the file's contents, read through the same
                // redirection as `cat < FILE` would be.
                Some(redirect) => sh.with_redirects(std::slice::from_ref(redirect), |sh| {
                    Ok(sh.copy_input_to_output())
                }),
                None => sh.run_list(list),
            }
        });
        let _ = self.sys.close(w);
        let pid = match forked {
            Ok(pid) => pid,
            Err(flow) => {
                let _ = self.sys.close(r);
                return Err(flow);
            }
        };
        let mut out = Vec::new();
        let mut buf = [0u8; 8192];
        while let Ok(n) = self.sys.read(r, &mut buf) {
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
        }
        let _ = self.sys.close(r);
        let code = self.wait_child(pid, t0, false)?;
        self.subst_status = Some(code);
        self.status = code;
        Ok(out)
    }

    /// Copy descriptor 0 to descriptor 1 (`$(< FILE)`); status 1 when a
    /// read or write fails.
    fn copy_input_to_output(&mut self) -> i32 {
        let mut buf = [0u8; 8192];
        loop {
            match self.sys.read(0, &mut buf) {
                Ok(0) => return 0,
                Ok(n) => {
                    if self.sys.write_all(1, &buf[..n]).is_err() {
                        return 1;
                    }
                }
                Err(_) => return 1,
            }
        }
    }

    /// `<(list)` / `>(list)`: a pipe to a forked copy, named `/dev/fd/N`.
    pub(super) fn process_subst(
        &mut self,
        direction: ProcessDirection,
        list: &List,
    ) -> Result<Vec<u8>, Flow> {
        let (r, w) = match self.sys.pipe() {
            Ok(p) => p,
            Err(e) => {
                self.error(&format!("pipe: {e}"));
                return Err(Flow::Abort(1));
            }
        };
        let (child_end, target, keep) = match direction {
            ProcessDirection::Read => (w, 1, r),
            ProcessDirection::Write => (r, 0, w),
        };
        let pid = self.fork_run(ProcessGroup::Inherit, |sh| {
            let _ = sh.sys.close(keep);
            let _ = sh.sys.dup2(child_end, target);
            let _ = sh.sys.close(child_end);
            sh.run_list(list)
        })?;
        let _ = self.sys.close(child_end);
        // At 63 or above, as bash: `exec 3< <(…)` must not name the pipe's
        // own number, which is closed when the command ends.
        let keep = match self.sys.move_inheritable(keep, 63) {
            Ok(moved) => moved,
            Err(_) => {
                let _ = self.sys.set_inheritable(keep);
                keep
            }
        };
        self.pending_close.push(keep);
        self.jobs.push(pid);
        Ok(format!("/dev/fd/{keep}").into_bytes())
    }

    /// Assign a variable as the agent wrote it: policy, then readonly.
    pub(super) fn assign(&mut self, name: &str, value: Vec<u8>) -> Result<(), Flow> {
        if let Err(deny) = guard::check_assignment(&self.policy, name) {
            let mut text = name.as_bytes().to_vec();
            text.push(b'=');
            return Err(self.deny(&deny, &[text]));
        }
        if self.vars.is_readonly(name) {
            self.error(&format!("{name}: readonly variable"));
            return Err(Flow::Abort(1));
        }
        let value = if self.vars.get_var(name).is_some_and(|v| v.integer) {
            self.arith(&value)?.to_string().into_bytes()
        } else {
            value
        };
        self.vars.set(name, value);
        if self.opts.allexport {
            self.vars.export(name, true);
        }
        Ok(())
    }

    pub(super) fn assign_maybe_append(
        &mut self,
        name: &str,
        mut value: Vec<u8>,
        append: bool,
    ) -> Result<(), Flow> {
        if append {
            let mut old = self.vars.get(name).unwrap_or_default().to_vec();
            old.append(&mut value);
            value = old;
        }
        self.assign(name, value)
    }
}

/// Does a failing `p` run the ERR trap? bash runs it for a simple command,
/// a subshell or a pipeline; the commands inside other compound commands
/// run it themselves.
fn fires_err_trap(p: &Pipeline) -> bool {
    p.elements.len() > 1
        || matches!(&p.elements[0].command, Command::Simple(_))
        || matches!(&p.elements[0].command, Command::Compound(c) if matches!(c.kind, CompoundKind::Subshell(_)))
}

/// `NAME=…` or `NAME+=…` at the start of a word's literal text.
fn looks_like_assignment(word: &Word) -> bool {
    let Some(WordPart::Literal(first)) = word.parts.first() else {
        return false;
    };
    let Some(eq) = first.iter().position(|&b| b == b'=') else {
        return false;
    };
    let name = first[..eq].strip_suffix(b"+").unwrap_or(&first[..eq]);
    super::vars::is_name(name)
}

fn is_executable(path: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Stack kept free below the deepest command: one more level of the
/// interpreter, a parse of `eval` text and a builtin's work fit in it.
const STACK_RESERVE: usize = 512 * 1024;

/// What a loop does after one run of its condition or body.
enum LoopStep {
    /// It ran to the end with this status.
    Ran(i32),
    /// `continue` (of this loop): on to the next round.
    Again,
    /// `break`, an outer `break N`/`continue N`, or another flow: the loop
    /// ends with this result.
    Leave(Status),
}

/// `status` is the shell's status after `result`: for `break`, the
/// status `break` itself set (0, or 1 for a count out of range).
fn loop_step(result: Status, status: i32) -> LoopStep {
    match result {
        Ok(s) => LoopStep::Ran(s),
        Err(Flow::Break(n)) if n > 1 => LoopStep::Leave(Err(Flow::Break(n - 1))),
        Err(Flow::Break(_)) => LoopStep::Leave(Ok(status)),
        Err(Flow::Continue(n)) if n > 1 => LoopStep::Leave(Err(Flow::Continue(n - 1))),
        Err(Flow::Continue(_)) => LoopStep::Again,
        Err(e) => LoopStep::Leave(Err(e)),
    }
}

/// The one `< FILE` redirection of a command substitution written as
/// `$(< FILE)` (no command, no assignment, nothing else), which bash reads
/// as the file's contents.
fn file_read_form(list: &List) -> Option<&Redirect> {
    let [item] = list.items.as_slice() else {
        return None;
    };
    if item.background || !item.and_or.rest.is_empty() || item.and_or.first.negated {
        return None;
    }
    let [element] = item.and_or.first.elements.as_slice() else {
        return None;
    };
    let Command::Simple(simple) = &element.command else {
        return None;
    };
    match (
        simple.words.is_empty() && simple.assignments.is_empty(),
        simple.redirects.as_slice(),
    ) {
        (true, [redirect])
            if redirect.op == RedirOp::Input && redirect.fd.is_none_or(|fd| fd == 0) =>
        {
            Some(redirect)
        }
        _ => None,
    }
}

/// `$BASH_COMMAND` for a simple command: as written, words before
/// redirections (bash's order).
fn command_text(command: &Command) -> Vec<u8> {
    let Command::Simple(sc) = command else {
        return crate::syntax::command_to_source(command);
    };
    let words_first = SimpleCommand {
        redirects: Vec::new(),
        ..sc.clone()
    };
    let mut text = crate::syntax::command_to_source(&Command::Simple(words_first));
    for r in &sc.redirects {
        let alone = SimpleCommand {
            assignments: Vec::new(),
            words: Vec::new(),
            redirects: vec![r.clone()],
            span: sc.span,
        };
        text.push(b' ');
        text.extend(crate::syntax::command_to_source(&Command::Simple(alone)));
    }
    text
}

/// `$BASH_COMMAND` for a compound command the DEBUG trap fires before:
/// its head, as bash names it (`case WORD in `, `for … `, `[[ … ]]`).
fn compound_head(kind: &CompoundKind) -> Vec<u8> {
    let command = Command::Compound(Box::new(CompoundCommand {
        kind: kind.clone(),
        redirects: Vec::new(),
        span: crate::syntax::span::Span::new(0, 0),
    }));
    let text = crate::syntax::command_to_source(&command);
    if let CompoundKind::Case { .. } = kind {
        if let Some(k) = text.windows(4).position(|w| w == b" in ") {
            return text[..k + 4].to_vec();
        }
    }
    text.split(|&b| b == b';' || b == b'\n')
        .next()
        .unwrap_or_default()
        .to_vec()
}
