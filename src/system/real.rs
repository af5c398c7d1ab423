//! The real process layer: the only code in guard-sh that forks and execs.
//!
//! A command is started with `clone(CLONE_VM)` + `execve` of the resolved
//! path (the child shares guard-sh's memory, on a stack of its own, until it
//! execs); no text is ever handed to another shell. The child waits on a
//! release pipe until the parent has recorded the spawn, so a spawn that
//! cannot be audited never execs. Until it execs the child makes only
//! async-signal-safe calls and writes only its own stack. A copy of the
//! shell (subshell, pipeline member, substitution) is a plain `fork`.

use super::served::{Served, StartSupervisor};
use super::{
    Access, ExitStatus, Fd, FileInfo, FileKind, Files, Forked, Host, Limit, Listing, OpenMode, Pid,
    ProcessGroup, Processes, Signals, SpawnError, SpawnRequest, Supervision, Terminal,
};
use crate::audit::AuditSink;
use crate::os::{private_fd, procfs, signals};
use crate::sandbox::supervisor::FirstExec;
use std::ffi::CString;
use std::io;
use std::os::fd::BorrowedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The operating system itself.
#[derive(Debug, Default)]
pub struct RealSystem {
    /// The stack spawned children run on until they exec, made at the
    /// first spawn and kept: spawns follow one another.
    child_stack: Option<ChildStack>,
    /// The exec supervision this process serves; None: commands are not
    /// supervised.
    served: Option<Served>,
    /// The locales asked about, and whether each exists.
    locales: std::cell::RefCell<Vec<(Vec<u8>, bool)>>,
}

impl RealSystem {
    /// Whether `name` is a program in the system's program folders or in
    /// those of the `PATH` this process started with (read once).
    pub fn program_anywhere(name: &str) -> bool {
        static START_PATH: std::sync::OnceLock<Vec<std::path::PathBuf>> =
            std::sync::OnceLock::new();
        let path = START_PATH.get_or_init(|| {
            std::env::var_os("PATH")
                .map(|p| std::env::split_paths(&p).collect())
                .unwrap_or_default()
        });
        crate::guard::on_this_system(name, path)
    }

    pub fn new() -> Self {
        RealSystem {
            locales: Default::default(),
            child_stack: None,
            served: None,
        }
    }

    /// Supervise every command's execs and network calls: served by this
    /// process while it waits for the command ([`super::served`]), by a
    /// supervisor process `start` forks once a tree outlives the wait.
    pub fn serve_execs(&mut self, start: StartSupervisor) {
        self.served = Some(Served::new(start));
    }
}

/// Room for a spawned child to run on until it execs: the child shares
/// guard-sh's memory (`CLONE_VM`), so it cannot use guard-sh's stack.
/// Mapped lazily (only the pages the child touches cost anything), with a
/// page below it that faults instead of running into other memory.
#[derive(Debug)]
struct ChildStack {
    base: *mut libc::c_void,
    len: usize,
}

/// The child's stack: its frames are a few kilobytes (`exec_child`, the
/// filter and message of `Attach::enter`, the C library's calls).
const CHILD_STACK_BYTES: usize = 256 * 1024;

impl ChildStack {
    fn new() -> io::Result<ChildStack> {
        // SAFETY: sysconf with a valid name.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
        let len = CHILD_STACK_BYTES + page;
        // SAFETY: a fresh anonymous private mapping; checked below.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let stack = ChildStack { base, len };
        // SAFETY: the lowest page of the mapping just made.
        if unsafe { libc::mprotect(base, page, libc::PROT_NONE) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(stack)
    }

    /// The highest address, where the child's stack starts (it grows
    /// down); page-aligned, so aligned as the ABI wants.
    fn top(&self) -> *mut libc::c_void {
        self.base.wrapping_byte_add(self.len)
    }
}

impl Drop for ChildStack {
    fn drop(&mut self) {
        // SAFETY: unmapping the mapping `new` made, which no child uses
        // any more (a spawn returns only once its child has exec'd or
        // ended).
        unsafe {
            libc::munmap(self.base, self.len);
        }
    }
}

/// What the child of a spawn starts with: the request, its C strings and
/// the ends of the two pipes, all owned by the parent's `spawn`, which
/// outlives the child's use of them.
struct ChildStart<'a> {
    req: &'a SpawnRequest,
    image: &'a ExecImage,
    release_r: Fd,
    release_w: Fd,
    error_r: Fd,
    error_w: Fd,
    /// The shell's supervision descriptors, which the child closes first
    /// ([`Served::held_by_children`]).
    served: &'a [Fd],
}

/// The child's entry: `arg` is the parent's [`ChildStart`].
extern "C" fn start_child(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `spawn` passes a pointer to a `ChildStart` it keeps alive
    // until this child has exec'd or ended.
    let start = unsafe { &*(arg as *const ChildStart<'_>) };
    close_fd(start.release_w);
    close_fd(start.error_r);
    for &fd in start.served {
        close_fd(fd);
    }
    // SAFETY: the child of `spawn`'s clone; `exec_child` makes only
    // async-signal-safe calls and never returns.
    unsafe { exec_child(start.req, start.image, start.release_r, start.error_w) }
}

fn cstring(bytes: &[u8]) -> io::Result<CString> {
    CString::new(bytes)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL byte in argument"))
}

fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

fn pipe_cloexec() -> io::Result<(Fd, Fd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: `fds` is a valid two-element array for pipe2 to fill.
    check(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) })?;
    let read = above_standard(fds[0]).inspect_err(|_| close_fd(fds[1]))?;
    let write = above_standard(fds[1]).inspect_err(|_| close_fd(read))?;
    Ok((read, write))
}

/// `fd`, or a close-on-exec copy of it at 3 or above when it took one of
/// the standard numbers (the line closed one: `exec >&-`), the original
/// closed again. A pipe or file the shell opens must not sit where a
/// command's standard descriptors are put: the copy that gives a pipeline
/// member its output would close it again, or a child would be handed it.
fn above_standard(fd: Fd) -> io::Result<Fd> {
    if fd > 2 {
        return Ok(fd);
    }
    let moved = crate::os::duplicate_at_least(fd, 3).map(std::os::fd::IntoRawFd::into_raw_fd);
    close_fd(fd);
    moved
}

fn close_fd(fd: Fd) {
    // SAFETY: closing a descriptor this module opened; errors are irrelevant.
    unsafe {
        libc::close(fd);
    }
}

/// Put process `pid` (0: the calling one) in the requested process group.
/// Both sides of a fork call it, so the group holds whichever runs first;
/// async-signal-safe (one `setpgid`), and a failure leaves the process
/// where it is.
fn join_group(pid: Pid, pgroup: ProcessGroup) {
    let leader = match pgroup {
        ProcessGroup::Inherit => return,
        ProcessGroup::New => pid,
        ProcessGroup::Join(leader) => leader,
    };
    // SAFETY: setpgid with plain numbers.
    unsafe {
        libc::setpgid(pid, leader);
    }
}

/// Restore default dispositions for the signals an interactive shell
/// ignores or the shell catches (its own and those a `trap` catches: the
/// child shares the shell's memory until it execs, so none of the shell's
/// handlers may run in it); those ignored when a non-interactive shell
/// started stay ignored, as the program would have had them without it.
fn reset_signals() {
    let trapped = signals::trapped_mask();
    let fixed = [
        libc::SIGINT,
        libc::SIGQUIT,
        libc::SIGTSTP,
        libc::SIGTTIN,
        libc::SIGTTOU,
        libc::SIGTERM,
        libc::SIGHUP,
        libc::SIGPIPE,
        libc::SIGCHLD,
    ];
    let caught = (1..64).filter(|s| trapped & (1u64 << s) != 0);
    for signal in fixed.into_iter().chain(caught) {
        if signals::ignored_at_entry(signal) {
            continue;
        }
        signals::set_action(signal, libc::SIG_DFL);
    }
    // SAFETY: an empty set is valid; unblocking everything is what exec'd programs expect.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
    }
}

/// Block every signal; returns the mask to put back.
fn block_all_signals() -> libc::sigset_t {
    // SAFETY: building full and empty signal sets and changing this
    // (single) thread's mask.
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::sigprocmask(libc::SIG_BLOCK, &all, &mut old);
        old
    }
}

fn restore_signal_mask(mask: &libc::sigset_t) {
    // SAFETY: `mask` came from sigprocmask.
    unsafe {
        libc::sigprocmask(libc::SIG_SETMASK, mask, std::ptr::null_mut());
    }
}

/// [`Files::private_pipe`].
fn make_private_pipe() -> Option<(Fd, Fd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: valid array for pipe2.
    let r = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) };
    if r < 0 {
        return None;
    }
    private_fd::claim_pair((fds[0], fds[1])).ok()
}

/// The terminal at `fd` in the mode line editing needs (no echo, keys one
/// at a time, Ctrl-C a key) until dropped.
pub struct RawMode {
    fd: Fd,
    saved: nix::sys::termios::Termios,
}

impl RawMode {
    /// `None` when `fd` is no terminal whose mode can be set.
    fn enter(fd: Fd) -> Option<RawMode> {
        use nix::sys::termios::{InputFlags, LocalFlags, SetArg, SpecialCharacterIndices};
        // SAFETY: `fd` stays open while this value lives (the shell's
        // standard input).
        let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
        let saved = nix::sys::termios::tcgetattr(borrowed).ok()?;
        let mut raw = saved.clone();
        raw.local_flags
            .remove(LocalFlags::ICANON | LocalFlags::ECHO | LocalFlags::ISIG | LocalFlags::IEXTEN);
        raw.input_flags.remove(InputFlags::ICRNL | InputFlags::IXON);
        raw.control_chars[SpecialCharacterIndices::VMIN as usize] = 1;
        raw.control_chars[SpecialCharacterIndices::VTIME as usize] = 0;
        nix::sys::termios::tcsetattr(borrowed, SetArg::TCSADRAIN, &raw).ok()?;
        Some(RawMode { fd, saved })
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        // SAFETY: as in `enter`.
        let borrowed = unsafe { BorrowedFd::borrow_raw(self.fd) };
        let _ = nix::sys::termios::tcsetattr(
            borrowed,
            nix::sys::termios::SetArg::TCSADRAIN,
            &self.saved,
        );
    }
}

/// How a `waitpid` status ended, if it did (stops are not endings).
fn decode(status: libc::c_int) -> Option<ExitStatus> {
    if libc::WIFEXITED(status) {
        Some(ExitStatus::Exited(libc::WEXITSTATUS(status)))
    } else if libc::WIFSIGNALED(status) {
        Some(ExitStatus::Signaled(libc::WTERMSIG(status)))
    } else {
        None
    }
}

/// Wait for `pid`, forwarding an untrapped SIGTERM/SIGHUP the shell got to
/// it and ending it (and its process group, if it leads one) once the
/// line's wall-time bound has passed; with `stop_on_trap`, return `None` as
/// soon as a trapped signal arrived. The signals are blocked while the flags are read and only
/// unblocked inside `ppoll`, so one arriving between the check and the
/// sleep still wakes it (SIGCHLD wakes it when a child ends). Meanwhile
/// the supervised trees of `served` are answered, recorded in `audit`.
fn wait_loop(
    pids: &[Pid],
    stop_on_trap: bool,
    report_stops: bool,
    mut served: Option<&mut Served>,
    audit: &mut dyn AuditSink,
) -> io::Result<Waited> {
    signals::wake_on_child_exit();
    let old = block_shell_signals();
    let mut forwarded = false;
    let mut out_of_time = false;
    let result = loop {
        if !out_of_time && crate::os::deadline::passed() {
            pids.iter().for_each(|&pid| end_out_of_time(pid));
            out_of_time = true;
        }
        if !forwarded {
            if let Some(signal) = signals::pending_termination() {
                // Forward a termination request to the jobs we wait for.
                for &pid in pids {
                    // SAFETY: signalling our own child.
                    unsafe {
                        libc::kill(pid, signal);
                    }
                }
                forwarded = true;
            }
        }
        if stop_on_trap && signals::trap_pending() {
            break Ok(Waited::Trapped);
        }
        // Past the bound the tree was stopped to be killed: that stop is
        // no job stopping.
        match first_change(pids, report_stops && !out_of_time) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => break Err(e),
            Ok(Some(Waited::Ended(pid, ended))) => {
                if let Some(served) = served.as_deref_mut() {
                    served.command_ended(pid);
                }
                break Ok(Waited::Ended(pid, ended));
            }
            Ok(Some(waited)) => break Ok(waited),
            Ok(None) => {}
        }
        let mut polled = served.as_deref().map(Served::poll_set).unwrap_or_default();
        // Until the line's bound, if it has one still to come.
        let timeout = crate::os::deadline::remaining()
            .filter(|_| !out_of_time)
            .map(|left| libc::timespec {
                tv_sec: left.as_secs().try_into().unwrap_or(i64::MAX),
                tv_nsec: left.subsec_nanos() as libc::c_long,
            });
        // SAFETY: sleeping until a signal arrives, a listener is ready or
        // the bound passes, with the caller's mask (the signals blocked
        // above unblocked only for the sleep); `polled` is a valid array
        // of pollfd, `timeout` null or a valid timespec.
        let n = unsafe {
            libc::ppoll(
                polled.as_mut_ptr(),
                polled.len() as libc::nfds_t,
                timeout.as_ref().map_or(std::ptr::null(), |t| t as *const _),
                &old,
            )
        };
        if n > 0
            && let Some(served) = served.as_deref_mut()
        {
            // A watch handed over now is the first child's to end.
            served.serve(&polled, pids[0], audit);
        }
    };
    restore_mask(&old);
    result
}

/// The first of `pids` that ended (or stopped, when `report_stops`), if
/// any has, without sleeping.
fn first_change(pids: &[Pid], report_stops: bool) -> io::Result<Option<Waited>> {
    let flags = if report_stops {
        libc::WNOHANG | libc::WUNTRACED
    } else {
        libc::WNOHANG
    };
    for &pid in pids {
        let mut status = 0;
        // SAFETY: waitpid on a child pid with a valid status pointer.
        let r = unsafe { libc::waitpid(pid, &mut status, flags) };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        if r == pid {
            if let Some(ended) = decode(status) {
                return Ok(Some(Waited::Ended(pid, ended)));
            }
            if libc::WIFSTOPPED(status) {
                return Ok(Some(Waited::Stopped(libc::WSTOPSIG(status))));
            }
        }
    }
    Ok(None)
}

/// How a wait of [`wait_loop`] ended.
enum Waited {
    /// Which child ended, and how.
    Ended(Pid, ExitStatus),
    /// The child stopped (only when stops are asked for).
    Stopped(i32),
    /// A signal with a `trap` action arrived (only when asked for).
    Trapped,
}

/// The line ran past its wall-time bound: end the child it waits for, the
/// process group it leads (a job of an interactive shell), and every
/// process below it. A forked copy of the shell waiting for a program of
/// its own would otherwise leave that program running once it is killed
/// (it ends the program itself at the same bound, but the parent may kill
/// it first): the tree is stopped, so none of it forks on, then killed.
fn end_out_of_time(pid: Pid) {
    let tree = stopped_tree(pid);
    // SAFETY: signalling our own child, the group it leads, and the
    // processes below it, found stopped (their pids cannot be reused
    // before their parents reap them).
    unsafe {
        if libc::getpgid(pid) == pid {
            libc::kill(-pid, libc::SIGKILL);
        }
        for &p in tree.iter().rev() {
            libc::kill(p, libc::SIGKILL);
        }
    }
}

/// `pid` and the processes below it (as `/proc/PID/task/*/children` lists
/// them), each stopped; read again until no new one appears.
fn stopped_tree(pid: Pid) -> Vec<Pid> {
    let mut tree = vec![pid];
    for _round in 0..8 {
        let before = tree.len();
        let mut at = 0;
        while at < tree.len() {
            // SAFETY: stopping a process of the line's tree.
            unsafe {
                libc::kill(tree[at], libc::SIGSTOP);
            }
            for child in children_of(tree[at]) {
                if !tree.contains(&child) {
                    tree.push(child);
                }
            }
            at += 1;
        }
        if tree.len() == before {
            break;
        }
    }
    tree
}

/// The children of every thread of `pid`.
fn children_of(pid: Pid) -> Vec<Pid> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|list| {
            list.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<Pid>>()
        })
        .collect()
}

/// Block SIGCHLD and the signals the shell handles; returns the old mask.
fn block_shell_signals() -> libc::sigset_t {
    // SAFETY: building a signal set and changing this thread's mask.
    unsafe {
        let mut block: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut block);
        libc::sigaddset(&mut block, libc::SIGCHLD);
        for (_, s) in crate::os::signals::trappable() {
            libc::sigaddset(&mut block, s);
        }
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigprocmask(libc::SIG_BLOCK, &block, &mut old);
        old
    }
}

fn restore_mask(old: &libc::sigset_t) {
    // SAFETY: putting back a mask saved by `block_shell_signals`.
    unsafe {
        libc::sigprocmask(libc::SIG_SETMASK, old, std::ptr::null_mut());
    }
}

/// A command's path, folder, argv and environment as C strings, made
/// before `fork` so the child allocates nothing. The pointer arrays point
/// into the strings' heap buffers, which stay put when the struct moves.
struct ExecImage {
    path: CString,
    cwd: CString,
    _argv: Vec<CString>,
    _envp: Vec<CString>,
    argv_ptrs: Vec<*const libc::c_char>,
    envp_ptrs: Vec<*const libc::c_char>,
}

impl ExecImage {
    fn new(req: &SpawnRequest) -> io::Result<ExecImage> {
        let path = cstring(req.path.as_os_str().as_bytes())?;
        let cwd = cstring(req.cwd.as_os_str().as_bytes())?;
        let argv: Vec<CString> = req
            .argv
            .iter()
            .map(|a| cstring(a))
            .collect::<io::Result<_>>()?;
        let envp: Vec<CString> = req
            .envp
            .iter()
            .map(|(k, v)| {
                let mut entry = k.clone();
                entry.push(b'=');
                entry.extend_from_slice(v);
                cstring(&entry)
            })
            .collect::<io::Result<_>>()?;
        let null_ended = |strings: &[CString]| {
            let mut ptrs: Vec<*const libc::c_char> = strings.iter().map(|s| s.as_ptr()).collect();
            ptrs.push(std::ptr::null());
            ptrs
        };
        Ok(ExecImage {
            argv_ptrs: null_ended(&argv),
            envp_ptrs: null_ended(&envp),
            path,
            cwd,
            _argv: argv,
            _envp: envp,
        })
    }
}

/// The child's side of [`RealSystem::spawn`]: join the group, take the
/// terminal, reset signals, change folder, enter the sandbox and the
/// supervisor's filter (while the parent records the spawn), wait for the
/// parent's go, then exec. A failure is written to `error_w` as the errno
/// and ends the child with 126 (127 when the program is not found).
///
/// # Safety
/// Call only in the child of `spawn`'s clone of single-threaded guard-sh,
/// on its own stack: it shares guard-sh's memory, so only async-signal-safe
/// calls are made, nothing is allocated or written but its own stack and
/// `errno` (which only a failing call writes: before the go, a failing
/// `setpgid`, `tcsetpgrp`, `chdir` or confinement step, while the parent
/// records the spawn, whose failure fails the spawn whatever its errno
/// says; after it, while the parent serves the child's supervision and
/// waits in [`read_child_errno`], neither of which reads it), and the
/// function never returns. The parent's own failing calls in that time (a `poll`
/// interrupted by a signal) write the same `errno`: the number the child
/// reports may then be the parent's, which changes the message and 126
/// against 127, never whether the program runs (every decision here is
/// made on return values).
unsafe fn exec_child(req: &SpawnRequest, image: &ExecImage, release_r: Fd, error_w: Fd) -> ! {
    let fail = |errno: i32, status: i32| -> ! {
        let bytes = errno.to_ne_bytes();
        // SAFETY: writing a local buffer to our own pipe, then _exit.
        unsafe {
            libc::write(error_w, bytes.as_ptr().cast(), bytes.len());
            libc::_exit(status)
        }
    };
    // SAFETY: async-signal-safe calls on the child's own state; the
    // pointers are the C strings made before the fork.
    unsafe {
        join_group(0, req.pgroup);
        if let Some(tty) = req.foreground_tty {
            libc::signal(libc::SIGTTOU, libc::SIG_IGN);
            libc::tcsetpgrp(tty, libc::getpgrp());
        }
        reset_signals();
        // Confined while the parent records the spawn (the two run at
        // once); nothing of the command runs before the go.
        libc::chdir(image.cwd.as_ptr());
        if req.sandbox.confinement.enforce().is_err() {
            fail(*libc::__errno_location(), 126);
        }
        let first = FirstExec {
            path: image.path.as_ptr() as u64,
            argv: image.argv_ptrs.as_ptr() as u64,
            envp: image.envp_ptrs.as_ptr() as u64,
        };
        if let Some(attach) = &req.sandbox.supervise
            && let Err(errno) = attach.enter(first)
        {
            fail(errno, 126);
        }
        let mut go = 0u8;
        let n = libc::read(release_r, (&mut go as *mut u8).cast(), 1);
        if n != 1 {
            libc::_exit(126);
        }
        libc::execve(
            image.path.as_ptr(),
            image.argv_ptrs.as_ptr(),
            image.envp_ptrs.as_ptr(),
        );
        let errno = *libc::__errno_location();
        fail(errno, if errno == libc::ENOENT { 127 } else { 126 })
    }
}

/// The errno a child wrote to the error pipe before it ended, or `None`
/// when the pipe closed empty (the exec succeeded). A failed read is taken
/// as interrupted and tried again, without looking at `errno`: the child,
/// which shares this memory, may be writing its own there (the pipe is
/// ours and open, so an interruption is the only failure it can have).
fn read_child_errno(error_r: Fd) -> Option<i32> {
    let mut errno_bytes = [0u8; 4];
    let mut got = 0usize;
    loop {
        // SAFETY: reading into the unfilled tail of a local buffer.
        let n = unsafe {
            libc::read(
                error_r,
                errno_bytes[got..].as_mut_ptr().cast(),
                errno_bytes.len() - got,
            )
        };
        if n < 0 {
            continue;
        }
        if n == 0 {
            break;
        }
        got += n as usize;
        if got == errno_bytes.len() {
            return Some(i32::from_ne_bytes(errno_bytes));
        }
    }
    None
}

impl RealSystem {
    /// [`Processes::spawn`] with the child running on `stack`.
    fn spawn_on(
        &mut self,
        stack: &ChildStack,
        req: &SpawnRequest,
        audit: &mut dyn AuditSink,
        before_release: &mut dyn FnMut(Pid, &mut dyn AuditSink) -> Result<(), String>,
    ) -> Result<Pid, SpawnError> {
        // Everything the child needs is allocated before the clone.
        let image = ExecImage::new(req).map_err(SpawnError::Os)?;
        let (release_r, release_w) = pipe_cloexec().map_err(SpawnError::Os)?;
        let (error_r, error_w) = match pipe_cloexec() {
            Ok(p) => p,
            Err(e) => {
                close_fd(release_r);
                close_fd(release_w);
                return Err(SpawnError::Os(e));
            }
        };
        let served = self
            .served
            .as_ref()
            .map(Served::held_by_children)
            .unwrap_or_default();
        let start = ChildStart {
            req,
            image: &image,
            release_r,
            release_w,
            error_r,
            error_w,
            served: &served,
        };
        // Signals stay blocked across the clone until the child has put
        // back the default dispositions: one sent to the new pid in between
        // (`cmd & kill $!`) is then delivered with its default action,
        // never to guard-sh's handler running in the child.
        let saved_mask = block_all_signals();
        // The child shares guard-sh's memory until it execs (no page
        // tables copied, no page copied on write on either side), runs on
        // its own stack and uses only `start`, which lives until it is done.
        // SAFETY: guard-sh is single-threaded; `start_child` makes only
        // async-signal-safe calls before execve or _exit.
        let pid = unsafe {
            libc::clone(
                start_child,
                stack.top(),
                libc::CLONE_VM | libc::SIGCHLD,
                (&start as *const ChildStart<'_>).cast_mut().cast(),
            )
        };
        restore_signal_mask(&saved_mask);
        if pid < 0 {
            let e = io::Error::last_os_error();
            for fd in [release_r, release_w, error_r, error_w] {
                close_fd(fd);
            }
            return Err(SpawnError::Os(e));
        }
        self.release_child(pid, req, &start, audit, before_release)
    }

    /// The parent's side of a spawn once the child exists: record it, let
    /// it go, and wait until it has exec'd (or report why it could not).
    fn release_child(
        &mut self,
        pid: Pid,
        req: &SpawnRequest,
        start: &ChildStart<'_>,
        audit: &mut dyn AuditSink,
        before_release: &mut dyn FnMut(Pid, &mut dyn AuditSink) -> Result<(), String>,
    ) -> Result<Pid, SpawnError> {
        let ChildStart {
            release_r,
            release_w,
            error_r,
            error_w,
            ..
        } = *start;
        close_fd(release_r);
        close_fd(error_w);
        // Set the group from the parent too, so it holds before we go on.
        join_group(pid, req.pgroup);
        if let Err(message) = before_release(pid, audit) {
            close_fd(release_w);
            close_fd(error_r);
            // SAFETY: killing and reaping our own child that never exec'd.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                let mut status = 0;
                libc::waitpid(pid, &mut status, 0);
            }
            return Err(SpawnError::Refused(message));
        }
        let go = [1u8];
        // SAFETY: writing one byte to the release pipe we own.
        unsafe {
            libc::write(release_w, go.as_ptr().cast(), 1);
        }
        close_fd(release_w);
        if let Some(served) = self.served.as_mut() {
            serve_until_readable(served, error_r, pid, audit);
        }
        let errno = read_child_errno(error_r);
        close_fd(error_r);
        if let Some(errno) = errno {
            let _ = self.wait(pid, audit);
            return Err(SpawnError::Os(io::Error::from_raw_os_error(errno)));
        }
        Ok(pid)
    }
}

/// `read(2)` into `buf`, tried again when a signal interrupts it unless
/// `stop` then says to give up (the interruption is returned).
fn read_retrying(fd: Fd, buf: &mut [u8], stop: impl Fn() -> bool) -> io::Result<usize> {
    loop {
        // SAFETY: reading into a valid mutable slice.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n >= 0 {
            return Ok(n as usize);
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted || stop() {
            return Err(e);
        }
    }
}

/// Answer the supervised trees of `served`, and take the new child's
/// listener, until `fd` is readable or closed: the child `pid` has exec'd
/// or failed.
fn serve_until_readable(served: &mut Served, fd: Fd, pid: Pid, audit: &mut dyn AuditSink) {
    loop {
        let mut polled = vec![libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        }];
        polled.extend(served.poll_set());
        // SAFETY: a valid array of pollfd.
        let n = unsafe { libc::poll(polled.as_mut_ptr(), polled.len() as libc::nfds_t, -1) };
        if n <= 0 {
            // Interrupted: look again (no other failure with valid pollfds).
            continue;
        }
        served.serve(&polled[1..], pid, audit);
        if polled[0].revents != 0 {
            // The child sent its listener before its exec: it was in the
            // inbox when this poll saw the exec, and was taken above.
            return;
        }
    }
}

impl Processes for RealSystem {
    fn spawn(
        &mut self,
        req: &SpawnRequest,
        audit: &mut dyn AuditSink,
        before_release: &mut dyn FnMut(Pid, &mut dyn AuditSink) -> Result<(), String>,
    ) -> Result<Pid, SpawnError> {
        let stack = match self.child_stack.take() {
            Some(stack) => stack,
            None => ChildStack::new().map_err(SpawnError::Os)?,
        };
        let result = self.spawn_on(&stack, req, audit, before_release);
        // The child has exec'd or ended: its stack is free again.
        self.child_stack = Some(stack);
        result
    }

    fn fork_shell(&mut self, pgroup: ProcessGroup) -> io::Result<Forked> {
        // Signals are held across the fork so the copy forgets only what the
        // shell had received before it, never one sent to the copy itself.
        let old = block_shell_signals();
        // SAFETY: guard-sh is single-threaded, so the child may go on
        // running ordinary Rust code.
        let forked = check(unsafe { libc::fork() });
        if let Ok(0) = forked {
            if let Some(served) = self.served.as_mut() {
                served.forget_in_copy();
            }
            signals::forget_received();
            restore_mask(&old);
            join_group(0, pgroup);
            return Ok(Forked::Child);
        }
        restore_mask(&old);
        let pid = forked?;
        join_group(pid, pgroup);
        Ok(Forked::Parent(pid))
    }

    fn exit_child(&mut self, status: i32) -> ! {
        self.hand_over_served();
        // SAFETY: ending a forked copy of the shell without running the
        // parent's exit handlers twice.
        unsafe { libc::_exit(status & 0xff) }
    }

    /// Never called: this system's `fork_shell` makes real copies.
    fn end_simulated_copy(&mut self, _status: i32) {}

    fn wait(&mut self, pid: Pid, audit: &mut dyn AuditSink) -> io::Result<ExitStatus> {
        loop {
            if let Waited::Ended(_, status) =
                wait_loop(&[pid], false, false, self.served.as_mut(), audit)?
            {
                return Ok(status);
            }
        }
    }

    fn wait_unless_trapped(
        &mut self,
        pids: &[Pid],
        audit: &mut dyn AuditSink,
    ) -> io::Result<Option<(Pid, ExitStatus)>> {
        match wait_loop(pids, true, false, self.served.as_mut(), audit)? {
            Waited::Ended(pid, status) => Ok(Some((pid, status))),
            Waited::Stopped(_) | Waited::Trapped => Ok(None),
        }
    }

    fn wait_or_stop(
        &mut self,
        pid: Pid,
        audit: &mut dyn AuditSink,
    ) -> io::Result<Result<ExitStatus, i32>> {
        loop {
            match wait_loop(&[pid], false, true, self.served.as_mut(), audit)? {
                Waited::Ended(_, status) => return Ok(Ok(status)),
                Waited::Stopped(signal) => return Ok(Err(signal)),
                Waited::Trapped => {}
            }
        }
    }

    fn try_wait(&mut self, pid: Pid) -> io::Result<Option<ExitStatus>> {
        let mut status = 0;
        // SAFETY: waitpid on a child pid with a valid status pointer.
        let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(if r == 0 { None } else { decode(status) })
    }

    fn getpid(&self) -> Pid {
        // SAFETY: getpid has no preconditions.
        unsafe { libc::getpid() }
    }

    fn kill(&mut self, pid: Pid, signal: i32) -> io::Result<()> {
        // SAFETY: kill with a pid and signal number.
        check(unsafe { libc::kill(pid, signal) }).map(|_| ())
    }

    fn group_led_by(&self, pid: Pid) -> Option<Pid> {
        // SAFETY: getpgid on a pid.
        (unsafe { libc::getpgid(pid) } == pid).then_some(pid)
    }

    fn parent_pid(&self) -> Pid {
        // SAFETY: getppid has no preconditions.
        unsafe { libc::getppid() }
    }

    fn resource_limit(&self, resource: Limit) -> io::Result<(u64, u64)> {
        use nix::sys::resource::Resource as R;
        let resource = match resource {
            Limit::RealTime => R::RLIMIT_RTTIME,
            Limit::CoreFile => R::RLIMIT_CORE,
            Limit::Data => R::RLIMIT_DATA,
            Limit::Nice => R::RLIMIT_NICE,
            Limit::FileSize => R::RLIMIT_FSIZE,
            Limit::PendingSignals => R::RLIMIT_SIGPENDING,
            Limit::LockedMemory => R::RLIMIT_MEMLOCK,
            Limit::ResidentMemory => R::RLIMIT_RSS,
            Limit::OpenFiles => R::RLIMIT_NOFILE,
            Limit::MessageQueues => R::RLIMIT_MSGQUEUE,
            Limit::RealTimePriority => R::RLIMIT_RTPRIO,
            Limit::Stack => R::RLIMIT_STACK,
            Limit::CpuTime => R::RLIMIT_CPU,
            Limit::Processes => R::RLIMIT_NPROC,
            Limit::AddressSpace => R::RLIMIT_AS,
            Limit::FileLocks => R::RLIMIT_LOCKS,
        };
        // `RLIM_INFINITY` is all ones on Linux, as UNLIMITED says.
        const _: () = assert!(nix::sys::resource::RLIM_INFINITY == super::UNLIMITED);
        nix::sys::resource::getrlimit(resource).map_err(io::Error::from)
    }

    fn set_process_group(&mut self, pid: Pid, pgid: Pid) -> io::Result<()> {
        // SAFETY: setpgid with plain numbers.
        check(unsafe { libc::setpgid(pid, pgid) }).map(|_| ())
    }

    fn bound_line(&mut self, within: Option<std::time::Duration>) {
        crate::os::deadline::set(within);
    }

    fn line_bound_passed(&self) -> bool {
        crate::os::deadline::passed()
    }

    fn die_by(&mut self, signal: i32) -> i32 {
        signals::die_by(signal)
    }

    fn cpu_seconds(&self) -> (f64, f64) {
        let mut user = 0.0;
        let mut system = 0.0;
        for who in [libc::RUSAGE_SELF, libc::RUSAGE_CHILDREN] {
            let mut usage = std::mem::MaybeUninit::<libc::rusage>::uninit();
            // SAFETY: getrusage fills `usage` when it returns 0.
            if unsafe { libc::getrusage(who, usage.as_mut_ptr()) } != 0 {
                continue;
            }
            // SAFETY: initialized by the successful call above.
            let usage = unsafe { usage.assume_init() };
            let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
            user += secs(usage.ru_utime);
            system += secs(usage.ru_stime);
        }
        (user, system)
    }
}

impl Supervision for RealSystem {
    fn exec_inbox(&mut self) -> Option<io::Result<Fd>> {
        self.served.as_mut().map(Served::inbox)
    }

    fn hand_over_served(&mut self) {
        if let Some(served) = self.served.as_mut() {
            served.hand_over_all();
        }
    }
}

impl Files for RealSystem {
    fn private_pipe(&mut self) -> Option<(Fd, Fd)> {
        make_private_pipe()
    }

    fn close_line_descriptors(&mut self) {
        let below_private = (private_fd::PRIVATE_FD_FLOOR - 1) as libc::c_uint;
        // SAFETY: close_range over numbers this process owns; guard-sh's
        // own descriptors lie at the floor and above.
        unsafe {
            libc::syscall(
                libc::SYS_close_range,
                0 as libc::c_uint,
                below_private,
                0u32,
            );
        }
        // And the line's descriptors saved around a redirection.
        private_fd::close_saved();
    }

    fn pipe(&mut self) -> io::Result<(Fd, Fd)> {
        pipe_cloexec()
    }

    fn open(&mut self, path: &Path, mode: OpenMode) -> io::Result<Fd> {
        open_checked(path, mode)
    }

    fn truncate(&mut self, fd: Fd) -> io::Result<()> {
        truncate_if_regular(fd)
    }

    fn close(&mut self, fd: Fd) -> io::Result<()> {
        // EBADF is reported.
        private_fd::close(fd)
    }

    fn dup2(&mut self, from: Fd, to: Fd) -> io::Result<()> {
        if from == to {
            // dup2 to itself would keep close-on-exec: clear it instead.
            return self.set_inheritable(from);
        }
        // SAFETY: dup2 on descriptor numbers.
        check(unsafe { libc::dup2(from, to) }).map(|_| ())
    }

    fn dup_saved(&mut self, fd: Fd) -> io::Result<Option<Fd>> {
        match private_fd::save(fd) {
            Ok(copy) => Ok(Some(copy)),
            Err(e) if e.raw_os_error() == Some(libc::EBADF) => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn set_inheritable(&mut self, fd: Fd) -> io::Result<()> {
        // SAFETY: fcntl on a descriptor number.
        let flags = check(unsafe { libc::fcntl(fd, libc::F_GETFD) })?;
        // SAFETY: as above.
        check(unsafe { libc::fcntl(fd, libc::F_SETFD, flags & !libc::FD_CLOEXEC) }).map(|_| ())
    }

    fn move_inheritable(&mut self, fd: Fd, min: Fd) -> io::Result<Fd> {
        // SAFETY: F_DUPFD on a descriptor number (the copy is inheritable);
        // the original is closed only once the copy exists.
        let new = check(unsafe { libc::fcntl(fd, libc::F_DUPFD, min) })?;
        // SAFETY: closing the descriptor just copied.
        unsafe {
            libc::close(fd);
        }
        Ok(new)
    }

    fn write_all(&mut self, fd: Fd, mut data: &[u8]) -> io::Result<()> {
        while !data.is_empty() {
            // SAFETY: writing from a valid slice.
            let n = unsafe { libc::write(fd, data.as_ptr().cast(), data.len()) };
            if n < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            data = &data[n as usize..];
        }
        Ok(())
    }

    fn regular_file_at(&self, fd: Fd) -> bool {
        // SAFETY: fstat into a zeroed stat we own.
        unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            libc::fstat(fd, &mut st) == 0 && (st.st_mode & libc::S_IFMT) == libc::S_IFREG
        }
    }

    fn rewind_by(&mut self, fd: Fd, bytes: usize) -> io::Result<()> {
        let back = -libc::off_t::try_from(bytes)
            .map_err(|_| io::Error::from_raw_os_error(libc::EOVERFLOW))?;
        // SAFETY: lseek on a descriptor number.
        if unsafe { libc::lseek(fd, back, libc::SEEK_CUR) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    fn read(&mut self, fd: Fd, buf: &mut [u8]) -> io::Result<usize> {
        read_retrying(fd, buf, || false)
    }

    fn read_unless_terminated(&mut self, fd: Fd, buf: &mut [u8]) -> io::Result<usize> {
        read_retrying(fd, buf, || signals::pending_termination().is_some())
    }

    fn chdir(&mut self, path: &Path) -> io::Result<()> {
        std::env::set_current_dir(path)
    }

    fn umask(&mut self, mask: u32) -> u32 {
        // SAFETY: umask has no preconditions.
        unsafe { libc::umask(mask as libc::mode_t) as u32 }
    }

    fn file_info(&self, path: &Path, follow: bool) -> io::Result<FileInfo> {
        use std::os::unix::fs::{FileTypeExt, MetadataExt};
        let m = if follow {
            std::fs::metadata(path)?
        } else {
            std::fs::symlink_metadata(path)?
        };
        let t = m.file_type();
        let kind = if t.is_dir() {
            FileKind::Dir
        } else if t.is_symlink() {
            FileKind::Symlink
        } else if t.is_fifo() {
            FileKind::Fifo
        } else if t.is_socket() {
            FileKind::Socket
        } else if t.is_block_device() {
            FileKind::Block
        } else if t.is_char_device() {
            FileKind::Char
        } else {
            FileKind::File
        };
        Ok(FileInfo {
            kind,
            mode: m.mode() & 0o7777,
            uid: m.uid(),
            gid: m.gid(),
            size: m.size(),
            id: (m.dev(), m.ino()),
            modified: (m.mtime(), m.mtime_nsec()),
            accessed: (m.atime(), m.atime_nsec()),
        })
    }

    fn may_access(&self, path: &Path, access: Access) -> bool {
        let Ok(c) = cstring(path.as_os_str().as_bytes()) else {
            return false;
        };
        let mode = match access {
            Access::Read => libc::R_OK,
            Access::Write => libc::W_OK,
            Access::Execute => libc::X_OK,
        };
        // SAFETY: a valid C string; faccessat with AT_EACCESS checks the
        // effective ids.
        unsafe { libc::faccessat(libc::AT_FDCWD, c.as_ptr(), mode, libc::AT_EACCESS) == 0 }
    }

    fn effective_ids(&self) -> (u32, u32) {
        // SAFETY: geteuid and getegid have no preconditions.
        unsafe { (libc::geteuid(), libc::getegid()) }
    }

    fn real_path(&self, path: &Path) -> io::Result<std::path::PathBuf> {
        std::fs::canonicalize(path)
    }

    fn descriptor_path(&self, fd: Fd) -> Option<std::path::PathBuf> {
        std::fs::read_link(format!("/proc/self/fd/{fd}")).ok()
    }

    fn dir_names(&self, dir: &Path) -> io::Result<Listing> {
        use nix::fcntl::OFlag;
        use std::os::fd::AsRawFd;
        let mut folder = nix::dir::Dir::open(
            dir,
            OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
            nix::sys::stat::Mode::empty(),
        )?;
        let real = self
            .descriptor_path(folder.as_raw_fd())
            .ok_or_else(|| io::Error::from_raw_os_error(libc::EBADF))?;
        let names = folder
            .iter()
            .filter_map(Result::ok)
            .map(|entry| entry.file_name().to_bytes().to_vec())
            .filter(|name| name != b"." && name != b"..")
            .collect();
        Ok(Listing { names, real })
    }

    fn read_file(&self, path: &Path) -> io::Result<Vec<u8>> {
        // The same checks as `open`: read through a checked descriptor.
        use std::io::Read;
        let fd = open_checked(path, OpenMode::Read)?;
        // SAFETY: `fd` was just opened here and is owned by the `File`.
        let mut file = unsafe { <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(fd) };
        let mut text = Vec::new();
        file.read_to_end(&mut text)?;
        Ok(text)
    }

    fn current_dir(&self) -> io::Result<std::path::PathBuf> {
        std::env::current_dir()
    }

    fn real_user_id(&self) -> u32 {
        // SAFETY: getuid has no preconditions.
        unsafe { libc::getuid() }
    }

    fn wait_readable(&self, fd: Fd, seconds: f64) -> bool {
        let mut pfd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        let millis = (seconds * 1000.0).min(f64::from(i32::MAX)) as libc::c_int;
        // SAFETY: one valid pollfd for the duration of the call.
        unsafe { libc::poll(&mut pfd, 1, millis) > 0 }
    }

    fn is_a_program(&self, name: &str) -> bool {
        RealSystem::program_anywhere(name)
    }
}

impl Signals for RealSystem {
    fn set_signal(&mut self, signal: i32, disposition: super::Disposition) {
        signals::set(signal, disposition);
    }

    fn ignored_at_entry(&self, signal: i32) -> bool {
        signals::ignored_at_entry(signal)
    }

    fn pending_termination(&self) -> Option<i32> {
        signals::pending_termination()
    }

    fn take_trapped(&mut self) -> Vec<i32> {
        if signals::trap_pending() {
            signals::take_trapped()
        } else {
            Vec::new()
        }
    }

    fn first_trapped_pending(&self) -> Option<i32> {
        signals::first_trapped_pending()
    }

    fn copy_signal_defaults(&mut self, was_interactive: bool) {
        signals::child_defaults(was_interactive);
    }
}

impl Terminal for RealSystem {
    fn isatty(&self, fd: Fd) -> bool {
        // SAFETY: isatty on a descriptor number.
        unsafe { libc::isatty(fd) == 1 }
    }

    fn tcsetpgrp(&mut self, fd: Fd, pgid: Pid) -> io::Result<()> {
        // SAFETY: tcsetpgrp on a descriptor number.
        check(unsafe { libc::tcsetpgrp(fd, pgid) }).map(|_| ())
    }

    fn terminal_name(&self, fd: Fd) -> Option<Vec<u8>> {
        // SAFETY: the descriptor is only borrowed for the call; an invalid
        // one makes ttyname fail, nothing else.
        let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
        nix::unistd::ttyname(fd)
            .ok()
            .map(|p| p.into_os_string().into_encoded_bytes())
    }

    fn raw_terminal(&mut self, fd: Fd) -> Option<RawMode> {
        RawMode::enter(fd)
    }
}

impl Host for RealSystem {
    fn random_bytes(&mut self, buf: &mut [u8]) {
        // A failure leaves the rest of `buf` as it was, as before.
        let _ = crate::os::random::fill(buf);
    }

    fn host_name(&self) -> Option<Vec<u8>> {
        nix::unistd::gethostname()
            .ok()
            .map(|name| name.as_encoded_bytes().to_vec())
    }

    fn now(&self) -> i64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
    }

    fn locale_exists(&self, name: &[u8]) -> bool {
        let mut known = self.locales.borrow_mut();
        if let Some((_, exists)) = known.iter().find(|(n, _)| n == name) {
            return *exists;
        }
        let exists = locale_loads(name);
        known.push((name.to_vec(), exists));
        exists
    }

    fn use_time_zone(&mut self, zone: Option<&[u8]>) {
        use std::os::unix::ffi::OsStrExt;
        let zone = zone
            .filter(|z| !z.contains(&0))
            .map(std::ffi::OsStr::from_bytes);
        if std::env::var_os("TZ").as_deref() == zone {
            return;
        }
        // SAFETY: the shell's interpreter runs on one thread (nothing reads
        // the environment while it changes); tzset reads the new TZ.
        unsafe {
            match zone {
                Some(zone) => std::env::set_var("TZ", zone),
                None => std::env::remove_var("TZ"),
            }
            tzset();
        }
    }
}

/// Whether the C library can load the locale `name` for character types.
/// A build on musl asks glibc's files (see `os::locale_files`): musl's
/// `newlocale` takes any name, and bash's answer is glibc's.
#[cfg(not(target_env = "gnu"))]
fn locale_loads(name: &[u8]) -> bool {
    crate::os::locale_files::glibc_loads_ctype(name)
}

/// Whether the C library can load the locale `name` for character types.
#[cfg(target_env = "gnu")]
fn locale_loads(name: &[u8]) -> bool {
    let Ok(name) = std::ffi::CString::new(name) else {
        return false;
    };
    // SAFETY: newlocale reads the NUL-terminated name and returns a new
    // locale object or null; the object is freed at once.
    unsafe {
        let locale = libc::newlocale(libc::LC_CTYPE_MASK, name.as_ptr(), std::ptr::null_mut());
        if locale.is_null() {
            return false;
        }
        libc::freelocale(locale);
    }
    true
}

unsafe extern "C" {
    /// The C library's: reads `TZ` again (the `libc` crate does not bind it).
    fn tzset();
}

/// `O_TRUNC`'s effect, applied after the open: a regular file is emptied;
/// FIFOs, terminals and devices are left alone, as `O_TRUNC` leaves them.
fn truncate_if_regular(fd: Fd) -> io::Result<()> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: fstat fills the buffer when it returns 0.
    check(unsafe { libc::fstat(fd, st.as_mut_ptr()) })?;
    // SAFETY: fstat succeeded.
    let st = unsafe { st.assume_init() };
    if st.st_mode & libc::S_IFMT == libc::S_IFREG && st.st_size > 0 {
        // SAFETY: ftruncate on a descriptor open for writing.
        check(unsafe { libc::ftruncate(fd, 0) })?;
    }
    Ok(())
}

/// Open `path` for a line (a redirection, a script, `source`): refused,
/// after the open, when it reaches one of guard-sh's private descriptors
/// or another process's `/proc` file.
fn open_checked(path: &Path, mode: OpenMode) -> io::Result<Fd> {
    let c = cstring(path.as_os_str().as_bytes())?;
    // `>` truncates (the caller, [`Files::truncate`]) only once the file
    // reached is judged: not one of the shell's private files, not a
    // protected one (a race could swap the path before the open).
    let flags = match mode {
        OpenMode::Read => libc::O_RDONLY,
        OpenMode::Write { exclusive: false } => libc::O_WRONLY | libc::O_CREAT,
        OpenMode::Write { exclusive: true } => libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL,
        OpenMode::Append => libc::O_WRONLY | libc::O_CREAT | libc::O_APPEND,
        OpenMode::ReadWrite => libc::O_RDWR | libc::O_CREAT,
    };
    // SAFETY: a valid C path and flags; mode bits as a shell uses. openat,
    // not open: musl's open adds an fcntl to a close-on-exec open.
    let fd = check(unsafe {
        libc::openat(
            libc::AT_FDCWD,
            c.as_ptr(),
            flags | libc::O_CLOEXEC,
            0o666 as libc::c_uint,
        )
    })
    .and_then(above_standard)?;
    let refused = if private_fd::reaches_private(fd) {
        Some(private_fd::reserved_error())
    } else {
        procfs::refusal(fd).map(|name| procfs::refused_error(&name))
    };
    if let Some(refused) = refused {
        // SAFETY: closing the descriptor just opened.
        unsafe {
            libc::close(fd);
        }
        return Err(refused);
    }
    Ok(fd)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::os::signals::Disposition;

    /// The disposition of `signal` in the calling process: its handler
    /// address, `SIG_DFL` or `SIG_IGN`.
    fn disposition(signal: i32) -> libc::sighandler_t {
        // SAFETY: a query only; `old` is a plain struct.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            libc::sigaction(signal, std::ptr::null(), &mut old);
            old.sa_sigaction
        }
    }

    /// A spawned child shares guard-sh's memory until it execs, so a
    /// trapped signal reaching it there must meet the default action, not
    /// guard-sh's handler (which would mark the signal received in the
    /// shell's own memory). Checked in a forked process, whose signal
    /// dispositions are its own.
    #[test]
    fn a_spawned_child_leaves_no_trapped_signal_caught() {
        // SAFETY: the child makes only sigaction calls and atomic loads
        // and stores, then _exit; the parent reaps it.
        let status = unsafe {
            let pid = libc::fork();
            if pid == 0 {
                signals::set(libc::SIGUSR2, Disposition::Catch);
                let caught = disposition(libc::SIGUSR2) != libc::SIG_DFL;
                reset_signals();
                let reset = disposition(libc::SIGUSR2) == libc::SIG_DFL;
                libc::_exit(if caught && reset { 0 } else { 1 });
            }
            let mut status = 0;
            libc::waitpid(pid, &mut status, 0);
            status
        };
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "{status:#x}"
        );
    }
}
