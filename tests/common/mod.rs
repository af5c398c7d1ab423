//! The one fixture module of the suites: the arms and policies tests use
//! (a permissive test arm whose bin folder links the utilities the tests
//! use, a shipped arm built by `arm-build` or compiled in-process, a small
//! hand-written policy) and helpers to run the guard-sh binary.

#![allow(dead_code, clippy::expect_used, clippy::panic)] // test helpers report failures by panicking

use guard_sh::armbuild::{self, BuildInputs};
use guard_sh::policy::Policy;
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
        "format": guard_sh::policy::POLICY_FORMAT,
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

/// `arm-build ARM --host HOST --repo o/r --out ROOT/ARM` with `ROOT/stubs`
/// (filled by the caller, if at all) first on `PATH`. Returns the arm
/// folder.
pub fn build_arm(arm: &str, host: &str, root: &Path) -> PathBuf {
    let out = root.join(arm);
    ArmBuild::new(arm, host, &out)
        .stubs(&root.join("stubs"))
        .run();
    out
}

/// The token an arm built by [`ArmBuild`] is given, unless the test names
/// its own.
pub const ARM_TOKEN: &str = "test-arm-token-0123";

/// `arm-build` as every test that builds a shipped arm runs it:
/// `arm-build ARM --host HOST --repo o/r --token-env ARM_TOKEN --out OUT`,
/// the token ([`ARM_TOKEN`] unless [`ArmBuild::token`] says) in the
/// environment, `/usr/bin:/bin` its `PATH`.
pub struct ArmBuild {
    command: Command,
    path: String,
}

impl ArmBuild {
    pub fn new(arm: &str, host: &str, out: &Path) -> ArmBuild {
        let mut command = Command::new(env!("CARGO_BIN_EXE_arm-build"));
        command
            .args([arm, "--host", host, "--repo", "o/r"])
            .args(["--token-env", "ARM_TOKEN", "--out"])
            .arg(out)
            .env("ARM_TOKEN", ARM_TOKEN);
        ArmBuild {
            command,
            path: "/usr/bin:/bin".into(),
        }
    }

    /// Programs in `dir` are found before the system's (the tools' stubs).
    pub fn stubs(mut self, dir: &Path) -> ArmBuild {
        self.path = format!("{}:/usr/bin:/bin", dir.display());
        self
    }

    /// The arm's token.
    pub fn token(mut self, value: &str) -> ArmBuild {
        self.command.env("ARM_TOKEN", value);
        self
    }

    /// More of `arm-build`'s options.
    pub fn args<I, S>(mut self, args: I) -> ArmBuild
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        self.command.args(args);
        self
    }

    /// The arms of this repository (`--arms`), not those installed.
    pub fn shipped_arms(self) -> ArmBuild {
        let arms = Path::new(env!("CARGO_MANIFEST_DIR")).join("arms");
        self.args([std::ffi::OsStr::new("--arms"), arms.as_os_str()])
    }

    /// Build it; fails the test with `arm-build`'s message unless it
    /// succeeds. What it printed.
    pub fn run(mut self) -> Output {
        let o = self
            .command
            .env("PATH", &self.path)
            .output()
            .expect("run arm-build");
        assert!(o.status.success(), "arm-build: {}", text(&o.stderr));
        o
    }

    /// Build it with `--print-definition`: the definition it printed.
    pub fn definition(self) -> serde_json::Value {
        let o = self.args(["--print-definition"]).run();
        serde_json::from_slice(&o.stdout).expect("the arm's definition")
    }
}

/// An executable script `dir/name` holding `body` (its first line the
/// `#!`): the one stub writer of the suites.
pub fn write_stub(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, body).expect("write stub");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod stub");
    path
}

/// `ROOT/stubs/NAME` for each name, a copy of `/usr/bin/true` (a compiled
/// program, so no shell is in the arm's reach).
pub fn true_stubs(root: &Path, names: &[&str]) {
    let stubs = root.join("stubs");
    std::fs::create_dir_all(&stubs).expect("stubs");
    for name in names {
        std::fs::copy("/usr/bin/true", stubs.join(name)).expect("copy true");
    }
}

/// `guard-sh -c LINE` in a built arm's work folder with the guard alone:
/// Landlock and the exec supervisor off.
pub fn run_guard_alone(arm: &Path, line: &str) -> Output {
    Command::new(guard_sh())
        .args(["-c", line])
        .env_clear()
        .env("GUARD_SH_POLICY", arm.join("policy.json"))
        .env("GUARD_SH_LANDLOCK", "off")
        .env("GUARD_SH_SUPERVISOR", "off")
        .current_dir(arm.join("work"))
        .output()
        .expect("run guard-sh")
}

// Compiling the shipped arms in-process: stub executables stand in for
// the tools (the guard decides by name; the stubs only satisfy the lookup
// the compiler does at build time).

/// The arm data shipped in the repository.
pub fn arms_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("arms")
}

/// Compiles `arm` into `dir/<arm>`, with stub tools made in `dir/stubs`.
pub fn compile_with_stubs(arm: &str, dir: &Path) -> Policy {
    let stubs = dir.join("stubs");
    std::fs::create_dir_all(&stubs).expect("stub dir");
    for tool in ["tea", "gitea-axi", "curl", "gitea-mcp", "node", "git"] {
        write_stub(&stubs, tool, "#!/bin/sh\nexit 0\n");
    }
    let search = std::env::join_paths([stubs.as_path(), Path::new("/usr/bin"), Path::new("/bin")])
        .expect("join");
    let inputs = BuildInputs {
        host: "http://127.0.0.1:3000".into(),
        repo: "o/r".into(),
        token: "test-token".into(),
        out_dir: dir.join(arm),
        search_path: Some(search),
    };
    armbuild::compile(&arms_dir(), arm, &inputs)
        .unwrap_or_else(|e| panic!("arm {arm} does not compile: {e}"))
}

/// A small hand-written policy, as JSON for the test to change before
/// [`policy_of`]: a tea arm (the tool `tea` at `/usr/local/bin/tea`, the
/// utility `ls`), bin folder `/arm/bin`, a best-effort sandbox, no
/// environment rules, nothing redacted.
pub fn small_policy() -> serde_json::Value {
    serde_json::json!({
        "format": guard_sh::policy::POLICY_FORMAT, "arm": "tea", "shell": true, "tool": "tea",
        "bin_dir": "/arm/bin",
        "commands": {
            "tea": {"kind": "tool", "path": "/usr/local/bin/tea"},
            "ls": {"kind": "utility", "path": "/usr/bin/ls"}
        },
        "env": {"pass": [], "deny": []},
        "sandbox": {"mode": "best-effort"},
        "audit": {}
    })
}

/// The policy `json` says (see [`small_policy`]).
pub fn policy_of(json: serde_json::Value) -> Policy {
    serde_json::from_value(json).expect("a test policy")
}
