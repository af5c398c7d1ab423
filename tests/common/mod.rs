//! Shared test setup: a permissive test policy whose bin folder links the
//! utilities the tests use, and helpers to run the guard-sh binary.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Utilities linked into the test bin folder (from the system).
pub const UTILITIES: &[&str] = &[
    "cat", "grep", "sort", "head", "tail", "tr", "wc", "ls", "mkdir", "seq", "touch", "rm", "cut",
    "uniq", "basename", "dirname", "date", "sleep", "tee", "diff", "od", "ln",
];

/// Find a program on the system PATH (test setup only).
pub fn system_program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into());
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// A test arm: its folder, policy file and audit log.
pub struct TestArm {
    pub dir: tempfile::TempDir,
    pub policy: PathBuf,
    pub bin: PathBuf,
    pub audit: PathBuf,
}

/// Make a policy allowing `UTILITIES` plus `extra` (name → executable),
/// with `tool` as the arm's tool if given.
pub fn test_arm(extra: &[(&str, PathBuf)], tool: Option<&str>) -> TestArm {
    let dir = tempfile::tempdir().expect("tempdir");
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).expect("bin");
    let mut commands = serde_json::Map::new();
    let mut add = |name: &str, target: &Path, kind: &str| {
        std::os::unix::fs::symlink(target, bin.join(name)).expect("symlink");
        commands.insert(
            name.to_string(),
            serde_json::json!({"kind": kind, "path": target}),
        );
    };
    for name in UTILITIES {
        if let Some(p) = system_program(name) {
            add(name, &p, "utility");
        }
    }
    for (name, path) in extra {
        let kind = if Some(*name) == tool {
            "tool"
        } else {
            "utility"
        };
        add(name, path, kind);
    }
    let policy = serde_json::json!({
        "format": 1,
        "arm": "test",
        "shell": true,
        "tool": tool,
        "bin_dir": bin,
        "commands": commands,
        "env": {
            "pass": ["HOME", "LANG", "LC_*", "TERM", "TMPDIR"],
            "set": {},
            "deny": [
                {"pattern": "LD_*", "reason": "dynamic-loader variables load code into every program"},
                {"pattern": "NODE_*", "reason": "Node.js reads code to preload from it"},
                {"pattern": "PATH", "reason": "the PATH is curated"},
                {"pattern": "BASH_ENV", "reason": "a non-interactive bash runs the file it names first"}
            ]
        },
        "sandbox": {"mode": "off", "writable": [], "protected": [bin]},
        "audit": {}
    });
    let policy_path = dir.path().join("policy.json");
    std::fs::write(&policy_path, policy.to_string()).expect("policy");
    let audit = dir.path().join("audit.jsonl");
    TestArm {
        dir,
        policy: policy_path,
        bin,
        audit,
    }
}

/// The guard-sh binary under test.
pub fn guard_sh() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_guard-sh"))
}

/// A `Command` for guard-sh with the arm's policy and audit log and a clean environment.
pub fn guard_cmd(arm: &TestArm, cwd: &Path) -> Command {
    let mut c = Command::new(guard_sh());
    c.env_clear()
        .env("HOME", cwd)
        .env("LC_ALL", "C")
        .env("GUARD_SH_POLICY", &arm.policy)
        .env("GUARD_SH_AUDIT", &arm.audit)
        .current_dir(cwd)
        .stdin(Stdio::null());
    c
}

/// A `Command` for guard-sh with `policy` and `log` and a clean environment.
pub fn guard_cmd_with(policy: &Path, log: &Path, cwd: &Path) -> Command {
    let mut c = Command::new(guard_sh());
    c.env_clear()
        .env("HOME", cwd)
        .env("LC_ALL", "C")
        .env("GUARD_SH_POLICY", policy)
        .env("GUARD_SH_AUDIT", log)
        .current_dir(cwd)
        .stdin(Stdio::null());
    c
}

/// Run guard-sh with `args`.
pub fn run_guard(arm: &TestArm, cwd: &Path, args: &[&str]) -> Output {
    guard_cmd(arm, cwd)
        .args(args)
        .output()
        .expect("run guard-sh")
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}
