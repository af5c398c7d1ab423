//! The bottom layer: thin, policy-free wrappers over kernel facilities
//! that several stages share — descriptors kept out of a line's reach
//! ([`private_fd`]), the shell's signal state ([`signals`]) and real paths
//! resolved with a memory of the folders on the way ([`real_path`]),
//! the wall-time bound of the line being run ([`deadline`]), whether glibc
//! would load a locale ([`locale_files`]),
//! random bytes ([`random`]), the `/proc` files a line may read
//! ([`procfs`]), the stack left to recurse ([`stack`]) and the standard
//! descriptors at start ([`stdio`]), unix sockets and the descriptors they
//! carry ([`socket`]); in a build on musl, what it replaces of that C
//! library (`musl`).
//! Nothing here depends on any other module of the crate.

pub mod deadline;
pub mod locale_files;
#[cfg(target_env = "musl")]
pub mod musl;
pub mod private_fd;
pub mod procfs;
pub mod random;
pub mod real_path;
pub mod signals;
pub mod socket;
pub mod stack;
pub mod stdio;

/// A file descriptor number.
pub type Fd = i32;
/// A process id.
pub type Pid = i32;

/// Open `path` with `O_PATH` (a handle on the file itself: no read, no
/// side effect of opening a device or a FIFO), close-on-exec. Not through
/// `std::fs::OpenOptions`: the standard library masks `O_ACCMODE` out of a
/// custom flag, and musl counts `O_PATH` in `O_ACCMODE`, so a build on
/// musl would open the file for reading instead. `openat`, not `open`:
/// musl's `open` adds an `fcntl` to every close-on-exec open.
pub fn open_path(path: &std::path::Path) -> std::io::Result<std::os::fd::OwnedFd> {
    use nix::fcntl::{AT_FDCWD, OFlag, openat};
    openat(
        AT_FDCWD,
        path,
        OFlag::O_PATH | OFlag::O_CLOEXEC,
        nix::sys::stat::Mode::empty(),
    )
    .map_err(std::io::Error::from)
}

/// `fcntl(fd, F_DUPFD_CLOEXEC, floor)`: a close-on-exec copy of `fd` at the
/// lowest free number at or above `floor`, owned by the caller. The system
/// call itself: musl's wrapper adds an `F_SETFD` to each (for kernels older
/// than 2.6.24).
pub fn duplicate_at_least(fd: Fd, floor: Fd) -> std::io::Result<std::os::fd::OwnedFd> {
    use std::os::fd::FromRawFd;
    // SAFETY: fcntl(2) on a descriptor number; the kernel checks it.
    let copy = unsafe { libc::syscall(libc::SYS_fcntl, fd, libc::F_DUPFD_CLOEXEC, floor) };
    match Fd::try_from(copy) {
        // SAFETY: the kernel just made this descriptor; nothing else owns it.
        Ok(copy) if copy >= 0 => Ok(unsafe { std::os::fd::OwnedFd::from_raw_fd(copy) }),
        _ => Err(std::io::Error::last_os_error()),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_path_is_opened_as_a_handle_not_for_reading() {
        let fd = super::open_path(std::path::Path::new("/etc/hostname")).expect("test set-up");
        let flags = nix::fcntl::fcntl(&fd, nix::fcntl::FcntlArg::F_GETFL).expect("test set-up");
        assert_ne!(flags & libc::O_PATH, 0, "flags {flags:o}");
        let fd_flags = nix::fcntl::fcntl(&fd, nix::fcntl::FcntlArg::F_GETFD).expect("test set-up");
        assert_eq!(fd_flags & libc::FD_CLOEXEC, libc::FD_CLOEXEC);
        // A FIFO opened as a handle does not wait for a writer.
        let dir = tempfile::tempdir().expect("test set-up");
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("test set-up");
        assert!(super::open_path(&fifo).is_ok());
    }
}
