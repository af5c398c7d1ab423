//! Background jobs: `wait`, `kill`, reaping, and job control (`jobs`,
//! `fg`, `bg`, Ctrl-Z). Every background job and process substitution the
//! shell starts is remembered until it is reaped, so none is left a
//! zombie: finished ones are collected at each safe point and their
//! statuses kept for a later `wait PID`. `kill` reaches only this shell
//! and the jobs it started, never another process; `fg` and `bg` only
//! resume a job the line that started it already had checked.

use super::lossy;
use super::{Shell, Status};
use crate::os::signals;
use crate::system::Pid;

/// How many finished-job statuses are kept for `wait PID`.
const KEPT_STATUSES: usize = 1024;

fn kill_signal(spec: &str) -> Option<i32> {
    if let Ok(n) = spec.parse::<i32>() {
        return (0..=64).contains(&n).then_some(n);
    }
    let upper = spec.to_uppercase();
    let bare = upper.strip_prefix("SIG").unwrap_or(&upper);
    signals::number_of_any(bare)
}

impl Shell<'_> {
    /// Collect background jobs that have ended, keeping their statuses.
    pub(super) fn reap_jobs(&mut self) {
        let mut i = 0;
        while i < self.jobs.running.len() {
            let pid = self.jobs.running[i];
            match self.sys.try_wait(pid) {
                Ok(None) => i += 1,
                Ok(Some(status)) => {
                    self.jobs.running.remove(i);
                    self.report_killed(pid, status);
                    self.jobs.table.reaped(pid, status);
                    let ended = super::state::EndedJob {
                        status: status.code(),
                        told: false,
                    };
                    self.jobs.done.insert(pid, ended);
                    if self.jobs.done.len() > KEPT_STATUSES {
                        self.jobs.done.pop_first();
                    }
                }
                Err(_) => {
                    self.jobs.running.remove(i);
                    self.jobs.table.forget(pid);
                }
            }
        }
        // Only an interactive shell says which jobs ended, as bash.
        if !self.interactive {
            self.jobs.table.take_notices();
        }
    }

    /// A script's background job killed by a signal is said on standard
    /// error when it is reaped, as bash says it (`PID Hangup  TEXT`); not
    /// for SIGINT, SIGTERM and SIGPIPE, which bash leaves unsaid. An
    /// interactive shell says it in its notice before the next prompt.
    fn report_killed(&mut self, pid: Pid, status: crate::system::ExitStatus) {
        let crate::system::ExitStatus::Signaled(signal) = status else {
            return;
        };
        if self.interactive || [libc::SIGINT, libc::SIGTERM, libc::SIGPIPE].contains(&signal) {
            return;
        }
        let text = self.jobs.table.text_of(pid).unwrap_or_default().to_string();
        let what = signals::description(signal);
        self.error(&format!("{pid:5} {what:<24}{text}"));
    }

    /// A foreground child stopped (Ctrl-Z): it becomes a stopped job (the
    /// rest of its pipeline joins it), said as bash says it; `128+N`.
    pub(super) fn job_stopped(&mut self, pid: Pid, signal: i32) -> i32 {
        let group = self.sys.group_led_by(pid);
        let text = self.jobs.table.foreground.clone();
        let number = self.jobs.table.add(vec![pid], group, text, true);
        self.jobs.table.stopped_now = Some(number);
        self.jobs.running.push(pid);
        if let Some(job) = self.jobs.table.get(number) {
            let line = format!("\n{}\n", job.line('+', "Stopped"));
            let _ = self.sys.write_all(2, line.as_bytes());
        }
        128 + signal
    }

    /// Before a prompt: say which jobs ended since the last one.
    pub(super) fn show_job_notices(&mut self) {
        self.reap_jobs();
        for notice in self.jobs.table.take_notices() {
            let _ = self.sys.write_all(2, notice.as_bytes());
        }
    }

    /// `jobs`: every job, as bash lists it (`-p`: their process ids).
    pub(super) fn jobs_builtin(&mut self, args: &[Vec<u8>]) -> Status {
        self.reap_jobs();
        let out = match args.first().map(Vec::as_slice) {
            None => self.jobs.table.listing(),
            Some(spec) if spec.starts_with(b"%") => {
                let mut out = String::new();
                for spec in args {
                    match self.jobs.table.resolve(Some(&lossy(spec))) {
                        Ok(number) => out.push_str(&self.jobs.table.listing_of(number)),
                        Err(why) => {
                            self.error(&format!("jobs: {why}"));
                            self.write_out(out.as_bytes(), "jobs");
                            return Ok(1);
                        }
                    }
                }
                out
            }
            Some(b"-p") => self
                .jobs
                .table
                .leaders()
                .iter()
                .map(|pid| format!("{pid}\n"))
                .collect(),
            Some(other) => {
                self.error(&format!("jobs: {}: invalid option", lossy(other)));
                return Ok(2);
            }
        };
        // Jobs that ended are listed once more, then forgotten.
        let notices: String = self.jobs.table.take_notices().concat();
        Ok(self.write_out(format!("{out}{notices}").as_bytes(), "jobs"))
    }

    /// `fg [JOB]`: the job back in the foreground, continued if stopped;
    /// its status, or `128+N` if it stops again.
    pub(super) fn fg_builtin(&mut self, args: &[Vec<u8>]) -> Status {
        let Some(number) = self.job_operand("fg", args) else {
            return Ok(1);
        };
        let Some(job) = self.jobs.table.take(number) else {
            return Ok(1);
        };
        self.write_out(format!("{}\n", job.text).as_bytes(), "fg");
        if let Some(group) = job.group {
            self.give_terminal(group);
        }
        self.continue_job(&job);
        self.jobs.table.foreground = job.text.clone();
        // Waited for as a pipeline is: if it stops again it keeps its number.
        self.jobs.running.retain(|p| !job.pids.contains(p));
        let members = job
            .pids
            .iter()
            .enumerate()
            .map(|(i, pid)| super::exec::Started::Running(*pid, std::time::Instant::now(), i == 0))
            .collect();
        self.jobs.table.resumed = Some(job.number);
        let (statuses, aborted) = self.wait_members(members);
        self.jobs.table.resumed = None;
        self.take_terminal();
        if aborted {
            return Err(super::Flow::Abort(126));
        }
        Ok(statuses.last().copied().unwrap_or(0))
    }

    /// `bg [JOB]`: a stopped job continues in the background.
    pub(super) fn bg_builtin(&mut self, args: &[Vec<u8>]) -> Status {
        let Some(number) = self.job_operand("bg", args) else {
            return Ok(1);
        };
        let Some(job) = self.jobs.table.get(number).cloned() else {
            return Ok(1);
        };
        if !job.stopped {
            self.error(&format!("bg: job {number} already in background"));
            return Ok(0);
        }
        self.continue_job(&job);
        self.jobs.table.resume(number);
        let line = format!(
            "[{number}]{} {} &\n",
            self.jobs.table.mark(number),
            job.text
        );
        Ok(self.write_out(line.as_bytes(), "bg"))
    }

    /// The job `fg`/`bg` name (`args[0]`, else the current one), said
    /// when there is none or no job control.
    fn job_operand(&mut self, builtin: &str, args: &[Vec<u8>]) -> Option<usize> {
        if !self.interactive || self.in_child() {
            self.error(&format!("{builtin}: no job control"));
            return None;
        }
        self.reap_jobs();
        let spec = args.first().map(|a| lossy(a));
        match self.jobs.table.resolve(spec.as_deref()) {
            Ok(number) => Some(number),
            Err(why) => {
                self.error(&format!("{builtin}: {why}"));
                None
            }
        }
    }

    /// SIGCONT to a job: its process group, or each of its processes.
    fn continue_job(&mut self, job: &super::job_table::Job) {
        match job.group {
            Some(group) => {
                let _ = self.sys.kill(-group, libc::SIGCONT);
            }
            None => {
                for pid in &job.pids {
                    let _ = self.sys.kill(*pid, libc::SIGCONT);
                }
            }
        }
    }

    /// `kill -SIG %JOB`: the job's process group, or each of its
    /// processes; a stopped job is continued after a signal that ends it
    /// (as bash does), so the signal acts. 1 when there is no such job.
    fn kill_job(&mut self, spec: &str, signal: i32) -> i32 {
        let number = match self.jobs.table.resolve(Some(spec)) {
            Ok(number) => number,
            Err(why) => {
                self.error(&format!("kill: {why}"));
                return 1;
            }
        };
        let Some(job) = self.jobs.table.get(number).cloned() else {
            return 1;
        };
        let targets = match job.group {
            Some(group) => vec![-group],
            None => job.pids.clone(),
        };
        for target in targets {
            let _ = self.sys.kill(target, signal);
            if job.stopped && signal != libc::SIGCONT {
                let _ = self.sys.kill(target, libc::SIGCONT);
            }
        }
        0
    }

    /// The processes a `%JOB` operand of `kill` or `wait` names.
    fn job_processes(&self, builtin: &str, spec: &str) -> Result<Vec<Pid>, String> {
        let number = self
            .jobs
            .table
            .resolve(Some(spec))
            .map_err(|why| format!("{builtin}: {why}"))?;
        Ok(self
            .jobs
            .table
            .get(number)
            .map(|job| job.pids.clone())
            .unwrap_or_default())
    }

    /// `wait [-fn] [-p VAR] [ID…]`: no operand waits for every job and
    /// returns 0; with operands, the status of the last; `-n` the status
    /// of the next job to end (of the operands, if any), 127 when none is
    /// running; `-p VAR` gets the process ID that status is of (assigned
    /// as any assignment, through the policy check). A trapped signal
    /// ends the wait at once with `128+N`.
    pub(super) fn wait_builtin(&mut self, args: &[Vec<u8>]) -> Status {
        let mut next = false;
        let mut report = None;
        let mut rest = args;
        while let Some(flag) = rest.first().filter(|a| a.starts_with(b"-") && a.len() > 1) {
            rest = &rest[1..];
            if flag == b"--" {
                break;
            }
            for &letter in &flag[1..] {
                match letter {
                    b'n' => next = true,
                    b'f' => {}
                    b'p' if !rest.is_empty() => {
                        report = Some(lossy(&rest[0]));
                        rest = &rest[1..];
                    }
                    b'p' => {
                        self.error("wait: -p: option requires an argument");
                        return Ok(2);
                    }
                    _ => {
                        self.error(&format!("wait: -{}: invalid option", letter as char));
                        self.error("wait: usage: wait [-fn] [-p var] [id ...]");
                        return Ok(2);
                    }
                }
            }
        }
        let (status, last) = if next {
            self.wait_next(rest)
        } else {
            self.wait_for(rest)?
        };
        if let (Some(name), Some(pid)) = (report, last) {
            self.assign(&name, pid.to_string().into_bytes())?;
        }
        Ok(status)
    }

    /// `wait -n [ID…]`: the status of the first of the jobs named (every
    /// job when none is) to end; 127 when there is nothing to wait for.
    /// A job that ended before is taken first in a script or on standard
    /// input, and not at all under `-c`, as bash (it marks ended jobs as
    /// told of there).
    fn wait_next(&mut self, args: &[Vec<u8>]) -> (i32, Option<Pid>) {
        self.reap_jobs();
        let named: Vec<Pid> = args.iter().filter_map(|a| lossy(a).parse().ok()).collect();
        let first_ended = match self.command_mode {
            true => None,
            false => self
                .jobs
                .done
                .iter_mut()
                .find(|(pid, job)| !job.told && (args.is_empty() || named.contains(pid))),
        };
        if let Some((&pid, job)) = first_ended {
            job.told = true;
            return (job.status, Some(pid));
        }
        let mut candidates = Vec::new();
        for arg in args {
            let text = lossy(arg);
            let named = if text.starts_with('%') {
                self.job_processes("wait", &text)
            } else {
                match text.parse::<Pid>() {
                    Ok(pid) if self.jobs.running.contains(&pid) => Ok(vec![pid]),
                    Ok(_) => Err(format!("wait: {text}: no such job")),
                    Err(_) => Err(format!("wait: `{text}': not a pid or valid job spec")),
                }
            };
            match named {
                Ok(pids) => {
                    candidates.extend(pids.into_iter().filter(|p| self.jobs.running.contains(p)))
                }
                Err(why) => self.error(&why),
            }
        }
        if args.is_empty() {
            candidates = self.jobs.running.clone();
        }
        if candidates.is_empty() {
            return (127, None);
        }
        let (sys, audit) = self.sys_and_sink();
        let (pid, status) = match sys.wait_unless_trapped(&candidates, audit) {
            Ok(Some(ended)) => ended,
            Ok(None) => return (self.interrupted_wait(), None),
            Err(_) => return (127, None),
        };
        self.jobs.running.retain(|p| *p != pid);
        self.jobs.table.forget(pid);
        (status.code(), Some(pid))
    }

    /// `wait [ID…]`: its status, and the last process waited for.
    fn wait_for(&mut self, args: &[Vec<u8>]) -> Result<(i32, Option<Pid>), super::Flow> {
        if args.is_empty() {
            while let Some(&pid) = self.jobs.running.first() {
                match self.wait_serving(pid) {
                    Ok(None) => return Ok((self.interrupted_wait(), None)),
                    waited => {
                        if let Ok(Some(status)) = waited {
                            self.report_killed(pid, status);
                        }
                        self.jobs.running.remove(0);
                        self.jobs.table.forget(pid);
                    }
                }
            }
            self.jobs.done.clear();
            if !self.interactive {
                self.jobs.table.take_notices();
            }
            return Ok((0, None));
        }
        let mut status = 0;
        let mut pids: Vec<Pid> = Vec::new();
        for arg in args {
            let text = lossy(arg);
            if text.starts_with('%') {
                match self.job_processes("wait", &text) {
                    Ok(job) => pids.extend(job),
                    Err(why) => {
                        self.error(&why);
                        status = 127;
                    }
                }
                continue;
            }
            let Ok(pid) = text.parse::<Pid>() else {
                self.error(&format!("wait: `{text}': not a pid or valid job spec"));
                status = 1;
                continue;
            };
            pids.push(pid);
        }
        let last = pids.last().copied();
        for pid in pids {
            if let Some(ended) = self.jobs.done.remove(&pid) {
                status = ended.status;
                continue;
            }
            if !self.jobs.running.contains(&pid) {
                self.error(&format!("wait: pid {pid} is not a child of this shell"));
                status = 127;
                continue;
            }
            status = match self.wait_serving(pid) {
                Ok(None) => return Ok((self.interrupted_wait(), None)),
                Ok(Some(s)) => {
                    self.report_killed(pid, s);
                    s.code()
                }
                Err(_) => 127,
            };
            self.jobs.running.retain(|p| *p != pid);
            self.jobs.table.forget(pid);
        }
        Ok((status, last))
    }

    /// Wait for job `pid` unless a trapped signal comes first, answering
    /// supervised calls meanwhile.
    fn wait_serving(&mut self, pid: Pid) -> std::io::Result<Option<crate::system::ExitStatus>> {
        let (sys, audit) = self.sys_and_sink();
        Ok(sys
            .wait_unless_trapped(&[pid], audit)?
            .map(|(_, status)| status))
    }

    fn interrupted_wait(&self) -> i32 {
        128 + self.sys.first_trapped_pending().unwrap_or(0)
    }

    /// `kill [-s SIG | -SIG] PID…` and `kill -l`, for this shell and its jobs only.
    pub(super) fn kill_builtin(&mut self, args: &[Vec<u8>]) -> Status {
        let mut signal = libc::SIGTERM;
        let mut rest = args;
        match rest.first().map(|a| lossy(a)) {
            Some(flag) if flag == "-l" || flag == "-L" => {
                if rest.len() == 1 {
                    return Ok(self.write_out(signals::table().as_bytes(), "kill"));
                }
                let mut status = 0;
                for spec in &rest[1..] {
                    let spec = lossy(spec);
                    match signals::look_up(&spec) {
                        Some(answer) => {
                            self.write_out(format!("{answer}\n").as_bytes(), "kill");
                        }
                        None => {
                            self.error(&format!("kill: {spec}: invalid signal specification"));
                            status = 1;
                        }
                    }
                }
                return Ok(status);
            }
            Some(flag) if flag == "-s" || flag == "-n" => {
                let spec = rest.get(1).map(|a| lossy(a)).unwrap_or_default();
                let Some(s) = kill_signal(&spec) else {
                    self.error(&format!("kill: {spec}: invalid signal specification"));
                    return Ok(1);
                };
                signal = s;
                rest = &rest[2.min(rest.len())..];
            }
            Some(flag) if flag == "--" => rest = &rest[1..],
            Some(flag) if flag.starts_with('-') && flag.len() > 1 => {
                let Some(s) = kill_signal(&flag[1..]) else {
                    self.error(&format!(
                        "kill: {}: invalid signal specification",
                        &flag[1..]
                    ));
                    return Ok(1);
                };
                signal = s;
                rest = &rest[1..];
            }
            _ => {}
        }
        if rest.is_empty() {
            self.error("kill: usage: kill [-s sigspec | -sigspec] pid ...");
            return Ok(2);
        }
        let own = self.sys.getpid();
        let mut status = 0;
        for arg in rest {
            let text = lossy(arg);
            if text.starts_with('%') {
                status |= self.kill_job(&text, signal);
                continue;
            }
            let Ok(pid) = text.parse::<Pid>() else {
                self.error(&format!(
                    "kill: {text}: arguments must be process or job IDs"
                ));
                status = 1;
                continue;
            };
            let mine = pid == self.shell_pid
                || pid == own
                || self.jobs.running.contains(&pid)
                || self.jobs.outer_shells.contains(&pid);
            if !mine {
                self.error(&format!(
                    "kill: ({pid}) - not a job of this shell: only this shell and its own jobs can be signalled"
                ));
                status = 1;
                continue;
            }
            if let Err(e) = self.sys.kill(pid, signal) {
                self.error(&format!(
                    "kill: ({pid}) - {}",
                    super::redirect::describe_io(&e)
                ));
                status = 1;
            }
        }
        Ok(status)
    }
}
