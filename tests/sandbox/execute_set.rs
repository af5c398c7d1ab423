//! The execute set `arm-build` stores in the policy (`sandbox.execute`):
//! guard-sh's own Landlock domain is made from it without reading any
//! program, and a command that needs a file outside it is refused with a
//! message that says to rebuild the arm.

#![allow(clippy::expect_used)] // test code reports failures by panicking

use crate::common::{build_arm, guard_sh, text, true_stubs, write_stub};
use std::path::Path;
use std::process::{Command, Output};

/// `guard-sh -c LINE` in a built arm's work folder, Landlock on unless
/// `env` says otherwise.
fn run_in_arm(arm: &Path, line: &str, env: &[(&str, &str)]) -> Output {
    Command::new(guard_sh())
        .args(["-c", line])
        .env_clear()
        .env("GUARD_SH_POLICY", arm.join("policy.json"))
        .envs(env.iter().copied())
        .current_dir(arm.join("work"))
        .output()
        .expect("run guard-sh")
}

/// The `openat` lines of guard-sh's whole run (`strace -f`) naming `path`.
fn opens_of(policy: &Path, cwd: &Path, path: &str) -> Vec<String> {
    let trace = cwd.join("opens.trace");
    let out = Command::new(crate::sandbox_support::STRACE)
        .args(["-f", "-qq", "-e", "trace=open,openat", "-o"])
        .arg(&trace)
        .arg(guard_sh())
        .args(["-c", ":"])
        .env_clear()
        .env("GUARD_SH_POLICY", policy)
        .current_dir(cwd)
        .output()
        .expect("run strace");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let needle = format!("\"{path}\"");
    std::fs::read_to_string(&trace)
        .expect("trace")
        .lines()
        .filter(|l| l.contains(&needle))
        .map(str::to_string)
        .collect()
}

#[test]
fn guard_sh_makes_its_own_domain_from_the_stored_set_without_reading_a_program() {
    let root = tempfile::tempdir().expect("tempdir");
    true_stubs(root.path(), &["tea", "git"]);
    let arm = build_arm("tea", "http://127.0.0.1:3000", root.path());
    let cat = std::fs::canonicalize(arm.join("bin/cat")).expect("cat");
    let cat = cat.to_str().expect("utf-8 path");

    let stored = opens_of(&arm.join("policy.json"), &arm.join("work"), cat);
    assert!(!stored.is_empty(), "no rule was made for {cat}");
    assert!(stored.iter().all(|l| l.contains("O_PATH")), "{stored:#?}");

    // The same policy without the set: guard-sh reads each program's head.
    let mut policy: serde_json::Value =
        serde_json::from_slice(&std::fs::read(arm.join("policy.json")).expect("policy"))
            .expect("policy JSON");
    policy["sandbox"]
        .as_object_mut()
        .expect("sandbox")
        .remove("execute")
        .expect("the built policy stores the set");
    let unstored_policy = root.path().join("unstored.json");
    std::fs::write(&unstored_policy, policy.to_string()).expect("write policy");
    let resolved = opens_of(&unstored_policy, &arm.join("work"), cat);
    assert!(
        resolved
            .iter()
            .any(|l| l.contains("O_RDONLY") && !l.contains("O_PATH")),
        "{resolved:#?}"
    );
}

#[test]
fn a_tool_whose_start_up_chain_changed_after_the_build_is_refused_with_why() {
    let root = tempfile::tempdir().expect("tempdir");
    true_stubs(root.path(), &["tea", "git"]);
    let arm = build_arm("tea", "http://127.0.0.1:3000", root.path());
    // After the build, tea becomes a script of an interpreter the set
    // never saw.
    let interpreters = root.path().join("interpreters");
    std::fs::create_dir(&interpreters).expect("mkdir");
    let new_interpreter = interpreters.join("mytrue");
    std::fs::copy("/usr/bin/true", &new_interpreter).expect("copy true");
    write_stub(
        &root.path().join("stubs"),
        "tea",
        &format!("#!{}\n", new_interpreter.display()),
    );

    let out = run_in_arm(&arm, "tea; echo after=$?", &[]);
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!(
            "{} is not in the policy's execute set",
            new_interpreter.display()
        )) && err.contains("rebuild the arm"),
        "{err}"
    );
    assert_eq!(text(&out.stdout), "after=126\n", "{err}");

    // Without Landlock there is no domain of guard-sh's to disagree with.
    let off = run_in_arm(&arm, "tea; echo after=$?", &[("GUARD_SH_LANDLOCK", "off")]);
    assert_eq!(text(&off.stdout), "after=0\n", "{}", text(&off.stderr));
}
