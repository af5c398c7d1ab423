//! Fail closed, through the guard-sh binary: when a record cannot be
//! written (filesystem full, log removed or replaced, log unwritable) the
//! command it describes does not run, guard-sh says
//! `guard-sh: audit log unavailable: …` and the status is 126 — at session
//! start and in the middle of a stdin session. The `mark FILE` stub creates
//! FILE when it runs, so a marker that exists means the command ran.
//!
//! A log already open for appending cannot be made unwritable under a live
//! writer (a read-only remount is refused while it is open), so in the middle
//! of a session "unavailable" means full, removed or replaced.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)] // test code reports failures by panicking

use crate::audit_support;

use audit_support::*;
use std::io::Write;
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};

const UNAVAILABLE: &str = "guard-sh: audit log unavailable: ";

/// `guard-sh -c 'mark MARKER'` logging to `log`: it must refuse with `why`.
fn assert_refused_at_start(arm: &AuditArm, log: &Path, why: &str) {
    let marker = arm.marker("ran");
    let out = arm
        .guard(log)
        .args(["-c", &format!("mark {}", marker.display())])
        .output()
        .expect("run guard-sh");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(126), "{stderr}");
    assert!(stderr.starts_with(UNAVAILABLE), "{stderr}");
    assert!(stderr.contains(why), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(!marker.exists(), "the command ran without a record");
}

/// A stdin session on `log` that has run `mark MARKER1` and recorded its exit.
struct LiveSession {
    child: Child,
    stdin: ChildStdin,
}

fn start_session(arm: &AuditArm, log: &Path) -> LiveSession {
    let mut child = arm
        .guard(log)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn guard-sh");
    let mut stdin = child.stdin.take().expect("stdin");
    let first = arm.marker("first");
    writeln!(stdin, "mark {}", first.display()).expect("feed");
    wait_until("the first command to run", || first.exists());
    wait_until("its exit record", || {
        std::fs::read_to_string(log).is_ok_and(|t| t.contains("\"type\":\"exit\""))
    });
    LiveSession { child, stdin }
}

/// Send `mark MARKER` (padded past a page, so it cannot fit in the slack of
/// the log's last page on a full filesystem) twice, then end the session:
/// neither may run, and the session ends 126 saying why.
/// `why` lists the reasons, one of which stderr must give.
fn assert_refused_mid_session(arm: &AuditArm, session: LiveSession, why: &[&str]) {
    let LiveSession { child, mut stdin } = session;
    let pad = "#".repeat(5000);
    for name in ["second", "third"] {
        writeln!(stdin, "mark {} {pad}", arm.marker(name).display()).expect("feed");
    }
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(126), "{stderr}");
    let first_line = stderr.lines().next().unwrap_or_default();
    assert!(first_line.starts_with(UNAVAILABLE), "{stderr}");
    assert!(why.iter().any(|w| stderr.contains(w)), "{stderr}");
    assert_eq!(stderr.matches(UNAVAILABLE).count(), 2, "{stderr}");
    assert!(!arm.marker("second").exists(), "ran without a record");
    assert!(!arm.marker("third").exists(), "ran without a record");
}

#[test]
fn log_on_a_full_tmpfs_at_session_start_runs_nothing() {
    let Some(fs) = Tmpfs::mount("size=64k") else {
        skipped(
            "log_on_a_full_tmpfs_at_session_start_runs_nothing",
            "cannot mount a tmpfs here (needs root)",
        );
        return;
    };
    fs.fill();
    let arm = AuditArm::new();
    assert_refused_at_start(&arm, &fs.path("audit.jsonl"), "No space left on device");
}

#[test]
fn log_on_a_tmpfs_that_fills_mid_session_runs_nothing_more() {
    let Some(fs) = Tmpfs::mount("size=256k") else {
        skipped(
            "log_on_a_tmpfs_that_fills_mid_session_runs_nothing_more",
            "cannot mount a tmpfs here (needs root)",
        );
        return;
    };
    let arm = AuditArm::new();
    let log = fs.path("audit.jsonl");
    let session = start_session(&arm, &log);
    fs.fill();
    // Full: nothing but `unrecorded` notes (in the room kept for them) is
    // written, and no torn bytes are left.
    let before = records(&log).len();
    assert_refused_mid_session(&arm, session, &["No space left on device", "short write"]);
    let after = records(&log);
    assert!(
        after[before..].iter().all(|r| r["type"] == "unrecorded"),
        "a record was written after the disk filled: {:?}",
        &after[before..]
    );
}

#[test]
fn log_removed_mid_session_runs_nothing_more() {
    let arm = AuditArm::new();
    let log = arm.work.join("audit.jsonl");
    let session = start_session(&arm, &log);
    std::fs::remove_file(&log).expect("rm log");
    assert_refused_mid_session(&arm, session, &["the log file was removed"]);
    assert!(!log.exists(), "guard-sh must not recreate a log elsewhere");
}

#[test]
fn log_replaced_mid_session_runs_nothing_more_and_writes_nothing_into_the_new_file() {
    let arm = AuditArm::new();
    let log = arm.work.join("audit.jsonl");
    let session = start_session(&arm, &log);
    let old = arm.work.join("audit.old");
    std::fs::rename(&log, &old).expect("mv log");
    std::fs::write(&log, b"").expect("new log");
    assert_refused_mid_session(&arm, session, &["the log file was moved or replaced"]);
    assert_eq!(std::fs::read(&log).expect("new log"), b"");
    // The moved file keeps its intact chain: the refused lines are not in it.
    let (status, report) = verify_json(&[&old]);
    assert_eq!(status, 0, "{report:#}");
    assert_eq!(report["sessions"][0]["lines"], 1);
}

#[test]
fn log_on_a_read_only_filesystem_runs_nothing() {
    let Some(fs) = Tmpfs::mount("size=16k,ro") else {
        skipped(
            "log_on_a_read_only_filesystem_runs_nothing",
            "cannot mount a tmpfs here (needs root)",
        );
        return;
    };
    let arm = AuditArm::new();
    assert_refused_at_start(&arm, &fs.path("audit.jsonl"), "Read-only file system");
}

#[test]
fn log_that_is_a_folder_runs_nothing() {
    let arm = AuditArm::new();
    let log = arm.work.join("logdir");
    std::fs::create_dir(&log).expect("mkdir");
    assert_refused_at_start(&arm, &log, "logdir");
}

/// A log that keeps nothing (`/dev/null`, a FIFO with or without a reader)
/// would let every line run unrecorded: refused, nothing runs, and no
/// open waits for a reader.
#[test]
fn log_that_is_not_a_regular_file_runs_nothing_and_never_waits() {
    let arm = AuditArm::new();
    assert_refused_at_start(&arm, Path::new("/dev/null"), "not a regular file");
    let fifo = arm.work.join("log.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    // No reader: the open fails at once rather than wait for one.
    assert_refused_at_start(&arm, &fifo, "No such device or address");
    // A reader: opened, then refused for what it is.
    let mut reader = std::process::Command::new("cat")
        .arg(&fifo)
        .stdout(Stdio::null())
        .spawn()
        .expect("start a reader");
    std::thread::sleep(std::time::Duration::from_millis(100));
    assert_refused_at_start(&arm, &fifo, "not a regular file");
    let _ = reader.kill();
    let _ = reader.wait();
}

#[test]
fn log_the_user_may_not_write_runs_nothing() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    // SAFETY: geteuid takes no argument and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        skipped(
            "log_the_user_may_not_write_runs_nothing",
            "needs root to run guard-sh as another user",
        );
        return;
    }
    let arm = AuditArm::new();
    let nobody = 65534;
    // The unprivileged user must reach the policy and may write the work
    // folder, so a marker that is missing means the command did not run.
    let chmod = |p: &Path, mode| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).expect("chmod")
    };
    chmod(arm.arm.dir.path(), 0o755);
    chmod(&arm.work, 0o777);
    let log = arm.work.join("root-only.jsonl");
    std::fs::write(&log, b"").expect("log");
    chmod(&log, 0o644);
    let marker = arm.marker("ran");
    let run = |log: &Path| {
        arm.guard(log)
            .env("HOME", &arm.work)
            .args(["-c", &format!("mark {}", marker.display())])
            .uid(nobody)
            .gid(nobody)
            .output()
            .expect("run guard-sh as nobody")
    };
    let out = run(&log);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(126), "{stderr}");
    assert!(stderr.starts_with(UNAVAILABLE), "{stderr}");
    assert!(stderr.contains("Permission denied"), "{stderr}");
    assert!(!marker.exists(), "the command ran without a record");
    // The same user with a log it may write does run the command.
    let out = run(&arm.work.join("own.jsonl"));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(marker.exists());
}

#[test]
fn spawn_record_that_cannot_be_written_keeps_the_child_from_running() {
    let Some(fs) = Tmpfs::mount("size=256k") else {
        skipped(
            "spawn_record_that_cannot_be_written_keeps_the_child_from_running",
            "cannot mount a tmpfs here (needs root)",
        );
        return;
    };
    let arm = AuditArm::new();
    let log = fs.path("audit.jsonl");
    let LiveSession { child, mut stdin } = start_session(&arm, &log);
    // $a is 10 000 bytes: the line and its verdict are small, its spawn
    // record is not.
    writeln!(
        stdin,
        "a=0123456789; a=$a$a$a$a$a$a$a$a$a$a; a=$a$a$a$a$a$a$a$a$a$a; a=$a$a$a$a$a$a$a$a$a$a"
    )
    .expect("feed");
    // Leave at least 2000 bytes free in the log's last page, so the line and
    // verdict records fit there once the filesystem is full.
    let size = || std::fs::metadata(&log).map_or(0, |m| m.len());
    let mut lines = 2;
    loop {
        let records = lines * 2 + 2;
        wait_until("the records so far", || {
            std::fs::read_to_string(&log).is_ok_and(|t| t.lines().count() >= records)
        });
        if 4096 - size() % 4096 >= 2000 {
            break;
        }
        writeln!(stdin, "true").expect("feed");
        lines += 1;
    }
    fs.fill();
    let marker = arm.marker("spawned");
    writeln!(stdin, "mark {} $a", marker.display()).expect("feed");
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(126), "{stderr}");
    assert!(stderr.starts_with(UNAVAILABLE), "{stderr}");
    assert!(!marker.exists(), "the child ran without its spawn record");
    // The line and its verdict were recorded: the refusal came at the spawn.
    let text = std::fs::read_to_string(&log).expect("log");
    let whole: Vec<serde_json::Value> = text
        .split_inclusive('\n')
        .filter(|l| l.ends_with('\n'))
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let last_line = whole
        .iter()
        .rev()
        .find(|r| r["type"] == "line")
        .expect("a line record");
    assert!(
        last_line["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("mark ")),
        "{last_line}"
    );
    let n = whole.len();
    assert!(n >= 2, "{whole:?}");
    assert_eq!(whole[n - 2]["type"], "verdict", "{whole:?}");
    // What could not be written is noted in the room kept for it.
    assert_eq!(whole[n - 1]["type"], "unrecorded", "{whole:?}");
    assert_eq!(whole[n - 1]["kind"], "spawn", "{whole:?}");
}

#[test]
fn a_full_filesystem_leaves_no_torn_record_and_the_failed_session_is_named() {
    let Some(fs) = Tmpfs::mount("size=256k") else {
        skipped(
            "a_full_filesystem_leaves_no_torn_record_and_the_failed_session_is_named",
            "cannot mount a tmpfs here (needs root)",
        );
        return;
    };
    let arm = AuditArm::new();
    let log = fs.path("audit.jsonl");
    // Fill, fail: the padded line cannot be recorded, so it does not run.
    let session = start_session(&arm, &log);
    fs.fill();
    assert_refused_mid_session(&arm, session, &["No space left on device", "short write"]);
    let after_failure = records(&log); // panics on a torn or non-JSON line
    let notes = of_type(&after_failure, "unrecorded");
    assert!(!notes.is_empty(), "{after_failure:?}");
    assert!(notes.iter().all(|n| n["kind"] == "line"), "{notes:?}");
    let failed_session = notes[0]["session"].as_str().expect("session").to_string();
    // Free: the next session records cleanly after it.
    std::fs::remove_file(fs.path("filler")).expect("free the filesystem");
    let marker = arm.marker("after");
    let out = arm
        .guard(&log)
        .args(["-c", &format!("mark {}", marker.display())])
        .output()
        .expect("run guard-sh");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(marker.exists());
    let all = records(&log);
    assert!(all.len() > after_failure.len());
    // The verifier trusts the log (no 3) and names the failed session.
    let (status, report) = verify_json(&[log.as_path()]);
    assert_eq!(status, 1, "{report}");
    let findings = report["findings"].as_array().expect("findings");
    assert!(
        findings
            .iter()
            .any(|f| f["kind"] == "incomplete" && f["session"] == failed_session.as_str()),
        "{report}"
    );
    assert!(
        findings
            .iter()
            .all(|f| f["session"] == failed_session.as_str()),
        "only the failed session has findings: {report}"
    );
}
