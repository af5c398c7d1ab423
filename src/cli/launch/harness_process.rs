//! The harness's process: forked from the launcher, it enters the
//! harness's files domain, puts itself under the exec supervisor, starts
//! the line server's marker beside itself and becomes the harness.
//!
//! Why a fork and not a spawn: the line server serves only a caller whose
//! Landlock domain is the one its marker stands in (see
//! `crate::cli::serve`), and Landlock names a domain by the process that
//! entered it, not by its rules. So one process enters the harness's
//! domain and starts both the marker and the harness from it; the
//! harness's environment then names the marker, whose pid is known only
//! after that. The launcher itself stays outside the domain (it holds the
//! trial's key and its audit log open), where the harness can neither
//! trace nor signal it.

use super::{STATUS_CANNOT_EXECUTE, STATUS_FAILED, STATUS_NOT_FOUND, failed};
use crate::cli::Exit;
use crate::cli::serve::{
    MARKER_ARG, MARKER_WATCHES_PIDFD, SERVER_ENV, SERVER_PIDFD, TOKEN_FD, marker_command,
};
use crate::sandbox::landlock::Confinement;
use crate::sandbox::supervisor::{Attach, FirstExec};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

/// The line server's marker, as the harness's process starts it.
pub(super) struct Marker {
    /// guard-sh, re-run with [`MARKER_ARG`].
    pub guard_sh: PathBuf,
    /// The memfd whose identity the server compares.
    pub token: OwnedFd,
    /// A pidfd of the server: the marker ends when it does.
    pub server: OwnedFd,
    /// The server's `NAME PID START`; the marker's pid completes it.
    pub address: String,
}

/// What the harness's process needs between the fork and the exec.
pub(super) struct HarnessStart<'a> {
    /// The harness, its arguments and environment (but the address).
    pub command: std::process::Command,
    pub program: &'a Path,
    /// The files domain (nothing enforced without Landlock).
    pub files: Confinement,
    /// The exec supervisor's filter to install, when there is one.
    pub execs: Option<Attach>,
    /// The line server's marker, when there is a server.
    pub marker: Option<Marker>,
    /// The trial's cgroup files to enter (none without a cgroup).
    pub cgroup: Vec<std::os::fd::RawFd>,
}

/// Fork the harness's process; its pid. Refused when the launcher has
/// more than one thread: the child runs Rust code (it allocates) until
/// its exec, which only a single-threaded parent makes safe.
pub(super) fn start(start: HarnessStart) -> Result<libc::pid_t, Exit> {
    let threads = std::fs::read_dir("/proc/self/task")
        .map_err(|e| failed(format!("/proc/self/task: {e}")))?
        .count();
    if threads != 1 {
        return Err(failed(format!(
            "the launcher runs {threads} threads; it forks only with one"
        )));
    }
    // SAFETY: fork(2) in a process with one thread (checked above): the
    // child has a consistent heap and runs only `become_harness`, which
    // never returns.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(failed(format!("fork: {}", std::io::Error::last_os_error())));
    }
    if pid == 0 {
        become_harness(start);
    }
    Ok(pid)
}

/// In the child: enter the domain, start the marker, exec the harness.
/// On failure say why and end with 125 (domain, marker), 126 (not
/// executable) or 127 (not found), the launcher's own statuses.
fn become_harness(mut start: HarnessStart) -> ! {
    let Err((code, message)) = exec_harness(&mut start);
    eprintln!("guard-sh-launch: {message}");
    // SAFETY: _exit ends this process only, without running the
    // launcher's exit handlers twice.
    unsafe { libc::_exit(i32::from(code)) }
}

fn exec_harness(start: &mut HarnessStart) -> Result<std::convert::Infallible, (u8, String)> {
    crate::sandbox::cgroup::enter(&start.cgroup).map_err(|errno| {
        let e = std::io::Error::from_raw_os_error(errno);
        (STATUS_FAILED, format!("the trial's cgroup: {e}"))
    })?;
    start
        .files
        .enforce()
        .map_err(|e| (STATUS_FAILED, format!("the harness's domain: {e}")))?;
    if let Some(execs) = &start.execs {
        execs.enter(FirstExec::default()).map_err(|errno| {
            let e = std::io::Error::from_raw_os_error(errno);
            (STATUS_FAILED, format!("the harness's exec supervisor: {e}"))
        })?;
    }
    if let Some(marker) = &start.marker {
        let pid = start_marker(marker)
            .map_err(|e| (STATUS_FAILED, format!("the line server's marker: {e}")))?;
        start
            .command
            .env(SERVER_ENV, format!("{} {pid}", marker.address));
    }
    let error = start.command.exec();
    let code = if error.kind() == std::io::ErrorKind::NotFound {
        STATUS_NOT_FOUND
    } else {
        STATUS_CANNOT_EXECUTE
    };
    Err((code, format!("{}: {error}", start.program.display())))
}

/// Start the marker in this process's domain: guard-sh with the token at
/// [`TOKEN_FD`], the server's pidfd at [`SERVER_PIDFD`], an empty
/// environment and nothing else open. Not waited for: it becomes the
/// harness's child, and the launcher (the trial's subreaper) reaps it.
fn start_marker(marker: &Marker) -> std::io::Result<u32> {
    let token = marker.token.as_raw_fd();
    let server = marker.server.as_raw_fd();
    let mut command = marker_command(&marker.guard_sh, [MARKER_ARG, MARKER_WATCHES_PIDFD]);
    // SAFETY: between fork and exec only async-signal-safe calls on
    // integers: dup2, fcntl, close_range.
    unsafe {
        command.pre_exec(move || {
            // Each source moved above both targets first, so neither dup2
            // overwrites the other's source.
            let token = libc::fcntl(token, libc::F_DUPFD, SERVER_PIDFD + 1);
            let server = libc::fcntl(server, libc::F_DUPFD, SERVER_PIDFD + 1);
            if token < 0
                || server < 0
                || libc::dup2(token, TOKEN_FD) != TOKEN_FD
                || libc::dup2(server, SERVER_PIDFD) != SERVER_PIDFD
            {
                return Err(std::io::Error::last_os_error());
            }
            libc::syscall(
                libc::SYS_close_range,
                (SERVER_PIDFD + 1) as libc::c_uint,
                libc::c_uint::MAX,
                libc::CLOSE_RANGE_CLOEXEC,
            );
            Ok(())
        });
    }
    Ok(command.spawn()?.id())
}
