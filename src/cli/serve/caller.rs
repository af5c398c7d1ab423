//! Whom a worker may serve: a line never has more authority than the
//! process that asked for it. The server reproduces a caller's
//! descriptors, folder, umask and signals, but not its kernel
//! confinement, so it serves only a caller confined exactly as the server
//! was when it started (which is how the launcher's harness is), and
//! takes on the caller's resource limits. Any other caller is sent back
//! to run guard-sh itself, in its own confinement.
//!
//! What "confined exactly as the server was" compares, each read by the
//! kernel's word, not the client's:
//!
//! - **Landlock domain.** Landlock has no interface that names a
//!   process's domain, but it lets a process reach another one through
//!   `ptrace` access (which opening `/proc/PID/fd/N` needs) only when the
//!   target's domain is its own or nested in it. The server keeps a
//!   marker process in its starting domain, holding a memfd at descriptor
//!   3 (a token). A caller in that same domain can open
//!   `/proc/MARKER/fd/3`; a caller in a domain of its own (a harness that
//!   confines its shell call further) cannot. A caller in an outer domain,
//!   or in none, can open it too: its line then runs with less authority
//!   than the caller had, never more. The client opens the token and
//!   sends the descriptor; the worker checks it is the token itself.
//! - **Namespaces**: the client's `/proc/self/ns/*`, sent as descriptors,
//!   must be the server's (mount, network, PID, user, …).
//! - **Credentials, capabilities, `no_new_privs`, seccomp**: the lines of
//!   `/proc/CLIENT/status` that say them must equal the server's own at
//!   its start (a seccomp filter adds to `Seccomp_filters`).
//! - **cgroup**: `/proc/CLIENT/cgroup` must equal the server's.
//!
//! The resource limits are read from the kernel with `prlimit` on the
//! client's pid (held by the connection) and set in the worker before the
//! line runs.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;

pub use guard_sh_wire::{NAMESPACES, TOKEN_FD};

/// The argument that makes guard-sh the server's marker (see the module
/// docs): it holds descriptor 3 and waits, nothing else.
pub const MARKER_ARG: &str = "--serve-marker";

/// The marker's argument that says the process to outlive is named by a
/// pidfd at [`SERVER_PIDFD`], not by its parent's pid: a marker the
/// launcher starts in the harness's domain is the harness's child.
pub const MARKER_WATCHES_PIDFD: &str = "pidfd";

/// The descriptor such a marker finds the server's pidfd at.
pub const SERVER_PIDFD: libc::c_int = 4;

/// Set for `guard-sh --serve` to how many seccomp filters its callers
/// carry beyond the server's own: the launcher puts the harness under an
/// exec supervisor whose filter the server must not carry (one listener
/// per process's chain: the server's commands need theirs).
pub const CALLER_FILTERS_ENV: &str = "GUARD_SH_SERVE_CALLER_FILTERS";

/// Set for `guard-sh --serve` to the number of an inherited memfd: the
/// token of a marker its starter keeps in the harness's Landlock domain
/// (see `crate::cli::launch`). The server then starts no marker of its
/// own and prints its address without one.
pub const TOKEN_ENV: &str = "GUARD_SH_SERVE_TOKEN";

/// The lines of `/proc/PID/status` that say how a process is confined.
const STATUS_FIELDS: [&str; 11] = [
    "Uid:",
    "Gid:",
    "Groups:",
    "NoNewPrivs:",
    "Seccomp:",
    "Seccomp_filters:",
    "CapInh:",
    "CapPrm:",
    "CapEff:",
    "CapBnd:",
    "CapAmb:",
];

/// Every resource limit Linux has (the C library's type for one: unsigned
/// in glibc, int in musl).
#[cfg(target_env = "gnu")]
type Resource = libc::__rlimit_resource_t;
#[cfg(not(target_env = "gnu"))]
type Resource = libc::c_int;
const RESOURCES: [Resource; 16] = [
    libc::RLIMIT_CPU,
    libc::RLIMIT_FSIZE,
    libc::RLIMIT_DATA,
    libc::RLIMIT_STACK,
    libc::RLIMIT_CORE,
    libc::RLIMIT_RSS,
    libc::RLIMIT_NPROC,
    libc::RLIMIT_NOFILE,
    libc::RLIMIT_MEMLOCK,
    libc::RLIMIT_AS,
    libc::RLIMIT_LOCKS,
    libc::RLIMIT_SIGPENDING,
    libc::RLIMIT_MSGQUEUE,
    libc::RLIMIT_NICE,
    libc::RLIMIT_RTPRIO,
    libc::RLIMIT_RTTIME,
];

/// A file's identity: device and inode.
pub(super) type Identity = (u64, u64);

/// How the server was confined when it started, and the marker that
/// stands in its starting Landlock domain.
pub(super) struct Confinement {
    /// The marker the server started; None when its starter keeps one.
    marker: Option<std::process::Child>,
    token: Identity,
    status: Vec<String>,
    cgroup: Vec<u8>,
    namespaces: Vec<Identity>,
}

/// The resource limits of a client, to be set in its worker.
pub(super) struct Limits(Vec<(Resource, libc::rlimit)>);

impl Confinement {
    /// Take this process's confinement as the one to serve, and start the
    /// marker. Call before the server confines itself further.
    /// With `token` (handed in through [`TOKEN_ENV`]), the marker is the
    /// starter's, in the domain the starter gives its harness, and the
    /// server starts none.
    pub(super) fn of_this_process(token: Option<Identity>) -> io::Result<Confinement> {
        Confinement::with_marker(std::path::Path::new("/proc/self/exe"), MARKER_ARG, token)
    }

    /// [`Confinement::of_this_process`] with `program ARG` as the marker.
    fn with_marker(
        program: &std::path::Path,
        arg: &str,
        token: Option<Identity>,
    ) -> io::Result<Confinement> {
        let extra = caller_filters()?;
        let status = with_filters(
            status_lines(&std::fs::read_to_string("/proc/self/status")?),
            extra,
        );
        let cgroup = std::fs::read("/proc/self/cgroup")?;
        let namespaces = NAMESPACES
            .iter()
            .map(|ns| std::fs::metadata(format!("/proc/self/ns/{ns}")).map(|m| (m.dev(), m.ino())))
            .collect::<io::Result<Vec<_>>>()?;
        let (identity, marker) = match token {
            Some(token) => (token, None),
            None => {
                let token = new_token()?;
                let marker = start_marker(program, arg, &token)?;
                (fstat_identity(&token)?, Some(marker))
            }
        };
        Ok(Confinement {
            marker,
            token: identity,
            status,
            cgroup,
            namespaces,
        })
    }

    /// The pid of the marker the server started, for its address.
    pub(super) fn marker_pid(&self) -> Option<u32> {
        self.marker.as_ref().map(std::process::Child::id)
    }

    /// Whether `client`, which sent `proof`, is confined as the server
    /// was; its limits when it is.
    pub(super) fn admits(&self, client: Option<u32>, proof: &[OwnedFd]) -> Option<Limits> {
        let client = client?;
        let identities: Vec<Identity> = proof
            .iter()
            .map(|fd| fstat_identity(fd).ok())
            .collect::<Option<_>>()?;
        let (token, namespaces) = identities.split_first()?;
        if *token != self.token || namespaces != self.namespaces.as_slice() {
            return None;
        }
        let status = std::fs::read_to_string(format!("/proc/{client}/status")).ok()?;
        let cgroup = std::fs::read(format!("/proc/{client}/cgroup")).ok()?;
        if status_lines(&status) != self.status || cgroup != self.cgroup {
            return None;
        }
        Limits::of(client)
    }
}

impl Drop for Confinement {
    fn drop(&mut self) {
        if let Some(marker) = &mut self.marker {
            let _ = marker.kill();
            let _ = marker.wait();
        }
    }
}

/// The identity of the token a starter handed in through [`TOKEN_ENV`],
/// taken (the descriptor closed, the variable forgotten) before the
/// server closes what it inherited. An
/// unusable value is an error: a server told of a marker must not start
/// one of its own in another domain.
pub(super) fn inherited_token() -> io::Result<Option<Identity>> {
    let Some(value) = std::env::var_os(TOKEN_ENV) else {
        return Ok(None);
    };
    crate::audit::trial::forget_variable(TOKEN_ENV);
    let fd: libc::c_int = value
        .to_str()
        .and_then(|v| v.parse().ok())
        .filter(|&fd| fd > 2)
        .ok_or_else(|| io::Error::other(format!("{TOKEN_ENV}: not a descriptor number")))?;
    // SAFETY: fcntl(2) on an integer; only a descriptor that is open is taken.
    if unsafe { libc::fcntl(fd, libc::F_GETFD) } < 0 {
        return Err(io::Error::other(format!("{TOKEN_ENV}: {fd} is not open")));
    }
    // SAFETY: the starter handed this descriptor to this process alone to
    // own; nothing else in it uses the number.
    let token = unsafe { OwnedFd::from_raw_fd(fd) };
    let stat = nix::sys::stat::fstat(&token).map_err(io::Error::from)?;
    if stat.st_mode & libc::S_IFMT != libc::S_IFREG {
        return Err(io::Error::other(format!("{TOKEN_ENV}: {fd} is no memfd")));
    }
    Ok(Some((stat.st_dev, stat.st_ino)))
}

impl Limits {
    /// Every resource limit of process `pid`, as the kernel has them.
    fn of(pid: u32) -> Option<Limits> {
        let mut limits = Vec::new();
        for resource in RESOURCES {
            let mut limit = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            // SAFETY: prlimit(2) reading into a valid rlimit; no new limit.
            let read = unsafe {
                libc::prlimit(
                    pid as libc::pid_t,
                    resource as _,
                    std::ptr::null(),
                    &mut limit,
                )
            };
            if read != 0 {
                return None;
            }
            limits.push((resource, limit));
        }
        Some(Limits(limits))
    }

    /// Set them on this process. A hard limit above this process's own
    /// cannot be raised (that needs a capability the caller may have had):
    /// it stays this process's, and the soft limit at most that, so the
    /// line never gets more than either.
    pub(super) fn apply(&self) {
        for &(resource, wanted) in &self.0 {
            let mut own = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            // SAFETY: getrlimit/setrlimit with valid rlimit pointers.
            unsafe {
                if libc::getrlimit(resource as _, &mut own) != 0 {
                    continue;
                }
                let max = wanted.rlim_max.min(own.rlim_max);
                let limit = libc::rlimit {
                    rlim_cur: wanted.rlim_cur.min(max),
                    rlim_max: max,
                };
                libc::setrlimit(resource as _, &limit);
            }
        }
    }
}

/// [`CALLER_FILTERS_ENV`], taken (and forgotten): 0 when unset.
fn caller_filters() -> io::Result<u32> {
    let Some(value) = std::env::var_os(CALLER_FILTERS_ENV) else {
        return Ok(0);
    };
    crate::audit::trial::forget_variable(CALLER_FILTERS_ENV);
    value
        .to_str()
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| io::Error::other(format!("{CALLER_FILTERS_ENV}: not a number")))
}

/// `status` (the server's confinement lines) as a caller with `extra`
/// more seccomp filters has them: in filter mode (2), with that many more.
fn with_filters(status: Vec<String>, extra: u32) -> Vec<String> {
    if extra == 0 {
        return status;
    }
    status
        .into_iter()
        .map(|line| {
            if let Some(count) = line.strip_prefix("Seccomp_filters:\t") {
                let count: u32 = count.trim().parse().unwrap_or(0);
                format!("Seccomp_filters:\t{}", count + extra)
            } else if line.starts_with("Seccomp:") {
                "Seccomp:\t2".to_string()
            } else {
                line
            }
        })
        .collect()
}

/// The confinement lines of a `/proc/PID/status` text, in order.
fn status_lines(status: &str) -> Vec<String> {
    status
        .lines()
        .filter(|line| STATUS_FIELDS.iter().any(|f| line.starts_with(f)))
        .map(str::to_string)
        .collect()
}

fn fstat_identity(fd: &OwnedFd) -> io::Result<Identity> {
    let stat = nix::sys::stat::fstat(fd).map_err(io::Error::from)?;
    Ok((stat.st_dev, stat.st_ino))
}

/// An empty memfd, close-on-exec: a marker's token (the server's own, or
/// the one the launcher hands it).
pub fn new_token() -> io::Result<OwnedFd> {
    // SAFETY: memfd_create(2) with a NUL-terminated name.
    let fd = unsafe { libc::memfd_create(c"guard-sh-token".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just returned by memfd_create and nothing else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Start this program again as the marker: a fresh image (none of the
/// server's memory, the trial's key included, is readable through it), an
/// empty environment, the token at [`TOKEN_FD`], nothing else open, ended
/// with the server.
fn start_marker(
    program: &std::path::Path,
    arg: &str,
    token: &OwnedFd,
) -> io::Result<std::process::Child> {
    let token = token.as_raw_fd();
    let mut command = marker_command(program, [arg, &std::process::id().to_string()]);
    // SAFETY: between fork and exec only async-signal-safe calls on
    // integers: prctl, getppid, dup2, fcntl, close_range.
    unsafe {
        let server = libc::getpid();
        command.pre_exec(move || {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
            // dup2 onto itself keeps close-on-exec: cleared by hand.
            if libc::getppid() != server
                || libc::dup2(token, TOKEN_FD) != TOKEN_FD
                || libc::fcntl(TOKEN_FD, libc::F_SETFD, 0) != 0
            {
                return Err(io::Error::last_os_error());
            }
            // Everything past the token closes at the exec.
            libc::syscall(
                libc::SYS_close_range,
                (TOKEN_FD + 1) as libc::c_uint,
                libc::c_uint::MAX,
                libc::CLOSE_RANGE_CLOEXEC,
            );
            Ok(())
        });
    }
    command.spawn()
}

/// A marker as either of its starters runs it: `program ARGS` under the
/// name `guard-sh`, a fresh image with an empty environment and no
/// standard streams (the starter's pre-exec hook puts its descriptors in
/// place and closes the rest).
pub fn marker_command<const N: usize>(
    program: &std::path::Path,
    args: [&str; N],
) -> std::process::Command {
    let mut command = std::process::Command::new(program);
    command
        .arg0("guard-sh")
        .args(args)
        .env_clear()
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    command
}

/// The marker's life: hold the token until the server (pid `server`, its
/// parent) ends. Not by a parent-death signal: the server, once in its
/// own Landlock domain, may not signal a process outside it (Landlock's
/// signal scope), so the kernel drops that signal and markers outlived
/// their servers (measured). A pidfd of the server says when it ended.
///
/// `server` is its pid, or [`MARKER_WATCHES_PIDFD`]: the server is named
/// by the pidfd its starter put at [`SERVER_PIDFD`]. Anything else ends
/// the marker at once.
pub fn hold_token(server: &std::ffi::OsStr) -> ! {
    let parent: Option<libc::pid_t> = server.to_str().and_then(|pid| pid.parse().ok());
    // SAFETY: pidfd_open, getppid, fcntl, poll on a valid pollfd and
    // _exit, with integer arguments.
    unsafe {
        let pidfd = match parent {
            Some(server) => {
                let pidfd = libc::syscall(libc::SYS_pidfd_open, server, 0) as libc::c_int;
                // The pidfd names the parent only if the server is still it.
                if libc::getppid() != server {
                    libc::_exit(0);
                }
                pidfd
            }
            None if server == MARKER_WATCHES_PIDFD
                && libc::fcntl(SERVER_PIDFD, libc::F_GETFD) >= 0 =>
            {
                SERVER_PIDFD
            }
            None => -1,
        };
        if pidfd < 0 {
            libc::_exit(0);
        }
        let mut ended = libc::pollfd {
            fd: pidfd,
            events: libc::POLLIN,
            revents: 0,
        };
        while libc::poll(&mut ended, 1, -1) <= 0 {}
        libc::_exit(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_callers_extra_filters_are_expected_in_filter_mode() {
        let own = status_lines("Uid:\t0\nSeccomp:\t0\nSeccomp_filters:\t0\nCapEff:\t0\n");
        assert_eq!(with_filters(own.clone(), 0), own);
        assert_eq!(
            with_filters(own, 1),
            [
                "Uid:\t0",
                "Seccomp:\t2",
                "Seccomp_filters:\t1",
                "CapEff:\t0"
            ]
        );
        let filtered = status_lines("Seccomp:\t2\nSeccomp_filters:\t3\n");
        assert_eq!(
            with_filters(filtered, 2),
            ["Seccomp:\t2", "Seccomp_filters:\t5"]
        );
    }

    #[test]
    fn only_the_confinement_lines_are_compared() {
        let status = "Name:\tx\nUmask:\t0022\nState:\tS\nUid:\t0\t0\t0\t0\nNoNewPrivs:\t1\n\
                      Seccomp:\t2\nSeccomp_filters:\t1\nCapEff:\t0\nVmRSS:\t9 kB\n";
        assert_eq!(
            status_lines(status),
            [
                "Uid:\t0\t0\t0\t0",
                "NoNewPrivs:\t1",
                "Seccomp:\t2",
                "Seccomp_filters:\t1",
                "CapEff:\t0"
            ]
        );
    }

    #[test]
    fn a_client_without_the_token_or_a_namespace_is_not_admitted() -> io::Result<()> {
        // A test binary run again would not hold the token; `sleep` does.
        let confinement = Confinement::with_marker(std::path::Path::new("/bin/sleep"), "60", None)?;
        // (`sleep 60 PID` sleeps longer; the confinement's drop ends it.)
        let me = std::process::id();
        let ns = |name: &str| -> io::Result<OwnedFd> {
            Ok(std::fs::File::open(format!("/proc/self/ns/{name}"))?.into())
        };
        let proof = |token: OwnedFd| -> io::Result<Vec<OwnedFd>> {
            let mut fds = vec![token];
            for name in NAMESPACES {
                fds.push(ns(name)?);
            }
            Ok(fds)
        };
        let token = || -> io::Result<OwnedFd> {
            let marker = confinement.marker_pid().unwrap_or_default();
            let path = format!("/proc/{marker}/fd/{TOKEN_FD}");
            Ok(std::fs::File::open(path)?.into())
        };
        assert!(confinement.admits(Some(me), &proof(token()?)?).is_some());
        // Another memfd is not the token.
        assert!(
            confinement
                .admits(Some(me), &proof(new_token()?)?)
                .is_none()
        );
        // A namespace swapped for another file.
        let mut swapped = proof(token()?)?;
        swapped[3] = std::fs::File::open("/proc/self/ns/net")?.into();
        assert!(confinement.admits(Some(me), &swapped).is_none());
        // One short.
        let mut short = proof(token()?)?;
        short.pop();
        assert!(confinement.admits(Some(me), &short).is_none());
        assert!(confinement.admits(None, &proof(token()?)?).is_none());
        Ok(())
    }
}
