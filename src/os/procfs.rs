//! Which `/proc` files a line may read: the process's own folder (but its
//! `mem` and `environ`) and the system-wide figures in [`PROC_READABLE`], never another
//! process's (`/proc/<harness>/environ` holds the model's key and the
//! trial's seal).
//!
//! Each command's Landlock domain enforces this in the kernel (see
//! `sandbox::landlock`); [`refusal`] is the same rule for the files the
//! shell opens itself (a redirection, `source`, a script), whose
//! descriptors a command would otherwise inherit already open
//! (`cat < /proc/$PPID/environ`).

use super::Fd;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

/// The entries of `/proc` every command may read: the system-wide
/// figures programs ask for (CPU, memory, load, uptime, the kernel's
/// version and tunables under `sys`, the file systems libselinux checks,
/// `crypto` and `sys/crypto/fips_enabled` for TLS libraries, cgroups and
/// pressure for runtimes that size themselves). An allow-list, not
/// "every entry but the process folders": what the kernel lists besides
/// (its log `kmsg`, `kallsyms`, other processes' keys, locks and timers,
/// hardware maps, and whatever a later kernel adds) stays closed.
pub const PROC_READABLE: [&str; 16] = [
    "cgroups",
    "cpuinfo",
    "crypto",
    "devices",
    "diskstats",
    "filesystems",
    "loadavg",
    "meminfo",
    "partitions",
    "pressure",
    "stat",
    "swaps",
    "sys",
    "uptime",
    "version",
    "vmstat",
];

/// Why the open descriptor `fd` must not be read by a line: `Some(name)`
/// (the file's name in `/proc`) when it is a `/proc` file outside the
/// calling process's own folder (or its `mem` or `environ`) and the
/// listed figures, `None` when it
/// is not in `/proc` or is allowed. A `/proc` file whose name cannot be
/// read, or that lies on another mount of `/proc`, is refused.
pub fn refusal(fd: Fd) -> Option<PathBuf> {
    let mut fs = std::mem::MaybeUninit::<libc::statfs>::uninit();
    // SAFETY: fstatfs fills the buffer when it returns 0.
    if unsafe { libc::fstatfs(fd, fs.as_mut_ptr()) } != 0 {
        // A descriptor just opened that the kernel cannot describe: fail closed.
        return Some(PathBuf::from("?"));
    }
    // SAFETY: fstatfs succeeded, so the buffer is initialized.
    // The field's type differs between C libraries (signed in glibc,
    // unsigned in musl); both widen to i128 without loss.
    if i128::from(unsafe { fs.assume_init() }.f_type) != i128::from(libc::PROC_SUPER_MAGIC) {
        return None;
    }
    let name = std::fs::read_link(format!("/proc/self/fd/{fd}"))
        .unwrap_or_else(|_| PathBuf::from("/proc/?"));
    // SAFETY: getpid has no preconditions.
    let own = unsafe { libc::getpid() };
    (!allowed(name.as_os_str().as_bytes(), own)).then_some(name)
}

/// Whether the `/proc` file named `name` (as the kernel names an open
/// descriptor) may be read by process `own`.
fn allowed(name: &[u8], own: i32) -> bool {
    if name == b"/proc" {
        return true;
    }
    let Some(rest) = name.strip_prefix(b"/proc/") else {
        return false;
    };
    let entry = rest.split(|b| *b == b'/').next().unwrap_or_default();
    if !entry.is_empty() && entry.iter().all(u8::is_ascii_digit) {
        // Its own memory holds the trial's key, its own `environ` the
        // harness's variables (its model key among them): a descriptor on
        // either must not reach a command either.
        let last = rest.split(|b| *b == b'/').next_back();
        let private = last == Some(b"mem") || last == Some(b"environ");
        return entry == own.to_string().as_bytes() && !private;
    }
    PROC_READABLE
        .iter()
        .any(|listed| listed.as_bytes() == entry)
}

/// What opening a refused `/proc` file fails with; recognize it with
/// [`is_refused_error`].
pub fn refused_error(name: &std::path::Path) -> io::Error {
    io::Error::other(Refused(name.to_path_buf()))
}

/// Whether `e` is [`refused_error`].
pub fn is_refused_error(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<Refused>())
}

/// The marker inside [`refused_error`].
#[derive(Debug)]
struct Refused(PathBuf);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "opens {}: of /proc a line may read only its own folder (not its memory or environment) and the system-wide figures, never another process's files",
            self.0.display()
        )
    }
}

impl std::error::Error for Refused {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_own_folder_and_the_listed_figures_are_allowed() {
        assert!(allowed(b"/proc/42/status", 42));
        assert!(allowed(b"/proc/42/task/43/stat", 42));
        assert!(!allowed(b"/proc/42/mem", 42));
        assert!(!allowed(b"/proc/42/task/43/mem", 42));
        assert!(!allowed(b"/proc/42/environ", 42));
        assert!(allowed(b"/proc/meminfo", 42));
        assert!(allowed(b"/proc/sys/kernel/ostype", 42));
        assert!(allowed(b"/proc", 42));
        assert!(!allowed(b"/proc/1/environ", 42));
        assert!(!allowed(b"/proc/421/environ", 42));
        assert!(!allowed(b"/proc/4/environ", 42));
        assert!(!allowed(b"/proc/kmsg", 42));
        assert!(!allowed(b"/proc/kallsyms", 42));
        assert!(!allowed(b"/proc/", 42));
        // Another mount of /proc is not judged by name: refused.
        assert!(!allowed(b"/tmp/p/42/status", 42));
    }

    #[test]
    fn a_file_outside_proc_is_never_refused() -> io::Result<()> {
        let file = std::fs::File::open("/etc/hostname").or_else(|_| std::fs::File::open("/"))?;
        use std::os::fd::AsRawFd;
        assert_eq!(refusal(file.as_raw_fd()), None);
        Ok(())
    }

    #[test]
    fn the_parents_environ_is_refused_and_the_own_status_is_not() -> io::Result<()> {
        use std::os::fd::AsRawFd;
        let parent = std::fs::File::open(format!(
            "/proc/{}/environ",
            std::os::unix::process::parent_id()
        ))?;
        assert!(refusal(parent.as_raw_fd()).is_some());
        let own = std::fs::File::open("/proc/self/status")?;
        assert_eq!(refusal(own.as_raw_fd()), None);
        let figures = std::fs::File::open("/proc/meminfo")?;
        assert_eq!(refusal(figures.as_raw_fd()), None);
        Ok(())
    }
}
