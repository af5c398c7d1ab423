//! The `guard-sh` binary's checking contract: `--explain` verdict JSON and
//! exit statuses 0/1/2, refusal at 126, syntax errors at 2 with `LINE:COL`,
//! and hostile input (huge, deeply nested, NUL, invalid UTF-8) that must end
//! in a clean message, never a crash.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)] // test code reports failures by panicking

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use crate::common;
use std::process::{Command, Output, Stdio};

struct Fixture {
    dir: tempfile::TempDir,
    policy: PathBuf,
}

/// Compiles the real `tea` arm (stub tools on the search path) to policy.json.
fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("tempdir");
    let policy = common::compile_with_stubs("tea", dir.path());
    let path = dir.path().join("policy.json");
    std::fs::write(&path, policy.to_json().expect("json")).expect("write policy");
    Fixture { dir, policy: path }
}

fn guard_sh(fixture: &Fixture, args: &[&OsStr], stdin: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_guard-sh"))
        .args(args)
        .env("GUARD_SH_POLICY", &fixture.policy)
        .current_dir(fixture.dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn guard-sh");
    let mut input = child.stdin.take().expect("stdin");
    input.write_all(stdin).expect("write stdin");
    drop(input);
    child.wait_with_output().expect("wait")
}

fn explain(fixture: &Fixture, command: &[u8]) -> Output {
    guard_sh(
        fixture,
        &[
            OsStr::new("--explain"),
            OsStr::new("-c"),
            OsStr::from_bytes(command),
        ],
        b"",
    )
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn explain_prints_every_reached_command_and_exits_zero_when_allowed() {
    let f = fixture();
    let out = explain(
        &f,
        b"tea issues list --repo o/r | head -5; echo \"exit=$?\"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("verdict JSON");
    assert_eq!(json["allowed"], true);
    let names: Vec<&str> = json["commands"]
        .as_array()
        .expect("commands")
        .iter()
        .map(|c| c["name"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(names, ["tea", "head", "echo"]);
    assert_eq!(json["commands"][1]["at"], "1:30");
}

#[test]
fn explain_exits_one_and_names_the_foreign_command_in_a_substitution() {
    let f = fixture();
    let out = explain(
        &f,
        b"tea issues create --title \"$(curl http://127.0.0.1:9/)\"",
    );
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("verdict JSON");
    assert_eq!(json["allowed"], false);
    let curl = json["commands"]
        .as_array()
        .expect("commands")
        .iter()
        .find(|c| c["name"] == "curl")
        .expect("curl listed");
    assert_eq!(curl["allowed"], false);
    assert_eq!(curl["rule"], "foreign-command");
    assert_eq!(curl["at"], "1:30");
}

#[test]
fn explain_reads_the_line_from_stdin_without_dash_c() {
    let f = fixture();
    let out = guard_sh(&f, &[OsStr::new("--explain")], b"tea api /user\n");
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("verdict JSON");
    assert_eq!(json["commands"][0]["rule"], "argument-rule");
}

#[test]
fn denied_line_is_refused_with_status_126_and_a_reason() {
    let f = fixture();
    for args in [
        &["-c", "tea issues list | python3 -c 1"][..],
        &["-lc", "tea issues list | python3 -c 1"],
        &["-c", "-l", "tea issues list | python3 -c 1"],
    ] {
        let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        let out = guard_sh(&f, &args, b"");
        assert_eq!(out.status.code(), Some(126), "{args:?}");
        assert!(
            stderr(&out)
                .starts_with("guard-sh: denied: \"python3\" is not permitted for the tea arm"),
            "{}",
            stderr(&out)
        );
    }
}

/// A name that is no program anywhere on the system (a typo) is not a
/// policy decision: bash's `command not found`, 127 for that command
/// alone, the rest of the line runs; recorded as a `not-found` denial in
/// the verdict and at run time. A name of a dangerous family keeps its
/// refusal whether or not this machine has it, and a refused command
/// beside a typo still stops the whole line.
#[test]
fn a_name_found_nowhere_is_command_not_found_and_only_that_command_fails() {
    let f = fixture();
    let typo = "guardsh_no_such_cmd_xq";
    let out = explain(&f, format!("{typo} hi | wc -l").as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("verdict JSON");
    assert_eq!(json["allowed"], true, "{json}");
    assert_eq!(json["commands"][0]["rule"], "not-found", "{json}");
    assert_eq!(json["commands"][0]["allowed"], false, "{json}");
    assert_eq!(
        json["commands"][0]["reason"],
        format!("{typo}: command not found")
    );

    // An interpreter this machine does not have is refused as one.
    let out = explain(&f, b"julia -e 1");
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("verdict JSON");
    assert_eq!(json["commands"][0]["rule"], "foreign-command", "{json}");

    let audit = f.dir.path().join("typo.jsonl");
    let run = |line: String| {
        guard_sh(
            &f,
            &[
                OsStr::new("--audit"),
                audit.as_os_str(),
                OsStr::new("-c"),
                OsStr::new(&line),
            ],
            b"",
        )
    };
    let out = run(format!("{typo} hi; echo \"after $?\""));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "after 127\n");
    assert_eq!(
        stderr(&out),
        format!("guard-sh: {typo}: command not found\n")
    );
    let out = run(format!("x={typo}; $x"));
    assert_eq!(out.status.code(), Some(127), "{}", stderr(&out));
    // A refused program beside a typo: nothing of the line runs.
    let out = run(format!("{typo}; echo ran; python3 -c 1"));
    assert_eq!(out.status.code(), Some(126), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    let log = std::fs::read_to_string(&audit).expect("audit log");
    let denials: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).expect("record"))
        .filter(|r: &serde_json::Value| r["type"] == "denied")
        .collect();
    assert_eq!(denials.len(), 2, "{log}");
    assert!(denials.iter().all(|d| d["rule"] == "not-found"), "{log}");
}

#[test]
fn missing_policy_is_a_clear_error_with_status_two() {
    let out = Command::new(env!("CARGO_BIN_EXE_guard-sh"))
        .args(["-c", "tea issues"])
        .env_remove("GUARD_SH_POLICY")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "guard-sh: no policy: set GUARD_SH_POLICY or pass --policy FILE (guard-sh --help shows the usage)\n"
    );
}

/// Each input must give status 2 and exactly this message.
fn assert_syntax_error(f: &Fixture, input: &[u8], message: &str) {
    let out = explain(f, input);
    assert_eq!(
        out.status.code(),
        Some(2),
        "input {:?}: {}",
        String::from_utf8_lossy(input),
        stderr(&out)
    );
    assert_eq!(
        stderr(&out).trim_end(),
        message,
        "input {:?}",
        String::from_utf8_lossy(input)
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn syntax_errors_report_their_position_and_exit_two() {
    let f = fixture();
    assert_syntax_error(
        &f,
        b"echo 'abc",
        "guard-sh: syntax error at 1:6: unterminated single quote",
    );
    assert_syntax_error(
        &f,
        b"tea issues \"x",
        "guard-sh: syntax error at 1:12: unterminated double quote",
    );
    assert_syntax_error(
        &f,
        b"echo ok\necho $(tea issues",
        "guard-sh: syntax error at 2:6: unterminated `$(`",
    );
    assert_syntax_error(&f, b"fi", "guard-sh: syntax error at 1:1: unexpected `fi`");
    assert_syntax_error(
        &f,
        b"for i in 1; do echo; done; done",
        "guard-sh: syntax error at 1:28: unexpected `done`",
    );
    assert_syntax_error(
        &f,
        b"tea issues |",
        "guard-sh: syntax error at 1:13: missing command after `|`",
    );
}

#[test]
fn a_here_document_the_input_ends_is_accepted_with_bash_s_warning() {
    let f = fixture();
    let out = explain(&f, b"cat <<EOF\nhello\n");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let message = stderr(&out);
    assert_eq!(
        message,
        "guard-sh: warning: here-document at line 1 delimited by end-of-file (wanted `EOF')\n"
    );
}

#[test]
fn nul_byte_is_a_syntax_error_at_its_position() {
    let f = fixture();
    // A NUL cannot be passed in argv, so it comes on stdin.
    let out = guard_sh(&f, &[OsStr::new("--explain")], b"echo a\0b\n");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out).trim_end(),
        "guard-sh: syntax error at 1:7: NUL byte in input"
    );
}

#[test]
fn invalid_utf8_in_arguments_is_checked_not_rejected() {
    let f = fixture();
    let out = explain(&f, b"tea issues create --title \xff\xfe | head -1");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // No program anywhere has this name: not found, never another name.
    let out = explain(&f, b"cu\xffrl x");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("verdict JSON");
    assert_eq!(json["commands"][0]["rule"], "not-found", "{json}");
    assert_eq!(json["commands"][0]["allowed"], false, "{json}");
}

#[test]
fn one_megabyte_line_is_checked() {
    let f = fixture();
    let mut line = b"echo".to_vec();
    while line.len() < 1 << 20 {
        line.extend_from_slice(b" tea issues list");
    }
    line.extend_from_slice(b" | curl -d @- http://127.0.0.1:9/");
    let out = guard_sh(&f, &[OsStr::new("--explain")], &line);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
}

#[test]
fn hundred_thousand_deep_nesting_is_an_error_not_a_crash() {
    let f = fixture();
    for (open, close) in [("(", ")"), ("$(", ")"), ("{ ", "; }")] {
        let mut line = open.repeat(100_000);
        line.push_str("tea issues");
        line.push_str(&close.repeat(100_000));
        let out = guard_sh(&f, &[OsStr::new("--explain")], line.as_bytes());
        assert_eq!(out.status.code(), Some(2), "{open}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("nesting deeper than"),
            "{open}: {}",
            stderr(&out)
        );
    }
}

/// `--help` and `--version` answer on stdout with status 0, naming the
/// program as it was called (`guard-bash` is guard-sh under a name with
/// `bash` in it).
#[test]
fn help_and_version_name_the_program_as_called() {
    for (exe, name) in [
        (env!("CARGO_BIN_EXE_guard-sh"), "guard-sh"),
        (env!("CARGO_BIN_EXE_guard-bash"), "guard-bash"),
    ] {
        let help = Command::new(exe).arg("--help").output().expect("help");
        assert_eq!(help.status.code(), Some(0));
        let text = String::from_utf8_lossy(&help.stdout);
        assert!(text.starts_with(&format!("usage: {name} [")), "{text}");
        assert!(help.stderr.is_empty());
        let version = Command::new(exe)
            .arg("--version")
            .output()
            .expect("version");
        assert_eq!(version.status.code(), Some(0));
        assert!(String::from_utf8_lossy(&version.stdout).starts_with(name));
    }
}
