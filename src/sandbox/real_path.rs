//! Real paths for the protected-path check, where missing paths count too.
//!
//! Guarantee: [`RealPaths::of`] returns what [`real_path`] returns — the
//! canonical path, or for a path that does not exist its nearest existing
//! ancestor's canonical path joined with the rest — but remembers the
//! folders on the way. The check resolves a dozen paths inside one arm
//! folder on every start and every spawn; `realpath(3)` reads each
//! component of each path again (one `readlink` per component), here a
//! path costs one `lstat` once its folder is known. A symbolic link, `..`
//! or anything unusual is handed to `realpath` unchanged.

use std::collections::HashMap;
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

/// [`real_path`] with a memory of the folders resolved so far. Keep one for
/// one check, not longer: files may change between checks.
#[derive(Debug, Default)]
pub struct RealPaths {
    known: HashMap<PathBuf, PathBuf>,
}

impl RealPaths {
    pub fn new() -> RealPaths {
        RealPaths::default()
    }

    /// As [`real_path`] of `path`.
    pub fn of(&mut self, path: &Path) -> PathBuf {
        if let Some(real) = self.known.get(path) {
            return real.clone();
        }
        let simple = path.is_absolute()
            && path
                .components()
                .all(|c| matches!(c, Component::RootDir | Component::Normal(_)));
        let real = match (simple, path.parent(), path.file_name()) {
            (true, Some(parent), Some(name)) => {
                let candidate = self.of(parent).join(name);
                match std::fs::symlink_metadata(&candidate) {
                    // realpath follows the link (and decides about a
                    // dangling one) exactly as before.
                    Ok(meta) if meta.file_type().is_symlink() => real_path(path),
                    // A file or folder, or nothing: its folder's real path
                    // joined with its name, as real_path has it.
                    _ => candidate,
                }
            }
            _ => real_path(path),
        };
        self.known.insert(path.to_path_buf(), real.clone());
        real
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // test code reports failures by panicking
    use super::*;
    use std::os::unix::fs::symlink;

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
        let paths = [
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
        assert!(cached.known.contains_key(&root.join("arm")));
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
