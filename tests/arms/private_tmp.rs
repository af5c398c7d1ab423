//! A trial's private `/tmp` under guard-sh-launch: the arm's `tmp/` mounted
//! over `/tmp` in a mount namespace of the trial, so ordinary agent lines
//! that use scratch files behave as in bash (compared with bash run in a
//! private `/tmp` of its own: stdout, stderr, status and the files left),
//! land in the arm, and two trials at once do not see each other's. An
//! arm under `/tmp` (which the mount would hide) keeps `/tmp` shared, and
//! its record says so.

use crate::launch::text;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Lines agents write with scratch files in `/tmp`.
const LINES: [&str; 6] = [
    "cat > /tmp/body.json <<'EOF'\n{\"title\": \"x\"}\nEOF\ncat /tmp/body.json",
    "echo a > /tmp/a; echo b > /tmp/b; diff /tmp/a /tmp/b; echo status $?",
    "echo one > /tmp/log; echo two >> /tmp/log; wc -l < /tmp/log",
    "ls /no/such/file &> /tmp/err; echo $?; cat /tmp/err",
    "exec 3> /tmp/fd3; echo via3 >&3; exec 3>&-; cat /tmp/fd3",
    "mkdir -p /tmp/d/e && echo deep > /tmp/d/e/f && cat /tmp/d/e/f && ls /tmp/d",
];

/// A root outside `/tmp` for an arm (the private `/tmp` would hide one
/// inside it).
fn root_outside_tmp() -> tempfile::TempDir {
    let parent = Path::new(env!("CARGO_TARGET_TMPDIR"));
    assert!(!parent.starts_with("/tmp"), "{parent:?}");
    tempfile::tempdir_in(parent).expect("tempdir")
}

/// `arm-build tea` into `root/arm`.
fn arm_in(root: &Path) -> Value {
    crate::built_tea_arm(root)
}

/// The arm's shell under the launcher, running `line` in its work folder.
fn launched(definition: &Value, root: &Path, line: &str) -> Command {
    crate::launched_line(definition, root, &root.join("arm/work"), line)
}

/// bash running `line` with `tmp` mounted over `/tmp` in a mount
/// namespace of its own.
fn bash_with_private_tmp(tmp: &Path, line: &str) -> Output {
    Command::new("unshare")
        .args(["--mount", "--propagation", "slave", "sh", "-c"])
        .arg("mount --bind \"$0\" /tmp && cd \"$0\" && exec bash -c \"$1\"")
        .arg(tmp)
        .arg(line)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .output()
        .expect("run bash")
}

/// Every file beneath `dir`, with its contents.
fn tree(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut files: Vec<(PathBuf, String)> = crate::launch::files_beneath(dir)
        .into_iter()
        .map(|p| {
            let body = std::fs::read_to_string(&p).unwrap_or_default();
            (p.strip_prefix(dir).expect("beneath").to_path_buf(), body)
        })
        .collect();
    files.sort();
    files
}

#[test]
fn scratch_files_in_tmp_behave_as_in_bash_and_land_in_the_arm() {
    // The real /tmp, before: nothing a trial writes may appear there.
    let marker_names = ["body.json", "fd3", "log"];
    let before: Vec<bool> = marker_names
        .iter()
        .map(|n| Path::new("/tmp").join(n).exists())
        .collect();
    for line in LINES {
        let root = root_outside_tmp();
        let definition = arm_in(root.path());
        let ours = launched(&definition, root.path(), line)
            .output()
            .expect("launch");
        let theirs_tmp = root.path().join("bash-tmp");
        std::fs::create_dir(&theirs_tmp).expect("mkdir");
        let theirs = bash_with_private_tmp(&theirs_tmp, line);
        let ours_stderr: String = text(&ours.stderr)
            .lines()
            .filter(|l| !l.starts_with("guard-sh-launch:"))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(text(&ours.stdout), text(&theirs.stdout), "{line}");
        assert_eq!(ours_stderr, text(&theirs.stderr), "{line}");
        assert_eq!(ours.status.code(), theirs.status.code(), "{line}");
        assert_eq!(
            tree(&root.path().join("arm/tmp")),
            tree(&theirs_tmp),
            "{line}"
        );
        let harness = std::fs::read_to_string(root.path().join("arm/audit/audit.jsonl"))
            .expect("log")
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).expect("record"))
            .find(|r| r["type"] == "harness")
            .expect("harness record");
        assert!(
            harness["tmp"]
                .as_str()
                .is_some_and(|t| t.starts_with("private: /tmp is ")),
            "{harness}"
        );
    }
    let after: Vec<bool> = marker_names
        .iter()
        .map(|n| Path::new("/tmp").join(n).exists())
        .collect();
    assert_eq!(before, after, "a trial wrote into the machine's /tmp");
}

#[test]
fn two_trials_at_once_do_not_see_each_others_tmp() {
    let roots = [root_outside_tmp(), root_outside_tmp()];
    let children: Vec<std::process::Child> = roots
        .iter()
        .enumerate()
        .map(|(i, root)| {
            let definition = arm_in(root.path());
            let line = format!("echo {i} > /tmp/mine-{i}; sleep 1; ls /tmp");
            launched(&definition, root.path(), &line)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("launch")
        })
        .collect();
    for (i, child) in children.into_iter().enumerate() {
        let out = child.wait_with_output().expect("wait");
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), format!("mine-{i}\n"));
    }
}

/// A program of the trial under `/tmp` (here the arm's tool) would vanish
/// behind a private `/tmp`: the trial keeps `/tmp` shared, and says why.
#[test]
fn a_program_under_tmp_keeps_tmp_shared() {
    let root = root_outside_tmp();
    let stubs = tempfile::tempdir().expect("stubs in /tmp");
    std::fs::copy("/usr/bin/echo", stubs.path().join("tea")).expect("copy echo");
    std::fs::copy("/usr/bin/true", stubs.path().join("git")).expect("copy true");
    let definition =
        crate::common::ArmBuild::new("tea", "http://127.0.0.1:3000", &root.path().join("arm"))
            .stubs(stubs.path())
            .definition();
    let out = launched(&definition, root.path(), "tea issues list")
        .output()
        .expect("launch");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "issues list\n");
    let log = std::fs::read_to_string(root.path().join("arm/audit/audit.jsonl")).expect("log");
    assert!(
        log.contains(&format!("\"tmp\":\"shared: {}/", stubs.path().display()))
            && log.contains("lies under /tmp, which a private /tmp would hide"),
        "{log}"
    );
}

#[test]
fn an_arm_under_tmp_keeps_tmp_shared_and_closed_and_says_so() {
    let root = tempfile::tempdir().expect("tempdir");
    assert!(root.path().starts_with("/tmp"));
    let definition = arm_in(root.path());
    let name = format!("guard-sh-shared-{}", std::process::id());
    let out = launched(&definition, root.path(), &format!("echo x > /tmp/{name}"))
        .output()
        .expect("launch");
    assert_ne!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!Path::new("/tmp").join(&name).exists());
    let log = std::fs::read_to_string(root.path().join("arm/audit/audit.jsonl")).expect("log");
    assert!(
        log.contains("shared: the arm lies under /tmp, which a private /tmp would hide"),
        "{log}"
    );
}
