//! The three standard descriptors, open before anything else is.

use std::io;

/// Open `/dev/null` on each of descriptors 0, 1 and 2 that is closed, as
/// Rust's runtime does before `main` (the shells skip that set-up, see
/// `cli::run_without_runtime_setup`): otherwise the first file guard-sh
/// opened would take the number, and a command's output would land in it.
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
        }
    }
    Ok(())
}
