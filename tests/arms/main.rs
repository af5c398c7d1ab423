//! The arms: their files compiled, `arm-build` and `guard-sh-launch` as programs.
//! One test binary (`cargo test --test arms`), a module per file.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)] // test code reports failures by panicking

mod arm_build;
#[path = "../audit_support/mod.rs"]
mod audit_support;
mod bounds;
#[path = "../common/mod.rs"]
mod common;
mod harness_domain;
mod launch;
mod policy;
mod private_tmp;
mod serve;

/// `arm-build tea` into `root/arm`, with `tea` a copy of `echo` and `git`
/// a copy of `true` (compiled programs, so the only shell in the arm's
/// reach is the one behind Debian's `egrep`/`fgrep` scripts): the arm's
/// definition (`arm.json`).
fn built_tea_arm(root: &std::path::Path) -> serde_json::Value {
    built_tea_arm_with(root, &[])
}

/// [`built_tea_arm`] with more `arm-build` options (bounds).
fn built_tea_arm_with(root: &std::path::Path, extra: &[&str]) -> serde_json::Value {
    let stubs = root.join("stubs");
    std::fs::create_dir_all(&stubs).expect("mkdir stubs");
    std::fs::copy("/usr/bin/echo", stubs.join("tea")).expect("copy echo");
    std::fs::copy("/usr/bin/true", stubs.join("git")).expect("copy true");
    common::ArmBuild::new("tea", "http://127.0.0.1:3000", &root.join("arm"))
        .stubs(&stubs)
        .args(extra)
        .definition()
}

/// `timeout 60 guard-sh-launch --arm ROOT/arm -- env SHELL -c LINE` in
/// `cwd`, with the arm's variables (the harness keeps its own PATH).
fn launched_line(
    definition: &serde_json::Value,
    root: &std::path::Path,
    cwd: &std::path::Path,
    line: &str,
) -> std::process::Command {
    let shell = definition["shell"]["path"].as_str().expect("shell.path");
    let mut c = std::process::Command::new("timeout");
    c.args(["60", env!("CARGO_BIN_EXE_guard-sh-launch"), "--arm"])
        .arg(root.join("arm"))
        .args(["--", "env", shell, "-c", line])
        .current_dir(cwd)
        .env_clear()
        .env("PATH", "/usr/bin:/bin");
    for (k, v) in definition["shell"]["env"].as_object().expect("shell.env") {
        if k != "PATH" {
            c.env(k, v.as_str().expect("string"));
        }
    }
    c
}
