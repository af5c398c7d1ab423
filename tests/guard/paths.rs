//! The guard alone (Landlock off) refuses every spelling of an argument or
//! redirection that writes part of the guard: the policy, the bin folder
//! and what its links point to, the audit log, a tool's private folder.
//! The oracle is the files' hashes, compared before and after.

#![allow(clippy::panic, clippy::unwrap_used)] // test code reports failures by panicking

use crate::common;

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;

/// `arm-build ARM` with stand-ins (copies of `true`) for the tools.
fn build(arm: &str, root: &Path) -> PathBuf {
    common::true_stubs(root, &["tea", "curl", "git"]);
    let out = common::build_arm(arm, "http://127.0.0.1:3999", root);
    std::fs::write(out.join("work/input"), "b\na\n").unwrap();
    out
}

/// SHA-256 of every file under `dir` (a link: where it points), but for
/// the audit log and the work folder, which a refused line may change. The
/// links' targets that matter (the tool stubs) are hashed on their own.
fn hashes(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.ends_with("audit") || p.ends_with("work") {
                continue;
            }
            let is_link = p
                .symlink_metadata()
                .is_ok_and(|m| m.file_type().is_symlink());
            if is_link {
                let target = std::fs::read_link(&p).unwrap();
                out.push((p, target.display().to_string()));
            } else if p.is_dir() {
                stack.push(p);
            } else if let Ok(bytes) = std::fs::read(&p) {
                out.push((p, hex::encode(Sha256::digest(&bytes))));
            }
        }
    }
    out.sort();
    out
}

fn assert_refused_by_the_guard_alone(arm: &Path, guarded: &[&Path], line: &str) {
    let before: Vec<_> = guarded.iter().map(|d| hashes(d)).collect();
    let o = common::run_guard_alone(arm, line);
    let stderr = common::text(&o.stderr);
    assert_eq!(o.status.code(), Some(126), "{line}: {stderr}");
    assert!(stderr.contains("denied:"), "{line}: {stderr}");
    let after: Vec<_> = guarded.iter().map(|d| hashes(d)).collect();
    assert_eq!(before, after, "{line}: a guarded file changed");
}

#[test]
fn every_spelling_of_a_write_into_the_raw_api_arm_is_refused_without_landlock() {
    let root = tempfile::tempdir().unwrap();
    let arm = build("raw-api", root.path());
    let stubs = root.path().join("stubs");
    let policy = arm.join("policy.json").display().to_string();
    let guarded = [arm.join("bin"), stubs.clone()];
    let mut guarded: Vec<&Path> = guarded.iter().map(PathBuf::as_path).collect();
    let policy_dir = arm.clone();
    guarded.push(&policy_dir);
    for line in [
        "sort -uo../policy.json input".to_string(),
        "sort -uT../bin -o out input".to_string(),
        "curl -sD../policy.json http://127.0.0.1:3999/".to_string(),
        "curl -so../policy.json http://127.0.0.1:3999/".to_string(),
        "tee -- ../policy.json < input".to_string(),
        "mkdir -p x/../../bin/new".to_string(),
        format!("curl -T input file://{policy}"),
        format!("curl -T input file://localhost{policy}"),
        "curl -o '../#1/x' 'http://127.0.0.1:3999/{bin,audit}'".to_string(),
        "curl -o '../[a-z]in/curl' http://127.0.0.1:3999/".to_string(),
        "curl -o '../p#1' 'http://127.0.0.1:3999/{olicy.json}'".to_string(),
        // Through the bin folder's link to the program it names.
        "tee ../bin/curl < input".to_string(),
        format!("tee {} < input", stubs.join("curl").display()),
        // A removed working folder: relative paths still resolve.
        "mkdir d && cd d && rmdir ../d && tee ../../policy.json < /dev/null".to_string(),
    ] {
        assert_refused_by_the_guard_alone(&arm, &guarded, &line);
    }
}

#[test]
fn the_tea_login_is_the_tools_and_not_the_agents_to_write() {
    let root = tempfile::tempdir().unwrap();
    let arm = build("tea", root.path());
    let login = arm.join("tea-config");
    let guarded = [login.as_path()];
    for line in [
        "echo 'url: http://127.0.0.2:3999' > ../tea-config/tea/config.yml",
        "echo x >> ../tea-config/tea/config.yml",
        "tee ../tea-config/tea/config.yml < input",
        "mkdir ../tea-config/tea/more",
    ] {
        assert_refused_by_the_guard_alone(&arm, &guarded, line);
    }
}

#[test]
fn ordinary_writes_in_the_work_folder_still_work() {
    let root = tempfile::tempdir().unwrap();
    let arm = build("raw-api", root.path());
    let o = Command::new(common::guard_sh())
        .args([
            "-c",
            "sort -uo sorted input && mkdir -p a/b && tee a/b/c < input > /dev/null && cat sorted a/b/c \
             && echo '[{\"title\":\"t\"}]' | jq -r '.[].title' && echo '{\"a\":1}' | jq -c '{a}'",
        ])
        .env_clear()
        .env("GUARD_SH_POLICY", arm.join("policy.json"))
        .current_dir(arm.join("work"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", common::text(&o.stderr));
    // jq filters with brackets and braces are no paths.
    assert_eq!(common::text(&o.stdout), "a\nb\nb\na\nt\n{\"a\":1}\n");
}
