//! The output folder: made fresh on every build, so a rebuild leaves nothing stale.
//!
//! A marker file lists the top-level entries arm-build made; a rebuild
//! removes exactly those (never the agent's `work/` or the `audit/` logs)
//! before writing anew. A non-empty folder without the marker is refused,
//! so a mistyped `--out` never deletes someone's files.

use super::error::BuildError;
use crate::armbuild::compile::Link;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

/// Name of the marker file inside an output folder.
pub const MARKER: &str = ".arm-build";
/// Top-level entries kept across rebuilds.
const KEPT: [&str; 2] = ["work", "audit"];

/// Create `out` if needed and return its canonical path; refuse a
/// non-empty folder arm-build did not make.
pub fn open(out: &Path) -> Result<PathBuf, BuildError> {
    std::fs::create_dir_all(out).map_err(|e| BuildError::io(out, e))?;
    let out = std::fs::canonicalize(out).map_err(|e| BuildError::io(out, e))?;
    let mut entries = std::fs::read_dir(&out).map_err(|e| BuildError::io(&out, e))?;
    if !out.join(MARKER).is_file() && entries.next().is_some() {
        return Err(BuildError::ForeignOutDir { path: out });
    }
    Ok(out)
}

/// Remove what an earlier build made in `out` (as its marker lists).
pub fn clean(out: &Path) -> Result<(), BuildError> {
    let marker = out.join(MARKER);
    if !marker.is_file() {
        return Ok(());
    }
    let listed = std::fs::read_to_string(&marker).map_err(|e| BuildError::io(&marker, e))?;
    for name in listed
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        // Only plain names directly inside `out`: never `..`, `/x`, or a dot-file.
        let mut parts = Path::new(name).components();
        let plain = matches!(
            (parts.next(), parts.next()),
            (Some(Component::Normal(_)), None)
        ) && !name.starts_with('.')
            && !KEPT.contains(&name);
        if !plain {
            continue;
        }
        let p = out.join(name);
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.is_dir() => {
                std::fs::remove_dir_all(&p).map_err(|e| BuildError::io(&p, e))?
            }
            Ok(_) => std::fs::remove_file(&p).map_err(|e| BuildError::io(&p, e))?,
            Err(_) => {}
        }
    }
    Ok(())
}

/// Remove everything inside `dir` (not `dir` itself); how many entries
/// there were. A missing folder has none.
pub fn empty_dir(dir: &Path) -> Result<usize, BuildError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(BuildError::io(dir, e)),
    };
    let mut removed = 0;
    for entry in entries {
        let path = entry.map_err(|e| BuildError::io(dir, e))?.path();
        let is_dir = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
        if is_dir {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        }
        .map_err(|e| BuildError::io(&path, e))?;
        removed += 1;
    }
    Ok(removed)
}

/// Record the top-level entries this build made.
pub fn write_marker(out: &Path, made: &[PathBuf]) -> Result<(), BuildError> {
    let mut names: Vec<String> = made
        .iter()
        .filter_map(|p| p.strip_prefix(out).ok())
        .filter_map(|rel| rel.components().next())
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .filter(|n| !KEPT.contains(&n.as_str()))
        .collect();
    names.sort();
    names.dedup();
    let text = format!(
        "# made by arm-build; removed on rebuild\n{}\n",
        names.join("\n")
    );
    write_file(&out.join(MARKER), &text, 0o644)
}

/// Create a folder (and its parents).
pub fn make_dir(p: &Path) -> Result<(), BuildError> {
    std::fs::create_dir_all(p).map_err(|e| BuildError::io(p, e))
}

/// Make every link, creating parent folders.
pub fn make_links(links: &[Link]) -> Result<(), BuildError> {
    for link in links {
        if let Some(parent) = link.at.parent() {
            make_dir(parent)?;
        }
        std::os::unix::fs::symlink(&link.target, &link.at)
            .map_err(|e| BuildError::io(&link.at, e))?;
    }
    Ok(())
}

/// Write `text` to `path` with `mode`, creating parents; replaces any old file.
pub fn write_file(path: &Path, text: &str, mode: u32) -> Result<(), BuildError> {
    if let Some(parent) = path.parent() {
        make_dir(parent)?;
    }
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(BuildError::io(path, e)),
    }
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)
        .map_err(|e| BuildError::io(path, e))?;
    f.write_all(text.as_bytes())
        .map_err(|e| BuildError::io(path, e))?;
    // The umask may have narrowed `mode`; set it exactly.
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .map_err(|e| BuildError::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_removes_listed_entries_and_keeps_work_and_audit()
    -> Result<(), Box<dyn std::error::Error>> {
        let d = tempfile::tempdir()?;
        let out = d.path().join("out");
        for sub in ["bin", "work", "audit", "other"] {
            std::fs::create_dir_all(out.join(sub))?;
        }
        std::fs::write(out.join("policy.json"), "{}")?;
        std::fs::write(out.join(MARKER), "# c\nbin\npolicy.json\nwork\naudit\n")?;
        clean(&out)?;
        assert!(!out.join("bin").exists() && !out.join("policy.json").exists());
        assert!(
            out.join("work").is_dir() && out.join("audit").is_dir() && out.join("other").is_dir()
        );
        Ok(())
    }

    #[test]
    fn clean_ignores_marker_lines_leaving_the_folder() -> Result<(), Box<dyn std::error::Error>> {
        let d = tempfile::tempdir()?;
        let out = d.path().join("out");
        std::fs::create_dir_all(&out)?;
        std::fs::create_dir_all(d.path().join("sibling"))?;
        std::fs::write(d.path().join("keep.txt"), "x")?;
        let lines = format!(
            "..\n../sibling\n{}\n/tmp\n.hidden\n",
            d.path().join("keep.txt").display()
        );
        std::fs::write(out.join(MARKER), lines)?;
        clean(&out)?;
        assert!(
            d.path().join("sibling").is_dir()
                && d.path().join("keep.txt").is_file()
                && out.is_dir()
        );
        Ok(())
    }

    #[test]
    fn open_refuses_a_foreign_non_empty_folder() -> Result<(), Box<dyn std::error::Error>> {
        let d = tempfile::tempdir()?;
        std::fs::write(d.path().join("x"), "x")?;
        assert!(matches!(
            open(d.path()),
            Err(BuildError::ForeignOutDir { .. })
        ));
        std::fs::write(d.path().join(MARKER), "")?;
        assert!(open(d.path()).is_ok());
        Ok(())
    }
}
