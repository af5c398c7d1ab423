//! guard-sh-launch end to end: a built `tea` arm, a harness stand-in
//! (`env`, which runs whatever it is told), and the kernel's answer. The
//! oracle is a marker file the refused program would have written.

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

struct Fixture {
    root: tempfile::TempDir,
    arm: PathBuf,
    definition: Value,
}

impl Fixture {
    /// `arm-build tea` with `tea` a copy of `echo` and `git` a copy of
    /// `true`: compiled programs, so the only shell in the arm's reach is
    /// the one behind Debian's `egrep`/`fgrep` scripts.
    fn new() -> Fixture {
        let root = tempfile::tempdir().expect("tempdir");
        let stubs = root.path().join("stubs");
        std::fs::create_dir(&stubs).expect("mkdir stubs");
        std::fs::copy("/usr/bin/echo", stubs.join("tea")).expect("copy echo");
        std::fs::copy("/usr/bin/true", stubs.join("git")).expect("copy true");
        let arm = root.path().join("arm");
        let o = Command::new(env!("CARGO_BIN_EXE_arm-build"))
            .args(["tea", "--host", "http://127.0.0.1:3000", "--repo", "o/r"])
            .args(["--token-env", "LAUNCH_TOKEN", "--out"])
            .arg(&arm)
            .env("PATH", format!("{}:/usr/bin:/bin", stubs.display()))
            .env("LAUNCH_TOKEN", "launch-token-0123456789")
            .output()
            .expect("run arm-build");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let definition = serde_json::from_slice(&o.stdout).expect("definition");
        Fixture {
            root,
            arm,
            definition,
        }
    }

    fn launch(&self, extra: &[&str], command: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_guard-sh-launch"));
        c.arg("--arm")
            .arg(&self.arm)
            .args(extra)
            .arg("--")
            .args(command)
            .current_dir(self.root.path())
            .env_clear()
            .env("PATH", "/usr/bin:/bin");
        c
    }

    fn plan(&self, extra: &[&str]) -> Value {
        let mut args = extra.to_vec();
        args.push("--plan");
        let o = self.launch(&args, &["env"]).output().expect("run --plan");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice(&o.stdout).expect("plan JSON")
    }

    fn marker(&self) -> PathBuf {
        self.root.path().join("marker")
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn paths(v: &Value) -> Vec<PathBuf> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|p| PathBuf::from(p.as_str().expect("string")))
        .collect()
}

fn real(p: &str) -> PathBuf {
    std::fs::canonicalize(p).expect("canonicalize")
}

#[test]
fn plan_leaves_out_the_shell_behind_egrep_and_fgrep_and_names_them() {
    let f = Fixture::new();
    let plan = f.plan(&[]);
    let sh = real("/bin/sh");
    let execute = paths(&plan["execute"]);
    assert!(!execute.contains(&sh), "{plan}");
    assert_eq!(
        plan["leftOut"][sh.to_str().expect("utf-8")],
        serde_json::json!(["egrep", "fgrep"]),
        "{plan}"
    );
    let guard = real(f.definition["shell"]["path"].as_str().expect("shell.path"));
    for needed in [
        guard,
        f.root.path().join("stubs/tea"),
        real("/usr/bin/head"),
        real("/usr/bin/env"),
    ] {
        assert!(
            execute.contains(&needed),
            "{} missing: {plan}",
            needed.display()
        );
    }
}

#[test]
fn an_interpreter_named_with_allow_exec_stays_in_the_plan() {
    let f = Fixture::new();
    let plan = f.plan(&["--allow-exec", "/bin/sh"]);
    assert!(paths(&plan["execute"]).contains(&real("/bin/sh")), "{plan}");
    assert_eq!(plan["leftOut"], serde_json::json!({}), "{plan}");
}

#[test]
fn under_the_launcher_the_harness_cannot_execute_sh() {
    let f = Fixture::new();
    let script = format!("touch {}", f.marker().display());
    let o: Output = f
        .launch(&[], &["env", "sh", "-c", &script])
        .output()
        .expect("run guard-sh-launch");
    assert_eq!(o.status.code(), Some(126), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("Permission denied"),
        "{}",
        text(&o.stderr)
    );
    assert!(!f.marker().exists(), "sh ran under the launcher");
}

#[test]
fn without_landlock_the_same_harness_runs_sh_and_the_launcher_warns() {
    let f = Fixture::new();
    let script = format!("touch {}", f.marker().display());
    let o = f
        .launch(&[], &["env", "sh", "-c", &script])
        .env("GUARD_SH_LANDLOCK", "off")
        .output()
        .expect("run guard-sh-launch");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(f.marker().exists());
    assert!(
        text(&o.stderr).contains("the harness runs unconfined"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn under_the_launcher_guard_sh_still_runs_the_arms_commands() {
    let f = Fixture::new();
    let shell = f.definition["shell"]["path"].as_str().expect("shell.path");
    let mut c = f.launch(&[], &["env", shell, "-c", "tea issues list | head -1"]);
    // The arm's variables for guard-sh; the harness keeps its own PATH.
    for (k, v) in f.definition["shell"]["env"].as_object().expect("shell.env") {
        if k != "PATH" {
            c.env(k, v.as_str().expect("string"));
        }
    }
    let o = c.output().expect("run guard-sh-launch");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "issues list\n");
}

#[test]
fn a_policy_that_does_not_match_the_arms_pin_is_refused_with_125() {
    let f = Fixture::new();
    let policy = f.arm.join("policy.json");
    let mut bytes = std::fs::read(&policy).expect("read policy");
    bytes.push(b'\n');
    std::fs::write(&policy, bytes).expect("write policy");
    let o = f.launch(&[], &["env", "true"]).output().expect("run");
    assert_eq!(o.status.code(), Some(125));
    assert!(
        text(&o.stderr).contains("does not match"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn a_missing_arm_is_125_and_a_missing_program_127() {
    let f = Fixture::new();
    let o = Command::new(env!("CARGO_BIN_EXE_guard-sh-launch"))
        .args(["--arm", "/nonexistent/arm", "--", "env"])
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(125));
    assert!(
        text(&o.stderr).contains("/nonexistent/arm/arm.json"),
        "{}",
        text(&o.stderr)
    );
    let o = f.launch(&[], &["no-such-harness"]).output().expect("run");
    assert_eq!(o.status.code(), Some(127));
    assert!(
        text(&o.stderr).contains("no-such-harness: not found"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn the_harness_program_must_be_given() {
    let o = Command::new(env!("CARGO_BIN_EXE_guard-sh-launch"))
        .args(["--arm", "/tmp"])
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("PROGRAM"), "{}", text(&o.stderr));
}
