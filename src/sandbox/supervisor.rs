//! Supervision of every `execve` in a command's process tree.
//!
//! Landlock lets a command execute the files of its plan: its binary, its
//! start-up chain (the ELF loader among them) and its helpers. It cannot
//! tell the loader run as `PT_INTERP` from the loader run as a program,
//! which maps any readable file and runs it (`ld-linux-x86-64.so.2
//! ./copy-of-dash`), and it records nothing. So between fork and exec each
//! child also installs a seccomp filter that turns every `execve` and
//! `execveat` of it and of all its descendants into a user notification,
//! and hands the listener to the process that spawned it, which serves it
//! while it waits for the command ([`crate::system::served`]) and hands it
//! on to a supervisor process ([`Supervisor::adopt`]) when the tree
//! outlives the wait. Whoever serves reads the path each call names (from
//! `/proc/PID/mem`, relative paths against the caller's cwd or descriptor),
//! resolves it, lets the call go on only when the file is in the command's
//! plan and is not a loader, and records an `exec` event either way. Other
//! architectures' system-call numbers (x32) are refused by the filter.
//!
//! One call is judged before it is made: the child's own exec of its
//! command. The shell resolved that program in the bin folder and the
//! plan judged it once ([`ExecPlan::first_allowed`]); the shell records the
//! `exec` event after the `spawn` and before it lets the child go, and the
//! filter lets exactly that call (its three addresses) through without a
//! round trip. A program the plan refuses is left to the watch as any
//! other exec.
//!
//! Guarantees: no program outside the plan and no loader named as a
//! program starts under a supervised command, and every program that does
//! start there is recorded with its parent, before it runs. Fail closed: a
//! child that cannot hand over its listener does not exec; a call the
//! supervisor cannot read, resolve or record is refused; if the supervisor
//! is gone, every later `execve` of the tree fails (`ENOSYS`).
//!
//! What it does not cover: the path is read before the kernel acts on it,
//! so a second thread of a process could change it in between (the known
//! limit of seccomp notification); Landlock's execute rule underneath still
//! holds the plan, so what such a race could reach is the loader, which the
//! programs of the harmless set and the tools' helpers do not race.

use super::bpf::{AssembleError, Place, Step, Target, assemble};
use super::landlock::CommandFiles;
use crate::audit::{AuditSink, Event, FileSink};
use crate::os::socket::{self, Received, seqpacket_pair};
use crate::os::{Fd, Pid};
use crate::policy::CommandRule;
use std::collections::BTreeSet;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::os::fd::BorrowedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Set to `off` to run commands without the supervisor (Landlock alone).
pub const SUPERVISOR_ENV: &str = "GUARD_SH_SUPERVISOR";

/// What one command's process tree may execute.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExecPlan {
    /// The command's own executable (its real path) is in the plan and
    /// no loader: the shell records the child's exec of it and the filter
    /// lets that one call through unasked. Judged once, when the plan is
    /// made for the program; not sent with the plan (a watch judges every
    /// exec it is asked about).
    pub first_allowed: bool,
    /// Files, and folders with everything beneath, that may be executed.
    pub allowed: BTreeSet<PathBuf>,
    /// ELF loaders: allowed as `PT_INTERP`, never as a program.
    pub loaders: BTreeSet<PathBuf>,
    /// Addresses the tree may connect or send to (the forge's, resolved).
    pub connect: BTreeSet<SocketAddr>,
    /// Ports it may reach on any address: a forge whose name could not be
    /// resolved here (its addresses are unknown), and DNS for that name.
    pub any_address_ports: BTreeSet<u16>,
}

impl ExecPlan {
    /// The plan for running `exe` under `rule`, from the files
    /// [`CommandFiles::resolve`] found (the same ones Landlock's domain
    /// lets it execute).
    pub fn for_files(rule: &CommandRule, exe: &Path, files: &CommandFiles) -> ExecPlan {
        let mut plan = ExecPlan {
            allowed: files.execute.clone(),
            loaders: files.loaders(),
            ..ExecPlan::default()
        };
        plan.first_allowed =
            std::fs::canonicalize(exe).is_ok_and(|real| plan.refusal(&real).is_none());
        for endpoint in &rule.connect_hosts {
            plan.add_endpoint(endpoint);
        }
        plan
    }

    /// Allow `HOST:PORT`: an address, `localhost`, or a name from
    /// `/etc/hosts`; a name only DNS knows allows its port on any address,
    /// and DNS (port 53).
    fn add_endpoint(&mut self, endpoint: &str) {
        let Some((host, port)) = endpoint.rsplit_once(':') else {
            return;
        };
        let Ok(port) = port.parse::<u16>() else {
            return;
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let addresses = crate::policy::endpoint::resolve_locally(host);
        if addresses.is_empty() {
            self.any_address_ports.insert(port);
            self.any_address_ports.insert(53);
        }
        for ip in addresses {
            self.connect.insert(SocketAddr::new(ip, port));
        }
    }

    /// Why sending to or connecting to `addr` is refused, or `None`.
    fn network_refusal(&self, addr: &SocketAddr) -> Option<&'static str> {
        let addr = match addr.ip() {
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => SocketAddr::new(IpAddr::V4(v4), addr.port()),
                None => *addr,
            },
            IpAddr::V4(_) => *addr,
        };
        if self.connect.contains(&addr) || self.any_address_ports.contains(&addr.port()) {
            None
        } else if self.connect.is_empty() && self.any_address_ports.is_empty() {
            Some("this command may not use the network")
        } else {
            Some("not the forge's address and port")
        }
    }

    /// Why `real` (a canonical path) may not be executed, or `None`.
    pub fn refusal(&self, real: &Path) -> Option<&'static str> {
        if self.loaders.contains(real) || is_loader_name(real) {
            return Some("the ELF loader runs only as a program's interpreter, never as a program");
        }
        if super::landlock::covers(&self.allowed, real) {
            None
        } else {
            Some("not in the command's exec plan")
        }
    }

    /// One line per entry: `A allowed`, `L loader`, `C address`, `P port`.
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut line = |tag: u8, p: &Path| {
            out.push(tag);
            out.push(b' ');
            out.extend_from_slice(p.as_os_str().as_bytes());
            out.push(b'\n');
        };
        for p in &self.allowed {
            line(b'A', p);
        }
        for p in &self.loaders {
            line(b'L', p);
        }
        for a in &self.connect {
            line(b'C', Path::new(&a.to_string()));
        }
        for port in &self.any_address_ports {
            line(b'P', Path::new(&port.to_string()));
        }
        out
    }

    fn decode(bytes: &[u8]) -> ExecPlan {
        let mut plan = ExecPlan::default();
        for line in bytes.split(|&b| b == b'\n') {
            let Some((&tag, rest)) = line.split_first() else {
                continue;
            };
            let path = PathBuf::from(std::ffi::OsStr::from_bytes(
                rest.get(1..).unwrap_or_default(),
            ));
            match tag {
                b'A' => {
                    plan.allowed.insert(path);
                }
                b'L' => {
                    plan.loaders.insert(path);
                }
                b'C' => {
                    if let Ok(a) = path.to_string_lossy().parse() {
                        plan.connect.insert(a);
                    }
                }
                b'P' => {
                    if let Ok(p) = path.to_string_lossy().parse() {
                        plan.any_address_ports.insert(p);
                    }
                }
                _ => {}
            }
        }
        plan
    }
}

/// The names glibc and musl give their dynamic loaders.
fn is_loader_name(path: &Path) -> bool {
    path.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
        n.starts_with("ld-linux")
            || n.starts_with("ld-musl")
            || n.starts_with("ld64.so")
            || n == "ld.so"
    })
}

/// What a child needs to put itself under supervision: the supervisor's
/// socket and its plan, encoded before fork.
#[derive(Debug, Clone)]
pub struct Attach {
    socket: Fd,
    message: Vec<u8>,
    /// The child's own exec of its command goes on unasked
    /// ([`ExecPlan::first_allowed`]).
    first_allowed: bool,
    /// Which filter the process installs.
    harness: bool,
}

impl Attach {
    /// What a child needs to hand its listener, with `plan`, to whoever
    /// reads `inbox`: the supervisor process's socket, or the spawning
    /// process's own ([`Watch::receive`]).
    pub fn to(inbox: Fd, plan: &ExecPlan) -> Attach {
        Attach {
            socket: inbox,
            message: plan.encode(),
            first_allowed: plan.first_allowed,
            harness: false,
        }
    }

    /// What an agent harness's process needs to put itself, and all it
    /// starts, under supervision of its `execve`s alone
    /// ([`harness_filter`]): its sockets, network and rings are its own.
    pub fn harness_to(inbox: Fd, plan: &ExecPlan) -> Attach {
        Attach {
            socket: inbox,
            message: plan.encode(),
            first_allowed: false,
            harness: true,
        }
    }

    /// Whether the filter lets the child's own exec of its command through
    /// unasked ([`ExecPlan::first_allowed`]): the spawner records it then.
    pub fn lets_first_exec_through(&self) -> bool {
        self.first_allowed
    }

    /// In the child, between fork and exec: install the filter and hand
    /// its listener, with the plan, to the supervisor. `first` is the
    /// `execve` the child makes next. Only system calls and stack memory,
    /// no allocation. Returns the errno of the step that failed.
    pub fn enter(&self, first: FirstExec) -> Result<(), i32> {
        let errno = || {
            io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EPERM)
        };
        let mut iov = libc::iovec {
            iov_base: self.message.as_ptr().cast_mut().cast(),
            iov_len: self.message.len(),
        };
        // Room for one descriptor's control message, aligned for cmsghdr.
        let mut control = [0u64; 4];
        // SAFETY: a zeroed msghdr is valid; its pointers are set to live
        // locals; every call below gets pointers valid for its duration.
        unsafe {
            let mut msg: libc::msghdr = std::mem::zeroed();
            msg.msg_iov = &mut iov;
            msg.msg_iovlen = 1;
            msg.msg_control = control.as_mut_ptr().cast();
            msg.msg_controllen = libc::CMSG_SPACE(std::mem::size_of::<libc::c_int>() as u32) as _;
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err(errno());
            }
            let command;
            let harness;
            let (program, len) = if self.harness {
                let Ok(assembled) = harness_filter() else {
                    return Err(libc::EINVAL);
                };
                harness = assembled;
                (harness.as_ptr(), HARNESS_FILTER_LEN)
            } else {
                let Ok(assembled) = filter(
                    self.socket as u32,
                    &msg as *const libc::msghdr as u64,
                    self.first_allowed.then_some(first),
                ) else {
                    return Err(libc::EINVAL);
                };
                command = assembled;
                (command.as_ptr(), FILTER_LEN)
            };
            let prog = libc::sock_fprog {
                len: len as u16,
                filter: program.cast_mut(),
            };
            let listener = libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_SET_MODE_FILTER,
                libc::SECCOMP_FILTER_FLAG_NEW_LISTENER,
                &prog as *const libc::sock_fprog,
            ) as libc::c_int;
            if listener < 0 {
                return Err(errno());
            }
            if !socket::put_descriptor(&msg, listener) {
                libc::close(listener);
                return Err(libc::EINVAL);
            }
            // The system call itself, not the C library's wrapper: the
            // filter exempts exactly this `msg`'s address, and a wrapper
            // may pass a copy (musl does, to clear its padding fields).
            let sent = libc::syscall(
                libc::SYS_sendmsg,
                self.socket,
                &msg as *const libc::msghdr,
                libc::MSG_NOSIGNAL,
            );
            let result = if sent < 0 { Err(errno()) } else { Ok(()) };
            libc::close(listener);
            result
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod arch {
    pub const AUDIT_ARCH: u32 = 0xC000_003E;
    pub const EXECVE: u32 = 59;
    pub const EXECVEAT: u32 = 322;
    pub const SOCKET: u32 = 41;
    pub const CONNECT: u32 = 42;
    pub const SENDTO: u32 = 44;
    pub const SENDMSG: u32 = 46;
    pub const SENDMMSG: u32 = 307;
    pub const IO_URING_SETUP: u32 = 425;
}
#[cfg(target_arch = "aarch64")]
mod arch {
    pub const AUDIT_ARCH: u32 = 0xC000_00B7;
    pub const EXECVE: u32 = 221;
    pub const EXECVEAT: u32 = 281;
    pub const SOCKET: u32 = 198;
    pub const CONNECT: u32 = 203;
    pub const SENDTO: u32 = 206;
    pub const SENDMSG: u32 = 211;
    pub const SENDMMSG: u32 = 269;
    pub const IO_URING_SETUP: u32 = 425;
}

/// Offsets of `seccomp_data`: `nr` at 0, `arch` at 4, `args[i]` at 16 + 8i
/// (low word first on the little-endian machines supported).
const NR: u32 = 0;
const ARCH: u32 = 4;
const fn arg_low(i: u32) -> u32 {
    16 + 8 * i
}
const fn arg_high(i: u32) -> u32 {
    20 + 8 * i
}
/// x32 system calls on x86_64 carry this bit.
const X32_BIT: u32 = 0x4000_0000;
/// Instructions in [`filter`].
const FILTER_LEN: usize = 38;

/// How both filters begin: another architecture's call ends the process,
/// an x32 call fails with `ENOSYS`; the call's number is then loaded.
const PROLOGUE: [Step; 4] = [
    Step::Load(ARCH),
    Step::IfEqual(arch::AUDIT_ARCH, Target::Next, Target::At(Place::Kill)),
    Step::Load(NR),
    Step::IfAtLeast(X32_BIT, Target::At(Place::NoSuchCall), Target::Next),
];

/// How both filters end: the verdicts their jumps name.
const EPILOGUE: [Step; 6] = [
    Step::Here(Place::Notify),
    Step::Return(libc::SECCOMP_RET_USER_NOTIF),
    Step::Here(Place::Kill),
    Step::Return(libc::SECCOMP_RET_KILL_PROCESS),
    Step::Here(Place::NoSuchCall),
    Step::Return(libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32),
];

/// The exact `execve` call a child makes to start its command: the
/// addresses of the path, argv and envp it passes (guard-sh's memory,
/// which the child shares until that exec replaces it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FirstExec {
    /// The program's path.
    pub path: u64,
    /// Its argument vector.
    pub argv: u64,
    /// Its environment.
    pub envp: u64,
}

/// The filter: another architecture's calls end the process; x32 calls
/// and `io_uring_setup` fail with `ENOSYS` (a ring's `connect` and
/// `openat` never pass through this filter, so no ring may exist; programs
/// fall back to plain calls when the kernel has none); `execve`/`execveat`,
/// `connect`, `sendto`, `sendmsg` and `sendmmsg` go to the supervisor;
/// `socket(AF_UNIX, …)` fails with `EACCES` (no local socket, no daemon, no
/// relay); everything else runs.
///
/// Two calls are exempt, each named by addresses only the child has at that
/// moment: the hand-over itself (`sendmsg` on `socket` with the message at
/// `message`, on the child's stack), and, when `first` is given, the
/// child's own exec of its command (`execve` with exactly those three
/// addresses), which the shell has judged and recorded before letting the
/// child go. The exec replaces the memory those addresses were in: a later
/// program of the tree would have to pass all three by accident.
fn filter(
    socket: u32,
    message: u64,
    first: Option<FirstExec>,
) -> Result<[libc::sock_filter; FILTER_LEN], AssembleError> {
    use Place::*;
    use Step::*;
    use Target::*;
    let execve_to = if first.is_some() {
        At(CheckFirst)
    } else {
        At(Notify)
    };
    let first = first.unwrap_or_default();
    // Both words of argument `arg` equal `value`: on to `then`, else notify.
    let same = |arg: u32, value: u64, then: Target| {
        [
            Load(arg_low(arg)),
            IfEqual(value as u32, Next, At(Notify)),
            Load(arg_high(arg)),
            IfEqual((value >> 32) as u32, then, At(Notify)),
        ]
    };
    let [p0, p1, p2, p3] = same(0, first.path, Next);
    let [a0, a1, a2, a3] = same(1, first.argv, Next);
    let [e0, e1, e2, e3] = same(2, first.envp, At(Allow));
    // The hand-over's message address, after its descriptor (one word).
    let [m0, m1, m2, m3] = same(1, message, At(Allow));
    let body = [
        IfEqual(arch::IO_URING_SETUP, At(NoSuchCall), Next),
        IfEqual(arch::EXECVE, execve_to, Next),
        IfEqual(arch::EXECVEAT, At(Notify), Next),
        IfEqual(arch::CONNECT, At(Notify), Next),
        IfEqual(arch::SENDTO, At(Notify), Next),
        IfEqual(arch::SENDMMSG, At(Notify), Next),
        IfEqual(arch::SENDMSG, At(CheckHandover), Next),
        IfEqual(arch::SOCKET, At(CheckSocket), Next),
        Return(libc::SECCOMP_RET_ALLOW),
        Here(CheckFirst),
        p0,
        p1,
        p2,
        p3,
        a0,
        a1,
        a2,
        a3,
        e0,
        e1,
        e2,
        e3,
        Here(CheckHandover),
        Load(arg_low(0)),
        IfEqual(socket, Next, At(Notify)),
        m0,
        m1,
        m2,
        m3,
        Here(CheckSocket),
        Load(arg_low(0)),
        IfEqual(libc::AF_UNIX as u32, At(Refused), At(Allow)),
        Here(Allow),
        Return(libc::SECCOMP_RET_ALLOW),
        Here(Refused),
        Return(libc::SECCOMP_RET_ERRNO | libc::EACCES as u32),
    ];
    assemble(&[&PROLOGUE, &body, &EPILOGUE])
}

/// Instructions in [`harness_filter`].
const HARNESS_FILTER_LEN: usize = 10;

/// The harness's filter: another architecture's calls end the process, x32
/// calls fail with `ENOSYS`, `execve`/`execveat` go to the supervisor, and
/// everything else runs (the hand-over `sendmsg` needs no exemption).
/// The kernel lets one process's chain hold one listener only (a second
/// is `EBUSY`), so no guard-sh command can be supervised beneath it: the
/// harness's lines run in the line server, outside this filter.
fn harness_filter() -> Result<[libc::sock_filter; HARNESS_FILTER_LEN], AssembleError> {
    use Place::*;
    use Step::*;
    use Target::*;
    let body = [
        IfEqual(arch::EXECVE, At(Notify), Next),
        IfEqual(arch::EXECVEAT, At(Notify), Next),
        Return(libc::SECCOMP_RET_ALLOW),
    ];
    assemble(&[&PROLOGUE, &body, &EPILOGUE])
}

/// guard-sh's end of the supervisor's socket (a private descriptor, never
/// closed while guard-sh runs).
#[derive(Debug)]
pub struct Supervisor {
    socket: Fd,
}

impl Supervisor {
    /// Fork the supervisor process, which records through `sink` (a
    /// session of its own, opened with `session`). A process of guard-sh
    /// calls it at its first hand-over ([`Supervisor::adopt`]),
    /// single-threaded and inside its own domain.
    ///
    /// The session record is written by the supervisor, not before the
    /// fork: guard-sh goes on to its command meanwhile, and every page it
    /// writes after the fork would be copied. A supervisor that cannot
    /// record its session ends before it serves, so every command's
    /// hand-over of its listener fails and nothing runs unrecorded.
    pub fn start(sink: FileSink, session: Event) -> io::Result<Supervisor> {
        let (ours, theirs) = seqpacket_pair()?;
        // SAFETY: guard-sh is single-threaded here; the child runs the
        // supervisor loop and exits without returning.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            let e = io::Error::last_os_error();
            // SAFETY: closing the pair made above.
            unsafe {
                libc::close(ours);
                libc::close(theirs);
            }
            return Err(e);
        }
        if pid == 0 {
            // SAFETY: closing guard-sh's end in the supervisor.
            unsafe {
                libc::close(ours);
            }
            detach_from_terminal();
            // Keep nothing of guard-sh's but the socket and the log: a pipe
            // end held here would keep a `$(…)` or a pipeline waiting.
            close_all_except(&[theirs, sink.descriptor()]);
            let mut sink = sink;
            let status = match sink.append(session) {
                Ok(()) => Serve::new(theirs, sink).run(),
                Err(_) => 1,
            };
            // SAFETY: ending the supervisor process.
            unsafe { libc::_exit(status) }
        }
        // SAFETY: closing the supervisor's end in guard-sh.
        unsafe {
            libc::close(theirs);
        }
        drop(sink);
        let socket = crate::os::private_fd::claim(ours)?;
        Ok(Supervisor { socket })
    }

    /// Hand `watch` over: from now on the supervisor process serves its
    /// tree (the spawning process stops waiting for it).
    pub fn adopt(&self, watch: Watch) -> io::Result<()> {
        // SAFETY: `self.socket` is this supervisor's end, open while it lives.
        let socket = unsafe { BorrowedFd::borrow_raw(self.socket) };
        socket::send_with_descriptors(socket, &watch.plan.encode(), &[watch.listener]).map(drop)
        // `watch` is dropped here: the supervisor holds its own copy.
    }

    /// What a harness's process needs to put itself, and every process it
    /// starts, under this supervisor with `plan`, its `execve`s alone
    /// ([`Attach::harness_to`]).
    pub fn attach_harness(&self, plan: &ExecPlan) -> Attach {
        Attach::harness_to(self.socket, plan)
    }

    /// Whether supervision is wanted (`GUARD_SH_SUPERVISOR` is not `off`).
    pub fn wanted() -> bool {
        std::env::var_os(SUPERVISOR_ENV).is_none_or(|v| v != "off")
    }
}

/// The supervisor keeps running until every command it watches has ended;
/// the terminal's signals are not for it.
fn detach_from_terminal() {
    // SAFETY: changing this process's signal dispositions and descriptors.
    unsafe {
        for signal in [
            libc::SIGINT,
            libc::SIGQUIT,
            libc::SIGTSTP,
            libc::SIGHUP,
            libc::SIGTERM,
            libc::SIGPIPE,
        ] {
            libc::signal(signal, libc::SIG_IGN);
        }
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        if null >= 0 {
            libc::dup2(null, 0);
            libc::dup2(null, 1);
            libc::dup2(null, 2);
            if null > 2 {
                libc::close(null);
            }
        }
    }
}

/// Close every descriptor from 3 up except `keep`.
fn close_all_except(keep: &[Fd]) {
    let mut keep: Vec<Fd> = keep.iter().copied().filter(|&fd| fd >= 3).collect();
    keep.sort_unstable();
    let mut from: u32 = 3;
    for fd in keep.into_iter().map(|fd| fd as u32) {
        if fd > from {
            // SAFETY: close_range on descriptor numbers this process owns.
            unsafe {
                libc::syscall(libc::SYS_close_range, from, fd - 1, 0u32);
            }
        }
        from = fd + 1;
    }
    // SAFETY: as above.
    unsafe {
        libc::syscall(libc::SYS_close_range, from, u32::MAX, 0u32);
    }
}

/// One supervised process tree: the listener its filter reports to and the
/// plan its calls are judged by. Served by the process that spawned the
/// command while it waits for it, or by the supervisor process it was
/// handed to ([`Supervisor::adopt`]).
#[derive(Debug)]
pub struct Watch {
    listener: Fd,
    plan: ExecPlan,
    /// The command's pid, when the process that spawned it serves the
    /// watch itself.
    command: Option<Pid>,
}

impl Watch {
    /// Take a listener and its plan from `inbox` (a child of guard-sh's
    /// hand-over, or a process handing its watch over): `Ok(None)` when
    /// the other end is closed, `Err` when nothing usable came.
    pub fn receive(inbox: Fd) -> io::Result<Option<Watch>> {
        // Room for the largest plan, left unwritten: the kernel touches only
        // the pages the message fills (zeroing 256 KiB first cost a page
        // fault per page on every command's way to its first exec). Kept
        // for the process: a fresh one was a mapping made and unmapped per
        // command, and the unmapping interrupts the other core (where the
        // command runs) to flush its TLB.
        thread_local! {
            static BUFFER: std::cell::RefCell<Vec<u8>> =
                std::cell::RefCell::new(Vec::with_capacity(256 * 1024));
        }
        let mut buf = BUFFER.with(|b| std::mem::take(&mut *b.borrow_mut()));
        buf.clear();
        if buf.capacity() < 256 * 1024 {
            buf.reserve(256 * 1024);
        }
        let give_back = |mut buf: Vec<u8>| {
            buf.clear();
            BUFFER.with(|b| *b.borrow_mut() = buf);
        };
        let received = socket::receive_one_descriptor(inbox, &mut buf);
        let fd = match received {
            Ok(Received::Message(Some(fd))) => fd,
            Ok(Received::Message(None)) => {
                give_back(buf);
                return Err(io::Error::other("a message without a listener"));
            }
            Ok(Received::Closed) => {
                give_back(buf);
                return Ok(None);
            }
            Err(e) => {
                give_back(buf);
                return Err(e);
            }
        };
        let plan = ExecPlan::decode(&buf);
        give_back(buf);
        // Among the private descriptors: the kernel gave the lowest free
        // number, which a line may name, or one of 0-2 it closed, where a
        // command's standard descriptors are put.
        let fd = crate::os::private_fd::claim(fd)?;
        Ok(Some(Watch {
            listener: fd,
            plan,
            command: None,
        }))
    }

    /// This process spawned `command` and serves the watch itself.
    pub fn served_by_spawner(&mut self, command: Pid) {
        self.command = Some(command);
    }

    /// The command whose tree this is, when this process spawned it.
    pub fn command(&self) -> Option<Pid> {
        self.command
    }

    /// Ask the kernel to wake the notifying process and its server on one
    /// CPU (`SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP`, Linux 6.6): each call is
    /// a round trip between two processes that otherwise sleep, and waking
    /// across CPUs costs an interrupt each way. Older kernels refuse the
    /// flag; that costs nothing but the speed.
    pub fn wake_on_one_cpu(&self) {
        const SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP: u64 = 1;
        // SAFETY: an ioctl on the listener this watch owns, with a flag word.
        unsafe {
            libc::ioctl(
                self.listener,
                libc::SECCOMP_IOCTL_NOTIF_SET_FLAGS,
                SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP,
            );
        }
    }

    /// The listener, to poll: readable when a call waits for an answer,
    /// hung up when no process of the tree is left.
    pub fn listener(&self) -> Fd {
        self.listener
    }

    /// Answer the call waiting on the listener, recording it in `sink`
    /// before it may go on (a call that cannot be recorded is refused).
    pub fn answer(&mut self, sink: &mut dyn AuditSink) {
        let listener = self.listener;
        // SAFETY: a zeroed notification buffer of the kernel's layout.
        let mut notif: libc::seccomp_notif = unsafe { std::mem::zeroed() };
        // SAFETY: the ioctl fills `notif`.
        let r = unsafe { libc::ioctl(listener, libc::SECCOMP_IOCTL_NOTIF_RECV, &mut notif) };
        if r != 0 {
            return;
        }
        let pid = notif.pid as i32;
        let nr = notif.data.nr as u32;
        if nr != arch::EXECVE && nr != arch::EXECVEAT {
            self.answer_network(sink, &notif);
            return;
        }
        let named = exec_target(pid, &notif.data);
        let (path, refusal) =
            match named.and_then(|p| std::fs::canonicalize(&p).map(|real| (p, real))) {
                Ok((named, real)) => {
                    let refusal = self.plan.refusal(&real);
                    (named.display().to_string(), refusal.map(str::to_string))
                }
                Err(e) => (
                    "?".to_string(),
                    Some(format!("cannot tell what it executes: {e}")),
                ),
            };
        let allowed = refusal.is_none();
        if let Some(why) = &refusal {
            tell_refusal(pid, &format!("running {path}"), why);
        }
        let recorded = sink.record(Event::Exec {
            pid,
            ppid: parent_of(pid),
            path,
            allowed,
            reason: refusal.clone().unwrap_or_default(),
        });
        respond(listener, notif.id, allowed && recorded.is_ok());
    }

    /// Whether no process of the tree is left (the listener hung up), asked
    /// without waiting.
    pub fn ended(&self) -> bool {
        let mut pfd = libc::pollfd {
            fd: self.listener,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd, no wait.
        let n = unsafe { libc::poll(&mut pfd, 1, 0) };
        n == 1
            && pfd.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0
            && pfd.revents & libc::POLLIN == 0
    }
}

/// What to poll while serving: `inbox` (where new listeners arrive), if
/// any, then each watch's listener.
pub fn poll_set(inbox: Option<Fd>, watches: &[Watch]) -> Vec<libc::pollfd> {
    inbox
        .into_iter()
        .chain(watches.iter().map(Watch::listener))
        .map(|fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect()
}

/// Act on what `polled` (the watches' part of a [`poll_set`] after `poll`)
/// reports: answer each waiting call, recorded in `sink`, then drop each
/// tree whose listener hung up (no process of it is left to call; checked
/// after answering, so a listener that reports both is never polled again
/// in a loop).
pub fn serve_ready(watches: &mut Vec<Watch>, polled: &[libc::pollfd], sink: &mut dyn AuditSink) {
    let mut ended = Vec::new();
    for (i, pfd) in polled.iter().enumerate().take(watches.len()) {
        if pfd.revents & libc::POLLIN != 0 {
            watches[i].answer(sink);
        }
        if pfd.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0 {
            ended.push(i);
        }
    }
    for i in ended.into_iter().rev() {
        watches.remove(i);
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        // Closing the listener this watch owns; it is forgotten as private.
        let _ = crate::os::private_fd::close(self.listener);
    }
}

/// The supervisor's loop.
struct Serve {
    control: Option<Fd>,
    sink: FileSink,
    watched: Vec<Watch>,
}

impl Serve {
    fn new(control: Fd, sink: FileSink) -> Serve {
        Serve {
            control: Some(control),
            sink,
            watched: Vec::new(),
        }
    }

    /// Serve until guard-sh has gone and no watched tree is left.
    fn run(mut self) -> i32 {
        loop {
            if self.control.is_none() && self.watched.is_empty() {
                return 0;
            }
            let mut fds = poll_set(self.control, &self.watched);
            // SAFETY: a valid array of pollfd.
            let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, -1) };
            if n < 0 {
                if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return 1;
            }
            let mut index = 0;
            if let Some(control) = self.control {
                let revents = fds[0].revents;
                index = 1;
                if revents & libc::POLLIN != 0 {
                    match Watch::receive(control) {
                        Ok(Some(watch)) => self.watched.push(watch),
                        Ok(None) => self.close_control(control),
                        Err(_) => {}
                    }
                } else if revents & (libc::POLLHUP | libc::POLLERR) != 0 {
                    self.close_control(control);
                }
            }
            serve_ready(&mut self.watched, &fds[index..], &mut self.sink);
        }
    }

    /// guard-sh closed the control socket: nothing new will come.
    fn close_control(&mut self, control: Fd) {
        // SAFETY: closing our end of the control socket.
        unsafe {
            libc::close(control);
        }
        self.control = None;
    }
}

/// Answer notification `id`: let the call go on when `allowed` and it is
/// still the same call (the process was not killed and the id not reused),
/// else fail it with `EACCES`.
fn respond(listener: Fd, id: u64, allowed: bool) {
    let mut check = id;
    // SAFETY: the ioctl reads `check`.
    let valid =
        unsafe { libc::ioctl(listener, libc::SECCOMP_IOCTL_NOTIF_ID_VALID, &mut check) } == 0;
    let go_on = allowed && valid;
    let mut resp = libc::seccomp_notif_resp {
        id,
        val: 0,
        error: if go_on { 0 } else { -libc::EACCES },
        flags: if go_on {
            libc::SECCOMP_USER_NOTIF_FLAG_CONTINUE as u32
        } else {
            0
        },
    };
    // SAFETY: the ioctl reads `resp`.
    unsafe {
        libc::ioctl(listener, libc::SECCOMP_IOCTL_NOTIF_SEND, &mut resp);
    }
}

impl Watch {
    /// A `connect`/`sendto`/`sendmsg`/`sendmmsg`: every destination address
    /// it names must be the forge's (the plan's); calls on a connected
    /// socket name none and go on. Each address is recorded with the verdict.
    fn answer_network(&mut self, sink: &mut dyn AuditSink, notif: &libc::seccomp_notif) {
        let listener = self.listener;
        let pid = notif.pid as i32;
        let data = &notif.data;
        let nr = data.nr as u32;
        let call = match nr {
            arch::CONNECT => "connect",
            arch::SENDTO => "sendto",
            arch::SENDMSG => "sendmsg",
            _ => "sendmmsg",
        };
        let named = match nr {
            arch::CONNECT => read_sockaddr(pid, data.args[1], data.args[2]).map(|a| vec![a]),
            arch::SENDTO if data.args[4] == 0 => Ok(Vec::new()),
            arch::SENDTO => read_sockaddr(pid, data.args[4], data.args[5]).map(|a| vec![a]),
            arch::SENDMSG => read_msg_name(pid, data.args[1]).map(|a| a.into_iter().collect()),
            _ => (0..data.args[2].min(64))
                .map(|k| read_msg_name(pid, data.args[1] + k * 64))
                .collect::<io::Result<Vec<_>>>()
                .map(|v| v.into_iter().flatten().collect()),
        };
        let mut refusal = None;
        let mut recorded = Ok(());
        match named {
            Err(e) => refusal = Some(format!("cannot read the address: {e}")),
            Ok(addresses) => {
                for address in addresses {
                    let why = match &address {
                        Destination::Inet(a) => self.plan.network_refusal(a).map(str::to_string),
                        Destination::Unspecified => None,
                        Destination::Other(family) => {
                            Some(format!("address family {family} is not the forge's"))
                        }
                    };
                    if recorded.is_ok() {
                        recorded = sink.record(Event::Connect {
                            pid,
                            ppid: parent_of(pid),
                            call: call.to_string(),
                            address: address.to_string(),
                            allowed: why.is_none(),
                            reason: why.clone().unwrap_or_default(),
                        });
                    }
                    if refusal.is_none()
                        && let Some(why) = why
                    {
                        let verb = if call == "connect" {
                            "connecting to"
                        } else {
                            "sending to"
                        };
                        tell_refusal(pid, &format!("{verb} {address}"), &why);
                        refusal = Some(why);
                    }
                }
            }
        }
        respond(listener, notif.id, refusal.is_none() && recorded.is_ok());
    }
}

/// Say on this process's standard error that a command's call was
/// refused, so the agent reads a refusal where it would otherwise read a
/// network fault or a missing file (`curl: (7) Failed to connect`): the
/// command's own error follows. A shell serving its command's calls has
/// the line's standard error there (with the command's redirections);
/// the supervisor process has `/dev/null`.
fn tell_refusal(pid: i32, what: &str, why: &str) {
    use std::io::Write;
    let name = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
    let name = name.trim_end();
    let _ = writeln!(
        std::io::stderr(),
        "guard-sh: denied: {name}: {what} is not permitted ({why})"
    );
}

/// Where a network call sends.
#[derive(Debug)]
enum Destination {
    Inet(SocketAddr),
    /// `AF_UNSPEC`: dissolving a connection.
    Unspecified,
    Other(u16),
}

impl std::fmt::Display for Destination {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Destination::Inet(a) => write!(f, "{a}"),
            Destination::Unspecified => f.write_str("unspecified"),
            Destination::Other(family) => write!(f, "family {family}"),
        }
    }
}

/// Bytes at `address` in process `pid`.
fn read_memory(pid: i32, address: u64, len: usize) -> io::Result<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let mem = std::fs::File::open(format!("/proc/{pid}/mem"))?;
    let mut buf = vec![0u8; len];
    mem.read_exact_at(&mut buf, address)?;
    Ok(buf)
}

/// The socket address of `len` bytes at `address`.
fn read_sockaddr(pid: i32, address: u64, len: u64) -> io::Result<Destination> {
    let len = (len as usize).min(128);
    if len < 2 {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    let raw = read_memory(pid, address, len)?;
    let family = u16::from_ne_bytes([raw[0], raw[1]]);
    let port = |raw: &[u8]| u16::from_be_bytes([raw[2], raw[3]]);
    Ok(match family as i32 {
        libc::AF_INET if len >= 8 => {
            let ip = std::net::Ipv4Addr::new(raw[4], raw[5], raw[6], raw[7]);
            Destination::Inet(SocketAddr::new(IpAddr::V4(ip), port(&raw)))
        }
        libc::AF_INET6 if len >= 24 => {
            let mut octets = [0u8; 16];
            octets.copy_from_slice(&raw[8..24]);
            let ip = std::net::Ipv6Addr::from(octets);
            Destination::Inet(SocketAddr::new(IpAddr::V6(ip), port(&raw)))
        }
        libc::AF_UNSPEC => Destination::Unspecified,
        other => Destination::Other(other as u16),
    })
}

/// The destination a `msghdr` at `address` names, if any (`msg_name` at
/// offset 0, `msg_namelen` at 8).
fn read_msg_name(pid: i32, address: u64) -> io::Result<Option<Destination>> {
    let raw = read_memory(pid, address, 12)?;
    let name = u64::from_ne_bytes(raw[0..8].try_into().unwrap_or_default());
    let len = u32::from_ne_bytes(raw[8..12].try_into().unwrap_or_default());
    if name == 0 || len == 0 {
        return Ok(None);
    }
    read_sockaddr(pid, name, u64::from(len)).map(Some)
}

/// The file an `execve`/`execveat` of process `pid` names, resolved
/// against its cwd or directory descriptor (not yet canonical).
fn exec_target(pid: i32, data: &libc::seccomp_data) -> io::Result<PathBuf> {
    let (dirfd, address, flags) = if data.nr as u32 == arch::EXECVEAT {
        (data.args[0] as i32, data.args[1], data.args[4] as i32)
    } else {
        (libc::AT_FDCWD, data.args[0], 0)
    };
    let named = read_string(pid, address)?;
    let proc = PathBuf::from(format!("/proc/{pid}"));
    if named.is_empty() {
        if flags & libc::AT_EMPTY_PATH != 0 {
            return std::fs::read_link(proc.join(format!("fd/{dirfd}")));
        }
        return Err(io::Error::from_raw_os_error(libc::ENOENT));
    }
    let named = PathBuf::from(std::ffi::OsStr::from_bytes(&named));
    if named.is_absolute() {
        return Ok(named);
    }
    let base = if dirfd == libc::AT_FDCWD {
        std::fs::read_link(proc.join("cwd"))?
    } else {
        std::fs::read_link(proc.join(format!("fd/{dirfd}")))?
    };
    Ok(base.join(named))
}

/// A NUL-terminated string at `address` in process `pid` (at most PATH_MAX).
fn read_string(pid: i32, address: u64) -> io::Result<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let mem = std::fs::File::open(format!("/proc/{pid}/mem"))?;
    let mut buf = vec![0u8; libc::PATH_MAX as usize];
    let mut len = 0;
    // Read page by page: the string may end just before an unmapped page.
    while len < buf.len() {
        let at = address + len as u64;
        let page_left = 4096 - (at % 4096) as usize;
        let want = page_left.min(buf.len() - len);
        let n = mem.read_at(&mut buf[len..len + want], at)?;
        if n == 0 {
            break;
        }
        if let Some(end) = buf[len..len + n].iter().position(|&b| b == 0) {
            buf.truncate(len + end);
            return Ok(buf);
        }
        len += n;
    }
    Err(io::Error::from_raw_os_error(libc::ENAMETOOLONG))
}

/// The parent of `pid`, from `/proc/PID/stat` (0 if unknown).
fn parent_of(pid: i32) -> i32 {
    use std::io::Read;
    // `pid (comm) state ppid …`: the parent is within the first 128 bytes
    // (a pid has at most 10 digits, comm at most 64 bytes), so one read.
    let mut head = [0u8; 128];
    let Ok(n) =
        std::fs::File::open(format!("/proc/{pid}/stat")).and_then(|mut f| f.read(&mut head))
    else {
        return 0;
    };
    let head = &head[..n];
    // comm may hold spaces and parentheses: the state follows the last `)`.
    head.iter()
        .rposition(|&b| b == b')')
        .and_then(|close| std::str::from_utf8(&head[close + 1..]).ok())
        .and_then(|rest| rest.split_whitespace().nth(1)?.parse().ok())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic)] // test code reports failures by panicking
    use super::*;

    #[test]
    fn the_parent_is_read_from_proc_stat() {
        // SAFETY: getppid and getpid have no preconditions.
        let (pid, ppid) = unsafe { (libc::getpid(), libc::getppid()) };
        assert_eq!(parent_of(pid), ppid);
        assert_eq!(parent_of(i32::MAX), 0);
    }

    #[test]
    fn a_plan_survives_its_encoding_and_refuses_loaders_and_strangers() {
        let plan = ExecPlan {
            allowed: [
                "/usr/bin/tea",
                "/usr/lib/git-core",
                "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
            ]
            .into_iter()
            .map(PathBuf::from)
            .collect(),
            loaders: ["/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"]
                .into_iter()
                .map(PathBuf::from)
                .collect(),
            ..ExecPlan::default()
        };
        assert_eq!(ExecPlan::decode(&plan.encode()), plan);
        assert_eq!(plan.refusal(Path::new("/usr/bin/tea")), None);
        assert_eq!(
            plan.refusal(Path::new("/usr/lib/git-core/git-remote-http")),
            None
        );
        assert!(
            plan.refusal(Path::new("/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"))
                .is_some()
        );
        assert!(
            plan.refusal(Path::new("/lib/ld-musl-x86_64.so.1"))
                .is_some()
        );
        assert!(plan.refusal(Path::new("/usr/bin/dash")).is_some());
        assert!(
            plan.refusal(Path::new("/usr/lib/git-core-evil/x"))
                .is_some()
        );
    }

    #[test]
    fn the_network_plan_allows_the_forge_only() {
        let addr = |s: &str| {
            s.parse::<SocketAddr>()
                .unwrap_or_else(|_| SocketAddr::from(([0, 0, 0, 0], 0)))
        };
        let mut plan = ExecPlan::default();
        assert!(plan.network_refusal(&addr("127.0.0.1:3000")).is_some());
        plan.add_endpoint("127.0.0.1:3000");
        plan.add_endpoint("[::1]:3000");
        assert_eq!(plan.network_refusal(&addr("127.0.0.1:3000")), None);
        assert_eq!(plan.network_refusal(&addr("[::ffff:127.0.0.1]:3000")), None);
        assert_eq!(plan.network_refusal(&addr("[::1]:3000")), None);
        assert!(plan.network_refusal(&addr("127.0.0.2:3000")).is_some());
        assert!(plan.network_refusal(&addr("127.0.0.1:3001")).is_some());
        assert_eq!(ExecPlan::decode(&plan.encode()), plan);
        // A name only DNS knows: its port anywhere, and DNS.
        let mut named = ExecPlan::default();
        named.add_endpoint("forge.invalid:443");
        assert_eq!(named.network_refusal(&addr("203.0.113.5:443")), None);
        assert_eq!(named.network_refusal(&addr("203.0.113.5:53")), None);
        assert!(named.network_refusal(&addr("203.0.113.5:80")).is_some());
    }

    /// Runs `program` on one call the way the kernel's classic BPF does,
    /// for the instructions [`filter`] uses.
    fn verdict(program: &[libc::sock_filter], nr: u32, arch: u32, args: [u64; 3]) -> u32 {
        let mut data = [0u32; 10];
        data[0] = nr;
        data[1] = arch;
        for (i, arg) in args.into_iter().enumerate() {
            data[4 + 2 * i] = arg as u32;
            data[5 + 2 * i] = (arg >> 32) as u32;
        }
        let (mut pc, mut acc) = (0usize, 0u32);
        loop {
            let insn = program[pc];
            let code = u32::from(insn.code);
            if code == libc::BPF_RET | libc::BPF_K {
                return insn.k;
            }
            if code == libc::BPF_LD | libc::BPF_W | libc::BPF_ABS {
                acc = data[insn.k as usize / 4];
                pc += 1;
                continue;
            }
            let taken = if code == libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K {
                acc == insn.k
            } else if code == libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K {
                acc >= insn.k
            } else {
                panic!("instruction {code:#x} at {pc} is not interpreted");
            };
            pc += 1 + usize::from(if taken { insn.jt } else { insn.jf });
        }
    }

    #[test]
    fn the_filter_sends_each_call_where_its_doc_says() {
        let first = FirstExec {
            path: 0x7f00_0000_1000,
            argv: 0x7f00_0000_2000,
            envp: 0x7f00_0000_3000,
        };
        let notify = libc::SECCOMP_RET_USER_NOTIF;
        let allow = libc::SECCOMP_RET_ALLOW;
        let errno = |e: i32| libc::SECCOMP_RET_ERRNO | e as u32;
        for judged in [None, Some(first)] {
            let program = filter(7, 0x7fff_0000_1234, judged).expect("the filter assembles");
            let call = |nr: u32, args: [u64; 3]| verdict(&program, nr, arch::AUDIT_ARCH, args);
            for nr in [
                arch::EXECVE,
                arch::EXECVEAT,
                arch::CONNECT,
                arch::SENDTO,
                arch::SENDMMSG,
            ] {
                assert_eq!(call(nr, [0, 0, 0]), notify, "call {nr}");
            }
            assert_eq!(call(arch::SENDMSG, [3, 0x7fff_0000_1234, 0]), notify);
            assert_eq!(call(arch::SENDMSG, [7, 0x7fff_0000_1235, 0]), notify);
            assert_eq!(call(arch::SENDMSG, [7, 0x7ffe_0000_1234, 0]), notify);
            assert_eq!(call(arch::SENDMSG, [7, 0x7fff_0000_1234, 0]), allow);
            assert_eq!(
                call(arch::SOCKET, [libc::AF_UNIX as u64, 0, 0]),
                errno(libc::EACCES)
            );
            assert_eq!(call(arch::SOCKET, [libc::AF_INET as u64, 0, 0]), allow);
            assert_eq!(call(arch::IO_URING_SETUP, [1, 0, 0]), errno(libc::ENOSYS));
            assert_eq!(call(0, [0, 0, 0]), allow);
            assert_eq!(call(X32_BIT | arch::EXECVE, [0, 0, 0]), errno(libc::ENOSYS));
            assert_eq!(
                verdict(&program, arch::EXECVE, 0x4000_0003, [0, 0, 0]),
                libc::SECCOMP_RET_KILL_PROCESS
            );
            // The child's own exec goes on unasked only when judged, and
            // only with all three addresses, each word of each.
            let own = [first.path, first.argv, first.envp];
            let expected = if judged.is_some() { allow } else { notify };
            assert_eq!(call(arch::EXECVE, own), expected);
            assert_eq!(call(arch::EXECVEAT, own), notify);
            for i in 0..3 {
                for flip in [1u64, 1 << 40] {
                    let mut other = own;
                    other[i] ^= flip;
                    assert_eq!(call(arch::EXECVE, other), notify, "{other:x?}");
                }
            }
        }
    }

    #[test]
    fn the_harness_filter_asks_about_execs_only() {
        let program = harness_filter().expect("the harness filter assembles");
        let call = |nr: u32| verdict(&program, nr, arch::AUDIT_ARCH, [0, 0, 0]);
        assert_eq!(call(arch::EXECVE), libc::SECCOMP_RET_USER_NOTIF);
        assert_eq!(call(arch::EXECVEAT), libc::SECCOMP_RET_USER_NOTIF);
        for nr in [
            arch::CONNECT,
            arch::SENDTO,
            arch::SENDMSG,
            arch::SENDMMSG,
            arch::SOCKET,
            arch::IO_URING_SETUP,
            0,
        ] {
            assert_eq!(call(nr), libc::SECCOMP_RET_ALLOW, "call {nr}");
        }
        assert_eq!(
            call(X32_BIT | arch::EXECVE),
            libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32
        );
        assert_eq!(
            verdict(&program, arch::EXECVE, 0x4000_0003, [0, 0, 0]),
            libc::SECCOMP_RET_KILL_PROCESS
        );
    }
}
