//! Stage 4: the process layer. Everything the interpreter does to the
//! operating system goes through [`System`], six traits by concern:
//! [`Processes`] (spawning a command, forking a copy of the shell,
//! waiting), [`Supervision`], [`Files`] (descriptors, the file system, the
//! working folder), [`Signals`], [`Terminal`] and [`Host`].
//!
//! [`real::RealSystem`] is the only code that forks and execs (a command
//! with `clone(CLONE_VM)` + `execve`, never through `/bin/sh`; a copy of the
//! shell with `fork`); [`fake::FakeSystem`] records what would have been
//! spawned and runs copies of the shell in the test's process, so
//! interpreter tests can assert argv, envp, cwd and descriptors without
//! starting a process.

pub mod fake;
pub mod real;
pub mod served;

use crate::audit::AuditSink;
use crate::sandbox::SandboxSpec;
use std::io;
use std::path::{Path, PathBuf};

pub use crate::os::signals::Disposition;
pub use crate::os::{Fd, Pid};
pub use real::RawMode;

/// Which process group a spawned or forked child joins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcessGroup {
    /// Stay in the shell's group (non-interactive shells).
    Inherit,
    /// Lead a new group (the first command of a job under job control).
    New,
    /// Join the group led by this pid (later commands of the same job).
    Join(Pid),
}

/// Everything needed to start one external command. The child gets the
/// shell's current descriptors that are not close-on-exec (the interpreter
/// has already applied the command's redirections to them).
#[derive(Debug, Clone)]
pub struct SpawnRequest {
    /// The resolved executable (inside the policy's bin folder).
    pub path: PathBuf,
    pub argv: Vec<Vec<u8>>,
    /// The complete environment, built by [`crate::sandbox::env`].
    pub envp: Vec<(Vec<u8>, Vec<u8>)>,
    /// The working folder the child starts in.
    pub cwd: PathBuf,
    pub pgroup: ProcessGroup,
    /// Give the terminal on this descriptor to the child's group.
    pub foreground_tty: Option<Fd>,
    /// Kernel confinement applied between fork and exec.
    pub sandbox: SandboxSpec,
}

/// Why a spawn did not happen.
#[derive(Debug)]
pub enum SpawnError {
    /// The caller's `before_release` refused (the audit record failed): the
    /// child was killed before it could exec.
    Refused(String),
    /// `fork`, `execve` or a preparation step failed.
    Os(io::Error),
}

/// How a child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    Exited(i32),
    Signaled(i32),
}

impl ExitStatus {
    /// The shell's `$?` for this status (`128+N` for a signal).
    pub fn code(self) -> i32 {
        match self {
            ExitStatus::Exited(code) => code,
            ExitStatus::Signaled(signal) => 128 + signal,
        }
    }
}

/// Result of forking a copy of the shell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Forked {
    Parent(Pid),
    Child,
    /// A simulated system's copy with this pid: the caller runs the copy's
    /// work itself, in this process, then calls
    /// [`Processes::end_simulated_copy`] and goes on as the parent. The real
    /// system never returns it.
    Simulated(Pid),
}

/// How [`Files::open`] opens a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenMode {
    Read,
    /// Create or truncate; `exclusive` fails if it exists (noclobber).
    Write {
        exclusive: bool,
    },
    Append,
    ReadWrite,
}

/// The operating-system interface of the interpreter, by concern; a
/// system is all of them. Every descriptor a system returns is
/// close-on-exec, except those made by [`Files::dup2`].
pub trait System: Processes + Supervision + Files + Signals + Terminal + Host {}

impl<T: Processes + Supervision + Files + Signals + Terminal + Host> System for T {}

/// Processes and their ends: starting a command, forking a copy of the shell,
/// waiting, signalling, process groups, the line's wall-time bound.
pub trait Processes {
    /// Start `req`. After the child exists but before it may exec,
    /// `before_release(pid, audit)` runs in the parent; if it fails the
    /// child is killed without exec'ing. A supervised child's calls are
    /// answered and recorded in `audit` until it has exec'd.
    fn spawn(
        &mut self,
        req: &SpawnRequest,
        audit: &mut dyn AuditSink,
        before_release: &mut dyn FnMut(Pid, &mut dyn AuditSink) -> Result<(), String>,
    ) -> Result<Pid, SpawnError>;
    /// Fork a copy of this shell process (subshells, pipeline members that
    /// run shell code, command substitution).
    fn fork_shell(&mut self, pgroup: ProcessGroup) -> io::Result<Forked>;
    /// End a forked copy of the shell at once.
    fn exit_child(&mut self, status: i32) -> !;
    /// End the copy [`Processes::fork_shell`] returned as
    /// [`Forked::Simulated`]: its descriptors, folder, mask and signal
    /// state are dropped, the parent's are back, and `status` is what
    /// waiting for it gives.
    fn end_simulated_copy(&mut self, status: i32);
    /// Wait for `pid` to end, answering the supervised calls of what this
    /// process spawned meanwhile (recorded in `audit`).
    fn wait(&mut self, pid: Pid, audit: &mut dyn AuditSink) -> io::Result<ExitStatus>;
    /// [`Processes::wait`] for whichever of `pids` ends first (non-empty),
    /// or `None` as soon as a signal with a `trap` action arrives (the
    /// `wait` builtin, `wait -n`).
    fn wait_unless_trapped(
        &mut self,
        pids: &[Pid],
        audit: &mut dyn AuditSink,
    ) -> io::Result<Option<(Pid, ExitStatus)>>;
    /// [`Processes::wait`] for a job of an interactive shell: also returns
    /// when `pid` stops (Ctrl-Z), with the signal that stopped it.
    fn wait_or_stop(
        &mut self,
        pid: Pid,
        audit: &mut dyn AuditSink,
    ) -> io::Result<Result<ExitStatus, i32>>;
    /// Has `pid` ended? Reaps it if so, without blocking.
    fn try_wait(&mut self, pid: Pid) -> io::Result<Option<ExitStatus>>;
    fn getpid(&self) -> Pid;
    fn kill(&mut self, pid: Pid, signal: i32) -> io::Result<()>;
    /// The process group `pid` (a child of this process) leads, if it
    /// leads one.
    fn group_led_by(&self, pid: Pid) -> Option<Pid>;
    /// The parent's process id (`$PPID`).
    fn parent_pid(&self) -> Pid;
    /// Bound the wall time of the line starting now (`None`: unbounded);
    /// a copy of the shell forked from here on keeps the same bound, and
    /// [`Processes::wait`] ends the child it waits for once it is passed.
    fn bound_line(&mut self, within: Option<std::time::Duration>);
    /// Whether the line has run past the bound of [`Processes::bound_line`].
    fn line_bound_passed(&self) -> bool;
    /// End this process by `signal` with its default action; returns
    /// `128 + signal` if it is still running.
    fn die_by(&mut self, signal: i32) -> i32;
    /// User and system CPU seconds of this process and of its reaped
    /// children, summed (`time`).
    fn cpu_seconds(&self) -> (f64, f64);
    /// The soft and hard limits of `resource` (`ulimit`), [`UNLIMITED`]
    /// for none.
    fn resource_limit(&self, resource: Limit) -> io::Result<(u64, u64)>;
    /// Put process `pid` (0: this one) in group `pgid` (0: its own).
    fn set_process_group(&mut self, pid: Pid, pgid: Pid) -> io::Result<()>;
}

/// The exec supervision of what this process spawns (a system that
/// supervises nothing keeps the defaults).
pub trait Supervision {
    /// Where a child of this process hands its supervision listener
    /// ([`crate::sandbox::supervisor::Attach::to`]); `None` when this
    /// system supervises nothing.
    fn exec_inbox(&mut self) -> Option<io::Result<Fd>> {
        None
    }
    /// Stop serving the supervised trees of what this process spawned: a
    /// supervisor process serves them from now on (the shell exits, or
    /// runs shell code while they go on).
    fn hand_over_served(&mut self) {}
}

/// Descriptors and the file system: pipes, opening, reading and writing,
/// the working folder, what a path is and who may use it.
pub trait Files {
    /// A non-blocking pipe (an empty one reads as `EAGAIN`), close-on-exec,
    /// both ends among the private descriptors, where a line cannot name
    /// them to drain or close it; `None` if it cannot be made. (The shell
    /// makes its abort pipe with it: `Shell::deny`.)
    fn private_pipe(&mut self) -> Option<(Fd, Fd)>;
    fn pipe(&mut self) -> io::Result<(Fd, Fd)>;
    /// Whether `fd` is open on a regular file (which can be read in
    /// blocks and then rewound, as bash reads a script on its stdin).
    fn regular_file_at(&self, fd: Fd) -> bool;
    /// Move `fd`'s offset back by `bytes` (what a block read took past a
    /// line goes back for the commands that read the same input).
    fn rewind_by(&mut self, fd: Fd, bytes: usize) -> io::Result<()>;
    /// Open `path`; [`OpenMode::Write`] creates the file but leaves its
    /// bytes: the caller judges the file reached, then [`Files::truncate`]s.
    fn open(&mut self, path: &Path, mode: OpenMode) -> io::Result<Fd>;
    /// Empty the regular file open at `fd` (what `>` does to it).
    fn truncate(&mut self, fd: Fd) -> io::Result<()>;
    fn close(&mut self, fd: Fd) -> io::Result<()>;
    /// Close every descriptor a line may name (below
    /// [`private_fd::PRIVATE_FD_FLOOR`]): a background job's copy of the
    /// shell after it spawned its one command.
    fn close_line_descriptors(&mut self) {}
    /// Make `to` a copy of `from` (inherited by children).
    fn dup2(&mut self, from: Fd, to: Fd) -> io::Result<()>;
    /// A close-on-exec copy of `fd` among the shell's private descriptors
    /// ([`private_fd`]), or `None` if `fd` is not open (used to save a
    /// descriptor around a redirection).
    fn dup_saved(&mut self, fd: Fd) -> io::Result<Option<Fd>>;
    /// Clear close-on-exec on `fd` (a process substitution's end).
    fn set_inheritable(&mut self, fd: Fd) -> io::Result<()>;
    /// Move `fd` to the lowest free number at or above `min`, inheritable
    /// (a process substitution's end, kept out of the numbers a line
    /// redirects, as bash keeps its at 63); returns the new number.
    fn move_inheritable(&mut self, fd: Fd, min: Fd) -> io::Result<Fd>;
    fn write_all(&mut self, fd: Fd, data: &[u8]) -> io::Result<()>;
    fn read(&mut self, fd: Fd, buf: &mut [u8]) -> io::Result<usize>;
    /// [`Files::read`], except that an untrapped SIGTERM or SIGHUP that
    /// arrives while it waits ends the wait (`Interrupted`): what a shell
    /// waiting for its next line does, where bash dies of the signal.
    fn read_unless_terminated(&mut self, fd: Fd, buf: &mut [u8]) -> io::Result<usize>;
    fn chdir(&mut self, path: &Path) -> io::Result<()>;
    /// Set the file-creation mask; returns the previous one.
    fn umask(&mut self, mask: u32) -> u32;
    /// What `stat` (`lstat` when `follow` is false) says of `path`.
    fn file_info(&self, path: &Path, follow: bool) -> io::Result<FileInfo>;
    /// Whether the effective user and group may `access` `path`.
    fn may_access(&self, path: &Path, access: Access) -> bool;
    /// The effective user and group ids.
    fn effective_ids(&self) -> (u32, u32);
    /// The names in folder `dir` (without `.` and `..`), in no order.
    fn dir_names(&self, dir: &Path) -> io::Result<Listing>;
    /// `path` with every link resolved (`realpath`).
    fn real_path(&self, path: &Path) -> io::Result<PathBuf>;
    /// The path of the file open at `fd`, as the kernel names it
    /// (`/proc/self/fd/N`); None when it has none or it cannot be read.
    fn descriptor_path(&self, _fd: Fd) -> Option<PathBuf> {
        None
    }
    /// The whole content of the file at `path` (`/etc/passwd`).
    fn read_file(&self, path: &Path) -> io::Result<Vec<u8>>;
    /// The working folder the process started in (`getcwd`).
    fn current_dir(&self) -> io::Result<PathBuf>;
    /// The real user id (`$UID`; the effective one is [`Files::effective_ids`]).
    fn real_user_id(&self) -> u32;
    /// Whether `name` is a program anywhere on the system (the system's
    /// program folders and the `PATH` the shell started with): tells a
    /// typo from a refused program (`guard::on_this_system`).
    fn is_a_program(&self, name: &str) -> bool;
    /// Whether `fd` has input (or its end) waiting within `seconds`
    /// (`read -t`).
    fn wait_readable(&self, fd: Fd, seconds: f64) -> bool;
}

/// Signal dispositions and the signals that arrived (`trap`).
pub trait Signals {
    /// Apply `trap`'s `disposition` to `signal`.
    fn set_signal(&mut self, signal: i32, disposition: Disposition);
    /// Whether `signal` was ignored when this non-interactive shell
    /// started (`trap` then leaves it alone).
    fn ignored_at_entry(&self, signal: i32) -> bool;
    /// An untrapped SIGTERM or SIGHUP that arrived, if any.
    fn pending_termination(&self) -> Option<i32>;
    /// Take the trapped signals that arrived, lowest number first.
    fn take_trapped(&mut self) -> Vec<i32>;
    /// The lowest trapped signal that arrived and is not handled yet.
    fn first_trapped_pending(&self) -> Option<i32>;
    /// In a new copy of the shell: caught signals go back to the shell's
    /// defaults, and an interactive parent's ignored keyboard signals to
    /// theirs.
    fn copy_signal_defaults(&mut self, was_interactive: bool);
}

/// The controlling terminal: whose it is, its name, the line editor's mode.
pub trait Terminal {
    fn isatty(&self, fd: Fd) -> bool;
    /// Give the terminal on `fd` to process group `pgid`.
    fn tcsetpgrp(&mut self, fd: Fd, pgid: Pid) -> io::Result<()>;
    /// The name of the terminal on `fd` (`/dev/pts/1`), if it is one.
    fn terminal_name(&self, fd: Fd) -> Option<Vec<u8>>;
    /// The terminal at `fd` in the line editor's mode (no echo, keys one
    /// at a time, Ctrl-C a key) until the returned guard is dropped; `None`
    /// when `fd` is no terminal whose mode can be set.
    fn raw_terminal(&mut self, fd: Fd) -> Option<RawMode>;
}

/// Facts of the machine: the time, its name, random bytes.
pub trait Host {
    /// Fill `buf` with unpredictable bytes (`$RANDOM`).
    fn random_bytes(&mut self, buf: &mut [u8]);
    /// Seconds since the epoch (`printf %(…)T`, the prompt's times).
    fn now(&self) -> i64;
    /// The machine's name (`$HOSTNAME`, the prompt's `\h`).
    fn host_name(&self) -> Option<Vec<u8>>;
    /// Format local times in `zone` from now on: the shell's exported
    /// `TZ`, or the system's zone when it has none, as bash's times follow
    /// the `TZ` it exports, not the one it started with.
    fn use_time_zone(&mut self, zone: Option<&[u8]>);
    /// Whether the C library has the locale `name` (bash stays in the C
    /// locale when `LANG` names one that is not installed).
    fn locale_exists(&self, name: &[u8]) -> bool;
}

/// The names in a folder, and the folder they were read from as the
/// kernel names the descriptor read (every link resolved), so the shell
/// judges the folder it really listed, not a name a race could swap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    /// The entries' names (without `.` and `..`), unsorted.
    pub names: Vec<Vec<u8>>,
    /// The folder read.
    pub real: PathBuf,
}

/// The file facts the `test` builtin and `[[ ]]` ask about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileInfo {
    /// What kind of file it is.
    pub kind: FileKind,
    /// The permission, set-id and sticky bits (`st_mode & 0o7777`).
    pub mode: u32,
    /// The owner.
    pub uid: u32,
    /// The group.
    pub gid: u32,
    /// The size in bytes.
    pub size: u64,
    /// The device and inode, which say whether two names are one file.
    pub id: (u64, u64),
    /// Last modification, (seconds, nanoseconds).
    pub modified: (i64, i64),
    /// Last access, (seconds, nanoseconds).
    pub accessed: (i64, i64),
}

/// The kinds of file `test` tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A regular file.
    File,
    /// A folder.
    Dir,
    /// A symbolic link (seen only without following it).
    Symlink,
    /// A named pipe.
    Fifo,
    /// A socket.
    Socket,
    /// A block device.
    Block,
    /// A character device.
    Char,
}

/// The resources whose limits `ulimit` shows (`RLIMIT_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// `RLIMIT_RTTIME`: CPU time without a blocking call, real-time.
    RealTime,
    /// `RLIMIT_CORE`.
    CoreFile,
    /// `RLIMIT_DATA`.
    Data,
    /// `RLIMIT_NICE`.
    Nice,
    /// `RLIMIT_FSIZE`.
    FileSize,
    /// `RLIMIT_SIGPENDING`.
    PendingSignals,
    /// `RLIMIT_MEMLOCK`.
    LockedMemory,
    /// `RLIMIT_RSS`.
    ResidentMemory,
    /// `RLIMIT_NOFILE`.
    OpenFiles,
    /// `RLIMIT_MSGQUEUE`.
    MessageQueues,
    /// `RLIMIT_RTPRIO`.
    RealTimePriority,
    /// `RLIMIT_STACK`.
    Stack,
    /// `RLIMIT_CPU`.
    CpuTime,
    /// `RLIMIT_NPROC`.
    Processes,
    /// `RLIMIT_AS`.
    AddressSpace,
    /// `RLIMIT_LOCKS`.
    FileLocks,
}

/// What [`Processes::resource_limit`] gives for a resource without a limit
/// (`RLIM_INFINITY`).
pub const UNLIMITED: u64 = u64::MAX;

/// What [`Files::may_access`] asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Reading.
    Read,
    /// Writing.
    Write,
    /// Executing (searching, for a folder).
    Execute,
}
