//! The verifier binary on real logs: tampering, leaks, denials, empty trials.

#![allow(clippy::expect_used)] // test code reports failures by panicking

use guard_sh::audit::trial::{TrialKey, commit_to_sessions};
use guard_sh::audit::{AuditSink, Event, FileSink, Redactor, session_event};
use guard_sh::policy::model::Policy;
use sha2::{Digest, Sha256};
use std::path::Path;
use std::process::Command;

/// The suites' small policy, its tool allowed to run git, in `sandbox`
/// mode.
fn tea_policy(sandbox: &str) -> Policy {
    let mut json = crate::common::small_policy();
    json["commands"]["tea"]["exec_allow"] = serde_json::json!(["/usr/bin/git"]);
    json["sandbox"]["mode"] = sandbox.into();
    crate::common::policy_of(json)
}

fn line(text: &str) -> Event {
    Event::Line {
        text: text.into(),
        origin: "command".into(),
    }
}

fn spawn(path: &str, argv: &[&str]) -> Event {
    Event::Spawn {
        pid: 7,
        path: path.into(),
        argv: argv.iter().map(|s| s.to_string()).collect(),
        env_added: vec![],
    }
}

/// A session written by the real writer; returns its id.
fn write_session(log: &Path, enforcement: &str, sandbox: &str, events: Vec<Event>) -> String {
    let mut sink = FileSink::open(log, Redactor::none()).expect("open");
    sink.record(session_event(
        &tea_policy(sandbox),
        &"ab".repeat(32),
        enforcement,
        &["guard-sh".into()],
        "command",
        "/w",
        None,
    ))
    .expect("session");
    for e in events {
        sink.record(e).expect("record");
    }
    sink.session_id().to_string()
}

fn normal_events() -> Vec<Event> {
    vec![
        line("ls; tea issues"),
        Event::Verdict {
            allowed: true,
            commands: serde_json::json!({"allowed": true, "commands": []}),
        },
        spawn("/arm/bin/ls", &["ls"]),
        Event::Exit {
            pid: 7,
            status: Some(0),
            signal: None,
            duration_ms: 2,
        },
        spawn("/usr/local/bin/tea", &["tea", "issues"]),
        Event::Exit {
            pid: 7,
            status: Some(0),
            signal: None,
            duration_ms: 9,
        },
    ]
}

fn audit(logs: &[&Path]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_guard-sh-audit"))
        .args(logs)
        .output()
        .expect("run verifier");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// A best-effort session of `events` is found `denied-but-executed` at
/// record `seq` (exit status 1).
fn assert_denied_but_executed(events: Vec<Event>, seq: u64) {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("a.jsonl");
    let id = write_session(&log, "none", "best-effort", events);
    let (code, out) = audit(&[&log]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!("denied-but-executed session {id} seq {seq}")),
        "{out}"
    );
}

fn lines_of(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .expect("read")
        .lines()
        .map(str::to_string)
        .collect()
}

fn write_lines(log: &Path, lines: &[String]) {
    std::fs::write(
        log,
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .expect("write");
}

#[test]
fn clean_session_exits_zero_with_histogram() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("a.jsonl");
    let id = write_session(&log, "landlock-abi-4", "best-effort", normal_events());
    let (code, out) = audit(&[&log]);
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("CLEAN: 1 session(s), 7 record(s)"), "{out}");
    // The first line says what an unsealed log cannot prove.
    let first = out.lines().next().unwrap_or_default();
    assert!(
        first.ends_with("; not sealed: no guard-sh-launch trial, so a record or session added, changed or removed later cannot be told from the rest"),
        "{first}"
    );
    assert!(out.contains(&id), "{out}");
    // The session's programs come under a header of their own.
    let rows: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with(&id))
        .skip(1)
        .take(3)
        .map(str::trim)
        .collect();
    assert_eq!(
        rows,
        ["RUNS  PROGRAM", "1  /arm/bin/ls", "1  /usr/local/bin/tea"],
        "{out}"
    );
}

#[test]
fn deleted_record_is_a_chain_break_naming_seq() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("a.jsonl");
    let id = write_session(&log, "none", "best-effort", normal_events());
    let mut lines = lines_of(&log);
    lines.remove(3);
    write_lines(&log, &lines);
    let (code, out) = audit(&[&log]);
    assert_eq!(code, 3, "{out}");
    assert!(
        out.contains(&format!("chain-break session {id} seq 3")) && out.contains("missing"),
        "{out}"
    );
}

#[test]
fn edited_field_is_a_chain_break_naming_seq() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("a.jsonl");
    let id = write_session(&log, "none", "best-effort", normal_events());
    let mut lines = lines_of(&log);
    lines[2] = lines[2].replace("\"allowed\":true", "\"allowed\":false");
    assert_ne!(lines[2], lines_of(&log)[2]);
    write_lines(&log, &lines);
    let (code, out) = audit(&[&log]);
    assert_eq!(code, 3, "{out}");
    assert!(
        out.contains(&format!("chain-break session {id} seq 3"))
            && out.contains("seq 2 was altered"),
        "{out}"
    );
}

#[test]
fn reordered_records_are_a_chain_break_naming_seq() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("a.jsonl");
    let id = write_session(&log, "none", "best-effort", normal_events());
    let mut lines = lines_of(&log);
    lines.swap(3, 4);
    write_lines(&log, &lines);
    let (code, out) = audit(&[&log]);
    assert_eq!(code, 3, "{out}");
    assert!(
        out.contains(&format!("chain-break session {id} seq 3")) && out.contains("reordered"),
        "{out}"
    );
}

#[test]
fn duplicated_record_is_a_chain_break() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("a.jsonl");
    let id = write_session(&log, "none", "best-effort", normal_events());
    let mut lines = lines_of(&log);
    lines.insert(5, lines[2].clone());
    write_lines(&log, &lines);
    let (code, out) = audit(&[&log]);
    assert_eq!(code, 3, "{out}");
    assert!(
        out.contains(&format!("chain-break session {id} seq 2")) && out.contains("duplicated"),
        "{out}"
    );
}

#[test]
fn truncated_last_record_is_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("a.jsonl");
    let id = write_session(&log, "none", "best-effort", normal_events());
    let text = std::fs::read(&log).expect("read");
    std::fs::write(&log, &text[..text.len() - 20]).expect("truncate");
    let (code, out) = audit(&[&log]);
    assert_eq!(code, 3, "{out}");
    assert!(
        out.contains(&format!("truncated session {id} seq 6")),
        "{out}"
    );
}

#[test]
fn curl_spawn_in_tea_arm_is_a_leak() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("a.jsonl");
    let mut events = normal_events();
    events.push(spawn("/usr/bin/curl", &["curl", "http://127.0.0.1/"]));
    let id = write_session(&log, "none", "best-effort", events);
    let (code, out) = audit(&[&log]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!("leak session {id} seq 7")) && out.contains("/usr/bin/curl"),
        "{out}"
    );
}

/// A log built by hand (not by the writer), with a valid chain.
#[test]
fn hand_made_chain_with_curl_is_a_leak() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("hand.jsonl");
    let bodies = [
        r#""type":"session","arm":"tea","policy_sha256":"ab","enforcement":"none","version":"0","cwd":"/","argv":[],"mode":"command","shell":true,"bin_dir":"/b","commands":{"tea":"/usr/local/bin/tea"},"sandbox":"off""#,
        r#""type":"line","text":"curl x","origin":"command""#,
        r#""type":"spawn","pid":1,"path":"/usr/bin/curl","argv":["curl","x"],"env_added":[]"#,
    ];
    let mut prev = "0".repeat(64);
    let mut text = String::new();
    for (seq, body) in bodies.iter().enumerate() {
        let line = format!(
            r#"{{"session":"s-1","seq":{seq},"ts":"2026-01-01T00:00:00.000Z","prev":"{prev}",{body}}}"#
        );
        prev = hex::encode(Sha256::digest(line.as_bytes()));
        text.push_str(&line);
        text.push('\n');
    }
    std::fs::write(&log, text).expect("write");
    let (code, out) = audit(&[&log]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("leak session s-1 seq 2") && out.contains("/usr/bin/curl"),
        "{out}"
    );
    assert!(!out.contains("chain-break"), "{out}");
}

#[test]
fn spawn_of_denied_argv_is_denied_but_executed() {
    assert_denied_but_executed(
        vec![
            line("tea api /x"),
            Event::Verdict {
                allowed: true,
                commands: serde_json::json!([]),
            },
            Event::Denied {
                rule: "subcommand".into(),
                reason: "tea api".into(),
                argv: vec!["tea".into(), "api".into()],
            },
            spawn("/usr/local/bin/tea", &["tea", "api"]),
        ],
        4,
    );
}

#[test]
fn spawn_after_refused_line_is_denied_but_executed() {
    assert_denied_but_executed(
        vec![
            line("ls | curl x"),
            Event::Verdict {
                allowed: false,
                commands: serde_json::json!([]),
            },
            spawn("/usr/bin/ls", &["ls"]),
        ],
        3,
    );
}

#[test]
fn spawn_after_a_refused_prompt_is_denied_but_executed() {
    // A prompt's expansion is text checked at top level, as a line is.
    assert_denied_but_executed(
        vec![
            Event::Line {
                text: ": \"$(curl x)\"".into(),
                origin: "prompt".into(),
            },
            Event::Verdict {
                allowed: false,
                commands: serde_json::json!([]),
            },
            spawn("/usr/bin/curl", &["curl", "x"]),
        ],
        3,
    );
}

#[test]
fn required_sandbox_without_enforcement_is_flagged() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("a.jsonl");
    let id = write_session(&log, "none", "required", normal_events());
    let (code, out) = audit(&[&log]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!("sandbox-missing session {id} seq 0")),
        "{out}"
    );
}

#[test]
fn empty_or_missing_log_is_not_clean() {
    let dir = tempfile::tempdir().expect("tempdir");
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").expect("empty log");
    let (code, out) = audit(&[&empty]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("no-sessions"), "{out}");
    // A path that names no file is no trial at all, even where an empty
    // log would pass (the MCP arm's --allow-empty).
    let missing = dir.path().join("typo.jsonl");
    for extra in [&[][..], &["--allow-empty"][..]] {
        let out = Command::new(env!("CARGO_BIN_EXE_guard-sh-audit"))
            .args(extra)
            .arg(&missing)
            .output()
            .expect("run");
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(3), "{text}");
        assert!(text.contains("no such file"), "{text}");
    }
    let (code, out) = audit(&[&empty]);
    assert_eq!(code, 1, "{out}");
    let log2 = dir.path().join("b.jsonl");
    write_session(&log2, "none", "best-effort", vec![]);
    let (code, out) = audit(&[&log2]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("no-lines"), "{out}");
}

#[test]
fn broken_chain_wins_over_leak_and_json_names_both() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("a.jsonl");
    let mut events = normal_events();
    events.push(spawn("/usr/bin/curl", &["curl"]));
    events.push(line("ls"));
    write_session(&log, "none", "best-effort", events);
    let mut lines = lines_of(&log);
    lines.remove(2);
    write_lines(&log, &lines);
    let out = Command::new(env!("CARGO_BIN_EXE_guard-sh-audit"))
        .arg(&log)
        .arg("--json")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(3));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let kinds: Vec<&str> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["kind"].as_str())
        .collect();
    assert!(
        kinds.contains(&"leak") && kinds.contains(&"chain-break"),
        "{kinds:?}"
    );
}

fn harness_event(enforcement: &str) -> Event {
    Event::Harness {
        arm: "tea".into(),
        policy_sha256: "00".repeat(32),
        enforcement: enforcement.into(),
        version: "0".into(),
        cwd: "/w".into(),
        program: "/usr/bin/codex".into(),
        argv: vec!["codex".into(), "exec".into()],
        pid: 1,
        execute: vec!["/usr/bin/codex".into()],
        left_out: Default::default(),
        key_sha256: String::new(),
        planted: Vec::new(),
        supervised: true,
        shell: true,
        bounds: Some(guard_sh::audit::event::TrialBounds {
            processes: 512,
            memory_mib: 4096,
            file_mib: 1024,
            cpu_seconds: 3600,
            disk_mib: 4096,
            line_seconds: 900,
            enforced: "cgroup1 (pids.max, memory.limit_in_bytes, freezer)".into(),
        }),
        tmp: String::new(),
    }
}

fn audit_requiring_harness(log: &Path) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_guard-sh-audit"))
        .arg("--require-harness")
        .arg(log)
        .output()
        .expect("run verifier");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// A sealed trial as guard-sh-launch and guard-sh write it: the harness
/// record (committing to the key), one guard-sh session naming the trial,
/// and, when `reveal`, the `harness-end` record. Returns the trial's id,
/// the key and the guard-sh session's id.
fn write_trial(log: &Path, reveal: bool) -> (String, TrialKey, String) {
    let key = TrialKey::generate().expect("key");
    let mut harness = FileSink::open(log, Redactor::none()).expect("open");
    harness.seal_with(key.clone());
    let mut record = harness_event("landlock-abi-4");
    if let Event::Harness { key_sha256, .. } = &mut record {
        *key_sha256 = key.sha256_hex();
    }
    harness.record(record).expect("harness record");
    let trial = harness.session_id().to_string();
    let shell = write_sealed_session(log, &trial, &key);
    if reveal {
        let bytes = std::fs::read(log).expect("read the log");
        harness
            .record(Event::HarnessEnd {
                status: Some(0),
                signal: None,
                key: key.to_hex(),
                sessions: Some(commit_to_sessions(&bytes, &trial)),
                ended: Some(0),
                bounds_hit: Vec::new(),
            })
            .expect("harness-end");
    }
    (trial, key, shell)
}

/// A guard-sh session of `trial`, sealed with `key`, appended to `log`;
/// its id.
fn write_sealed_session(log: &Path, trial: &str, key: &TrialKey) -> String {
    let mut shell = FileSink::open(log, Redactor::none()).expect("open");
    shell.seal_with(key.clone());
    shell
        .record(session_event(
            &tea_policy("best-effort"),
            &"ab".repeat(32),
            "landlock-abi-4",
            &["guard-sh".into()],
            "command",
            "/w",
            Some(trial),
        ))
        .expect("session");
    for e in normal_events() {
        shell.record(e).expect("record");
    }
    shell.session_id().to_string()
}

#[test]
fn require_harness_accepts_a_sealed_trial_and_refuses_sessions_outside_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("a.jsonl");
    write_session(&log, "landlock-abi-4", "best-effort", normal_events());
    let (code, out) = audit_requiring_harness(&log);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("harness-unconfined") && out.contains("no harness record"),
        "{out}"
    );

    let sealed = dir.path().join("sealed.jsonl");
    write_trial(&sealed, true);
    let (code, out) = audit_requiring_harness(&sealed);
    assert_eq!(code, 0, "{out}");
    assert_eq!(audit(&[&sealed]).0, 0);

    // A session that names no trial, beside the sealed trial.
    write_session(&sealed, "landlock-abi-4", "best-effort", normal_events());
    let (code, out) = audit_requiring_harness(&sealed);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("trial-unproven") && out.contains("names no trial"),
        "{out}"
    );
}

/// Append `line` to the log as bytes, as a line that found a way to write
/// the file would.
fn inject(log: &Path, line: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(log)
        .expect("open");
    writeln!(f, "{line}").expect("inject");
}

/// The last record of `session` in the log, parsed.
fn last_of(log: &Path, session: &str) -> serde_json::Value {
    lines_of(log)
        .iter()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .rfind(|r| r["session"] == session)
        .expect("a record of the session")
}

/// The next record of `session`, chained correctly to its last one, with
/// `fields`: what an injector who can read the log could write.
fn chained_record(log: &Path, session: &str, fields: serde_json::Value) -> String {
    let last_line = lines_of(log)
        .into_iter()
        .rfind(|l| {
            serde_json::from_str::<serde_json::Value>(l).is_ok_and(|r| r["session"] == session)
        })
        .expect("a line");
    let last = last_of(log, session);
    let prev = hex::encode(Sha256::digest(last_line.as_bytes()));
    let mut record = serde_json::json!({
        "session": session,
        "seq": last["seq"].as_u64().expect("seq") + 1,
        "ts": "2026-12-04T00:00:00.000Z",
        "prev": prev,
    });
    for (k, v) in fields.as_object().expect("fields") {
        record[k] = v.clone();
    }
    record.to_string()
}

#[test]
fn a_record_injected_into_a_sealed_trial_is_reported_as_forged() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("a.jsonl");
    let (_, _, shell) = write_trial(&log, true);
    // Correctly chained, but without the trial's MAC.
    let forged = chained_record(
        &log,
        &shell,
        serde_json::json!({"type": "exit", "pid": 1, "status": 0, "signal": null, "duration_ms": 1}),
    );
    inject(&log, &forged);
    let (code, out) = audit(&[&log]);
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("forged"), "{out}");
    // A MAC made with a key of the injector's own does not verify either.
    let log2 = dir.path().join("b.jsonl");
    let (_, _, shell2) = write_trial(&log2, true);
    let mut record = chained_record(
        &log2,
        &shell2,
        serde_json::json!({"type": "exit", "pid": 1, "status": 0, "signal": null, "duration_ms": 1}),
    )
    .into_bytes();
    let own = TrialKey::generate().expect("key");
    own.seal(&mut record);
    inject(&log2, &String::from_utf8(record).expect("utf-8"));
    assert_eq!(audit(&[&log2]).0, 3);
    // A whole session injected under the trial's name.
    let log3 = dir.path().join("c.jsonl");
    let (trial, _, _) = write_trial(&log3, true);
    let fake = dir.path().join("fake.jsonl");
    let mut sink = FileSink::open(&fake, Redactor::none()).expect("open");
    sink.seal_with(own);
    sink.record(session_event(
        &tea_policy("best-effort"),
        &"ab".repeat(32),
        "landlock-abi-4",
        &["guard-sh".into()],
        "command",
        "/w",
        Some(&trial),
    ))
    .expect("session");
    for l in lines_of(&fake) {
        inject(&log3, &l);
    }
    let (code, out) = audit(&[&log3]);
    assert_eq!(code, 3, "{out}");
}

/// The log without the lines `drop` picks.
fn without_lines(log: &Path, drop: impl Fn(&serde_json::Value) -> bool) {
    let kept: Vec<String> = lines_of(log)
        .into_iter()
        .filter(|l| !serde_json::from_str::<serde_json::Value>(l).is_ok_and(|r| drop(&r)))
        .collect();
    std::fs::write(log, kept.join("\n") + "\n").expect("rewrite");
}

/// Append to `session` an `exit` record chained to its last one and
/// sealed with `key`: what anyone can write once the key is revealed.
fn inject_sealed_exit(log: &Path, session: &str, key: &TrialKey, duration_ms: u64) {
    let mut record = chained_record(
        log,
        session,
        serde_json::json!({"type": "exit", "pid": 1, "status": 0, "signal": null, "duration_ms": duration_ms}),
    )
    .into_bytes();
    key.seal(&mut record);
    inject(log, &String::from_utf8(record).expect("utf-8"));
}

/// A sealed trial commits to its sessions at its end: a session removed,
/// cut short, spliced in from another trial or replaced by another with
/// the same id, or records added after the end, are each reported, though
/// every chain left in the log is whole and every record sealed.
#[test]
fn a_sealed_trial_commits_to_every_session() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fresh = |name: &str| {
        let log = dir.path().join(name);
        let (trial, key, shell) = write_trial(&log, true);
        let (code, out) = audit_requiring_harness(&log);
        assert_eq!(code, 0, "{name} is clean: {out}");
        assert!(
            out.lines().next().is_some_and(|l| l
                .ends_with("; sealed: 1 trial(s), each key revealed and its sessions committed")),
            "{out}"
        );
        (log, trial, key, shell)
    };
    // One whole session removed.
    let (log, _, _, shell) = fresh("removed.jsonl");
    without_lines(&log, |r| r["session"] == shell.as_str());
    let (code, out) = audit_requiring_harness(&log);
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("removed"), "{out}");
    // The session's last record removed (its chain stays whole).
    let (log, _, _, shell) = fresh("cut.jsonl");
    let last = last_of(&log, &shell)["seq"].as_u64().expect("seq");
    without_lines(&log, |r| r["session"] == shell.as_str() && r["seq"] == last);
    let (code, out) = audit_requiring_harness(&log);
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("cut"), "{out}");
    // The session's last record replaced by another, chained and sealed.
    let (log, _, key, shell) = fresh("changed.jsonl");
    let last = last_of(&log, &shell)["seq"].as_u64().expect("seq");
    without_lines(&log, |r| r["session"] == shell.as_str() && r["seq"] == last);
    inject_sealed_exit(&log, &shell, &key, 2);
    let (code, out) = audit_requiring_harness(&log);
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("changed or spliced"), "{out}");
    // A session of another trial, re-sealed under this trial's revealed
    // key (anyone has it once harness-end is written) and spliced in.
    let (log, trial, key, _) = fresh("spliced.jsonl");
    let other = dir.path().join("other.jsonl");
    write_sealed_session(&other, &trial, &key);
    for l in lines_of(&other) {
        inject(&log, &l);
    }
    let (code, out) = audit_requiring_harness(&log);
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("added afterwards"), "{out}");
    // A record added to a committed session after the end, sealed with
    // the revealed key and chained correctly.
    let (log, _, key, shell) = fresh("late.jsonl");
    inject_sealed_exit(&log, &shell, &key, 1);
    let (code, out) = audit_requiring_harness(&log);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("after trial"), "{out}");
}

#[test]
fn a_trial_that_cannot_be_proven_is_not_clean() {
    let dir = tempfile::tempdir().expect("tempdir");
    // The key was never revealed (the launcher was killed).
    let log = dir.path().join("a.jsonl");
    write_trial(&log, false);
    let (code, out) = audit(&[&log]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("never revealed"), "{out}");
    // A session naming a trial the log has no harness record for.
    let log2 = dir.path().join("b.jsonl");
    let mut sink = FileSink::open(&log2, Redactor::none()).expect("open");
    sink.record(session_event(
        &tea_policy("best-effort"),
        &"ab".repeat(32),
        "landlock-abi-4",
        &["guard-sh".into()],
        "command",
        "/w",
        Some("no-such-trial"),
    ))
    .expect("session");
    for e in normal_events() {
        sink.record(e).expect("record");
    }
    let (code, out) = audit(&[&log2]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("no harness record"), "{out}");
    // A revealed key that is not the committed one.
    let log3 = dir.path().join("c.jsonl");
    write_trial(&log3, false);
    let wrong = TrialKey::generate().expect("key");
    let harness_id = lines_of(&log3)
        .iter()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|r| r["type"] == "harness")
        .map(|r| r["session"].as_str().expect("id").to_string())
        .expect("harness");
    let mut end = chained_record(
        &log3,
        &harness_id,
        serde_json::json!({"type": "harness-end", "status": 0, "signal": null, "key": wrong.to_hex()}),
    )
    .into_bytes();
    wrong.seal(&mut end);
    inject(&log3, &String::from_utf8(end).expect("utf-8"));
    let (code, out) = audit(&[&log3]);
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("does not match"), "{out}");
}

#[test]
fn a_second_harness_record_is_refused_when_a_harness_is_required() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("a.jsonl");
    write_trial(&log, true);
    write_trial(&log, true);
    let (code, out) = audit_requiring_harness(&log);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("more than one harness"), "{out}");
}

#[test]
fn require_harness_refuses_a_harness_that_ran_unconfined() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("a.jsonl");
    let mut sink = FileSink::open(&log, Redactor::none()).expect("open");
    sink.record(harness_event("none")).expect("harness record");
    write_session(&log, "landlock-abi-4", "best-effort", normal_events());
    let (code, out) = audit_requiring_harness(&log);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("without kernel confinement"), "{out}");
}

#[test]
fn the_writer_refuses_a_harness_record_inside_a_session() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("a.jsonl");
    let mut sink = FileSink::open(&log, Redactor::none()).expect("open");
    sink.record(session_event(
        &tea_policy("best-effort"),
        &"ab".repeat(32),
        "none",
        &["guard-sh".into()],
        "command",
        "/w",
        None,
    ))
    .expect("session");
    assert!(sink.record(harness_event("landlock-abi-4")).is_err());
    assert_eq!(lines_of(&log).len(), 1);
}

/// An arm without a shell (the MCP arm) records no line by design: its
/// harness record says so, and only then is a log of harness records
/// alone not `no-lines`.
#[test]
fn a_trial_of_an_arm_without_a_shell_is_not_reported_for_having_no_lines() {
    for shell in [false, true] {
        let dir = tempfile::tempdir().expect("tempdir");
        let log = dir.path().join("a.jsonl");
        let mut sink = FileSink::open(&log, Redactor::none()).expect("open");
        let mut record = harness_event("landlock-abi-4");
        if let Event::Harness { shell: s, .. } = &mut record {
            *s = shell;
        }
        sink.record(record).expect("harness record");
        let out = Command::new(env!("CARGO_BIN_EXE_guard-sh-audit"))
            .arg(&log)
            .output()
            .expect("run verifier");
        let report = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            report.contains("no-lines"),
            shell,
            "shell {shell}: {report}"
        );
    }
}

/// The verifier reads a log without waiting on anything: a FIFO (with no
/// writer), a device that never ends, a folder, and a file that keeps
/// growing while it is read each give status 3 at once. The outer
/// `timeout` makes a hang a failure, not a stuck test.
#[test]
fn the_verifier_never_waits_on_a_fifo_a_device_a_folder_or_a_growing_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("log.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let growing = dir.path().join("growing.jsonl");
    std::fs::write(&growing, "").expect("create");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (growing, stop) = (growing.clone(), stop.clone());
        std::thread::spawn(move || {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(&growing)
                .expect("open");
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = f.write_all(&[b'x'; 4096]);
            }
        })
    };
    for (path, why) in [
        (fifo.as_path(), "a FIFO"),
        (Path::new("/dev/zero"), "a character device"),
        (dir.path(), "a folder"),
        (growing.as_path(), ""),
    ] {
        let started = std::time::Instant::now();
        let out = Command::new("timeout")
            .args(["10", env!("CARGO_BIN_EXE_guard-sh-audit")])
            .arg(path)
            .output()
            .expect("run verifier");
        let report = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(3), "{path:?}: {report}");
        assert!(report.contains(why), "{path:?}: {report}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(2),
            "{path:?} took {:?}",
            started.elapsed()
        );
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    writer.join().expect("writer");
}

/// A file of garbage is reported briefly: the first lines that are not
/// records one by one, the rest counted in one finding; and a program run
/// by a supervised session is counted once (its `spawn` and its `exec`
/// are one program).
#[test]
fn garbage_is_reported_briefly_and_each_program_is_counted_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let garbage = dir.path().join("garbage.jsonl");
    let lines: String = (1..=300).map(|i| format!("{i}\n")).collect();
    std::fs::write(&garbage, lines).expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_guard-sh-audit"))
        .args(["--json"])
        .arg(&garbage)
        .output()
        .expect("run verifier");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("report");
    let findings = report["findings"].as_array().expect("findings");
    let corrupt = findings.iter().filter(|f| f["kind"] == "corrupt").count();
    assert_eq!(corrupt, 11, "{report}");
    assert!(
        findings.iter().any(|f| f["message"]
            .as_str()
            .unwrap_or_default()
            .starts_with("289 more lines")),
        "{report}"
    );
    // A supervised line that runs one program three times, and a copy of
    // the shell (its own session) that runs it twice more.
    let arm = crate::audit_support::AuditArm::new();
    let log = dir.path().join("runs.jsonl");
    let marker = arm.marker("m");
    let line = format!(
        "mark {0}; mark {0}; mark {0}; (mark {0}; mark {0}) | cat",
        marker.display()
    );
    let ran = arm
        .guard(&log)
        .args(["-c", &line])
        .output()
        .expect("run guard-sh");
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let out = Command::new(env!("CARGO_BIN_EXE_guard-sh-audit"))
        .args(["--json"])
        .arg(&log)
        .output()
        .expect("run verifier");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("report");
    let sessions = report["sessions"].as_array().expect("sessions");
    let runs = |mode: &str| -> (u64, Vec<u64>) {
        let session = sessions
            .iter()
            .find(|s| s["mode"] == mode && s["spawned"] != 0)
            .unwrap_or_else(|| panic!("no {mode} session: {report}"));
        let counts = session["binaries"]
            .as_object()
            .expect("binaries")
            .iter()
            .filter(|(path, _)| path.ends_with("/mark"))
            .filter_map(|(_, n)| n.as_u64())
            .collect();
        (session["spawned"].as_u64().expect("spawned"), counts)
    };
    assert_eq!(runs("command"), (4, vec![3]), "{report}");
    assert_eq!(runs("subshell"), (2, vec![2]), "{report}");
}
