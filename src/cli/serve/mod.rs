//! `guard-sh --serve`: one process per trial that does once what every
//! `guard-sh -c` does before its line (load and pin the policy, open the
//! audit log, enter guard-sh's own Landlock domain, resolve the protected
//! paths, prepare each command's files and domain), and keeps a worker
//! forked ahead for the next line. The worker takes the next client from
//! the socket, and is that line's `guard-sh` process from then on: same
//! argument parsing, session record (naming the client's pid), guard,
//! interpreter and audit, in the client's descriptors, folder,
//! environment, umask and signal state.
//!
//! The client is `guard-sh-client` (`src/bin/guard-sh-client.rs`), a
//! program without a C library whose start costs a tenth of guard-sh's;
//! `guard-sh-launch` starts the server and names it to the harness in
//! [`SERVER_ENV`] (`NAME PID START MARKER`: the abstract socket's name,
//! the server's pid, its start time in clock ticks after boot and the pid
//! of the process holding its token). The wire both speak is the
//! `guard-sh-wire` crate (`wire/`). Without the
//! variable, or when anything differs from what the server loaded (another
//! policy, pin or audit log, another `GUARD_SH_LANDLOCK` or
//! `GUARD_SH_SUPERVISOR`, a terminal, `-i`), the client runs guard-sh
//! itself: the server is a shortcut, never a different shell.
//!
//! Who may talk to whom: the socket is abstract, and Landlock's
//! abstract-socket scope keeps every command (each in a domain nested in
//! the server's) from connecting to it. The client sends nothing before it
//! has checked who listens: the kernel's `SO_PEERCRED` pid must be PID, and
//! that process must have started at START (`/proc/PID/stat`), so a process
//! that took NAME after the server ended (even under a reused pid) gets no
//! line and no descriptor. The variable never reaches a line.
//!
//! The server's part, off the line's way: it forks the next worker when
//! one takes a client (told over the worker's control socket, with the
//! client's end), passes the signals the client sends to the worker's
//! process group, kills that group when the client goes before its status,
//! and sends the status itself when a signal ended the worker.

mod caller;
mod wire;
mod worker;

pub use caller::{
    CALLER_FILTERS_ENV, MARKER_ARG, MARKER_WATCHES_PIDFD, SERVER_PIDFD, TOKEN_ENV, TOKEN_FD,
    hold_token, marker_command, new_token,
};

pub use wire::{Reply, Request, decode_request, pidfd_open};

use crate::audit::{self, AuditSink, FileSink};
use crate::cli::Exit;
use crate::cli::shell::{self, Invocation};
use crate::policy::Policy;
use crate::sandbox::landlock;
use crate::sandbox::supervisor::Supervisor;
use std::ffi::OsString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use wire::{high, pollin, reap, receive, send_all, stream_pair};

pub use guard_sh_wire::SERVER_ENV;

/// What the server loaded once, handed to each worker.
pub(super) struct Loaded {
    pub(super) policy: Rc<Policy>,
    policy_path: PathBuf,
    pub(super) policy_sha256: String,
    audit_path: PathBuf,
    /// The server's own session: each worker records through a copy.
    pub(super) sink: FileSink,
    /// The trial the server was started in (its key seals `sink`).
    pub(super) trial: Option<String>,
    /// `GUARD_SH_LANDLOCK` and `GUARD_SH_SUPERVISOR` as the server saw
    /// them: a client with others is not served.
    switches: [Option<OsString>; 2],
    /// How the server was confined when it started: a client confined
    /// otherwise is not served.
    confinement: caller::Confinement,
}

/// The variables that change what guard-sh does beyond the line.
const SWITCHES: [&str; 2] = [landlock::LANDLOCK_ENV, "GUARD_SH_SUPERVISOR"];

/// `guard-sh --serve`: set up once, print `NAME PID START` on standard
/// output (then close it: the starter reads to its end), and serve until
/// killed.
pub fn serve(policy: Rc<Policy>, policy_sha256: String, inv: &Invocation) -> Result<u8, Exit> {
    if let Some(relative) = relative_path(&policy) {
        return Err(Exit::new(
            2,
            format!(
                "--serve: the policy names {} relative to a folder; serve a policy whose paths are absolute (arm-build writes one)",
                relative.display()
            ),
        ));
    }
    let policy_path = shell::policy_path(inv)?;
    // The server ends with the process that started it (the launcher).
    // SAFETY: prctl and getppid with integer arguments only.
    unsafe {
        let parent = libc::getppid();
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM, 0, 0, 0);
        if libc::getppid() != parent {
            return Err(Exit::new(126, "--serve: the starting process ended"));
        }
    }
    let token = caller::inherited_token().map_err(|e| Exit::new(126, format!("--serve: {e}")))?;
    close_inherited_descriptors();
    // Taken before the server confines itself any further.
    let confinement = caller::Confinement::of_this_process(token)
        .map_err(|e| Exit::new(126, format!("--serve: cannot mark its confinement: {e}")))?;
    let enforcement = shell::enforcement(&policy)?;
    let shell::LogStart {
        path: audit_path,
        redactor,
        trial,
        ..
    } = shell::log_start(inv.audit.as_deref(), &policy)?;
    let mut sink = FileSink::open(&audit_path, redactor).map_err(|e| shell::unavailable(&e))?;
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    if let Some((_, key)) = &trial {
        sink.seal_with(key.clone());
    }
    let argv: Vec<String> = super::program_arguments()
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let session = audit::session_event(
        &policy,
        &policy_sha256,
        &enforcement,
        &argv,
        "server",
        &cwd.to_string_lossy(),
        trial.as_ref().map(|(id, _)| id.as_str()),
    );
    sink.record(session).map_err(|e| shell::unavailable(&e))?;
    shell::confine_self(&policy, &enforcement, &mut sink)?;
    warm(&policy, &cwd);
    yield_on_wake(true);
    let (listener, name) =
        listen().map_err(|e| Exit::new(126, format!("--serve: cannot listen: {e}")))?;
    let loaded = Loaded {
        switches: SWITCHES.map(std::env::var_os),
        policy,
        policy_path,
        policy_sha256,
        audit_path,
        sink,
        trial: trial.map(|(id, _)| id),
        confinement,
    };
    announce(&name, loaded.confinement.marker_pid())
        .map_err(|e| Exit::new(126, format!("--serve: {e}")))?;
    Server {
        listener,
        workers: Vec::new(),
        failed_forks: 0,
        loaded,
    }
    .run()
}

/// Close every descriptor but 0–2 and guard-sh's own: whatever the
/// starter left open (an operator's file at 100, a harness's pipe) would
/// reach every worker and so every served line, though the client that
/// asks for a line may not hold it. A line gets only its client's.
fn close_inherited_descriptors() {
    let Ok(entries) = std::fs::read_dir("/proc/self/fd") else {
        return;
    };
    let open: Vec<libc::c_int> = entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    for fd in open {
        if fd > 2 && !crate::os::private_fd::is_held(fd) {
            // SAFETY: closing a number this process does not use; the
            // listing's own descriptor is closed already (EBADF).
            unsafe { libc::close(fd) };
        }
    }
}

/// Make this process one that does not take the core from the process
/// running when it wakes (`SCHED_BATCH`): the server's work, and a worker's
/// after its status, is housekeeping that can wait for the line's next
/// step on the same core (a unix socket wakes its reader on its writer's
/// core). With `for_self_only`, the processes it forks are scheduled as
/// usual (`SCHED_RESET_ON_FORK`). Best effort: the kernel refuses nothing
/// here, and a refusal costs only time.
pub(super) fn yield_on_wake(for_self_only: bool) {
    let policy = if for_self_only {
        libc::SCHED_BATCH | libc::SCHED_RESET_ON_FORK
    } else {
        libc::SCHED_BATCH
    };
    // SAFETY: sched_param is plain data; all zeroes is priority 0 (musl's
    // has fields glibc's lacks, so it is not built field by field).
    let param: libc::sched_param = unsafe { std::mem::zeroed() };
    // SAFETY: sched_setscheduler(2) on this process with a valid param.
    unsafe { libc::sched_setscheduler(0, policy, &param) };
}

/// The first path of `policy` that is not absolute: a worker runs in its
/// client's folder, so the server's domain and caches, made in its own,
/// hold only for absolute paths.
fn relative_path(policy: &Policy) -> Option<&Path> {
    let sandbox = &policy.sandbox;
    let rules = policy.commands.values();
    sandbox
        .writable
        .iter()
        .chain(&sandbox.protected)
        .chain(&sandbox.unreadable)
        .chain(sandbox.execute.iter().flatten())
        .chain(rules.clone().map(|r| &r.path))
        .chain(rules.clone().flat_map(|r| &r.writable))
        .chain(rules.flat_map(|r| &r.exec_allow))
        .map(PathBuf::as_path)
        .find(|p| !p.is_absolute())
}

/// Fill the per-process caches each worker inherits: the protected paths'
/// real names, the shell's own read scope, and for each command of the
/// bin folder what its spawn prepares ([`crate::sandbox::prepare_command`]:
/// its files, domain and read roots, its exec plan) for lines run in the
/// server's folder. A command whose program is missing warms nothing; its
/// spawns do the work then, as do lines run in another folder.
fn warm(policy: &Rc<Policy>, cwd: &Path) {
    let _ = crate::guard::ProtectedPaths::new(policy);
    let _ = landlock::every_command_may_read(policy, cwd, Path::new("/"));
    let supervised = policy.shell && Supervisor::wanted();
    for (name, rule) in &policy.commands {
        let exe = policy.bin_dir.join(name);
        if exe.exists() {
            let _ = crate::sandbox::prepare_command(policy, rule, &exe, cwd, supervised);
        }
    }
}

/// In an idle worker: build the ruleset of the arm's tool's next spawn
/// now ([`crate::sandbox::make_spare_domain`]), the command most lines
/// run, so that a line run in the server's folder does not wait for it.
fn spare_for_tool(policy: &Policy) {
    let Some(tool) = &policy.tool else {
        return;
    };
    let Ok(cwd) = std::env::current_dir() else {
        return;
    };
    let supervised = policy.shell && Supervisor::wanted();
    crate::sandbox::make_spare_domain(&policy.bin_dir.join(tool), &cwd, supervised);
}

/// A listening abstract socket with a fresh random name, at a private
/// number, non-blocking (each worker waits for it with `poll`).
fn listen() -> io::Result<(OwnedFd, String)> {
    let mut random = [0u8; 16];
    crate::os::random::fill(&mut random)?;
    let name = format!("guard-sh-{}", hex::encode(random));
    // SAFETY: socket(2) with constant arguments.
    let fd = unsafe {
        libc::socket(
            libc::AF_UNIX,
            libc::SOCK_STREAM | libc::SOCK_CLOEXEC | libc::SOCK_NONBLOCK,
            0,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just returned by socket(2) and nothing else owns it.
    let socket = unsafe { OwnedFd::from_raw_fd(fd) };
    let (address, len) = abstract_address(name.as_bytes());
    // SAFETY: `address` is a valid sockaddr_un of `len` bytes.
    let bound = unsafe {
        libc::bind(
            socket.as_raw_fd(),
            (&address as *const libc::sockaddr_un).cast(),
            len,
        )
    };
    // SAFETY: listen(2) on the descriptor owned above.
    if bound != 0 || unsafe { libc::listen(socket.as_raw_fd(), 64) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((high(socket)?, name))
}

/// The `sockaddr_un` of the abstract name `name` (a NUL, then the name)
/// and its length.
pub fn abstract_address(name: &[u8]) -> (libc::sockaddr_un, libc::socklen_t) {
    // SAFETY: sockaddr_un is plain data; all zeros is a valid value.
    let mut address: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    address.sun_family = libc::AF_UNIX as libc::sa_family_t;
    let room = address.sun_path.len() - 1;
    let name = &name[..name.len().min(room)];
    for (slot, &b) in address.sun_path[1..].iter_mut().zip(name) {
        *slot = b as libc::c_char;
    }
    let len = std::mem::size_of::<libc::sa_family_t>() + 1 + name.len();
    (address, len as libc::socklen_t)
}

/// This process's start time, in clock ticks after boot: field 22 of
/// `/proc/self/stat` (after the command name, which may hold anything but
/// ends at the last `)`).
fn start_time() -> io::Result<u64> {
    let stat = std::fs::read("/proc/self/stat")?;
    let after = stat.iter().rposition(|&b| b == b')').map_or(0, |i| i + 1);
    String::from_utf8_lossy(&stat[after..])
        .split_whitespace()
        .nth(19)
        .and_then(|f| f.parse().ok())
        .ok_or_else(|| io::Error::other("/proc/self/stat has no start time"))
}

/// Print `NAME PID START MARKER` and put `/dev/null` where standard output
/// was, so the starter's pipe ends.
/// Print the address: `NAME PID START MARKER`, or `NAME PID START` when
/// the marker is the starter's (which adds its pid).
fn announce(name: &str, marker: Option<u32>) -> io::Result<()> {
    use std::io::Write;
    let start = start_time()?;
    let mut out = io::stdout().lock();
    write!(out, "{name} {} {start}", std::process::id())?;
    match marker {
        Some(marker) => writeln!(out, " {marker}")?,
        None => writeln!(out)?,
    }
    out.flush()?;
    let null = std::fs::OpenOptions::new().write(true).open("/dev/null")?;
    nix::unistd::dup2_stdout(&null).map_err(io::Error::from)
}

/// A worker, from its fork to its reaping.
struct Worker {
    pid: libc::pid_t,
    pidfd: OwnedFd,
    /// The worker's end of its control socket; None once it closed.
    control: Option<OwnedFd>,
    /// What came on `control` and is not read yet.
    pending: Vec<u8>,
    pending_fds: Vec<OwnedFd>,
    /// The client whose line it runs; None while it waits for one.
    line: Option<Line>,
}

/// The client of a worker's line, as the server sees it.
struct Line {
    conn: OwnedFd,
    /// The worker sent the status (it says so before it does).
    replied: bool,
    /// The client's end closed.
    gone: bool,
}

/// How many workers wait for a client when no line runs.
const IDLE_WORKERS: usize = 2;

struct Server {
    listener: OwnedFd,
    workers: Vec<Worker>,
    /// Workers that ended before they took a client, in a row: past a few,
    /// no more are forked and each client is told to run guard-sh itself.
    failed_forks: u32,
    loaded: Loaded,
}

/// What a ready descriptor is, in the order a round handles them: a
/// worker's word before its client's (`X` before the client's end closes).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Ready {
    Control(libc::pid_t),
    Ended(libc::pid_t),
    Client(libc::pid_t),
    Listener,
}

impl Server {
    fn run(mut self) -> ! {
        loop {
            let idle = self.workers.iter().filter(|w| w.line.is_none()).count();
            let busy = self
                .workers
                .iter()
                .any(|w| w.line.as_ref().is_some_and(|l| !l.replied));
            // Two wait at rest; while a line runs, one is enough, and the
            // next fork waits for the line's end (its client or its worker
            // gone): a fork beside a line runs on the line's core.
            if self.failed_forks < 5 && (idle == 0 || (idle < IDLE_WORKERS && !busy)) {
                self.prefork();
                continue;
            }
            let mut polled = Vec::new();
            let mut what = Vec::new();
            for w in &self.workers {
                polled.push(pollin(w.pidfd.as_raw_fd()));
                what.push(Ready::Ended(w.pid));
                // A worker's word matters only until it takes a line: its
                // `X` is read when its client or the worker itself ends, so
                // it wakes no one on the line's core (a unix socket wakes
                // its reader there, and the server's next fork would run
                // before the client had its status).
                if let Some(control) = w.control.as_ref().filter(|_| w.line.is_none()) {
                    polled.push(pollin(control.as_raw_fd()));
                    what.push(Ready::Control(w.pid));
                }
                if let Some(line) = w.line.as_ref().filter(|l| !l.gone && !l.replied) {
                    polled.push(pollin(line.conn.as_raw_fd()));
                    what.push(Ready::Client(w.pid));
                }
            }
            if !self.workers.iter().any(|w| w.line.is_none()) {
                // No worker waits: clients are answered here.
                polled.push(pollin(self.listener.as_raw_fd()));
                what.push(Ready::Listener);
            }
            // SAFETY: `polled` is a valid array of pollfd of its length.
            let n = unsafe { libc::poll(polled.as_mut_ptr(), polled.len() as libc::nfds_t, -1) };
            if n < 0 {
                continue; // EINTR: nothing to do
            }
            let mut ready: Vec<Ready> = (polled.iter().zip(what))
                .filter(|(p, _)| p.revents != 0)
                .map(|(_, w)| w)
                .collect();
            ready.sort();
            for r in ready {
                match r {
                    Ready::Control(pid) => self.heard(pid),
                    Ready::Ended(pid) => self.ended(pid),
                    Ready::Client(pid) => self.signalled(pid),
                    Ready::Listener => self.refuse(),
                }
            }
        }
    }

    fn worker(&mut self, pid: libc::pid_t) -> Option<&mut Worker> {
        self.workers.iter_mut().find(|w| w.pid == pid)
    }

    /// A worker spoke: `T` with its client's end (it took a line), `X` (it
    /// is sending the status), or its end closed.
    fn heard(&mut self, pid: libc::pid_t) {
        let Some(w) = self.worker(pid) else {
            return;
        };
        let Some(control) = &w.control else {
            return;
        };
        let open = receive(control, usize::MAX, &mut w.pending, &mut w.pending_fds);
        while let Some(&tag) = w.pending.first() {
            match tag {
                b'T' if !w.pending_fds.is_empty() => {
                    w.pending.drain(..1);
                    let conn = w.pending_fds.remove(0);
                    w.line = Some(Line {
                        conn,
                        replied: false,
                        gone: false,
                    });
                }
                b'T' => break,
                b'X' => {
                    w.pending.drain(..1);
                    if let Some(line) = &mut w.line {
                        line.replied = true;
                    }
                }
                _ => {
                    w.pending.clear();
                }
            }
        }
        if !matches!(open, Ok(true)) {
            w.control = None;
        }
    }

    /// A worker ended: reaped; its client told the status if the worker
    /// could not (a signal ended it) and the client still waits.
    fn ended(&mut self, pid: libc::pid_t) {
        // Its `X`, if it said it, is still unread.
        self.heard(pid);
        let Some(at) = self.workers.iter().position(|w| w.pid == pid) else {
            return;
        };
        let w = self.workers.swap_remove(at);
        let reply = reap(w.pid);
        match &w.line {
            Some(line) if !line.replied && !line.gone => {
                if let Some(reply) = reply {
                    let _ = send_all(&line.conn, &reply.encode());
                }
            }
            Some(_) => {}
            None => self.failed_forks += 1,
        }
        if w.line.is_some() {
            self.failed_forks = 0;
        }
    }

    /// The client of a worker's line sent signals (passed to the line's
    /// process group) or is gone (the group is killed).
    fn signalled(&mut self, pid: libc::pid_t) {
        let Some(line) = self.worker(pid).and_then(|w| w.line.as_mut()) else {
            return;
        };
        let mut signals = [0u8; 64];
        // SAFETY: reading into a stack buffer of its length.
        let n = unsafe {
            libc::recv(
                line.conn.as_raw_fd(),
                signals.as_mut_ptr().cast(),
                signals.len(),
                libc::MSG_DONTWAIT,
            )
        };
        if n == 0 || (n < 0 && io::Error::last_os_error().kind() != io::ErrorKind::WouldBlock) {
            line.gone = true;
            // The worker says `X` before it sends the status, so an `X` is
            // in the control socket by the time the client could end after
            // reading it; this round's poll may have looked at that socket
            // just before it came.
            self.heard(pid);
            let replied = self
                .worker(pid)
                .and_then(|w| w.line.as_ref())
                .is_some_and(|l| l.replied);
            if !replied {
                // The client is gone before its status (killed, most
                // likely): so is its line.
                // SAFETY: kill(2) of the worker's own process group.
                unsafe { libc::kill(-pid, libc::SIGKILL) };
            }
            return;
        }
        for &signal in &signals[..usize::try_from(n).unwrap_or(0)] {
            if (1..=64).contains(&signal) {
                // SAFETY: kill(2) of the worker's own process group.
                unsafe { libc::kill(-pid, libc::c_int::from(signal)) };
            }
        }
    }

    /// No worker can take a client: tell it to run guard-sh itself.
    fn refuse(&mut self) {
        // SAFETY: accept4 on the listening socket; no address wanted.
        let fd = unsafe {
            libc::accept4(
                self.listener.as_raw_fd(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                libc::SOCK_CLOEXEC,
            )
        };
        if fd >= 0 {
            // SAFETY: `fd` was just returned by accept4 and nothing else owns it.
            let conn = unsafe { OwnedFd::from_raw_fd(fd) };
            let _ = send_all(&conn, &Reply::Fallback.encode());
        }
    }

    /// Fork a worker ahead of its line: it waits for the next client
    /// itself, so the fork and the worker's start are off the line's way.
    fn prefork(&mut self) {
        let Ok((ours, theirs)) = stream_pair() else {
            self.failed_forks += 1;
            return;
        };
        let server = std::process::id() as libc::pid_t;
        // SAFETY: the server is single-threaded; the child only runs
        // guard-sh's own code before it execs or exits.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            // The worker: the other workers' sockets and clients are not its.
            drop(ours);
            self.workers.clear();
            worker::idle(server, self.listener.as_raw_fd(), theirs, &self.loaded);
        }
        drop(theirs);
        if pid < 0 {
            self.failed_forks += 1;
            return;
        }
        // Its own process group (the worker sets it too): a signal the
        // client passes on reaches the line's processes, not the server.
        // SAFETY: setpgid(2) on our child.
        unsafe { libc::setpgid(pid, pid) };
        // SAFETY: making our end non-blocking (fcntl on a descriptor we own).
        unsafe { libc::fcntl(ours.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK) };
        let Some(pidfd) = pidfd_open(pid) else {
            // Without a way to wait for it in the loop, end it.
            // SAFETY: kill(2) and waitpid(2) of our own child.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, std::ptr::null_mut(), 0);
            }
            self.failed_forks += 1;
            return;
        };
        self.workers.push(Worker {
            pid,
            pidfd,
            control: Some(ours),
            pending: Vec::new(),
            pending_fds: Vec::new(),
            line: None,
        });
    }
}

/// Whether the request asks for the shell the server set up: same policy
/// (and no other pin), same audit log, same switches, not interactive.
fn serves(loaded: &Loaded, request: &Request) -> bool {
    let var = |name: &str| {
        request
            .env
            .iter()
            .rev()
            .find(|(k, _)| k.as_bytes() == name.as_bytes())
            .map(|(_, v)| v.clone())
    };
    let Ok(inv) = shell::parse_args(request.argv.get(1..).unwrap_or(&[])) else {
        return false;
    };
    let policy = inv.policy.clone().or_else(|| {
        var("GUARD_SH_POLICY")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    });
    let audit = audit::resolve_audit_path(
        inv.audit.as_deref(),
        var("GUARD_SH_AUDIT").as_deref(),
        &loaded.policy,
        var("XDG_STATE_HOME").as_deref(),
        var("HOME").as_deref(),
    );
    // A pin must be the loaded policy's hash (guard-sh would check the
    // file against it); without one, the file is taken as it is, as
    // the server took it.
    let pinned_elsewhere = var(crate::policy::pin::POLICY_PIN_ENV)
        .is_some_and(|pin| pin.as_bytes() != loaded.policy_sha256.as_bytes());
    let standard_input_is_terminal = request
        .fds
        .iter()
        .any(|(n, fd)| *n == 0 && nix::unistd::isatty(fd).unwrap_or(false));
    !inv.serve
        && !inv.interactive
        && !standard_input_is_terminal
        && policy.as_deref() == Some(loaded.policy_path.as_path())
        && !pinned_elsewhere
        && audit.is_ok_and(|(path, _)| path == loaded.audit_path)
        && SWITCHES.map(var) == loaded.switches
}
