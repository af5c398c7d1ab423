//! A worker of the line server: forked ahead of its line, it takes the
//! next client from the listening socket itself (the server learns of the
//! client once the request is in), checks that the request asks for the
//! shell the server set up, then becomes that line's guard-sh in the
//! client's process state.

use super::wire::{self, Reply, Request, decode_request, peer_pid, pollin, receive, send_all};
use super::{Loaded, SERVER_ENV, serves};
use crate::cli::shell;
use nix::sys::epoll::{Epoll, EpollCreateFlags, EpollEvent, EpollFlags, EpollTimeout};
use std::ffi::{OsStr, OsString};
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::rc::Rc;

/// How long a client may take to send its request.
const REQUEST_SECONDS: i64 = 5;

/// How long a worker that sent the status waits for its client to go.
const CLIENT_GONE_MS: libc::c_int = 1000;

/// The forked worker: wait for a client on `listener`, take its request,
/// tell the server (`control`: `T` with the client's end), and run the
/// line. A client the server does not serve as asked is told to run
/// guard-sh itself, and the worker waits for the next. Never returns.
pub(super) fn idle(server: libc::pid_t, listener: RawFd, control: OwnedFd, loaded: &Loaded) -> ! {
    // SAFETY: plain system calls on integers; the worker is single-threaded.
    unsafe {
        libc::setpgid(0, 0);
        // The line ends with the server (its client can no longer be told).
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
        if libc::getppid() != server {
            libc::_exit(126);
        }
    }
    super::spare_for_tool(&loaded.policy);
    copy_shared_pages();
    let Some(waiting) = wait_alone(listener) else {
        // SAFETY: a worker that cannot wait for a client has nothing to do.
        unsafe { libc::_exit(126) };
    };
    loop {
        let Some(conn) = accept(listener, &waiting) else {
            continue;
        };
        let Some(request) = take_request(&conn) else {
            continue;
        };
        let client = peer_pid(&conn);
        // The request's own fields first; the caller's confinement costs
        // reads of /proc and a prlimit per resource.
        let admitted = serves(loaded, &request)
            .then(|| loaded.confinement.admits(client, &request.proof))
            .flatten();
        let Some(limits) = admitted else {
            let _ = send_all(&conn, &Reply::Fallback.encode());
            continue;
        };
        if wire::send_with_descriptors(&control, b"T", &[conn.as_raw_fd()]).is_err() {
            // SAFETY: without the server there is no one to answer the client.
            unsafe { libc::_exit(126) };
        }
        // SAFETY: the listening socket is the next idle worker's now.
        unsafe { libc::close(listener) };
        drop(waiting);
        become_worker(request, &limits, client, conn, control, loaded);
    }
}

/// Copy now, while the worker waits, the pages it shares with the server
/// and a line will write (heap, stack, the binary's data): a served line
/// took some 100 page faults in guard-sh, 53 of them on the heap and 13 on
/// the stack, each a copy made on the line's way. Best effort
/// (`MADV_POPULATE_WRITE` is Linux 5.14); some 0.4 ms and 0.6 MB per
/// worker, before its line. (Populating the code too, which a fork leaves
/// unmapped in the child, brought nothing measurable.)
fn copy_shared_pages() {
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else {
        return;
    };
    for line in maps.lines() {
        let mut fields = line.split_ascii_whitespace();
        let (Some(range), Some("rw-p")) = (fields.next(), fields.next()) else {
            continue;
        };
        let Some((start, end)) = range.split_once('-') else {
            continue;
        };
        let (Ok(start), Ok(end)) = (
            usize::from_str_radix(start, 16),
            usize::from_str_radix(end, 16),
        ) else {
            continue;
        };
        if end > start && end - start <= MAX_POPULATED {
            // SAFETY: madvise on a mapping of this process; populating
            // changes no contents.
            unsafe {
                libc::madvise(
                    start as *mut libc::c_void,
                    end - start,
                    libc::MADV_POPULATE_WRITE,
                )
            };
        }
    }
}

/// Larger mappings are left to fault in as used.
const MAX_POPULATED: usize = 8 << 20;

/// An epoll instance that waits for `listener` exclusively: a client wakes
/// one of the idle workers, not each (with `poll` both woke, and the one
/// that lost the race ran beside the line on the other core).
fn wait_alone(listener: RawFd) -> Option<Epoll> {
    let epoll = Epoll::new(EpollCreateFlags::EPOLL_CLOEXEC).ok()?;
    // SAFETY: the listener stays open while the worker waits on it.
    let borrowed = unsafe { BorrowedFd::borrow_raw(listener) };
    let wanted = EpollEvent::new(EpollFlags::EPOLLIN | EpollFlags::EPOLLEXCLUSIVE, 0);
    epoll.add(borrowed, wanted).ok()?;
    Some(epoll)
}

/// The next client on `listener`, waited for; None when another took it
/// or the call failed.
fn accept(listener: RawFd, waiting: &Epoll) -> Option<OwnedFd> {
    let mut ready = [EpollEvent::empty()];
    // No time limit: the server ends the worker.
    let _ = waiting.wait(&mut ready, EpollTimeout::NONE);
    // SAFETY: accept4 on the listening socket; no address wanted.
    let fd = unsafe {
        libc::accept4(
            listener,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            libc::SOCK_CLOEXEC,
        )
    };
    if fd < 0 {
        return None;
    }
    // SAFETY: `fd` was just returned by accept4 and nothing else owns it.
    wire::high(unsafe { OwnedFd::from_raw_fd(fd) }).ok()
}

/// Read the request, exactly (what follows it is the client's signals,
/// for the server); None when it is malformed, late or cut short.
fn take_request(conn: &OwnedFd) -> Option<Request> {
    let timeout = libc::timeval {
        tv_sec: REQUEST_SECONDS,
        tv_usec: 0,
    };
    // SAFETY: setsockopt with a valid timeval and its size.
    unsafe {
        libc::setsockopt(
            conn.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVTIMEO,
            (&timeout as *const libc::timeval).cast(),
            std::mem::size_of::<libc::timeval>() as libc::socklen_t,
        );
    }
    let (mut bytes, mut fds) = (Vec::new(), Vec::new());
    loop {
        let want = wire::request_len(&bytes);
        if bytes.len() >= want {
            return decode_request(&bytes, &mut fds).ok().flatten();
        }
        let mut wait = [pollin(conn.as_raw_fd())];
        // SAFETY: one valid pollfd and a time limit in milliseconds.
        if unsafe { libc::poll(wait.as_mut_ptr(), 1, (REQUEST_SECONDS * 1000) as i32) } <= 0 {
            return None;
        }
        if !matches!(receive(conn, want, &mut bytes, &mut fds), Ok(true)) {
            return None;
        }
    }
}

/// In the worker: take on the client's process state, then run guard-sh's
/// session for the request's arguments. Never returns.
fn become_worker(
    request: Request,
    limits: &super::caller::Limits,
    client: Option<u32>,
    conn: OwnedFd,
    control: OwnedFd,
    loaded: &Loaded,
) -> ! {
    let Request {
        argv,
        env,
        umask,
        ignored,
        blocked,
        cwd,
        fds,
        proof,
    } = request;
    drop(proof);
    limits.apply();
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
        trial: loaded.trial.clone(),
    };
    let status = crate::cli::run_to_status("guard-sh", move || shell::run_served(argv, &served));
    // The line is over: its output flushed and its descriptors closed (the
    // client's pipes see their end), the status goes out before this
    // process is taken down, which is then off the line's path.
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    let below_private = (crate::os::private_fd::PRIVATE_FD_FLOOR - 1) as libc::c_uint;
    // SAFETY: closing numbers only this process uses; then exiting.
    unsafe {
        libc::syscall(libc::SYS_close_range, 0, below_private, 0);
    }
    // The server first (so that the client's end closing, once it has its
    // status, ends nothing; the server reads it then), then the client.
    let _ = send_all(&control, b"X");
    super::yield_on_wake(false);
    let _ = send_all(&conn, &Reply::Exited(i32::from(status)).encode());
    // This process's end (and the server's next fork, which it starts)
    // waits for the client to have read its status and gone: on the
    // line's core the client runs first.
    let mut gone = [libc::pollfd {
        fd: conn.as_raw_fd(),
        events: libc::POLLRDHUP,
        revents: 0,
    }];
    // SAFETY: one valid pollfd and a time limit in milliseconds.
    unsafe { libc::poll(gone.as_mut_ptr(), 1, CLIENT_GONE_MS) };
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
