//! `guard-sh --serve`: one process per trial that does once what every
//! `guard-sh -c` does before its line (load and pin the policy, open the
//! audit log, enter guard-sh's own Landlock domain, resolve the protected
//! paths, open each command's read roots), then forks a worker for each
//! line a client hands it. The worker is that `guard-sh` process from the
//! line on: same argument parsing, session record, guard, interpreter and
//! audit, in the client's descriptors, folder, environment, umask and
//! signal state.
//!
//! The client is `guard-sh-client` (`src/bin/guard-sh-client.rs`), a
//! program without a C library whose start costs a tenth of guard-sh's;
//! `guard-sh-launch` starts the server and names it to the harness in
//! [`SERVER_ENV`] (`NAME TOKEN`). Without the variable, or when anything
//! differs from what the server loaded (another policy, pin or audit log,
//! another `GUARD_SH_LANDLOCK`/`GUARD_SH_SUPERVISOR`, a terminal, `-i`),
//! the client runs guard-sh itself: the server is a shortcut, never a
//! different shell.
//!
//! Who may talk to whom: the socket is abstract, so only a process that
//! knows NAME connects, and Landlock's abstract-socket scope keeps every
//! command (each in a domain nested in the server's) from connecting at
//! all. The server speaks first with TOKEN, and a client sends nothing to
//! a peer that does not know it: a process that bound NAME after the
//! server ended gets no line and no descriptor. The variable never reaches
//! a line.
//!
//! The wire (little-endian): server `GSH1` + TOKEN (32 hex digits); client
//! a request ([`decode_request`]) with its descriptors attached
//! (`SCM_RIGHTS`); then the client sends a byte per signal it received
//! (passed to the worker's process group); the server replies
//! ([`Reply`]) `R` when a worker runs the line (or `F`: run guard-sh
//! yourself), then the worker's status when it ends. The client's end closing means
//! the client is gone: the worker's process group is killed.

use crate::audit::{self, AuditSink, FileSink, Redactor};
use crate::cli::Exit;
use crate::cli::shell::{self, Invocation};
use crate::policy::Policy;
use crate::sandbox::landlock;
use crate::sandbox::supervisor::Supervisor;
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Names the server to the client: `NAME TOKEN`.
pub const SERVER_ENV: &str = "GUARD_SH_SERVER";

/// The first bytes of the greeting and of a request.
const MAGIC: &[u8; 4] = b"GSH1";
/// The token's length in hex digits.
const TOKEN_LEN: usize = 32;
/// A request's fixed part: magic, umask, ignored and blocked signals, the
/// number of descriptors, of arguments and of variables, the strings'
/// length.
pub const HEADER_LEN: usize = 40;
/// A request larger than this is refused (the kernel's own limit on
/// arguments and environment together is 2 MiB by default).
const MAX_REQUEST: usize = 8 << 20;
/// Descriptors a request may carry: the folder and 0–63.
const MAX_FDS: usize = 65;

/// What the server says when a line ends, 8 bytes: a tag and a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// The worker exited with this status.
    Exited(i32),
    /// A signal ended the worker.
    Killed(i32),
    /// Not served: the client runs guard-sh itself.
    Fallback,
    /// A worker runs the line (sent first; the client may forget the
    /// secrets it kept for running guard-sh itself).
    Running,
}

impl Reply {
    /// The 8 bytes on the wire.
    pub fn encode(self) -> [u8; 8] {
        let (tag, value) = match self {
            Reply::Exited(code) => (b'X', code),
            Reply::Killed(signal) => (b'K', signal),
            Reply::Fallback => (b'F', 0),
            Reply::Running => (b'R', 0),
        };
        let v = value.to_le_bytes();
        [tag, 0, 0, 0, v[0], v[1], v[2], v[3]]
    }
}

/// One line's process state, as the client had it.
#[derive(Debug)]
pub struct Request {
    /// The client's arguments, `argv[0]` first.
    pub argv: Vec<OsString>,
    /// The client's environment.
    pub env: Vec<(OsString, OsString)>,
    /// Its umask.
    pub umask: u32,
    /// Bit N-1: signal N was ignored.
    pub ignored: u64,
    /// Bit N-1: signal N was blocked.
    pub blocked: u64,
    /// Its working folder.
    pub cwd: OwnedFd,
    /// Its open descriptors, each with its number there.
    pub fds: Vec<(RawFd, OwnedFd)>,
}

/// Read a request: [`HEADER_LEN`] bytes (`GSH1`, then as u32 the umask, as
/// u64 the ignored and the blocked signals, as u32 the number of
/// descriptors N, of arguments, of variables and the strings' length),
/// N numbers (i32), then the arguments and `NAME=VALUE` variables, each
/// ending in NUL. `fds` are the descriptors that came with it: the folder,
/// then one per number. `None`: incomplete so far; `Err`: malformed.
pub fn decode_request(bytes: &[u8], fds: &mut Vec<OwnedFd>) -> Result<Option<Request>, String> {
    let Some(header) = bytes.get(..HEADER_LEN) else {
        return Ok(None);
    };
    if &header[..4] != MAGIC {
        return Err("not a guard-sh request".into());
    }
    let u32_at = |at: usize| {
        u32::from_le_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]])
    };
    let u64_at = |at: usize| u64::from(u32_at(at)) | (u64::from(u32_at(at + 4)) << 32);
    let umask = u32_at(4);
    let (ignored, blocked) = (u64_at(8), u64_at(16));
    let count = |at: usize| usize::try_from(u32_at(at)).unwrap_or(usize::MAX);
    let (nfds, argc, envc, strings_len) = (count(24), count(28), count(32), count(36));
    if nfds >= MAX_FDS || strings_len > MAX_REQUEST {
        return Err("request too large".into());
    }
    let total = HEADER_LEN + 4 * nfds + strings_len;
    if bytes.len() < total {
        return Ok(None);
    }
    if bytes.len() > total {
        return Err("bytes after the request".into());
    }
    if fds.len() != nfds + 1 {
        return Err(format!(
            "{} descriptors for {} numbers and the folder",
            fds.len(),
            nfds
        ));
    }
    let numbers: Vec<RawFd> = bytes[HEADER_LEN..HEADER_LEN + 4 * nfds]
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if numbers.iter().any(|&n| !(0..64).contains(&n)) {
        return Err("a descriptor number out of 0..64".into());
    }
    let strings = &bytes[HEADER_LEN + 4 * nfds..];
    if strings.last().is_some_and(|&b| b != 0) {
        return Err("a string without its NUL".into());
    }
    let mut parts = strings.split(|&b| b == 0);
    let mut take = || parts.next().map(<[u8]>::to_vec);
    let mut argv = Vec::with_capacity(argc);
    for _ in 0..argc {
        argv.push(OsString::from_vec(
            take().ok_or("fewer arguments than said")?,
        ));
    }
    let mut env = Vec::with_capacity(envc);
    for _ in 0..envc {
        let var = take().ok_or("fewer variables than said")?;
        // A string without `=` is not a variable; the kernel passes it,
        // the C library ignores it, and so does guard-sh.
        if let Some(eq) = var.iter().position(|&b| b == b'=') {
            env.push((
                OsString::from_vec(var[..eq].to_vec()),
                OsString::from_vec(var[eq + 1..].to_vec()),
            ));
        }
    }
    if argc + envc != strings.split(|&b| b == 0).count().saturating_sub(1) {
        return Err("more strings than said".into());
    }
    let mut received = std::mem::take(fds).into_iter();
    let cwd = received.next().ok_or("no folder")?;
    Ok(Some(Request {
        argv,
        env,
        umask,
        ignored,
        blocked,
        cwd,
        fds: numbers.into_iter().zip(received).collect(),
    }))
}

/// A request's bytes as the client writes them (for tests; the client
/// writes the same layout itself).
pub fn encode_request(
    argv: &[&[u8]],
    env: &[&[u8]],
    umask: u32,
    ignored: u64,
    blocked: u64,
    numbers: &[RawFd],
) -> Vec<u8> {
    let strings: Vec<u8> = argv
        .iter()
        .chain(env)
        .flat_map(|s| s.iter().copied().chain([0]))
        .collect();
    let len = |n: usize| u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes();
    let mut out = MAGIC.to_vec();
    out.extend(umask.to_le_bytes());
    out.extend(ignored.to_le_bytes());
    out.extend(blocked.to_le_bytes());
    out.extend(len(numbers.len()));
    out.extend(len(argv.len()));
    out.extend(len(env.len()));
    out.extend(len(strings.len()));
    for n in numbers {
        out.extend(n.to_le_bytes());
    }
    out.extend(strings);
    out
}

/// What the server loaded once, handed to each worker.
struct Loaded {
    policy: Rc<Policy>,
    policy_path: PathBuf,
    policy_sha256: String,
    audit_path: PathBuf,
    /// The server's own session: each worker records through a copy.
    sink: FileSink,
    /// `GUARD_SH_LANDLOCK` and `GUARD_SH_SUPERVISOR` as the server saw
    /// them: a client with others is not served.
    switches: [Option<OsString>; 2],
}

/// The variables that change what guard-sh does beyond the line.
const SWITCHES: [&str; 2] = [landlock::LANDLOCK_ENV, "GUARD_SH_SUPERVISOR"];

/// `guard-sh --serve`: set up once, print `NAME TOKEN` on standard output
/// (then close it: the starter reads to its end), and serve until killed.
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
    let enforcement = match landlock::effective_abi(policy.sandbox.mode) {
        Ok(Some(abi)) => format!("landlock-abi-{abi}"),
        Ok(None) => "none".to_string(),
        Err(e) => return Err(Exit::new(126, format!("sandbox: {e}"))),
    };
    let unavailable =
        |e: &dyn std::fmt::Display| Exit::new(126, format!("audit log unavailable: {e}"));
    let (audit_path, _) = audit::resolve_audit_path_from_env(inv.audit.as_deref(), &policy)
        .map_err(|e| unavailable(&e))?;
    let redactor = Redactor::from_policy(&policy.audit).map_err(|e| unavailable(&e))?;
    // SAFETY: prctl with integer arguments only (see `shell::open_audit`).
    unsafe {
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
    let trial = audit::trial::take_from_env();
    let mut sink = FileSink::open(&audit_path, redactor).map_err(|e| unavailable(&e))?;
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    if let Some((_, key)) = &trial {
        sink.seal_with(key.clone());
    }
    let argv: Vec<String> = std::env::args_os()
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
    sink.record(session).map_err(|e| unavailable(&e))?;
    shell::confine_self(&policy, &enforcement, &mut sink)?;
    warm(&policy, &cwd);
    let (listener, name, token) =
        listen().map_err(|e| Exit::new(126, format!("--serve: cannot listen: {e}")))?;
    let loaded = Loaded {
        switches: SWITCHES.map(std::env::var_os),
        policy,
        policy_path,
        policy_sha256,
        audit_path,
        sink,
    };
    announce(&name, &token).map_err(|e| Exit::new(126, format!("--serve: {e}")))?;
    Server {
        listener,
        greeting: [MAGIC.as_slice(), token.as_bytes()].concat(),
        clients: Vec::new(),
        idle: None,
        loaded,
    }
    .run()
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

/// A listening abstract socket with a fresh random name, at a private
/// number, and the token the server greets with.
fn listen() -> io::Result<(OwnedFd, String, String)> {
    let mut random = [0u8; 24];
    crate::os::random::fill(&mut random)?;
    let name = format!("guard-sh-{}", hex::encode(&random[..8]));
    let token = hex::encode(&random[8..]);
    debug_assert_eq!(token.len(), TOKEN_LEN);
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
    Ok((high(socket)?, name, token))
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

/// `fd` moved to a number at [`PRIVATE_FD_FLOOR`] or above, out of the
/// range the workers place their clients' descriptors in and out of a
/// line's reach. Not remembered in [`crate::os::private_fd`]'s set: the
/// server would remember every descriptor of every request, and each
/// worker would inherit the list.
///
/// [`PRIVATE_FD_FLOOR`]: crate::os::private_fd::PRIVATE_FD_FLOOR
fn high(fd: OwnedFd) -> io::Result<OwnedFd> {
    let floor = crate::os::private_fd::PRIVATE_FD_FLOOR;
    // SAFETY: fcntl(2) on a descriptor `fd` owns.
    let moved = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, floor) };
    if moved < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `moved` was just returned by fcntl and nothing else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(moved) })
}

/// Print `NAME TOKEN` and put `/dev/null` where standard output was, so
/// the starter's pipe ends.
fn announce(name: &str, token: &str) -> io::Result<()> {
    use std::io::Write;
    let mut out = io::stdout().lock();
    writeln!(out, "{name} {token}")?;
    out.flush()?;
    let null = std::fs::OpenOptions::new().write(true).open("/dev/null")?;
    nix::unistd::dup2_stdout(&null).map_err(io::Error::from)
}

/// A connected client, by stage.
struct Client {
    conn: OwnedFd,
    /// Its pid, as the kernel tells (`SO_PEERCRED`).
    peer: Option<u32>,
    stage: Stage,
}

enum Stage {
    /// Reading the request, with the descriptors that came so far.
    Receiving { bytes: Vec<u8>, fds: Vec<OwnedFd> },
    /// A worker runs the line.
    Running {
        worker: libc::pid_t,
        pidfd: OwnedFd,
        /// The worker's end, on which it says its status before it exits.
        control: Option<OwnedFd>,
        /// The status went to the client.
        replied: bool,
        /// The client's end closed: nothing more to read or reply.
        gone: bool,
    },
}

struct Server {
    listener: OwnedFd,
    greeting: Vec<u8>,
    clients: Vec<Client>,
    /// The worker forked for the next line.
    idle: Option<Idle>,
    loaded: Loaded,
}

/// A worker forked ahead of its line, waiting for it on `control`.
struct Idle {
    pid: libc::pid_t,
    pidfd: OwnedFd,
    control: OwnedFd,
}

impl Server {
    fn run(mut self) -> ! {
        self.prefork();
        loop {
            let mut polled = vec![pollin(self.listener.as_raw_fd())];
            polled.extend(
                self.idle
                    .as_ref()
                    .map(|idle| pollin(idle.pidfd.as_raw_fd())),
            );
            for client in &self.clients {
                match &client.stage {
                    Stage::Receiving { .. } => polled.push(pollin(client.conn.as_raw_fd())),
                    Stage::Running {
                        pidfd,
                        gone,
                        control,
                        replied,
                        ..
                    } => {
                        polled.push(pollin(pidfd.as_raw_fd()));
                        polled.extend(control.as_ref().map(|c| pollin(c.as_raw_fd())));
                        // Once the client has its status its end closing
                        // ends nothing: what the line left running stays.
                        if !gone && !replied {
                            polled.push(pollin(client.conn.as_raw_fd()));
                        }
                    }
                }
            }
            // SAFETY: `polled` is a valid array of pollfd of its length.
            let n = unsafe { libc::poll(polled.as_mut_ptr(), polled.len() as libc::nfds_t, -1) };
            if n < 0 {
                continue; // EINTR: nothing to do
            }
            let ready: Vec<RawFd> = polled
                .iter()
                .filter(|p| p.revents != 0)
                .map(|p| p.fd)
                .collect();
            for fd in ready {
                if fd == self.listener.as_raw_fd() {
                    self.accept();
                } else {
                    self.ready(fd);
                }
            }
        }
    }

    fn accept(&mut self) {
        // SAFETY: accept4 on the listening socket; no address wanted.
        let fd = unsafe {
            libc::accept4(
                self.listener.as_raw_fd(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                libc::SOCK_CLOEXEC | libc::SOCK_NONBLOCK,
            )
        };
        if fd < 0 {
            return;
        }
        // SAFETY: `fd` was just returned by accept4 and nothing else owns it.
        let Ok(conn) = high(unsafe { OwnedFd::from_raw_fd(fd) }) else {
            return;
        };
        if send_all(&conn, &self.greeting).is_ok() {
            let peer = peer_pid(&conn);
            self.clients.push(Client {
                peer,
                conn,
                stage: Stage::Receiving {
                    bytes: Vec::new(),
                    fds: Vec::new(),
                },
            });
        }
    }

    /// `fd` (a client's end or a worker's pidfd) is ready.
    fn ready(&mut self, fd: RawFd) {
        if let Some(idle) = self.idle.take_if(|idle| idle.pidfd.as_raw_fd() == fd) {
            // The idle worker ended before its line: the next request
            // forks another.
            let _ = reap(idle.pid);
            return;
        }
        let Some(at) = self.clients.iter().position(|c| {
            c.conn.as_raw_fd() == fd
                || matches!(&c.stage, Stage::Running { pidfd, control, .. }
                    if pidfd.as_raw_fd() == fd
                        || control.as_ref().is_some_and(|c| c.as_raw_fd() == fd))
        }) else {
            return;
        };
        let client = &mut self.clients[at];
        match &mut client.stage {
            Stage::Receiving { bytes, fds } => match receive(&client.conn, bytes, fds) {
                Ok(true) => match decode_request(bytes, fds) {
                    Ok(Some(request)) => {
                        let raw = std::mem::take(bytes);
                        let client = self.clients.swap_remove(at);
                        self.start(client.conn, client.peer, &raw, request);
                    }
                    Ok(None) => {}
                    Err(_) => drop(self.clients.swap_remove(at)),
                },
                // The client left (or broke the wire) before its line.
                Ok(false) | Err(_) => drop(self.clients.swap_remove(at)),
            },
            Stage::Running {
                worker,
                pidfd,
                control,
                replied,
                gone,
            } => {
                if pidfd.as_raw_fd() == fd {
                    let (worker, replied) = (*worker, *replied);
                    let client = self.clients.swap_remove(at);
                    if let Some(reply) = reap(worker).filter(|_| !replied) {
                        let _ = send_all(&client.conn, &reply.encode());
                    }
                    return;
                }
                if let Some(from_worker) = control.take_if(|c| c.as_raw_fd() == fd) {
                    // The worker's status, said before it exits (nothing,
                    // if it was killed: its pidfd tells then).
                    let mut status = [0u8; 8];
                    // SAFETY: reading into a stack buffer of its length.
                    let n = unsafe {
                        libc::recv(
                            from_worker.as_raw_fd(),
                            status.as_mut_ptr().cast(),
                            8,
                            libc::MSG_DONTWAIT,
                        )
                    };
                    if n == 8 && status[0] == b'X' {
                        *replied = send_all(&client.conn, &status).is_ok();
                    }
                    return;
                }
                let mut signals = [0u8; 64];
                // SAFETY: reading into a stack buffer of its length.
                let n = unsafe {
                    libc::recv(
                        client.conn.as_raw_fd(),
                        signals.as_mut_ptr().cast(),
                        signals.len(),
                        libc::MSG_DONTWAIT,
                    )
                };
                let group = -*worker;
                if n == 0
                    || (n < 0 && io::Error::last_os_error().kind() != io::ErrorKind::WouldBlock)
                {
                    // The client is gone (killed, most likely): so is its line.
                    *gone = true;
                    // SAFETY: kill(2) of the worker's own process group.
                    unsafe { libc::kill(group, libc::SIGKILL) };
                    return;
                }
                for &signal in &signals[..usize::try_from(n).unwrap_or(0)] {
                    if (1..=64).contains(&signal) {
                        // SAFETY: kill(2) of the worker's own process group.
                        unsafe { libc::kill(group, libc::c_int::from(signal)) };
                    }
                }
            }
        }
    }

    /// Hand `request` (as the client sent it, `raw`) to the idle worker,
    /// or tell the client to run guard-sh itself when this server's set-up
    /// is not the one it asks for (or no worker can be had). Then fork the
    /// next idle worker, while this one runs the line.
    fn start(&mut self, conn: OwnedFd, peer: Option<u32>, raw: &[u8], request: Request) {
        if !self.serves(&request) {
            let _ = send_all(&conn, &Reply::Fallback.encode());
            return;
        }
        self.prefork();
        let Some(idle) = self.idle.take() else {
            let _ = send_all(&conn, &Reply::Fallback.encode());
            return;
        };
        let fds: Vec<RawFd> = std::iter::once(request.cwd.as_raw_fd())
            .chain(request.fds.iter().map(|(_, fd)| fd.as_raw_fd()))
            .collect();
        // The worker gets the client's pid (0: unknown) before its request.
        let message = [&peer.unwrap_or(0).to_le_bytes()[..], raw].concat();
        let handed = send_with_descriptors(&idle.control, &message, &fds);
        // SAFETY: making our end of the socket non-blocking (fcntl on a
        // descriptor we own): the loop reads the status when poll says.
        unsafe { libc::fcntl(idle.control.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK) };
        drop(request);
        if handed.is_err() || send_all(&conn, &Reply::Running.encode()).is_err() {
            // SAFETY: kill(2) of our own child's process group.
            unsafe { libc::kill(-idle.pid, libc::SIGKILL) };
            if handed.is_err() {
                let _ = send_all(&conn, &Reply::Fallback.encode());
            }
        }
        self.clients.push(Client {
            conn,
            peer,
            stage: Stage::Running {
                worker: idle.pid,
                pidfd: idle.pidfd,
                control: Some(idle.control),
                replied: false,
                gone: false,
            },
        });
        self.prefork();
    }

    /// Fork a worker ahead of its line (the fork and the start of the
    /// worker are then off the line's path), unless one waits already.
    fn prefork(&mut self) {
        if self.idle.is_some() {
            return;
        }
        let Ok((ours, theirs)) = stream_pair() else {
            return;
        };
        let server = std::process::id() as libc::pid_t;
        // SAFETY: the server is single-threaded; the child only runs
        // guard-sh's own code before it execs or exits.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            // The worker: the server's clients and sockets are not its.
            drop(ours);
            self.clients.clear();
            // SAFETY: closing the listener's number; the worker never
            // returns to the loop that owns it.
            unsafe { libc::close(self.listener.as_raw_fd()) };
            idle_worker(server, theirs, &self.loaded);
        }
        drop(theirs);
        if pid < 0 {
            return;
        }
        // Its own process group (the worker sets it too): a signal the
        // client forwards reaches the line's processes, not the server.
        // SAFETY: setpgid(2) on our child.
        unsafe { libc::setpgid(pid, pid) };
        let Some(pidfd) = pidfd_open(pid) else {
            // Without a way to wait for it in the loop, end it.
            // SAFETY: kill(2) and waitpid(2) of our own child.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, std::ptr::null_mut(), 0);
            }
            return;
        };
        self.idle = Some(Idle {
            pid,
            pidfd,
            control: ours,
        });
    }

    /// Whether the request asks for the shell this server set up: same
    /// policy (and no other pin), same audit log, same switches, not
    /// interactive.
    fn serves(&self, request: &Request) -> bool {
        let loaded = &self.loaded;
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
}

fn pollin(fd: RawFd) -> libc::pollfd {
    libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    }
}

/// Read what the client sent so far; its descriptors moved to private
/// numbers. False: its end closed.
fn receive(conn: &OwnedFd, bytes: &mut Vec<u8>, fds: &mut Vec<OwnedFd>) -> io::Result<bool> {
    loop {
        let mut buf = [0u8; 16384];
        let mut iov = libc::iovec {
            iov_base: buf.as_mut_ptr().cast(),
            iov_len: buf.len(),
        };
        // Room for MAX_FDS descriptors, aligned for cmsghdr.
        let mut control = [0u64; (MAX_FDS * 4 + 64) / 8];
        // SAFETY: msghdr is plain data; all zeros is a valid value.
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = std::mem::size_of_val(&control) as _;
        // SAFETY: `msg` points at live buffers of the lengths it says.
        let n = unsafe {
            libc::recvmsg(
                conn.as_raw_fd(),
                &mut msg,
                libc::MSG_DONTWAIT | libc::MSG_CMSG_CLOEXEC,
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            return match e.kind() {
                io::ErrorKind::WouldBlock => Ok(true),
                io::ErrorKind::Interrupted => continue,
                _ => Err(e),
            };
        }
        // SAFETY: walking the control messages recvmsg filled in.
        unsafe {
            let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
            while !cmsg.is_null() {
                if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_RIGHTS {
                    let data = libc::CMSG_DATA(cmsg).cast::<RawFd>();
                    let header = libc::CMSG_LEN(0) as usize;
                    let count = ((*cmsg).cmsg_len as usize - header) / std::mem::size_of::<RawFd>();
                    for i in 0..count {
                        let fd = OwnedFd::from_raw_fd(std::ptr::read_unaligned(data.add(i)));
                        fds.push(high(fd)?);
                    }
                }
                cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
            }
        }
        if msg.msg_flags & libc::MSG_CTRUNC != 0 || fds.len() > MAX_FDS {
            return Err(io::Error::other("too many descriptors"));
        }
        if n == 0 {
            return Ok(false);
        }
        bytes.extend_from_slice(&buf[..n as usize]);
        if bytes.len() > MAX_REQUEST + HEADER_LEN + 4 * MAX_FDS {
            return Err(io::Error::other("request too large"));
        }
    }
}

/// Write all of `bytes`, never raising SIGPIPE (a client that is gone
/// must not end the server).
fn send_all(conn: &OwnedFd, mut bytes: &[u8]) -> io::Result<()> {
    while !bytes.is_empty() {
        // SAFETY: sending from a live slice of its length.
        let n = unsafe {
            libc::send(
                conn.as_raw_fd(),
                bytes.as_ptr().cast(),
                bytes.len(),
                libc::MSG_NOSIGNAL,
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            if e.kind() == io::ErrorKind::WouldBlock {
                let mut p = [libc::pollfd {
                    fd: conn.as_raw_fd(),
                    events: libc::POLLOUT,
                    revents: 0,
                }];
                // SAFETY: one valid pollfd; a one-second wait at most.
                if unsafe { libc::poll(p.as_mut_ptr(), 1, 1000) } <= 0 {
                    return Err(io::Error::from(io::ErrorKind::TimedOut));
                }
                continue;
            }
            return Err(e);
        }
        bytes = &bytes[n as usize..];
    }
    Ok(())
}

/// A connected pair of stream sockets at private numbers: the server's
/// end and an idle worker's.
fn stream_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut pair = [0; 2];
    // SAFETY: socketpair(2) into a two-element array.
    if unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_STREAM | libc::SOCK_CLOEXEC,
            0,
            pair.as_mut_ptr(),
        )
    } != 0
    {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both were just returned by socketpair and nothing else owns them.
    let (a, b) = unsafe { (OwnedFd::from_raw_fd(pair[0]), OwnedFd::from_raw_fd(pair[1])) };
    Ok((high(a)?, high(b)?))
}

/// Send `bytes` with the descriptors `fds` attached to the first of them.
fn send_with_descriptors(socket: &OwnedFd, bytes: &[u8], fds: &[RawFd]) -> io::Result<()> {
    let first = bytes.len().min(65536);
    let mut iov = libc::iovec {
        iov_base: bytes.as_ptr().cast_mut().cast(),
        iov_len: first,
    };
    // Room for MAX_FDS descriptors, aligned for cmsghdr.
    let mut control = [0u64; (MAX_FDS * 4 + 64) / 8];
    let payload = std::mem::size_of_val(fds);
    // SAFETY: msghdr is plain data; all zeros is a valid value.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    // SAFETY: CMSG_SPACE and CMSG_LEN compute sizes; the header is written
    // into `control`, which has room for MAX_FDS descriptors.
    unsafe {
        msg.msg_controllen = libc::CMSG_SPACE(payload as u32) as _;
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(payload as u32) as _;
        std::ptr::copy_nonoverlapping(fds.as_ptr(), libc::CMSG_DATA(cmsg).cast(), fds.len());
    }
    let sent = loop {
        // SAFETY: `msg` points at live buffers of the lengths it says.
        let n = unsafe { libc::sendmsg(socket.as_raw_fd(), &msg, libc::MSG_NOSIGNAL) };
        if n >= 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            break n;
        }
    };
    if sent < 0 {
        return Err(io::Error::last_os_error());
    }
    send_all(socket, &bytes[sent as usize..])
}

/// The pid of the process at the other end of `conn`.
fn peer_pid(conn: &OwnedFd) -> Option<u32> {
    // SAFETY: ucred is plain data; getsockopt fills at most its size.
    let mut cred: libc::ucred = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: a valid buffer and its length.
    let got = unsafe {
        libc::getsockopt(
            conn.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    (got == 0 && cred.pid > 0).then_some(cred.pid as u32)
}

fn pidfd_open(pid: libc::pid_t) -> Option<OwnedFd> {
    // SAFETY: pidfd_open(2) with integer arguments.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    let fd = RawFd::try_from(fd).ok().filter(|&fd| fd >= 0)?;
    // SAFETY: `fd` was just returned by pidfd_open and nothing else owns it.
    high(unsafe { OwnedFd::from_raw_fd(fd) }).ok()
}

/// The worker's end, once its pidfd says it ended.
fn reap(worker: libc::pid_t) -> Option<Reply> {
    let mut status = 0;
    // SAFETY: waitpid(2) of our own child with a valid status pointer.
    if unsafe { libc::waitpid(worker, &mut status, 0) } != worker {
        return None;
    }
    if libc::WIFSIGNALED(status) {
        Some(Reply::Killed(libc::WTERMSIG(status)))
    } else {
        Some(Reply::Exited(libc::WEXITSTATUS(status)))
    }
}

/// The forked worker, before its line: wait for the request on `control`,
/// then become the line's guard-sh. Never returns.
fn idle_worker(server: libc::pid_t, control: OwnedFd, loaded: &Loaded) -> ! {
    // SAFETY: plain system calls on integers; the worker is single-threaded.
    unsafe {
        libc::setpgid(0, 0);
        // The line ends with the server (its client can no longer be told).
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
        if libc::getppid() != server {
            libc::_exit(126);
        }
    }
    let (mut bytes, mut fds) = (Vec::new(), Vec::new());
    let (client, request) = loop {
        let mut wait = [pollin(control.as_raw_fd())];
        // SAFETY: one valid pollfd; no time limit (the server ends it).
        unsafe { libc::poll(wait.as_mut_ptr(), 1, -1) };
        match receive(&control, &mut bytes, &mut fds) {
            Ok(true) if bytes.len() < 4 => {}
            Ok(true) => match decode_request(&bytes[4..], &mut fds) {
                Ok(Some(request)) => {
                    let pid = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
                    break ((pid != 0).then_some(pid), request);
                }
                Ok(None) => {}
                // SAFETY: ending the worker before it runs anything.
                Err(_) => unsafe { libc::_exit(126) },
            },
            // The server closed its end: no line will come.
            // SAFETY: ending the worker before it runs anything.
            Ok(false) | Err(_) => unsafe { libc::_exit(0) },
        }
    };
    become_worker(request, client, control, loaded)
}

/// In the worker: take on the client's process state, then run guard-sh's
/// session for the request's arguments. Never returns.
fn become_worker(request: Request, client: Option<u32>, control: OwnedFd, loaded: &Loaded) -> ! {
    let Request {
        argv,
        env,
        umask,
        ignored,
        blocked,
        cwd,
        fds,
    } = request;
    // The client's descriptors at their numbers; the rest of 0..64 closed
    // (the server's own are at 256 and up, close-on-exec).
    // SAFETY: closing and duplicating plain numbers this process owns.
    unsafe {
        // The gaps between the client's numbers, closed a range at a time.
        let mut targets: Vec<RawFd> = fds.iter().map(|(target, _)| *target).collect();
        targets.sort_unstable();
        let mut from = 0;
        for next in targets.iter().copied().chain([64]) {
            if next > from {
                libc::syscall(
                    libc::SYS_close_range,
                    from as libc::c_uint,
                    (next - 1) as libc::c_uint,
                    0,
                );
            }
            from = next + 1;
        }
        for (target, fd) in &fds {
            if libc::dup2(fd.as_raw_fd(), *target) < 0 {
                libc::_exit(126);
            }
        }
    }
    drop(fds);
    if nix::unistd::fchdir(&cwd).is_err() {
        // SAFETY: ending the worker before it runs anything.
        unsafe { libc::_exit(126) };
    }
    drop(cwd);
    // SAFETY: plain system calls on integers and on a valid sigset.
    unsafe {
        libc::umask(umask as libc::mode_t);
        for signal in 1..=64 {
            if ignored & (1 << (signal - 1)) != 0 {
                libc::signal(signal, libc::SIG_IGN);
            }
        }
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for signal in 1..=64 {
            if blocked & (1 << (signal - 1)) != 0 {
                libc::sigaddset(&mut set, signal);
            }
        }
        libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
    }
    set_environment(&env);
    let served = shell::Served {
        policy: Rc::clone(&loaded.policy),
        policy_sha256: loaded.policy_sha256.clone(),
        sink: &loaded.sink,
        client,
    };
    let status = crate::cli::run_to_status("guard-sh", move || shell::run_served(argv, &served));
    // The line is over: its output flushed and its descriptors closed (the
    // client's pipes see their end), the status goes to the server before
    // this process is taken down, which is then off the line's path.
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    let below_private = (crate::os::private_fd::PRIVATE_FD_FLOOR - 1) as libc::c_uint;
    // SAFETY: closing numbers only this process uses; then exiting.
    unsafe {
        libc::syscall(libc::SYS_close_range, 0, below_private, 0);
    }
    let _ = send_all(&control, &Reply::Exited(i32::from(status)).encode());
    // SAFETY: ending the process; everything it owes is written.
    unsafe { libc::_exit(i32::from(status)) }
}

/// Replace the process's environment with `env`, less [`SERVER_ENV`].
fn set_environment(env: &[(OsString, OsString)]) {
    let names: Vec<OsString> = std::env::vars_os().map(|(k, _)| k).collect();
    // SAFETY: the worker is single-threaded; nothing else reads the
    // environment while it is replaced.
    unsafe {
        for name in names {
            std::env::remove_var(name);
        }
        for (name, value) in env {
            let valid = !name.is_empty()
                && !name.as_bytes().contains(&b'=')
                && !value.as_bytes().contains(&0);
            if valid && name.as_os_str() != OsStr::new(SERVER_ENV) {
                std::env::set_var(name, value);
            }
        }
    }
}
