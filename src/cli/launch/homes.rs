//! Where the harness keeps its configuration and state: every home it
//! reads lies in the arm's `harness-home/` (its temporary files in
//! `tmp/`), the only folders besides `work/` that its domain lets it
//! write, all emptied by `--fresh`. What a trial wrote there that steers
//! the next one (settings, hooks, MCP servers, instructions) is reported
//! as planted unless it is the operator's own, copied in from
//! `--seed-home`.

use super::failed;
use crate::cli::Exit;
use sha2::{Digest, Sha256};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The variables naming a harness's homes, and where each lies inside
/// `harness-home/`.
pub(super) const HOMES: [(&str, &str); 7] = [
    ("HOME", ""),
    ("CLAUDE_CONFIG_DIR", ".claude"),
    ("CODEX_HOME", ".codex"),
    ("XDG_CONFIG_HOME", ".config"),
    ("XDG_DATA_HOME", ".local/share"),
    ("XDG_STATE_HOME", ".local/state"),
    ("XDG_CACHE_HOME", ".cache"),
];

/// Entries of a work folder that a harness or the tool reads as its own
/// configuration: hooks, settings, instructions, credentials.
pub(super) const WORK_CONFIG: [&str; 10] = [
    ".claude",
    ".codex",
    ".mcp.json",
    "CLAUDE.md",
    "CLAUDE.local.md",
    "AGENTS.md",
    ".gitconfig",
    ".curlrc",
    ".netrc",
    ".config",
];

/// Entries of `harness-home/` that Claude Code, Codex or the programs
/// they start read as configuration, not state: a file, or a folder and
/// every file beneath. (Claude Code's `.claude.json` is state it rewrites
/// each run; its MCP servers are not loaded under the arm's strict MCP
/// config.)
const HOME_CONFIG: [&str; 24] = [
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".claude/CLAUDE.md",
    ".claude/agents",
    ".claude/commands",
    ".claude/skills",
    ".claude/hooks",
    ".claude/plugins",
    ".claude/output-styles",
    ".codex/config.toml",
    ".codex/AGENTS.md",
    ".codex/AGENTS.override.md",
    ".codex/hooks.json",
    ".codex/prompts",
    ".codex/rules",
    ".codex/skills",
    ".config",
    ".agents",
    ".gitconfig",
    ".curlrc",
    ".netrc",
    ".npmrc",
    ".bashrc",
    ".profile",
];

/// The homes made and the seed copied: the variables to give the harness
/// (each home, and `TMPDIR`), and the links an earlier trial left where
/// a home or a seeded folder goes (replaced; they are planted).
pub(super) struct Prepared {
    pub vars: Vec<(&'static str, OsString)>,
    pub replaced_links: Vec<String>,
}

/// Make every home the harness is told of and copy the seed in. The
/// launcher writes there before the harness's domain exists, so it
/// follows no link the harness could have left in `harness-home/` (a
/// `.codex` pointing outside the arm would have it write there): a link
/// where a folder goes is replaced by the folder, and named.
pub(super) fn prepare(arm: &Path, seed: Option<&Path>) -> Result<Prepared, Exit> {
    let harness_home = arm.join("harness-home");
    // Itself no link: its folder, the arm's, is the harness's to read only.
    std::fs::create_dir_all(&harness_home)
        .map_err(|e| failed(format!("{}: {e}", harness_home.display())))?;
    let mut replaced = Vec::new();
    let mut vars = Vec::new();
    for (name, inside) in HOMES {
        let home = harness_home.join(inside);
        make_dirs_beneath(&harness_home, Path::new(inside), &mut replaced)
            .map_err(|e| failed(format!("{}: {e}", home.display())))?;
        vars.push((name, home.into_os_string()));
    }
    let tmp = arm.join("tmp");
    std::fs::create_dir_all(&tmp).map_err(|e| failed(format!("{}: {e}", tmp.display())))?;
    vars.push(("TMPDIR", tmp.into_os_string()));
    if let Some(seed) = seed {
        copy_tree(seed, &harness_home, Path::new(""), &mut replaced)
            .map_err(|e| failed(format!("--seed-home {}: {e}", seed.display())))?;
    }
    let replaced_links = replaced
        .iter()
        .map(|link| format!("harness-home/{}", link.display()))
        .collect();
    Ok(Prepared {
        vars,
        replaced_links,
    })
}

/// Make the folder `relative` beneath `base` (which exists), one name at
/// a time, never through a link: a link (or a file) where a folder goes
/// is removed first and its path (relative to `base`) pushed on
/// `replaced`.
fn make_dirs_beneath(
    base: &Path,
    relative: &Path,
    replaced: &mut Vec<PathBuf>,
) -> std::io::Result<()> {
    let mut inside = PathBuf::new();
    for name in relative.iter() {
        inside.push(name);
        let path = base.join(&inside);
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_dir() => continue,
            Ok(_) => {
                std::fs::remove_file(&path)?;
                replaced.push(inside.clone());
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        std::fs::create_dir(&path)?;
    }
    Ok(())
}

/// Give the trial a private `/tmp`: the arm's `tmp/` mounted over `/tmp`
/// in a mount namespace of the launcher's own, which the line server, the
/// harness and everything they start inherit. So an agent's scratch files
/// (`cat > /tmp/body.json`, `curl -o /tmp/x`) work as in bash, land in the
/// arm, and no two trials see each other's. Call before entering any
/// Landlock domain (a domain may not mount). Returns what the `harness`
/// record says: `private: …`, or `shared: WHY` where the kernel refuses
/// the namespace (it needs `CAP_SYS_ADMIN`), or where the arm or a path
/// of `needed` (the programs the trial runs, its folder) lies under
/// `/tmp`, which the mount would hide; then `/tmp` stays closed to the
/// arm's commands, whose only writable temporary folder is `tmp/`
/// (`TMPDIR`).
pub(super) fn private_tmp<'a>(arm: &Path, needed: impl IntoIterator<Item = &'a Path>) -> String {
    use nix::mount::{MsFlags, mount};
    let tmp = arm.join("tmp");
    if arm.starts_with("/tmp") {
        return "shared: the arm lies under /tmp, which a private /tmp would hide".into();
    }
    if let Some(hidden) = needed.into_iter().find(|p| p.starts_with("/tmp")) {
        return format!(
            "shared: {} lies under /tmp, which a private /tmp would hide",
            hidden.display()
        );
    }
    if let Err(e) = nix::sched::unshare(nix::sched::CloneFlags::CLONE_NEWNS) {
        return format!("shared: no mount namespace ({e})");
    }
    // Mounts made here stay here; the machine's still reach the trial.
    let none: Option<&str> = None;
    let made = mount(none, "/", none, MsFlags::MS_REC | MsFlags::MS_SLAVE, none)
        .and_then(|()| mount(Some(&tmp), "/tmp", none, MsFlags::MS_BIND, none));
    match made {
        Ok(()) => format!("private: /tmp is {}", tmp.display()),
        Err(e) => format!("shared: mounting {} on /tmp failed ({e})", tmp.display()),
    }
}

/// The configuration a harness would read that no operator put there:
/// entries of [`WORK_CONFIG`] in `work/`, and files of [`HOME_CONFIG`] in
/// `harness-home/` that differ from the seed's (or that the seed lacks),
/// each named relative to the arm.
pub(super) fn planted(arm: &Path, seed: Option<&Path>) -> Vec<String> {
    let work = arm.join("work");
    let mut found: Vec<String> = WORK_CONFIG
        .iter()
        .filter(|name| std::fs::symlink_metadata(work.join(name)).is_ok())
        .map(|name| (*name).to_string())
        .collect();
    let home = arm.join("harness-home");
    for entry in HOME_CONFIG {
        let mut files = Vec::new();
        list_files(&home.join(entry), &mut files);
        for file in files {
            let Ok(relative) = file.strip_prefix(&home) else {
                continue;
            };
            let seeded = seed.map(|seed| seed.join(relative));
            if seeded.is_none_or(|seeded| digest(&seeded) != digest(&file)) {
                found.push(format!("harness-home/{}", relative.display()));
            }
        }
    }
    found
}

/// `path` if it is anything but a folder, else every such entry beneath
/// it (links are not followed: a link is itself what was planted).
fn list_files(path: &Path, out: &mut Vec<PathBuf>) {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => {
            let Ok(entries) = std::fs::read_dir(path) else {
                out.push(path.to_path_buf());
                return;
            };
            for entry in entries.flatten() {
                list_files(&entry.path(), out);
            }
        }
        Ok(_) => out.push(path.to_path_buf()),
        Err(_) => {}
    }
}

/// A file's SHA-256 (a link's target text); None when it cannot be read.
fn digest(path: &Path) -> Option<[u8; 32]> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    let bytes = if meta.file_type().is_symlink() {
        use std::os::unix::ffi::OsStrExt;
        std::fs::read_link(path)
            .ok()?
            .as_os_str()
            .as_bytes()
            .to_vec()
    } else if meta.is_file() {
        std::fs::read(path).ok()?
    } else {
        return None;
    };
    Some(Sha256::digest(&bytes).into())
}

/// Copy the folder `from` into `base/to`: folders made as
/// [`make_dirs_beneath`] makes them, files and links copied (replacing
/// what is there, a link itself rather than where it leads).
fn copy_tree(
    from: &Path,
    base: &Path,
    to: &Path,
    replaced: &mut Vec<PathBuf>,
) -> std::io::Result<()> {
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let source = entry.path();
        let inside = to.join(entry.file_name());
        let target = base.join(&inside);
        let kind = entry.file_type()?;
        if kind.is_dir() {
            make_dirs_beneath(base, &inside, replaced)?;
            copy_tree(&source, base, &inside, replaced)?;
            continue;
        }
        if std::fs::symlink_metadata(&target).is_ok_and(|m| !m.is_dir()) {
            std::fs::remove_file(&target)?;
        }
        if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&source)?, &target)?;
        } else {
            std::fs::copy(&source, &target)?;
        }
    }
    Ok(())
}
