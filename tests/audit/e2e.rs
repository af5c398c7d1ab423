//! The audit log through the guard-sh binary: concurrent sessions in one
//! file, every event kind of a real run, the default location, and the
//! arm's token redacted from a log written by a built arm.

#![allow(clippy::panic, clippy::unwrap_used)] // test code reports failures by panicking

use crate::audit_support;

use audit_support::*;
use guard_sh::policy::Policy;
use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// The 1000 lines one concurrent session reads: mostly builtins, every
/// tenth spawns `ls`, and every hundredth (at 50) a command substitution,
/// whose forked copy records in a session of its own.
fn thousand_lines() -> String {
    (0..1000)
        .map(|i| {
            if i % 100 == 50 {
                "echo $(ls -d .)\n".to_string()
            } else if i % 10 == 0 {
                "ls -d .\n".to_string()
            } else {
                format!("echo line {i}\n")
            }
        })
        .collect()
}

#[test]
fn eight_guard_sh_sessions_of_1000_lines_share_one_log_with_every_chain_intact() {
    let arm = AuditArm::new();
    let log = arm.work.join("audit.jsonl");
    let mut children: Vec<_> = (0..8)
        .map(|_| {
            arm.guard(&log)
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn guard-sh")
        })
        .collect();
    // Feed all eight at once, so their records are written at the same time.
    let input = thousand_lines();
    let feeders: Vec<_> = children
        .iter_mut()
        .map(|c| {
            let mut stdin = c.stdin.take().expect("stdin");
            let input = input.clone();
            std::thread::spawn(move || stdin.write_all(input.as_bytes()).is_ok())
        })
        .collect();
    for f in feeders {
        assert!(f.join().expect("feeder"), "a session stopped reading stdin");
    }
    for c in children {
        let out = c.wait_with_output().expect("wait");
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(text(&out.stderr), "");
    }

    let (status, report) = verify_json(&[&log]);
    assert_eq!(report["findings"], Value::Array(vec![]), "{report:#}");
    assert_eq!(status, 0);
    let sessions = report["sessions"].as_array().expect("sessions");
    let stdin: Vec<&Value> = sessions.iter().filter(|s| s["mode"] == "stdin").collect();
    let subshell: Vec<&Value> = sessions
        .iter()
        .filter(|s| s["mode"] == "subshell")
        .collect();
    let supervisors: Vec<&Value> = sessions
        .iter()
        .filter(|s| s["mode"] == "supervisor")
        .collect();
    assert_eq!(stdin.len(), 8);
    assert_eq!(subshell.len(), 8 * 10, "one per command substitution");
    // Each process answers its own commands' execs (none outlives its
    // wait): no supervisor process, no session of its own.
    assert_eq!(supervisors.len(), 0);
    assert_eq!(sessions.len(), 88);
    for s in &stdin {
        assert_eq!(s["lines"], 1000);
        // session + 1000 lines + 1000 verdicts + 90 × (spawn, exec, exit)
        assert_eq!(s["records"], 2271);
        assert_eq!(s["spawned"], 90);
    }
    for s in &subshell {
        assert_eq!(s["lines"], 0);
        assert_eq!(s["records"], 4, "session, spawn, exec, exit");
        assert_eq!(s["spawned"], 1);
    }
    let total_lines: u64 = sessions.iter().filter_map(|s| s["lines"].as_u64()).sum();
    assert_eq!(total_lines, 8000);

    // Read the file independently of the verifier: every line whole JSON.
    let all = records(&log);
    assert_eq!(all.len(), 8 * 2271 + 80 * 4);
    assert_eq!(of_type(&all, "line").len(), 8000);
    // The test only proves something if the sessions really overlapped.
    let ids: Vec<&str> = all
        .iter()
        .filter(|r| r["type"] == "line")
        .filter_map(|r| r["session"].as_str())
        .collect();
    let switches = ids.windows(2).filter(|w| w[0] != w[1]).count();
    assert!(
        switches > 8,
        "sessions did not overlap ({switches} switches)"
    );
}

/// The session's one record of each kind after `seq`, by type.
fn first_after<'a>(records: &'a [Value], seq: u64, kind: &str) -> &'a Value {
    records
        .iter()
        .find(|r| r["seq"].as_u64() > Some(seq) && r["type"] == kind)
        .unwrap_or_else(|| panic!("no {kind} after seq {seq}"))
}

#[test]
fn a_real_stdin_session_records_every_event_kind() {
    let arm = AuditArm::new();
    let log = arm.work.join("audit.jsonl");
    let m1 = arm.marker("m1");
    let input = "X=1 mark m1 && echo ok\n\
                 curl http://127.0.0.1:9/\n\
                 c=curl; $c -s x\n\
                 selfkill\n";
    let mut child = arm
        .guard(&log)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let pid = child.id();
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("feed");
    let out = child.wait_with_output().expect("wait");
    assert_eq!(
        out.status.code(),
        Some(128 + libc::SIGKILL),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(text(&out.stdout), "ok\n");
    assert!(m1.exists());

    let everything = records(&log);
    // One session: the shell answers its commands' execs itself and
    // records each (`exec`) between the spawn and the exit.
    assert!(
        everything
            .iter()
            .all(|r| r["session"] == everything[0]["session"]),
        "{everything:?}"
    );
    let all: Vec<Value> = everything.clone();
    let kinds: Vec<&str> = all.iter().filter_map(|r| r["type"].as_str()).collect();
    assert_eq!(
        kinds,
        [
            "session", "line", "verdict", "spawn", "exec", "exit", // X=1 mark m1 && echo ok
            "line", "verdict", // curl: refused before anything runs
            "line", "verdict", "denied", // $c: refused at run time
            "line", "verdict", "spawn", "exec", "exit", // selfkill
        ]
    );

    let session = &all[0];
    // The hash of the file's bytes: what `sha256sum` and the pin say.
    let file_sha256 = Policy::sha256_of_file(&arm.arm.policy).expect("policy");
    assert_eq!(session["policy_sha256"], file_sha256);
    assert_eq!(
        session["enforcement"], "none",
        "the test arm's sandbox is off"
    );
    assert_eq!(session["sandbox"], "off");
    assert_eq!(session["mode"], "stdin");
    assert_eq!(session["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(session["pid"], pid);
    assert_eq!(
        session["argv"],
        serde_json::json!([guard_sh().display().to_string()])
    );
    assert_eq!(session["cwd"], arm.work.display().to_string());
    assert_eq!(session["arm"], "test");

    assert_eq!(all[1]["text"], "X=1 mark m1 && echo ok\n");
    assert_eq!(all[1]["origin"], "stdin");
    let reached: Vec<(&str, bool)> = all[2]["commands"]
        .as_array()
        .expect("commands")
        .iter()
        .map(|c| (c["name"].as_str().unwrap_or(""), c["allowed"] == true))
        .collect();
    assert_eq!(reached, [("mark", true), ("echo", true)]);
    assert_eq!(all[2]["allowed"], true);
    let spawn = &all[3];
    assert_eq!(
        spawn["path"],
        arm.arm.bin.join("mark").display().to_string()
    );
    assert_eq!(spawn["argv"], serde_json::json!(["mark", "m1"]));
    // PWD: the shell exports its working folder, as bash does.
    assert_eq!(spawn["env_added"], serde_json::json!(["PWD", "X"]));
    let exec = &all[4];
    assert_eq!(exec["pid"], spawn["pid"]);
    assert_eq!(exec["path"], spawn["path"]);
    assert_eq!(exec["allowed"], true);
    let exit = &all[5];
    assert_eq!(exit["pid"], spawn["pid"]);
    assert_eq!(exit["status"], 0);
    assert_eq!(exit["signal"], Value::Null);
    assert!(exit["duration_ms"].as_u64().is_some());

    assert_eq!(all[7]["allowed"], false);
    assert_eq!(all[7]["commands"][0]["name"], "curl");
    let denied = &all[10];
    assert_eq!(denied["argv"], serde_json::json!(["curl", "-s", "x"]));
    assert!(
        denied["reason"]
            .as_str()
            .is_some_and(|r| r.contains("curl"))
    );
    assert!(denied["rule"].as_str().is_some_and(|r| !r.is_empty()));
    let killed = first_after(&all, 12, "exit");
    assert_eq!(killed["signal"], libc::SIGKILL);
    assert_eq!(killed["status"], Value::Null);
    assert_eq!(first_after(&all, 12, "spawn")["pid"], killed["pid"]);

    // Each record names its session, counts on, and links to the last.
    for (i, r) in all.iter().enumerate() {
        assert_eq!(r["session"], session["session"]);
        assert_eq!(r["seq"], i);
    }
    let (status, report) = verify_json(&[&log]);
    assert_eq!(status, 0, "{report:#}");
    let s = &report["sessions"][0];
    assert_eq!(
        (
            &s["lines"],
            &s["spawned"],
            &s["denied_lines"],
            &s["denied_commands"]
        ),
        (&4.into(), &2.into(), &1.into(), &1.into())
    );
}

/// A line that does not parse ends a session read from standard input, as
/// bash stops reading there: the error is recorded with its line in the
/// input, and nothing after it runs.
#[test]
fn a_syntax_error_on_stdin_is_recorded_and_ends_the_session() {
    let arm = AuditArm::new();
    let log = arm.work.join("audit.jsonl");
    let mut child = arm
        .guard(&log)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"echo first\necho a )\necho never\n")
        .expect("feed");
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "first\n");
    let all = records(&log);
    let kinds: Vec<&str> = all.iter().filter_map(|r| r["type"].as_str()).collect();
    assert_eq!(kinds, ["session", "line", "verdict", "line", "error"]);
    assert!(
        all[4]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("syntax error at 2:8")),
        "{}",
        all[4]
    );
}

#[test]
fn signal_killed_command_of_dash_c_exits_128_plus_n_and_records_the_signal() {
    let arm = AuditArm::new();
    let log = arm.work.join("audit.jsonl");
    let out = arm
        .guard(&log)
        .args(["-c", "selfkill"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(137));
    let all = records(&log);
    let exits = of_type(&all, "exit");
    assert_eq!(exits.len(), 1);
    assert_eq!(exits[0]["signal"], 9);
    assert_eq!(all[0]["mode"], "command");
}

/// guard-sh with no `--audit`, no `GUARD_SH_AUDIT` and no `audit.path`.
fn guard_without_log_setting(arm: &AuditArm) -> Command {
    let mut c = guard_cmd(&arm.arm, &arm.work);
    c.env_remove("GUARD_SH_AUDIT");
    c
}

#[test]
fn default_log_under_xdg_state_home_is_announced_once() {
    let arm = AuditArm::new();
    let state = arm.work.join("state");
    let expected = state.join("guard-sh/audit.jsonl");
    let run = || {
        guard_without_log_setting(&arm)
            .env("XDG_STATE_HOME", &state)
            .args(["-c", "echo hi"])
            .output()
            .expect("run")
    };
    let first = run();
    assert_eq!(first.status.code(), Some(0));
    assert_eq!(
        text(&first.stderr),
        format!("guard-sh: audit log: {}\n", expected.display())
    );
    let second = run();
    assert_eq!(second.status.code(), Some(0));
    assert_eq!(text(&second.stderr), "", "announced only once");
    let all = records(&expected);
    assert_eq!(of_type(&all, "session").len(), 2);
    assert_eq!(of_type(&all, "line").len(), 2);
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
    assert_eq!(mode(&expected), 0o600);
    assert_eq!(mode(&state.join("guard-sh")), 0o700);
}

#[test]
fn default_log_without_xdg_state_home_is_under_home_local_state() {
    let arm = AuditArm::new();
    // HOME is the work folder (guard_cmd); a relative XDG_STATE_HOME is ignored.
    let expected = arm.work.join(".local/state/guard-sh/audit.jsonl");
    for xdg in [None, Some("relative/state")] {
        let mut c = guard_without_log_setting(&arm);
        if let Some(x) = xdg {
            c.env("XDG_STATE_HOME", x);
        }
        let out = c.args(["-c", "echo hi"]).output().expect("run");
        assert_eq!(out.status.code(), Some(0));
        let announced = format!("guard-sh: audit log: {}\n", expected.display());
        match xdg {
            None => assert_eq!(text(&out.stderr), announced),
            Some(_) => assert_eq!(text(&out.stderr), ""),
        }
    }
    assert_eq!(of_type(&records(&expected), "session").len(), 2);
    assert!(!arm.work.join("relative").exists());
}

#[test]
fn explicit_log_is_not_announced() {
    let arm = AuditArm::new();
    let log = arm.work.join("mine.jsonl");
    let out = arm
        .guard(&log)
        .args(["-c", "echo hi"])
        .output()
        .expect("run");
    assert_eq!(text(&out.stderr), "");
    assert_eq!(of_type(&records(&log), "line").len(), 1);
}

/// A token in the alphabet arm-build allows, with `/`, `=` and `+` (as
/// base64 tokens have), which a bare-hash redaction entry would split.
const TOKEN: &str = "gT9/xK2+aQ7=Lm4_pZ8~rW1-bN6.cV3/yH5+eJ0=";

#[test]
fn token_of_a_built_arm_never_reaches_its_log() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("arm");
    crate::common::ArmBuild::new("raw-api", "http://127.0.0.1:9", &out)
        .shipped_arms()
        .args([std::ffi::OsStr::new("--guard-sh"), guard_sh().as_os_str()])
        .token(TOKEN)
        .run();
    let policy = out.join("policy.json");
    let log = out.join("audit/audit.jsonl");
    let work = out.join("work");
    // The token in the line as typed, glued to other text, in a spawned
    // argv (curl against a closed loopback port), and through a pipe.
    let line = format!(
        "echo \"token {TOKEN}\" x{TOKEN}y >/dev/null; \
         curl -s -m 2 -H 'Authorization: token {TOKEN}' http://127.0.0.1:9/api/v1/user; \
         T='{TOKEN}'; echo \"$T\" | cat"
    );
    let run = Command::new(guard_sh())
        .env_clear()
        .env("HOME", &work)
        .env("LC_ALL", "C")
        .env("GUARD_SH_POLICY", &policy)
        .current_dir(&work)
        .args(["-c", &line])
        .output()
        .expect("guard-sh");
    assert_eq!(
        text(&run.stdout),
        format!("{TOKEN}\n"),
        "{}",
        text(&run.stderr)
    );
    let written = std::fs::read_to_string(&log).expect("the policy's log");
    assert!(!written.contains(TOKEN), "{written}");
    let all = records(&log);
    let line_record = of_type(&all, "line")[0];
    assert_eq!(
        line_record["text"],
        line.replace(TOKEN, "[REDACTED]"),
        "every occurrence in the line is replaced, glued ones too"
    );
    let curl = of_type(&all, "spawn")
        .into_iter()
        .find(|s| s["argv"][0] == "curl")
        .expect("curl was spawned");
    assert_eq!(curl["argv"][5], "Authorization: token [REDACTED]");
    let (status, report) = verify_json(&[&log]);
    assert_eq!(status, 0, "{report:#}");
}
