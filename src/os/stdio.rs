//! The three standard descriptors: held open while guard-sh sets itself
//! up, closed again for the line when the caller closed them.

use std::io;
use std::sync::atomic::{AtomicU8, Ordering};

/// Which of descriptors 0, 1 and 2 (bits 0 to 2) hold a `/dev/null`
/// placeholder [`open_standard_descriptors`] opened.
static PLACEHOLDERS: AtomicU8 = AtomicU8::new(0);

/// Open `/dev/null` on each of descriptors 0, 1 and 2 that is closed, as
/// Rust's runtime does before `main` (the shells skip that set-up, see
/// `cli::run_without_runtime_setup`): otherwise the first file guard-sh
/// opened while it sets up (the policy, the audit log) would take the
/// number. [`close_placeholders`] closes them again before the line runs.
/// One `poll` when all three are open. An error when `/dev/null` cannot be
/// opened for a closed one (the caller must not go on).
pub fn open_standard_descriptors() -> io::Result<()> {
    let mut fds = [0, 1, 2].map(|fd| libc::pollfd {
        fd,
        events: 0,
        revents: 0,
    });
    // SAFETY: a valid array of three pollfd; a zero timeout.
    let polled = unsafe { libc::poll(fds.as_mut_ptr(), 3, 0) };
    for pollfd in fds {
        // If poll itself failed, check each descriptor instead.
        let closed = if polled < 0 {
            // SAFETY: F_GETFD on a plain number.
            unsafe { libc::fcntl(pollfd.fd, libc::F_GETFD) == -1 }
        } else {
            pollfd.revents & libc::POLLNVAL != 0
        };
        if closed {
            // SAFETY: a NUL-terminated literal path; the lowest free
            // number is the closed one (the lower ones are open).
            let opened = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) };
            if opened < 0 {
                return Err(io::Error::last_os_error());
            }
            if opened != pollfd.fd {
                // SAFETY: closing the descriptor just opened.
                unsafe { libc::close(opened) };
                return Err(io::Error::other(format!(
                    "/dev/null opened as descriptor {opened}, not {}",
                    pollfd.fd
                )));
            }
            PLACEHOLDERS.fetch_or(1 << pollfd.fd, Ordering::Relaxed);
        }
    }
    Ok(())
}

/// Close the placeholders [`open_standard_descriptors`] opened, once
/// guard-sh's own files are open (each at a private number): a line then
/// finds closed what its caller closed, as under bash (`echo hi` fails
/// with a write error and status 1, a command inherits the descriptor
/// closed). Every descriptor guard-sh opens later is close-on-exec and
/// moved to a private number or closed before the line goes on.
pub fn close_placeholders() {
    let held = PLACEHOLDERS.swap(0, Ordering::Relaxed);
    for fd in 0..3 {
        if held & (1 << fd) != 0 {
            // SAFETY: closing a descriptor this module opened.
            unsafe { libc::close(fd) };
        }
    }
}
