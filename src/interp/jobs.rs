//! Background jobs: `wait`, `kill`, and reaping. Every background job and
//! process substitution the shell starts is remembered until it is reaped,
//! so none is left a zombie: finished ones are collected at each safe point
//! and their statuses kept for a later `wait PID`. `kill` reaches only this
//! shell and the jobs it started, never another process.

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
    signals::NAMED
        .iter()
        .find(|s| s.name == bare)
        .map(|s| s.number)
}

impl Shell<'_> {
    /// Collect background jobs that have ended, keeping their statuses.
    pub(super) fn reap_jobs(&mut self) {
        let mut i = 0;
        while i < self.jobs.len() {
            let pid = self.jobs[i];
            match self.sys.try_wait(pid) {
                Ok(None) => i += 1,
                Ok(Some(status)) => {
                    self.jobs.remove(i);
                    self.done_jobs.insert(pid, status.code());
                    if self.done_jobs.len() > KEPT_STATUSES {
                        self.done_jobs.pop_first();
                    }
                }
                Err(_) => {
                    self.jobs.remove(i);
                }
            }
        }
    }

    /// `wait [PID…]`: no operand waits for every job and returns 0; with
    /// operands, the status of the last. A trapped signal ends the wait at
    /// once with `128+N`.
    pub(super) fn wait_builtin(&mut self, args: &[Vec<u8>]) -> Status {
        let args = match args.first().map(Vec::as_slice) {
            Some(b"--") => &args[1..],
            Some(a) if a.starts_with(b"-") => {
                self.error(&format!("wait: {}: invalid option", lossy(a)));
                return Ok(2);
            }
            _ => args,
        };
        if args.is_empty() {
            while let Some(&pid) = self.jobs.first() {
                match self.wait_serving(pid) {
                    Ok(None) => return Ok(self.interrupted_wait()),
                    Ok(Some(_)) | Err(_) => {
                        self.jobs.remove(0);
                    }
                }
            }
            self.done_jobs.clear();
            return Ok(0);
        }
        let mut status = 0;
        for arg in args {
            let text = lossy(arg);
            let Ok(pid) = text.parse::<Pid>() else {
                self.error(&format!("wait: `{text}': not a pid or valid job spec"));
                status = 2;
                continue;
            };
            if let Some(code) = self.done_jobs.remove(&pid) {
                status = code;
                continue;
            }
            if !self.jobs.contains(&pid) {
                self.error(&format!("wait: pid {pid} is not a child of this shell"));
                status = 127;
                continue;
            }
            status = match self.wait_serving(pid) {
                Ok(None) => return Ok(self.interrupted_wait()),
                Ok(Some(s)) => s.code(),
                Err(_) => 127,
            };
            self.jobs.retain(|p| *p != pid);
        }
        Ok(status)
    }

    /// Wait for job `pid` unless a trapped signal comes first, answering
    /// supervised calls meanwhile.
    fn wait_serving(&mut self, pid: Pid) -> std::io::Result<Option<crate::system::ExitStatus>> {
        let (sys, audit) = self.sys_and_sink();
        sys.wait_unless_trapped(pid, audit)
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
                let mut out = String::new();
                for s in signals::NAMED {
                    out.push_str(&format!("{:2}) SIG{}\n", s.number, s.name));
                }
                return Ok(self.write_out(out.as_bytes(), "kill"));
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
            let Ok(pid) = text.parse::<Pid>() else {
                self.error(&format!(
                    "kill: {text}: arguments must be process or job IDs"
                ));
                status = 1;
                continue;
            };
            let mine = pid == self.shell_pid || pid == own || self.jobs.contains(&pid);
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
