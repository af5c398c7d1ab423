//! The writer against real files: concurrent sessions, full disks, removed
//! files, redaction.

#![allow(clippy::expect_used)] // test code reports failures by panicking

use guard_sh::audit::verify::{VerifyOptions, verify_logs};
use guard_sh::audit::{AuditSink, Event, FileSink, Redactor, session_event};
use guard_sh::policy::model::Policy;
use std::path::{Path, PathBuf};
use std::process::Command;

const TOKEN: &str = "5b1f0c9e8d7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c";

/// The suites' small policy, redacting [`TOKEN`].
fn tea_policy() -> Policy {
    let mut json = crate::common::small_policy();
    json["audit"]["redact"] = serde_json::json!([TOKEN]);
    crate::common::policy_of(json)
}

fn open_session(path: &Path) -> FileSink {
    let policy = tea_policy();
    let redactor = Redactor::from_policy(&policy.audit).expect("redactor");
    let mut sink = FileSink::open(path, redactor).expect("open log");
    sink.record(session_event(
        &policy,
        &"ab".repeat(32),
        "none",
        &["guard-sh".into()],
        "command",
        "/w",
        None,
    ))
    .expect("session record");
    sink
}

/// Child half of the concurrency test: writes 1000 records once the start
/// file appears.
#[test]
#[ignore = "run by concurrent_sessions_never_interleave as a child process"]
fn audit_writer_child() {
    let log = PathBuf::from(std::env::var_os("AUDIT_CHILD_LOG").expect("AUDIT_CHILD_LOG"));
    let go = PathBuf::from(std::env::var_os("AUDIT_CHILD_GO").expect("AUDIT_CHILD_GO"));
    let mut sink = open_session(&log);
    while !go.exists() {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    for i in 0..1000u32 {
        let event = match i % 4 {
            0 => Event::Line {
                text: format!("ls {}", "x".repeat((i as usize * 37) % 3000)),
                origin: "stdin".into(),
            },
            1 => Event::Verdict {
                allowed: true,
                commands: serde_json::json!([]),
            },
            2 => Event::Spawn {
                pid: 1,
                path: "/usr/bin/ls".into(),
                argv: vec!["ls".into()],
                env_added: vec![],
            },
            _ => Event::Exit {
                pid: 1,
                status: Some(0),
                signal: None,
                duration_ms: 1,
            },
        };
        sink.record(event).expect("record");
    }
}

#[test]
fn concurrent_sessions_never_interleave() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("audit.jsonl");
    let go = dir.path().join("go");
    let exe = std::env::current_exe().expect("test binary");
    let children: Vec<_> = (0..8)
        .map(|_| {
            Command::new(&exe)
                .args([
                    "--ignored",
                    "--exact",
                    "writer::audit_writer_child",
                    "--quiet",
                ])
                .env("AUDIT_CHILD_LOG", &log)
                .env("AUDIT_CHILD_GO", &go)
                .spawn()
                .expect("spawn child")
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(300));
    std::fs::write(&go, b"").expect("start");
    for mut child in children {
        assert!(child.wait().expect("wait").success(), "a writer failed");
    }
    let report = verify_logs(std::slice::from_ref(&log), VerifyOptions::default());
    assert_eq!(report.findings, vec![], "{report:#?}");
    assert_eq!(report.exit_code, 0);
    assert_eq!(report.sessions.len(), 8);
    assert_eq!(report.records, 8 * 1001);
    for s in &report.sessions {
        assert_eq!(s.records, 1001);
        assert_eq!(s.lines, 250);
        assert_eq!(s.spawned, 250);
    }
    // The test only means something if the sessions really overlapped.
    let text = std::fs::read_to_string(&log).expect("read");
    let ids: Vec<&str> = text
        .lines()
        .map(|l| &l[12..l[12..].find('"').map_or(0, |e| e + 12)])
        .collect();
    let switches = ids.windows(2).filter(|w| w[0] != w[1]).count();
    assert!(
        switches > 8,
        "sessions did not overlap ({switches} switches)"
    );
}

/// A device keeps no record (`/dev/full` refuses every write, `/dev/null`
/// takes them all): refused when the log is opened, before any record.
/// A full file system is `full_tmpfs_makes_record_fail_with_reason`.
#[test]
fn a_device_is_refused_as_a_log() {
    for device in ["/dev/full", "/dev/null"] {
        let err = FileSink::open(Path::new(device), Redactor::none())
            .err()
            .unwrap_or_else(|| panic!("{device} was taken as a log"))
            .to_string();
        assert!(err.contains("not a regular file"), "{device}: {err}");
    }
}

#[test]
fn full_tmpfs_makes_record_fail_with_reason() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=16k", "tmpfs"])
        .arg(dir.path())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        crate::audit_support::skipped(
            "full_tmpfs_makes_record_fail_with_reason",
            "mount -t tmpfs not permitted here",
        );
        return;
    }
    let result = std::panic::catch_unwind(|| {
        let mut sink = open_session(&dir.path().join("audit.jsonl"));
        let line = "y".repeat(1000);
        (0..100)
            .map(|_| {
                sink.record(Event::Line {
                    text: line.clone(),
                    origin: "stdin".into(),
                })
            })
            .find_map(Result::err)
    });
    let _ = Command::new("umount").arg(dir.path()).status();
    let err = result
        .expect("no panic")
        .expect("a 16k filesystem fills within 100 KB of records");
    assert!(
        err.contains("No space left") || err.contains("short write"),
        "{err}"
    );
}

#[test]
fn removed_log_makes_record_fail() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("audit.jsonl");
    let mut sink = open_session(&log);
    std::fs::remove_file(&log).expect("rm");
    let err = sink
        .record(Event::Line {
            text: "ls".into(),
            origin: "stdin".into(),
        })
        .expect_err("an unlinked log must not take records");
    assert!(err.contains("removed"), "{err}");
}

#[test]
fn replaced_log_makes_record_fail() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("audit.jsonl");
    let mut sink = open_session(&log);
    std::fs::rename(&log, dir.path().join("old")).expect("mv");
    std::fs::write(&log, b"").expect("new file");
    let err = sink
        .record(Event::Line {
            text: "ls".into(),
            origin: "stdin".into(),
        })
        .expect_err("a replaced log must not take records");
    assert!(err.contains("moved or replaced"), "{err}");
}

#[test]
fn log_in_unusable_place_fails_to_open() {
    let err = FileSink::open(Path::new("/dev/null/x/audit.jsonl"), Redactor::none())
        .expect_err("not a folder");
    assert!(err.to_string().contains("/dev/null"), "{err}");
}

#[test]
fn new_log_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("sub/audit.jsonl");
    let _sink = open_session(&log);
    let mode = std::fs::metadata(&log).expect("stat").permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}

#[test]
fn first_record_must_be_the_session() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut sink = FileSink::open(&dir.path().join("a.jsonl"), Redactor::none()).expect("open");
    let err = sink
        .record(Event::Line {
            text: "ls".into(),
            origin: "stdin".into(),
        })
        .expect_err("no session yet");
    assert!(err.contains("session record"), "{err}");
}

#[test]
fn line_with_token_is_written_without_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("audit.jsonl");
    let mut sink = open_session(&log);
    let text = format!("curl -H 'Authorization: token {TOKEN}' http://x/?t={TOKEN}");
    sink.record(Event::Line {
        text,
        origin: "stdin".into(),
    })
    .expect("line");
    sink.record(Event::Spawn {
        pid: 3,
        path: "/usr/bin/ls".into(),
        argv: vec!["ls".into(), format!("x{TOKEN}y")],
        env_added: vec![format!("GITEA_TOKEN={TOKEN}")],
    })
    .expect("spawn");
    let written = std::fs::read_to_string(&log).expect("read");
    assert!(!written.contains(TOKEN), "{written}");
    assert_eq!(written.matches("[REDACTED]").count(), 4, "{written}");
}

#[test]
fn hashed_token_is_written_without_it() {
    use sha2::{Digest, Sha256};
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("audit.jsonl");
    let entries = [format!(
        "{}:{}",
        TOKEN.len(),
        hex::encode(Sha256::digest(TOKEN))
    )];
    let mut sink =
        FileSink::open(&log, Redactor::new(&[], &entries).expect("redactor")).expect("open");
    sink.record(session_event(
        &tea_policy(),
        &"ab".repeat(32),
        "none",
        &[],
        "command",
        "/",
        None,
    ))
    .expect("session");
    sink.record(Event::Line {
        text: format!("tea login add --token={TOKEN}x"),
        origin: "stdin".into(),
    })
    .expect("line");
    let written = std::fs::read_to_string(&log).expect("read");
    assert!(!written.contains(TOKEN), "{written}");
    assert!(written.contains("--token=[REDACTED]x"), "{written}");
}

#[test]
fn audit_path_prefers_flag_then_env_then_policy_then_xdg_default() {
    use guard_sh::audit::resolve_audit_path;
    use std::ffi::OsStr;
    let mut policy = tea_policy();
    let home = Some(OsStr::new("/home/u"));
    let flag = Some(Path::new("/f.jsonl"));
    let env = Some(OsStr::new("/e.jsonl"));
    let got = |c, e, p: &Policy, x| resolve_audit_path(c, e, p, x, home).expect("a location");
    assert_eq!(
        got(flag, env, &policy, None),
        (PathBuf::from("/f.jsonl"), false)
    );
    assert_eq!(
        got(None, env, &policy, None),
        (PathBuf::from("/e.jsonl"), false)
    );
    assert_eq!(
        got(None, Some(OsStr::new("")), &policy, Some(OsStr::new("rel"))),
        (
            PathBuf::from("/home/u/.local/state/guard-sh/audit.jsonl"),
            true
        )
    );
    assert_eq!(
        got(None, None, &policy, Some(OsStr::new("/st"))),
        (PathBuf::from("/st/guard-sh/audit.jsonl"), true)
    );
    policy.audit.path = Some(PathBuf::from("/p.jsonl"));
    assert_eq!(
        got(None, None, &policy, None),
        (PathBuf::from("/p.jsonl"), false)
    );
    policy.audit.path = None;
    assert!(resolve_audit_path(None, None, &policy, None, None).is_err());
}
