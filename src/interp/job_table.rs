//! The job table of job control: what `jobs` lists, what `fg`, `bg` and a
//! `%N` operand of `kill` or `wait` name. A job is a pipeline started in
//! the background, or a foreground one that stopped (Ctrl-Z); it leaves
//! the table when its last process is reaped, with a notice an
//! interactive shell shows before its next prompt.

use crate::system::{ExitStatus, Pid};

/// One job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// `%N`: one more than the highest number in use when it was made.
    pub number: usize,
    /// Its processes not yet reaped.
    pub pids: Vec<Pid>,
    /// The process group it leads, when it has one of its own (an
    /// interactive shell's jobs): signals and the terminal go to it.
    pub group: Option<Pid>,
    /// The command as the line wrote it.
    pub text: String,
    pub stopped: bool,
}

impl Job {
    /// `[N]+  Stopped                 TEXT`, as `jobs` and a notice show it
    /// (`mark`: `+` for the current job, `-` for the previous, else ` `).
    pub fn line(&self, mark: char, state: &str) -> String {
        let suffix = if state == "Running" { " &" } else { "" };
        format!("[{}]{mark}  {state:<24}{}{suffix}", self.number, self.text)
    }

    fn state(&self) -> &'static str {
        if self.stopped { "Stopped" } else { "Running" }
    }
}

/// The shell's jobs, and the notices of those that ended.
#[derive(Debug, Clone, Default)]
pub struct JobTable {
    jobs: Vec<Job>,
    /// Job numbers from the least to the most recently started, stopped
    /// or resumed: the last is the current job (`%+`), the one before the
    /// previous (`%-`).
    recent: Vec<usize>,
    /// Lines for jobs that ended, shown before the next prompt.
    notices: Vec<String>,
    /// The foreground command's text while the shell waits for it: the
    /// job's text if it stops.
    pub foreground: String,
    /// The number a resumed job (`fg`) keeps if it stops again.
    pub resumed: Option<usize>,
    /// The job the last wait saw stop, for the members of its pipeline
    /// not waited for yet.
    pub stopped_now: Option<usize>,
}

impl JobTable {
    /// Add a job of `pids`; returns its number.
    pub fn add(
        &mut self,
        pids: Vec<Pid>,
        group: Option<Pid>,
        text: String,
        stopped: bool,
    ) -> usize {
        let number = self
            .resumed
            .take()
            .unwrap_or_else(|| self.jobs.iter().map(|j| j.number).max().unwrap_or(0) + 1);
        self.jobs.push(Job {
            number,
            pids,
            group,
            text,
            stopped,
        });
        self.jobs.sort_by_key(|j| j.number);
        self.touch(number);
        number
    }

    /// Add `pid` to job `number` (a later member of a pipeline that stopped).
    pub fn join(&mut self, number: usize, pid: Pid) {
        if let Some(job) = self.jobs.iter_mut().find(|j| j.number == number) {
            job.pids.push(pid);
        }
    }

    /// Make job `number` the current one.
    fn touch(&mut self, number: usize) {
        self.recent.retain(|n| *n != number);
        self.recent.push(number);
    }

    /// `+`, `-` or ` ` for job `number`.
    pub fn mark(&self, number: usize) -> char {
        let mut last = self.recent.iter().rev();
        match (last.next(), last.next()) {
            (Some(n), _) if *n == number => '+',
            (_, Some(n)) if *n == number => '-',
            _ => ' ',
        }
    }

    /// The number a job operand names: `%N`, `%+`, `%%`, `%` (or no
    /// operand: the current job), `%-`, `%TEXT` (the job whose text starts
    /// so). The error is bash's.
    pub fn resolve(&self, spec: Option<&str>) -> Result<usize, String> {
        let spec = spec.unwrap_or("%+");
        let body = spec.strip_prefix('%').unwrap_or(spec);
        let found = match body {
            "" | "+" | "%" => self.recent.last().copied(),
            "-" => self.recent.iter().rev().nth(1).copied(),
            digits if digits.bytes().all(|b| b.is_ascii_digit()) => digits
                .parse()
                .ok()
                .filter(|n| self.jobs.iter().any(|j| j.number == *n)),
            prefix => self
                .jobs
                .iter()
                .rev()
                .find(|j| j.text.starts_with(prefix))
                .map(|j| j.number),
        };
        found.ok_or_else(|| match body {
            "" | "+" | "%" => "current: no such job".to_string(),
            _ => format!("{spec}: no such job"),
        })
    }

    pub fn get(&self, number: usize) -> Option<&Job> {
        self.jobs.iter().find(|j| j.number == number)
    }

    /// Take job `number` out of the table (`fg` runs it in the foreground).
    pub fn take(&mut self, number: usize) -> Option<Job> {
        let at = self.jobs.iter().position(|j| j.number == number)?;
        self.recent.retain(|n| *n != number);
        Some(self.jobs.remove(at))
    }

    /// Job `number` runs on in the background (`bg`).
    pub fn resume(&mut self, number: usize) {
        if let Some(job) = self.jobs.iter_mut().find(|j| j.number == number) {
            job.stopped = false;
        }
        self.touch(number);
    }

    /// Each job's first process (`jobs -p`).
    pub fn leaders(&self) -> Vec<Pid> {
        self.jobs
            .iter()
            .filter_map(|j| j.group.or(j.pids.first().copied()))
            .collect()
    }

    /// Every job as `jobs` lists it.
    pub fn listing(&self) -> String {
        self.jobs.iter().map(|j| self.listed(j)).collect()
    }

    /// Job `number` as `jobs %N` lists it.
    pub fn listing_of(&self, number: usize) -> String {
        self.get(number).map(|j| self.listed(j)).unwrap_or_default()
    }

    fn listed(&self, job: &Job) -> String {
        job.line(self.mark(job.number), job.state()) + "\n"
    }

    /// `pid` was reaped with `status`: drop it from its job; a job with no
    /// process left ends, with a notice (`Done`, `Exit N`, `Killed`, …).
    pub fn reaped(&mut self, pid: Pid, status: ExitStatus) {
        // Marked as it was before it left the table.
        let Some(number) = self
            .jobs
            .iter()
            .find(|j| j.pids.contains(&pid))
            .map(|j| j.number)
        else {
            return;
        };
        let mark = self.mark(number);
        let Some(job) = self.drop_process(pid) else {
            return;
        };
        let state = match status {
            ExitStatus::Exited(0) => "Done".to_string(),
            ExitStatus::Exited(code) => format!("Exit {code}"),
            ExitStatus::Signaled(signal) => crate::os::signals::description(signal),
        };
        self.notices.push(job.line(mark, &state) + "\n");
    }

    /// The text of the job `pid` belongs to.
    pub fn text_of(&self, pid: Pid) -> Option<&str> {
        self.jobs
            .iter()
            .find(|j| j.pids.contains(&pid))
            .map(|j| j.text.as_str())
    }

    /// `pid` was waited for by `wait`: drop it, and its job once empty,
    /// with no notice (the status went to `wait`).
    pub fn forget(&mut self, pid: Pid) {
        self.drop_process(pid);
    }

    /// Drop `pid` from its job; the job, taken out of the table, when that
    /// was its last process.
    fn drop_process(&mut self, pid: Pid) -> Option<Job> {
        let at = self.jobs.iter().position(|j| j.pids.contains(&pid))?;
        self.jobs[at].pids.retain(|p| *p != pid);
        if !self.jobs[at].pids.is_empty() {
            return None;
        }
        self.take(self.jobs[at].number)
    }

    /// The notices not yet shown.
    pub fn take_notices(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notices)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_are_numbered_marked_named_and_ended_as_bash_does() {
        let mut table = JobTable::default();
        assert_eq!(table.resolve(None), Err("current: no such job".into()));
        let one = table.add(vec![10], Some(10), "sleep 30".into(), false);
        let two = table.add(vec![20, 21], Some(20), "sleep 20 | cat".into(), true);
        assert_eq!((one, two), (1, 2));
        assert_eq!(
            table.listing(),
            "[1]-  Running                 sleep 30 &\n[2]+  Stopped                 sleep 20 | cat\n"
        );
        assert_eq!(table.resolve(Some("%1")), Ok(1));
        assert_eq!(table.resolve(Some("%-")), Ok(1));
        assert_eq!(table.resolve(Some("%%")), Ok(2));
        assert_eq!(table.resolve(Some("%sleep 3")), Ok(1));
        assert_eq!(table.resolve(Some("%7")), Err("%7: no such job".into()));
        table.resume(2);
        assert!(!table.get(2).is_some_and(|j| j.stopped));
        table.reaped(20, ExitStatus::Exited(0));
        assert!(
            table.take_notices().is_empty(),
            "one process of job 2 is left"
        );
        table.reaped(21, ExitStatus::Signaled(libc::SIGTERM));
        assert_eq!(
            table.take_notices(),
            ["[2]+  Terminated              sleep 20 | cat\n"]
        );
        // Numbers go on from the highest in use.
        assert_eq!(table.add(vec![30], None, "x".into(), false), 2);
        assert_eq!(table.add(vec![31], None, "y".into(), false), 3);
    }
}
