//! Real paths with the folders on the way remembered.
//!
//! Guarantee: [`RealPaths::of`] returns what [`real_path`] returns — the
//! canonical path, or for a path that does not exist its nearest existing
//! ancestor's canonical path joined with the rest — and
//! [`RealPaths::canonical`] what `realpath(3)` returns, but both remember
//! the folders on the way. guard-sh resolves a dozen paths inside one arm
//! folder and the chains of some forty tools in a few folders on every
//! start; `realpath` reads each component of each path again (one
//! `readlink` per component), here a path costs one `lstat` (and one
//! `readlink` per symbolic link) once its folder is known. `..`, relative
//! paths and anything unusual are handed to `realpath` unchanged.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

/// The canonical path, or for a path that does not exist yet its nearest
/// existing ancestor's canonical path joined with the rest.
pub fn real_path(path: &Path) -> PathBuf {
    let mut existing = path;
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(existing) {
            return rest
                .iter()
                .rev()
                .fold(real, |acc: PathBuf, part| acc.join(part));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// Whether `path` is `root` or lies beneath it, whole names compared:
/// `Path::starts_with`, by bytes when both are plain absolute paths (no
/// `.`, `..` or empty name, as real paths are), through `Path`'s parse of
/// each name otherwise. The sandbox compares every file a command may
/// run with every root it is granted, and the parse was most of that.
pub fn is_within(path: &Path, root: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let (bytes, prefix) = (path.as_os_str().as_bytes(), root.as_os_str().as_bytes());
    if !(plain(bytes) && plain(prefix)) {
        return path.starts_with(root);
    }
    bytes_within(bytes, prefix)
}

/// [`is_within`] for two plain absolute paths given as bytes (a final
/// `/` of `root` ignored): a prefix that ends at a `/` or at the end.
pub fn bytes_within(path: &[u8], root: &[u8]) -> bool {
    let root = root.strip_suffix(b"/").unwrap_or(root);
    path.starts_with(root) && matches!(path.get(root.len()), None | Some(b'/'))
}

/// Whether `path` is absolute and its names are neither empty (but after
/// a final `/`), `.` nor `..`: its bytes are then its one form, compared
/// and normalized without a parse.
pub fn is_plain(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    plain(path.as_os_str().as_bytes())
}

/// [`is_plain`] of a path's bytes.
fn plain(path: &[u8]) -> bool {
    let Some(rest) = path.strip_prefix(b"/") else {
        return false;
    };
    let rest = rest.strip_suffix(b"/").unwrap_or(rest);
    rest.is_empty()
        || rest
            .split(|&b| b == b'/')
            .all(|name| !matches!(name, b"" | b"." | b".."))
}

/// Linux follows at most this many symbolic links in one lookup (`ELOOP`).
const MAX_LINKS: usize = 40;

/// [`real_path`] and `realpath` with a memory of the folders resolved so
/// far. Keep one for one computation, not longer: files may change.
#[derive(Debug, Default)]
pub struct RealPaths {
    /// Path → its canonical path and the identity of what is there; None
    /// when it names nothing.
    canonical: HashMap<PathBuf, Option<Resolved>>,
    /// Remember only what exists: a path that names nothing now may be
    /// made later.
    found_only: bool,
}

thread_local! {
    static SETTLED: std::cell::RefCell<RealPaths> = std::cell::RefCell::new(RealPaths {
        found_only: true,
        ..RealPaths::default()
    });
}

/// [`real_path`] of a path that does not move during a session: the
/// arm's folders, its programs and the guard's protected files lie where
/// no command may write (checked at start), so one memory serves the
/// whole process, shared by every check that names them. Not for a path a
/// command could change (an argument, the working folder).
pub fn settled(path: &Path) -> PathBuf {
    SETTLED.with(|memory| memory.borrow_mut().of(path))
}

/// [`RealPaths::canonical`] of a path that does not move (see
/// [`settled`]); None when it names nothing yet.
pub fn settled_canonical(path: &Path) -> Option<PathBuf> {
    SETTLED.with(|memory| memory.borrow_mut().canonical(path))
}

/// A device and inode number: which file a path led to.
pub type FileId = (u64, u64);

#[derive(Debug, Clone)]
struct Resolved {
    path: PathBuf,
    id: FileId,
}

/// Absolute, and made of plain names only (no `.`, `..` or prefix).
fn is_simple(path: &Path) -> bool {
    path.is_absolute()
        && path
            .components()
            .all(|c| matches!(c, Component::RootDir | Component::Normal(_)))
}

fn id_of(meta: &std::fs::Metadata) -> FileId {
    (meta.dev(), meta.ino())
}

impl RealPaths {
    /// An empty memory.
    pub fn new() -> RealPaths {
        RealPaths::default()
    }

    /// As [`real_path`] of `path`: its canonical path, else (nothing there,
    /// a dangling link, a loop) its folder's real path joined with its name.
    pub fn of(&mut self, path: &Path) -> PathBuf {
        if let Some(real) = self.canonical(path) {
            return real;
        }
        match (is_simple(path), path.parent(), path.file_name()) {
            (true, Some(parent), Some(name)) => self.of(parent).join(name),
            _ => real_path(path),
        }
    }

    /// The canonical path of `path`, as `realpath` gives it; None when it
    /// names nothing (or names a loop of links).
    pub fn canonical(&mut self, path: &Path) -> Option<PathBuf> {
        self.canonical_within(path, MAX_LINKS).map(|r| r.path)
    }

    /// [`Self::canonical`] with the identity of the file found there, as
    /// the last lookup saw it (no further system call).
    pub fn canonical_with_id(&mut self, path: &Path) -> Option<(PathBuf, FileId)> {
        self.canonical_within(path, MAX_LINKS)
            .map(|r| (r.path, r.id))
    }

    /// [`Self::canonical`], following at most `links` more symbolic links.
    fn canonical_within(&mut self, path: &Path, links: usize) -> Option<Resolved> {
        if let Some(known) = self.canonical.get(path) {
            return known.clone();
        }
        let found = match (is_simple(path), path.parent(), path.file_name()) {
            (true, Some(parent), Some(name)) => {
                let folder = self.canonical_within(parent, links)?.path;
                let candidate = folder.join(name);
                match std::fs::symlink_metadata(&candidate) {
                    Ok(meta) if meta.file_type().is_symlink() => {
                        let target = std::fs::read_link(&candidate).ok()?;
                        // An absolute target replaces the folder.
                        let next = folder.join(target);
                        self.canonical_within(&next, links.checked_sub(1)?)
                    }
                    Ok(meta) => Some(Resolved {
                        path: candidate,
                        id: id_of(&meta),
                    }),
                    Err(_) => None,
                }
            }
            _ => std::fs::canonicalize(path).ok().and_then(|real| {
                let id = id_of(&std::fs::metadata(&real).ok()?);
                Some(Resolved { path: real, id })
            }),
        };
        if found.is_some() || !self.found_only {
            self.canonical.insert(path.to_path_buf(), found.clone());
        }
        found
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // test code reports failures by panicking
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn is_within_agrees_with_path_starts_with() {
        let paths = [
            "/", "/a", "/a/", "/ab", "/a/b", "/a/b/", "/a/bc", "/a/b/c", "/a//b", "/a/./b",
            "/a/../b", "/a/.b", "/.a", "a", "a/b", "", "/a/b/..", "//a",
        ];
        for path in paths {
            for root in paths {
                let (p, r) = (Path::new(path), Path::new(root));
                assert_eq!(
                    is_within(p, r),
                    p.starts_with(r),
                    "is_within({path:?}, {root:?})"
                );
            }
        }
    }

    #[test]
    fn remembered_folders_give_what_realpath_gives() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("arm/bin")).unwrap();
        std::fs::write(root.join("arm/policy.json"), "{}").unwrap();
        symlink(root.join("arm"), root.join("link-to-arm")).unwrap();
        symlink("bin", root.join("arm/relative-link")).unwrap();
        symlink(root.join("nowhere"), root.join("arm/dangling")).unwrap();
        symlink("../..", root.join("arm/bin/up")).unwrap();
        symlink("loop", root.join("arm/loop")).unwrap();
        let paths = [
            "arm/loop",
            "arm/loop/x",
            "arm",
            "arm/policy.json",
            "arm/bin",
            "arm/missing",
            "arm/missing/deeper/still",
            "link-to-arm",
            "link-to-arm/policy.json",
            "link-to-arm/missing",
            "arm/relative-link",
            "arm/relative-link/x",
            "arm/dangling",
            "arm/dangling/x",
            "arm/bin/up",
            "arm/bin/up/arm/policy.json",
            "arm/bin/../policy.json",
            "arm/./bin",
        ];
        let mut cached = RealPaths::new();
        // Twice: once filling the memory, once reading it.
        for _ in 0..2 {
            for rel in paths {
                let path = root.join(rel);
                assert_eq!(cached.of(&path), real_path(&path), "{rel}");
            }
        }
        // The memory is what makes the shared folders cheap.
        assert!(cached.canonical.contains_key(&root.join("arm")));
    }

    #[test]
    fn canonical_paths_are_what_realpath_gives() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("usr/bin")).unwrap();
        std::fs::create_dir_all(root.join("arm/bin")).unwrap();
        std::fs::write(root.join("usr/bin/tool"), "").unwrap();
        symlink("usr/bin", root.join("bin")).unwrap();
        symlink(root.join("bin/tool"), root.join("arm/bin/absolute")).unwrap();
        symlink("../../usr/bin/tool", root.join("arm/bin/dotdot")).unwrap();
        symlink("absolute", root.join("arm/bin/chained")).unwrap();
        symlink("missing", root.join("arm/bin/dangling")).unwrap();
        symlink("loop", root.join("arm/bin/loop")).unwrap();
        let mut cached = RealPaths::new();
        for _ in 0..2 {
            for rel in [
                "usr/bin/tool",
                "bin/tool",
                "bin",
                "arm/bin/absolute",
                "arm/bin/dotdot",
                "arm/bin/chained",
                "arm/bin/dangling",
                "arm/bin/loop",
                "arm/bin/missing",
                "arm/bin/../bin/chained",
            ] {
                let path = root.join(rel);
                assert_eq!(
                    cached.canonical(&path),
                    std::fs::canonicalize(&path).ok(),
                    "{rel}"
                );
            }
        }
    }

    #[test]
    fn the_settled_memory_keeps_no_answer_for_what_is_not_there_yet() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let log = root.join("audit/audit.jsonl");
        assert_eq!(settled_canonical(&log), None);
        assert_eq!(settled(&log), log);
        // Made later (the audit log, its folder): found now, and then
        // remembered even after it goes.
        std::fs::create_dir(root.join("audit")).unwrap();
        symlink(root.join("elsewhere"), &log).unwrap();
        std::fs::write(root.join("elsewhere"), "").unwrap();
        assert_eq!(settled_canonical(&log), Some(root.join("elsewhere")));
        std::fs::remove_file(&log).unwrap();
        assert_eq!(settled_canonical(&log), Some(root.join("elsewhere")));
    }

    #[test]
    fn the_root_and_relative_paths_are_left_to_realpath() {
        let mut cached = RealPaths::new();
        assert_eq!(cached.of(Path::new("/")), PathBuf::from("/"));
        assert_eq!(
            cached.of(Path::new("no-such-relative-path")),
            real_path(Path::new("no-such-relative-path"))
        );
    }
}
