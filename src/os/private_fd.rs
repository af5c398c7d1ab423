//! Descriptors guard-sh holds for itself: the audit log and its copies for
//! forked shells, the abort pipe, descriptors saved around a redirection.
//!
//! Guarantee: a line cannot name one. Each is moved to
//! [`PRIVATE_FD_FLOOR`] or above (as bash keeps its own at 255 and up),
//! close-on-exec, and remembered here; [`is_private`] answers for every
//! number at or above the floor and for every remembered one (when the
//! descriptor limit is below the floor they land lower, and only the memory
//! protects them). The interpreter refuses a redirection that names such a
//! number, and [`held_identities`] lets it refuse a path (`/dev/fd/N`,
//! `/proc/self/fd/N`, a hard link) that opens the same file or pipe.
//!
//! The set is per process: a forked copy of the shell inherits the
//! descriptors and this memory with them.

use super::Fd;
use std::collections::BTreeMap;
use std::io;
use std::sync::Mutex;

/// The lowest number a private descriptor gets when the limit allows;
/// scripts may name 0 to `PRIVATE_FD_FLOOR - 1`.
pub const PRIVATE_FD_FLOOR: Fd = 256;

/// Private descriptors (below the floor only when the limit forced them
/// there), each with whether its file is guard-sh's own (the audit log, a
/// pipe of its own) rather than a saved copy of one of the line's
/// descriptors, whose file the line may open by path as it likes.
static HELD: Mutex<BTreeMap<Fd, Owner>> = Mutex::new(BTreeMap::new());

/// Whose file a private descriptor holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owner {
    /// guard-sh's own file or pipe: no path may reach it either.
    Shell,
    /// A copy of a descriptor of the line's, saved around a redirection.
    Saved,
    /// A system file kept open for later spawns (a program, a folder a
    /// command may read or write): a line may open it by name.
    Kept,
}

fn held() -> std::sync::MutexGuard<'static, BTreeMap<Fd, Owner>> {
    // A poisoned lock only means a panic elsewhere; the map is still valid.
    HELD.lock().unwrap_or_else(|e| e.into_inner())
}

/// A close-on-exec copy of guard-sh's own descriptor `fd` at
/// [`PRIVATE_FD_FLOOR`] or above (at 10 or above when the descriptor limit
/// is lower), remembered as private; `fd` itself stays open.
pub fn duplicate(fd: Fd) -> io::Result<Fd> {
    duplicate_as(fd, Owner::Shell)
}

/// A private copy of the line's descriptor `fd`, saved around a
/// redirection: its number is out of the line's reach, its file is not
/// guard-sh's.
pub fn save(fd: Fd) -> io::Result<Fd> {
    duplicate_as(fd, Owner::Saved)
}

/// A private copy of the system file open at `fd`, kept for later
/// spawns: its number is out of the line's reach, its file is not
/// guard-sh's (a line may open it by name).
pub fn keep(fd: Fd) -> io::Result<Fd> {
    duplicate_as(fd, Owner::Kept)
}

/// [`keep`] `file` (then closed), or, when a file of the same identity
/// opened the same way is kept already, that one: one private descriptor
/// per file for the process (the loader, `/dev/null` and the work folder
/// serve every program a line server prepares; a descriptor per program
/// each made every spawn copy and close some three hundred of them).
pub fn keep_shared(file: std::fs::File) -> io::Result<std::sync::Arc<std::fs::File>> {
    use std::os::fd::{AsRawFd, FromRawFd};
    use std::sync::{Arc, Weak};
    type Kept = std::collections::HashMap<(u64, u64, i32), Weak<std::fs::File>>;
    static KEPT: Mutex<Option<Kept>> = Mutex::new(None);
    let fd = file.as_raw_fd();
    // SAFETY: F_GETFL on a descriptor `file` owns.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    let (Some((dev, ino)), true) = (identity(fd), flags >= 0) else {
        return Err(io::Error::last_os_error());
    };
    let key = (dev, ino, flags & (libc::O_ACCMODE | libc::O_PATH));
    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    let kept = kept.get_or_insert_with(Kept::new);
    if let Some(shared) = kept.get(&key).and_then(Weak::upgrade) {
        return Ok(shared);
    }
    let private = keep(fd)?;
    // SAFETY: `private` was just returned by fcntl and nothing else owns it.
    let shared = Arc::new(unsafe { std::fs::File::from_raw_fd(private) });
    kept.insert(key, Arc::downgrade(&shared));
    Ok(shared)
}

/// [`keep`] each of `fds`, then close them. Opened one after another they
/// mostly hold consecutive numbers, so they are closed with one
/// `close_range` per run of numbers, not one `close` each (guard-sh keeps
/// some seventy at the first command). On error nothing stays open.
pub fn keep_all(fds: Vec<std::os::fd::OwnedFd>) -> io::Result<Vec<Fd>> {
    use std::os::fd::IntoRawFd;
    let originals: Vec<Fd> = fds.into_iter().map(IntoRawFd::into_raw_fd).collect();
    let mut saved = Vec::with_capacity(originals.len());
    let mut failed = None;
    for &fd in &originals {
        match keep(fd) {
            Ok(copy) => saved.push(copy),
            Err(e) => {
                failed = Some(e);
                break;
            }
        }
    }
    close_all(originals);
    match failed {
        None => Ok(saved),
        Some(e) => {
            // The copies made before the failure go too.
            for &copy in &saved {
                forget(copy);
            }
            close_all(saved);
            Err(e)
        }
    }
}

/// Close every descriptor of `fds` (owned by the caller), one
/// `close_range` per run of consecutive numbers.
fn close_all(mut fds: Vec<Fd>) {
    fds.sort_unstable();
    let mut rest = fds.as_slice();
    while let Some(&first) = rest.first() {
        let run = rest
            .iter()
            .zip(first..)
            .take_while(|(fd, expected)| **fd == *expected)
            .count();
        let last = first + run as Fd - 1;
        // SAFETY: closing descriptors the caller owns and hands over.
        let r = unsafe { libc::syscall(libc::SYS_close_range, first as u32, last as u32, 0u32) };
        if r != 0 {
            // Kernels before 5.9 have no close_range.
            for fd in first..=last {
                // SAFETY: as above.
                unsafe { libc::close(fd) };
            }
        }
        rest = &rest[run..];
    }
}

fn duplicate_as(fd: Fd, owner: Owner) -> io::Result<Fd> {
    let copy = match super::duplicate_at_least(fd, PRIVATE_FD_FLOOR) {
        // The limit is at or below the floor: the lowest free slot above
        // the numbers scripts conventionally use.
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => super::duplicate_at_least(fd, 10),
        copied => copied,
    }
    .map(std::os::fd::IntoRawFd::into_raw_fd)?;
    held().insert(copy, owner);
    Ok(copy)
}

/// Move `fd` to a private number: [`duplicate`], then close `fd`.
pub fn claim(fd: Fd) -> io::Result<Fd> {
    let copy = duplicate(fd);
    // SAFETY: closing the caller's descriptor, which it hands over.
    unsafe {
        libc::close(fd);
    }
    copy
}

/// [`claim`] both ends of a pipe or socket pair; when either fails,
/// neither stays open.
pub fn claim_pair((first, second): (Fd, Fd)) -> io::Result<(Fd, Fd)> {
    match (claim(first), claim(second)) {
        (Ok(first), Ok(second)) => Ok((first, second)),
        (Ok(claimed), Err(e)) | (Err(e), Ok(claimed)) => {
            let _ = close(claimed);
            Err(e)
        }
        (Err(e), Err(_)) => Err(e),
    }
}

/// Close the copies of the line's descriptors saved around redirections
/// (a background job's copy of the shell, whose one command is spawned,
/// holds none of the line's files open).
pub fn close_saved() {
    let saved: Vec<Fd> = held()
        .iter()
        .filter(|(_, owner)| **owner == Owner::Saved)
        .map(|(fd, _)| *fd)
        .collect();
    for fd in saved {
        let _ = close(fd);
    }
}

/// `fd` is being closed: forget it.
pub fn forget(fd: Fd) {
    held().remove(&fd);
}

/// Close `fd`, forgetting it if it was private.
pub fn close(fd: Fd) -> io::Result<()> {
    forget(fd);
    // SAFETY: closing a descriptor number the caller owns.
    if unsafe { libc::close(fd) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Whether a line must not name descriptor `fd`.
pub fn is_private(fd: Fd) -> bool {
    fd >= PRIVATE_FD_FLOOR || held().contains_key(&fd)
}

/// Whether guard-sh holds `fd` for itself (at any number).
pub fn is_held(fd: Fd) -> bool {
    held().contains_key(&fd)
}

/// Device and inode of every open descriptor guard-sh holds for its own
/// files and pipes, so a path that reaches one of them can be recognized.
pub fn held_identities() -> Vec<(u64, u64)> {
    let fds: Vec<Fd> = held()
        .iter()
        .filter(|(_, owner)| **owner == Owner::Shell)
        .map(|(fd, _)| *fd)
        .collect();
    fds.into_iter().filter_map(identity).collect()
}

/// Whether the open descriptor `fd` (just opened from a path) is the same
/// file or pipe as one of the private descriptors.
pub fn reaches_private(fd: Fd) -> bool {
    identity(fd).is_some_and(|id| held_identities().contains(&id))
}

/// What opening a path that reaches a private descriptor fails with;
/// recognize it with [`is_reserved_error`].
pub fn reserved_error() -> io::Error {
    io::Error::other(Reserved)
}

/// Whether `e` is [`reserved_error`].
pub fn is_reserved_error(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<Reserved>())
}

/// The marker inside [`reserved_error`].
#[derive(Debug)]
struct Reserved;

impl std::fmt::Display for Reserved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(
            "the file is one guard-sh holds open for itself: its audit log or one of its pipes",
        )
    }
}

impl std::error::Error for Reserved {}

/// Device and inode of the open descriptor `fd`.
pub fn identity(fd: Fd) -> Option<(u64, u64)> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: fstat fills the buffer when it returns 0.
    let r = unsafe { libc::fstat(fd, st.as_mut_ptr()) };
    if r != 0 {
        return None;
    }
    // SAFETY: fstat succeeded, so the buffer is initialized.
    let st = unsafe { st.assume_init() };
    Some((st.st_dev, st.st_ino))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_kept_twice_is_one_private_descriptor_per_way_it_was_opened() -> io::Result<()> {
        use std::os::fd::AsRawFd;
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("f");
        std::fs::write(&path, b"x")?;
        let as_path = || crate::os::open_path(&path).map(std::fs::File::from);
        let first = keep_shared(std::fs::File::open(&path)?)?;
        let again = keep_shared(std::fs::File::open(&path)?)?;
        let by_path = keep_shared(as_path()?)?;
        assert_eq!(first.as_raw_fd(), again.as_raw_fd());
        assert_ne!(first.as_raw_fd(), by_path.as_raw_fd());
        assert!(is_private(first.as_raw_fd()) && is_private(by_path.as_raw_fd()));
        // Once no holder is left the file is kept anew, the same file.
        drop(by_path);
        let kept = keep_shared(as_path()?)?;
        assert!(is_private(kept.as_raw_fd()));
        assert_eq!(identity(kept.as_raw_fd()), identity(first.as_raw_fd()));
        Ok(())
    }

    #[test]
    fn a_claimed_descriptor_is_private_and_forgotten_when_closed() -> io::Result<()> {
        let mut fds = [0; 2];
        // SAFETY: a valid array for pipe.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        let moved = claim(fds[0])?;
        assert!(moved >= PRIVATE_FD_FLOOR, "{moved}");
        assert!(is_private(moved));
        assert!(!is_private(fds[1]));
        assert!(held_identities().contains(&identity(fds[1]).unwrap_or_default()));
        forget(moved);
        // SAFETY: closing descriptors made above.
        unsafe {
            libc::close(moved);
            libc::close(fds[1]);
        }
        assert!(
            is_private(moved),
            "every number above the floor stays reserved"
        );
        Ok(())
    }
}
