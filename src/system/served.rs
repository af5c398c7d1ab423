//! Exec supervision served by the process that spawned the commands.
//!
//! Each supervised child hands its seccomp listener to the process that
//! spawned it (this one), which answers the tree's calls while it waits
//! for the exec and then for the command to end (the child's own `execve`
//! of its command was judged and recorded before the child went): the
//! common case, a command that ends before the shell goes on, needs no
//! other process. A tree that outlives that wait
//! (a daemon a command left behind), or that the shell stops waiting for,
//! is handed to a supervisor process ([`Supervisor::adopt`]), forked at
//! the first hand-over. Every answer is recorded in the caller's audit
//! session before the call may go on, as the supervisor process records
//! its own; a call that cannot be recorded is refused.
//!
//! Fail closed: a listener that cannot be handed over is closed, so every
//! later `execve` and network call of its tree fails (`ENOSYS`).

use super::{Fd, Pid};
use crate::audit::AuditSink;
use crate::os::private_fd;
use crate::os::socket::seqpacket_pair;
use crate::sandbox::supervisor::{Supervisor, Watch, poll_set, serve_ready};
use std::io;

/// Starts the supervisor process that adopts trees this process stops
/// serving.
pub type StartSupervisor = Box<dyn FnMut() -> Result<Supervisor, String>>;

/// What one process serves.
pub struct Served {
    /// The socket pair children hand their listeners to (read end, write
    /// end), private descriptors made at the first supervised spawn.
    inbox: Option<(Fd, Fd)>,
    /// The trees this process answers.
    watches: Vec<Watch>,
    /// The supervisor process, once one was needed.
    supervisor: Option<Supervisor>,
    start: StartSupervisor,
}

impl std::fmt::Debug for Served {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Served")
            .field("inbox", &self.inbox)
            .field("watches", &self.watches)
            .field("supervisor", &self.supervisor)
            .finish_non_exhaustive()
    }
}

impl Served {
    /// Serve with `start` to fork a supervisor when one is needed.
    pub fn new(start: StartSupervisor) -> Served {
        Served {
            inbox: None,
            watches: Vec::new(),
            supervisor: None,
            start,
        }
    }

    /// The end children send their listener to, made at the first call.
    pub fn inbox(&mut self) -> io::Result<Fd> {
        if let Some((_, send)) = self.inbox {
            return Ok(send);
        }
        let pair = private_fd::claim_pair(seqpacket_pair()?)?;
        self.inbox = Some(pair);
        Ok(pair.1)
    }

    /// What a spawned child must close before it hands its listener over:
    /// what this process serves, the inbox's read end and every tree's
    /// listener ([`Served::poll_set`]). The child has a copy
    /// of each until its exec; were the shell to die before answering (a
    /// `kill -KILL` of a job's copy mid-spawn), the listener in flight to
    /// the inbox would be kept alive by the child's own copy of the read
    /// end, and the child would wait in `execve` for ever, with every tree
    /// whose listener it holds.
    pub fn held_by_children(&self) -> Vec<Fd> {
        self.poll_set().iter().map(|polled| polled.fd).collect()
    }

    /// The descriptors to poll while serving: the inbox's read end, then
    /// each tree's listener.
    pub fn poll_set(&self) -> Vec<libc::pollfd> {
        poll_set(self.inbox.map(|(read, _)| read), &self.watches)
    }

    /// Act on what `polled` (a [`Served::poll_set`] after `poll`) reports:
    /// take a listener a child of `spawned` sent, answer each waiting call,
    /// drop each tree that has ended.
    pub fn serve(&mut self, polled: &[libc::pollfd], spawned: Pid, audit: &mut dyn AuditSink) {
        let mut trees = polled;
        let mut received = None;
        if let Some((read, _)) = self.inbox {
            if polled
                .first()
                .is_some_and(|p| p.revents & libc::POLLIN != 0)
            {
                received = Watch::receive(read).ok().flatten();
            }
            trees = polled.get(1..).unwrap_or_default();
        }
        serve_ready(&mut self.watches, trees, audit);
        if let Some(mut watch) = received {
            watch.served_by_spawner(spawned);
            // This process answers while it waits, so the two sleep in turn.
            watch.wake_on_one_cpu();
            self.watches.push(watch);
        }
    }

    /// `pid` has ended: its tree is dropped if nothing of it is left, else
    /// handed to the supervisor process (a daemon it started).
    pub fn command_ended(&mut self, pid: Pid) {
        let (ended, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut self.watches)
            .into_iter()
            .partition(|watch| watch.command() == Some(pid));
        self.watches = kept;
        for watch in ended {
            if !watch.ended() {
                self.hand_over(watch);
            }
        }
    }

    /// Hand every tree still served to the supervisor process: this
    /// process stops waiting (it exits, or runs shell code while a command
    /// it spawned goes on).
    pub fn hand_over_all(&mut self) {
        for watch in std::mem::take(&mut self.watches) {
            if !watch.ended() {
                self.hand_over(watch);
            }
        }
    }

    fn hand_over(&mut self, watch: Watch) {
        if self.supervisor.is_none() {
            match (self.start)() {
                Ok(supervisor) => self.supervisor = Some(supervisor),
                Err(e) => {
                    eprintln!(
                        "guard-sh: cannot start the exec supervisor: {e}; what the command left running may start no program"
                    );
                    return;
                }
            }
        }
        if let Some(supervisor) = &self.supervisor
            && let Err(e) = supervisor.adopt(watch)
        {
            eprintln!(
                "guard-sh: cannot hand a command's supervision over: {e}; what it left running may start no program"
            );
        }
    }

    /// In a forked copy of the shell: the parent's trees and inbox are the
    /// parent's to serve; the copy keeps only the supervisor process.
    pub fn forget_in_copy(&mut self) {
        self.watches.clear();
        if let Some((read, send)) = self.inbox.take() {
            let _ = private_fd::close(read);
            let _ = private_fd::close(send);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)] // test code reports failures by panicking
    use super::*;
    use crate::audit::redact::Redactor;
    use crate::audit::{Event, FileSink, MemorySink};
    use crate::sandbox::supervisor::{Attach, ExecPlan, FirstExec};

    /// A command that ends leaving a process of its tree behind (a
    /// daemon): the tree goes to the supervisor process, which answers the
    /// daemon's later `execve` and records it in its own session. Dropped
    /// instead, the daemon's `execve` would fail (`ENOSYS`) unrecorded.
    #[test]
    fn a_tree_that_outlives_its_command_is_handed_to_the_supervisor() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("audit.jsonl");
        let base = FileSink::open(&log, Redactor::none()).unwrap();
        let mut served = Served::new(Box::new(move || {
            let own = base
                .fork_session(Redactor::none())
                .map_err(|e| e.to_string())?;
            let session: Event = serde_json::from_str(
                r#"{"type":"session","arm":"t","policy_sha256":"","enforcement":"none","version":"0","cwd":"/","argv":[],"mode":"supervisor","sandbox":"off"}"#,
            )
            .map_err(|e| e.to_string())?;
            Supervisor::start(own, session).map_err(|e| e.to_string())
        }));
        let true_path = std::fs::canonicalize("/usr/bin/true").unwrap();
        let plan = ExecPlan {
            allowed: [true_path.clone()].into_iter().collect(),
            ..ExecPlan::default()
        };
        // No first exec is let through (`first_allowed` is false): the
        // daemon's is the watch's to judge.
        let attach = Attach::to(served.inbox().unwrap(), &plan);
        let path = std::ffi::CString::new(true_path.as_os_str().as_encoded_bytes()).unwrap();
        let argv = [path.as_ptr(), std::ptr::null()];
        let envp = [std::ptr::null::<libc::c_char>()];
        // SAFETY: the child makes only system calls (the filter, a fork, a
        // sleep, execve) and ends with _exit.
        let command = unsafe { libc::fork() };
        if command == 0 {
            // SAFETY: as above; the daemon outlives the command by 300 ms.
            unsafe {
                if attach.enter(FirstExec::default()).is_err() {
                    libc::_exit(2);
                }
                if libc::fork() == 0 {
                    let nap = libc::timespec {
                        tv_sec: 0,
                        tv_nsec: 300_000_000,
                    };
                    libc::nanosleep(&nap, std::ptr::null_mut());
                    libc::execve(path.as_ptr(), argv.as_ptr(), envp.as_ptr());
                    libc::_exit(3);
                }
                libc::_exit(0);
            }
        }
        assert!(command > 0);
        // The command's listener arrives; then the command ends.
        let mut audit = MemorySink::default();
        let mut polled = served.poll_set();
        // SAFETY: a valid array of pollfd.
        let n = unsafe { libc::poll(polled.as_mut_ptr(), polled.len() as libc::nfds_t, 5000) };
        assert_eq!(n, 1, "no listener came");
        served.serve(&polled, command, &mut audit);
        let mut status = 0;
        // SAFETY: reaping our own child.
        assert_eq!(unsafe { libc::waitpid(command, &mut status, 0) }, command);
        assert_eq!(status, 0, "the command could not hand its listener over");
        served.command_ended(command);
        assert!(served.watches.is_empty());
        // The daemon execs after the hand-over: the supervisor records it.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let recorded = loop {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            if let Some(line) = text.lines().find(|l| l.contains("\"type\":\"exec\"")) {
                break line.to_string();
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the daemon's exec was not recorded: {text}"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        assert!(recorded.contains("\"allowed\":true"), "{recorded}");
        assert!(recorded.contains(true_path.to_str().unwrap()), "{recorded}");
        assert!(audit.events.is_empty(), "{:?}", audit.events);
    }
}
