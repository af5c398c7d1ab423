//! What no command may read: the harness's home (its login), the arm's
//! configs and the audit log, even through a program that opens a file the
//! guard never sees named (jq's `import` reads `NAME.json` from a path in
//! its program text). Each command's Landlock domain grants reading beside
//! those folders, not above them. The oracle is a key planted in those
//! files, looked for in everything the run printed; the same lines with
//! Landlock off print it (the guard cannot see the path), so the test can
//! fail.

#![allow(clippy::panic, clippy::unwrap_used)] // test code reports failures by panicking

use crate::common;
use crate::sandbox_support;

use std::path::Path;
use std::process::Command;

const KEY: &str = "harness-login-4567";

fn plant(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, format!("{{\"token\":\"{KEY}\"}}\n")).unwrap();
}

#[test]
fn no_command_reads_the_harness_login_or_the_arms_configs() {
    let root = tempfile::tempdir().unwrap();
    let arm = common::build_arm("raw-api", "http://127.0.0.1:9", root.path());
    plant(&arm.join("harness-home/.claude/.credentials.json"));
    plant(&arm.join("runtimes/planted.json"));
    plant(&arm.join("audit/planted.json"));
    let secrets = [
        "../harness-home/.claude/.credentials",
        "../runtimes/planted",
        "../audit/planted",
    ];
    for landlock in [true, false] {
        for secret in secrets {
            let line = format!("jq -c -n 'import \"{secret}\" as $c; $c'");
            let o = sandbox_support::run_in_built_arm(&arm, &line, landlock);
            let out = common::text(&o.stdout) + &common::text(&o.stderr);
            let what = format!("{line}, landlock {landlock}: {out}");
            if landlock {
                assert!(!out.contains(KEY), "{what}");
                assert!(out.contains("Permission denied"), "{what}");
                assert_ne!(o.status.code(), Some(0), "{what}");
            } else {
                // The guard does not see a path in jq's program: only the
                // kernel holds this, so without it the key is printed.
                assert!(out.contains(KEY), "{what}");
            }
        }
    }
}

/// Leaving those folders out does not take reading away from the work
/// folder, the commands' own HOME (empty: a dotfile a tool looks for is
/// simply missing) or the system. The folders the arm merely lies in are
/// closed but for the way to it and the programs the command runs: a file
/// of the operator's beside the arm is not the agent's to read.
#[test]
fn commands_read_the_work_folder_and_the_system_not_beside_the_arm() {
    let root = tempfile::tempdir().unwrap();
    let arm = common::build_arm("raw-api", "http://127.0.0.1:9", root.path());
    std::fs::write(arm.join("work/data.json"), "{\"in\":\"work\"}\n").unwrap();
    let beside = root.path().join("beside.json");
    std::fs::write(&beside, format!("{{\"token\":\"{KEY}\"}}\n")).unwrap();
    let line = "jq -c -n 'import \"data\" as $d; $d'; \
                jq -n 'import \"../home/.curlrc\" as $h; $h'; echo \"home=$?\"; \
                head -c 5 /etc/passwd; echo";
    let o = sandbox_support::run_in_built_arm(&arm, line, true);
    let stderr = common::text(&o.stderr);
    assert_eq!(
        common::text(&o.stdout),
        "[{\"in\":\"work\"}]\nhome=3\nroot:\n",
        "{stderr}"
    );
    // Missing, not refused.
    assert!(
        stderr.contains("module not found: ../home/.curlrc"),
        "{stderr}"
    );
    assert!(!stderr.contains("Permission denied"), "{stderr}");
    let line = format!("jq -c . {}", beside.display());
    for landlock in [true, false] {
        let o = sandbox_support::run_in_built_arm(&arm, &line, landlock);
        let out = common::text(&o.stdout) + &common::text(&o.stderr);
        assert_eq!(out.contains(KEY), !landlock, "landlock {landlock}: {out}");
    }
}

/// A tool's own folder (its login: the tea arm's `tea-config/`) is read by
/// that tool alone: another command's domain leaves it out like the
/// harness's home, the tool's own grants it.
#[test]
fn a_tools_own_folder_is_read_by_that_tool_alone() {
    let arm = sandbox_support::Arm::new();
    let config = arm.path("tool-config");
    plant(&config.join("login.json"));
    let cat = Path::new("/usr/bin/cat");
    let tool = sandbox_support::rule(cat, &[], &[], std::slice::from_ref(&config));
    let other = sandbox_support::utility("/usr/bin/cat");
    let mut commands = std::collections::BTreeMap::new();
    commands.insert("tool".to_string(), tool.clone());
    commands.insert("cat".to_string(), other.clone());
    let policy = arm.policy(commands);
    let login = config.join("login.json");
    let login = login.to_str().unwrap();
    for (rule, reads) in [(&tool, true), (&other, false)] {
        let confinement = sandbox_support::confine(&arm, &policy, rule, cat);
        let out = sandbox_support::run_confined(&confinement, &arm.path("work"), cat, &[login]);
        let printed = sandbox_support::stdout(&out);
        let what = format!("reads {reads}: {}", sandbox_support::stderr(&out));
        assert_eq!(printed.contains(KEY), reads, "{what}");
        if !reads {
            assert!(
                sandbox_support::stderr(&out).contains("Permission denied"),
                "{what}"
            );
        }
    }
}

/// The shell's own reads for a line (`<`, `$(< …)`, `read`, `<>`, `source`)
/// reach nothing its commands could not: a file beside the arm (another
/// arm's folder, the operator's) is refused after the open, by the file
/// reached, with status 126 and a `denied` record of rule
/// `unreadable-path`, Landlock on and off (guard-sh's own domain does not
/// handle reads: this is the guard's alone). bash prints the key; reads
/// inside the arm and of the system still work.
#[test]
fn the_shell_reads_nothing_beside_the_arm_for_a_line() {
    let root = tempfile::tempdir().unwrap();
    let arm = common::build_arm("raw-api", "http://127.0.0.1:9", root.path());
    let other = root.path().join("other-arm/harness-home");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("login"), format!("{KEY}\n")).unwrap();
    std::fs::write(arm.join("work/data.txt"), "data\n").unwrap();
    let secret = "../../other-arm/harness-home/login";
    let lines = [
        format!("cat < {secret}"),
        format!("x=$(< {secret}); echo \"$x\""),
        format!("read -r l < {secret}; echo \"$l\""),
        format!("exec 3<> {secret}; cat <&3"),
        format!("source {secret}"),
    ];
    let log = arm.join("audit/audit.jsonl");
    for line in &lines {
        if !line.starts_with("source") {
            let o = Command::new("/bin/bash")
                .args(["-c", line])
                .current_dir(arm.join("work"))
                .output()
                .unwrap();
            assert!(common::text(&o.stdout).contains(KEY), "bash, {line}");
        }
        for landlock in [true, false] {
            let before = denials(&log);
            let o = sandbox_support::run_in_built_arm(&arm, line, landlock);
            let out = common::text(&o.stdout) + &common::text(&o.stderr);
            let what = format!("{line}, landlock {landlock}: {out}");
            assert!(!out.contains(KEY), "{what}");
            if landlock && line.contains("<>") {
                // Opening for writing too: guard-sh's own domain refuses
                // it before the guard sees the file.
                assert_eq!(o.status.code(), Some(1), "{what}");
                assert!(out.contains("Permission denied"), "{what}");
                continue;
            }
            assert_eq!(o.status.code(), Some(126), "{what}");
            assert_eq!(denials(&log), before + 1, "{what}");
            assert!(out.contains("no command of this arm may read it"), "{what}");
        }
    }
    let fine = "read -r d < data.txt; echo \"$d\"; read -r h < /etc/hostname && echo host; cat < /dev/null; echo end";
    for landlock in [true, false] {
        let o = sandbox_support::run_in_built_arm(&arm, fine, landlock);
        assert_eq!(
            common::text(&o.stdout),
            "data\nhost\nend\n",
            "{}",
            common::text(&o.stderr)
        );
    }
}

/// The `denied` records of rule `unreadable-path` in the log.
fn denials(log: &Path) -> usize {
    sandbox_support::denials(log)
        .iter()
        .filter(|r| r["rule"] == "unreadable-path")
        .count()
}

/// The shell's own listing of a folder (a glob) gives a line no name its
/// commands could not list: the audit folder, the tool's own config folder,
/// the bin folder and a folder beside the arm keep their pattern as an
/// unreadable folder does, Landlock on and off (guard-sh's own process may
/// read its audit folder: this is the guard's alone). bash lists the
/// planted names; the work folder and the system are still listed.
#[test]
fn globbing_lists_no_folder_the_commands_may_not_read() {
    let root = tempfile::tempdir().unwrap();
    let arm = common::build_arm("raw-api", "http://127.0.0.1:9", root.path());
    let other = root.path().join("other-arm");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join(KEY), "").unwrap();
    std::fs::write(arm.join("audit").join(KEY), "").unwrap();
    std::fs::write(arm.join("harness-home").join(KEY), "").unwrap();
    std::fs::create_dir_all(arm.join("work/sub")).unwrap();
    std::fs::write(arm.join("work/sub/mine"), "").unwrap();
    // Spelled through a variable so no argument names the folder.
    let line = "a=../au h=../harn o=../../oth; echo ${a}dit/* ${h}ess-home/* ${o}er-arm/* ../b*/* ../work/sub/* /etc/host*";
    let o = Command::new("/bin/bash")
        .args(["-c", line])
        .current_dir(arm.join("work"))
        .output()
        .unwrap();
    assert_eq!(common::text(&o.stdout).matches(KEY).count(), 3, "bash");
    for landlock in [true, false] {
        let o = sandbox_support::run_in_built_arm(&arm, line, landlock);
        let out = common::text(&o.stdout);
        let what = format!("landlock {landlock}: {out} {}", common::text(&o.stderr));
        assert!(!out.contains(KEY), "{what}");
        assert!(!out.contains("../bin/"), "{what}");
        assert!(
            out.starts_with(
                "../audit/* ../harness-home/* ../../other-arm/* ../b*/* ../work/sub/mine /etc/host"
            ),
            "{what}"
        );
        assert_eq!(o.status.code(), Some(0), "{what}");
    }
}
