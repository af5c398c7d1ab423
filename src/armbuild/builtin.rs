//! The arms and skills shipped with guard-sh, compiled into arm-build: an
//! installed `arm-build` needs no checkout (`--arms DIR` overrides them).
//! They are written to a private temporary folder for one build, which is
//! removed when the build ends.

use std::path::{Path, PathBuf};

/// Every shipped file, by its path in the source tree.
pub const FILES: &[(&str, &str)] = &[
    (
        "arms/base-prompt.txt",
        include_str!("../../arms/base-prompt.txt"),
    ),
    (
        "arms/harmless.toml",
        include_str!("../../arms/harmless.toml"),
    ),
    (
        "arms/gitea-axi.toml",
        include_str!("../../arms/gitea-axi.toml"),
    ),
    (
        "arms/gitea-mcp.toml",
        include_str!("../../arms/gitea-mcp.toml"),
    ),
    ("arms/raw-api.toml", include_str!("../../arms/raw-api.toml")),
    ("arms/tea.toml", include_str!("../../arms/tea.toml")),
    (
        "skills/gitea-axi/SKILL.md",
        include_str!("../../skills/gitea-axi/SKILL.md"),
    ),
];

/// The shipped files written out: `root/arms`, `root/skills/…`. Removed
/// when dropped.
#[derive(Debug)]
pub struct Unpacked {
    root: PathBuf,
}

impl Unpacked {
    /// Write [`FILES`] into a new folder only this user can read.
    pub fn new() -> std::io::Result<Unpacked> {
        use std::os::unix::fs::DirBuilderExt;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let root =
            std::env::temp_dir().join(format!("guard-sh-arms-{}-{nanos}", std::process::id()));
        std::fs::DirBuilder::new().mode(0o700).create(&root)?;
        let unpacked = Unpacked { root };
        for (path, text) in FILES {
            let target = unpacked.root.join(path);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&target, text)?;
        }
        Ok(unpacked)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn arms(&self) -> PathBuf {
        self.root.join("arms")
    }
}

impl Drop for Unpacked {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}
