//! Claude Code, as shipped on npm, runs its Bash tool through guard-sh when
//! started with the configs arm-build writes; a trial configured with a
//! shell path Claude Code ignores is caught by the verifier.

#![allow(clippy::expect_used)] // test code reports failures by panicking

use crate::support::{
    Arm, Hostile, Listener, MockServer, STUB_TEA_OUTPUT, assert_tea_pipeline_session, cross_check,
    cross_check_with, findings, npm_install, offered_tools, sessions_with_line, tool_result_text,
    tool_results,
};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// The pinned Claude Code release these tests were checked against.
pub const VERSION: &str = "2.1.332";

fn claude() -> std::path::PathBuf {
    npm_install(
        "@anthropic-ai/claude-code",
        VERSION,
        "node_modules/@anthropic-ai/claude-code/bin/claude.exe",
    )
}

/// One `claude -p` run whose fake model asks for `cmd` once.
struct Trial {
    arm: Arm,
    mock: MockServer,
    records: Vec<Value>,
}

impl Trial {
    fn run(cmd: &str) -> Trial {
        let arm = Arm::build();
        let settings = arm.out.join("runtimes/claude-code/settings.json");
        Trial::run_with(arm, cmd, &settings, false)
    }

    /// Run with `settings` in place of the arm's settings file; `launch`:
    /// start Claude Code under `guard-sh-launch --arm`.
    fn run_with(arm: Arm, cmd: &str, settings: &Path, launch: bool) -> Trial {
        let claude = claude();
        let mock = MockServer::start("mock_anthropic.py", arm.root.path(), cmd);
        let flags_file = arm.out.join("runtimes/claude-code/flags.json");
        let flags: Vec<String> =
            serde_json::from_str(&std::fs::read_to_string(&flags_file).expect("read flags.json"))
                .expect("flags.json is a JSON array of strings");
        let arm_settings = arm.out.join("runtimes/claude-code/settings.json");
        let flags: Vec<String> = flags
            .into_iter()
            .map(|f| {
                if Path::new(&f) == arm_settings {
                    settings.to_string_lossy().into_owned()
                } else {
                    f
                }
            })
            .collect();
        let mut command = Command::new("timeout");
        command.arg("120");
        if launch {
            command
                .arg(env!("CARGO_BIN_EXE_guard-sh-launch"))
                .arg("--arm")
                .arg(&arm.out)
                .arg("--");
        }
        let (records, _) = arm.run_trial(
            "claude -p",
            command
                .arg(&claude)
                .args(["-p", "run the command"])
                .args(&flags)
                .current_dir(arm.work_dir())
                .env_clear()
                .env("PATH", "/usr/bin:/bin")
                .env("HOME", &arm.home)
                .env("ANTHROPIC_BASE_URL", mock.url())
                .env("ANTHROPIC_API_KEY", "e2e-dummy-key")
                .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
        );
        Trial { arm, mock, records }
    }

    /// The text of the tool_result Claude Code sent back, and its is_error.
    fn tool_result(&self) -> (String, bool) {
        for req in self.mock.requests() {
            let Some(last) = req["body"]["messages"].as_array().and_then(|m| m.last()) else {
                continue;
            };
            for block in last["content"].as_array().into_iter().flatten() {
                if block["type"] != "tool_result" {
                    continue;
                }
                return (tool_result_text(block), block["is_error"] == true);
            }
        }
        panic!(
            "the fake model never received a tool_result: {:?}",
            self.mock.requests()
        );
    }

    fn assert_clean(&self) {
        let (status, report) = self.arm.verify();
        assert_eq!(status, 0, "guard-sh-audit: {report}");
        assert_eq!(report["clean"], true);
    }

    fn assert_denied(&self, cmd: &str, name: &str) {
        let (text, is_error) = self.tool_result();
        assert!(is_error, "{text}");
        assert!(text.contains("Exit code 126"), "{text}");
        assert!(
            text.contains(&format!("guard-sh: denied: \"{name}\"")),
            "{text}"
        );
        let sessions = sessions_with_line(&self.records, cmd);
        assert_eq!(
            sessions.len(),
            1,
            "one session ran the call: {:?}",
            self.records
        );
        let s = &sessions[0];
        let verdict = s
            .iter()
            .find(|r| r["type"] == "verdict")
            .expect("a verdict");
        assert_eq!(verdict["allowed"], false);
        assert!(
            verdict["commands"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|c| c["name"] == name && c["allowed"] == false),
            "{verdict}"
        );
        assert!(
            !s.iter().any(|r| r["type"] == "spawn"),
            "nothing of a denied line runs: {s:?}"
        );
        self.assert_clean();
    }
}

#[test]
#[ignore = "e2e: installs Claude Code from npm; run with `cargo test --test e2e -- --ignored`"]
fn claude_allowed_tea_pipeline_returns_the_stub_output_and_is_audited() {
    let cmd = "tea issues list --repo o/r | head -5";
    let t = Trial::run(cmd);
    assert!(t.arm.shell().contains("bash"), "{}", t.arm.shell());
    let (text, is_error) = t.tool_result();
    assert!(!is_error, "{text}");
    assert_eq!(
        text.trim_end(),
        format!("{STUB_TEA_OUTPUT}args: issues list --repo o/r").trim_end()
    );

    let sessions = sessions_with_line(&t.records, cmd);
    assert_eq!(sessions.len(), 1, "{:?}", t.records);
    let s = &sessions[0];
    let session = s
        .iter()
        .find(|r| r["type"] == "session")
        .expect("session record");
    let argv: Vec<&str> = session["argv"]
        .as_array()
        .expect("argv")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(argv.first().copied(), Some(t.arm.shell().as_str()));
    assert_eq!(argv.get(1).copied(), Some("-c"));
    let line = argv.last().copied().unwrap_or_default();
    assert!(
        line.contains(&format!("eval '{cmd}'")) && line.contains("pwd -P >|"),
        "{line}"
    );
    assert_tea_pipeline_session(s, &t.arm);
    t.assert_clean();
}

#[test]
#[ignore = "e2e: installs Claude Code from npm; run with `cargo test --test e2e -- --ignored`"]
fn claude_denied_curl_returns_the_denial_and_never_connects() {
    let listener = Listener::new();
    let cmd = format!("curl http://127.0.0.1:{}/", listener.port);
    let t = Trial::run(&cmd);
    t.assert_denied(&cmd, "curl");
    assert!(!listener.was_reached(), "curl reached the listener");
}

/// The arm's tool trying to reach past the forge: the model's tool result
/// carries guard-sh's sentence (not only the tool's own connection error),
/// the listener is never reached, and the refusal is recorded and counted.
#[test]
#[ignore = "e2e: installs Claude Code from npm; run with `cargo test --test e2e -- --ignored`"]
fn claude_sees_a_refused_connection_inside_the_tool_as_a_refusal() {
    let listener = Listener::new();
    let cmd = format!("tea connect 127.0.0.1:{}", listener.port);
    let t = Trial::run(&cmd);
    let (text, is_error) = t.tool_result();
    assert!(is_error, "{text}");
    assert!(
        text.contains(&format!(
            "guard-sh: denied: tea: connecting to 127.0.0.1:{} is not permitted",
            listener.port
        )),
        "{text}"
    );
    assert!(!listener.was_reached(), "the tool reached the listener");
    assert!(
        t.records
            .iter()
            .any(|r| r["type"] == "connect" && r["allowed"] == false),
        "{:?}",
        t.records
    );
    let (_, report) = t.arm.verify();
    let denied: u64 = report["sessions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["denied_commands"].as_u64())
        .sum();
    assert!(denied >= 1, "{report}");
}

#[test]
#[ignore = "e2e: installs Claude Code from npm; run with `cargo test --test e2e -- --ignored`"]
fn claude_denied_python_returns_the_denial() {
    let cmd = "python3 -c 'print(42)'";
    let t = Trial::run(cmd);
    // Claude Code writes each ' of CMD as '"'"' inside its eval '…'.
    t.assert_denied("python3 -c '\"'\"'print(42)'\"'\"'", "python3");
    assert!(!t.tool_result().0.contains("42\n"));
}

#[test]
#[ignore = "e2e: installs Claude Code from npm; run with `cargo test --test e2e -- --ignored`"]
fn claude_startup_snapshot_runs_under_the_guard_and_the_session_goes_on() {
    let t = Trial::run("echo after-snapshot");
    let snapshot = sessions_with_line(&t.records, "SNAPSHOT_FILE=");
    assert_eq!(snapshot.len(), 1, "one snapshot call: {:?}", t.records);
    let s = &snapshot[0];
    let session = s.iter().find(|r| r["type"] == "session").expect("session");
    let argv: Vec<&str> = session["argv"]
        .as_array()
        .expect("argv")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(argv.get(1..3), Some(&["-c", "-l"][..]), "{argv:?}");
    // Run or refused, the guard decided it: a verdict was recorded.
    let verdict = s
        .iter()
        .find(|r| r["type"] == "verdict")
        .expect("the snapshot got a verdict");
    if verdict["allowed"] == true {
        // It ran: its only program is `cat`, from the arm's bin folder.
        let spawned: Vec<&Value> = s
            .iter()
            .filter(|r| r["type"] == "spawn")
            .map(|r| &r["argv"][0])
            .collect();
        assert!(spawned.iter().all(|n| *n == "cat"), "{spawned:?}");
    }
    let (text, is_error) = t.tool_result();
    assert!(!is_error && text.trim() == "after-snapshot", "{text}");
    let call = sessions_with_line(&t.records, "eval 'echo after-snapshot'");
    assert_eq!(call.len(), 1, "{:?}", t.records);
    let call_argv = &call[0]
        .iter()
        .find(|r| r["type"] == "session")
        .expect("session")["argv"];
    let line = call_argv[call_argv
        .as_array()
        .map_or(0, |a| a.len().saturating_sub(1))]
    .as_str()
    .unwrap_or_default();
    // Claude Code made a snapshot exactly when the call sources one; when
    // the snapshot failed, the call is the login-shell form without it.
    let snapshot_made =
        s.iter().any(|r| r["type"] == "exit" && r["status"] == 0) && line.starts_with("source ");
    eprintln!("snapshot made: {snapshot_made}; call argv: {call_argv}");
    if !snapshot_made {
        assert!(call_argv[1] == "-c" && call_argv[2] == "-l", "{call_argv}");
        assert!(!line.contains("source "), "{line}");
    }
    t.assert_clean();
}

#[test]
#[ignore = "e2e: installs Claude Code from npm; run with `cargo test --test e2e -- --ignored`"]
fn claude_with_a_shell_path_without_bash_is_reported_not_clean() {
    let arm = Arm::build();
    let guard_sh = Path::new(env!("CARGO_BIN_EXE_guard-sh"));
    assert!(!guard_sh.to_string_lossy().contains("bash"));
    let arm_settings = arm.out.join("runtimes/claude-code/settings.json");
    let mut settings: Value =
        serde_json::from_str(&std::fs::read_to_string(&arm_settings).expect("settings"))
            .expect("JSON");
    settings["env"]["SHELL"] = guard_sh.to_string_lossy().into();
    settings["env"]["CLAUDE_CODE_SHELL"] = guard_sh.to_string_lossy().into();
    let bad = arm.root.path().join("settings-without-bash.json");
    std::fs::write(&bad, settings.to_string()).expect("write settings");
    let t = Trial::run_with(arm, "echo fell-back", &bad, false);
    // Claude Code ignored the shell and ran its command with the real bash.
    assert_eq!(t.tool_result().0.trim(), "fell-back");
    assert!(t.records.is_empty(), "guard-sh never ran: {:?}", t.records);
    let (status, report) = t.arm.verify();
    assert_eq!(status, 1, "{report}");
    assert_eq!(report["clean"], false);
    assert!(
        report["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|f| f["kind"] == "no-sessions"),
        "{report}"
    );
    // The transcript shows the Bash call guard-sh never saw.
    let (status, report) = cross_check(&t.arm, &transcript_in(&t.arm.home.join(".claude")));
    assert_eq!(status, 1, "{report}");
    let missing = findings(&report, "call-not-recorded");
    assert!(
        missing.len() == 1 && missing[0].contains("echo fell-back"),
        "{report}"
    );
}

#[test]
#[ignore = "e2e: installs Claude Code from npm; run with `cargo test --test e2e -- --ignored`"]
fn claude_under_the_launcher_runs_the_allowed_pipeline_through_guard_sh() {
    let cmd = "tea issues list --repo o/r | head -5";
    let arm = Arm::build();
    let settings = arm.out.join("runtimes/claude-code/settings.json");
    let t = Trial::run_with(arm, cmd, &settings, true);
    let (text, is_error) = t.tool_result();
    assert!(!is_error, "{text}");
    assert_eq!(
        text.trim_end(),
        format!("{STUB_TEA_OUTPUT}args: issues list --repo o/r").trim_end()
    );
    let sessions = sessions_with_line(&t.records, cmd);
    assert_eq!(sessions.len(), 1, "{:?}", t.records);
    // The launcher's line server ran it: a worker's session names the
    // client Claude Code started.
    assert!(
        sessions[0]
            .iter()
            .any(|r| r["type"] == "session" && r["client"].is_u64()),
        "not served: {:?}",
        sessions[0]
    );
    t.assert_clean();
    let (status, report) = t.arm.verify_with(&["--require-harness"]);
    assert_eq!(status, 0, "{report}");
}

/// With the arm's flags, bypass-permissions mode (what unattended runs
/// use) and a model that asks for every tool it was not given: only Bash
/// is offered, and the Write outside the arm, the Read of the policy, the
/// Monitor WebSocket, the subagent, the WebFetch and the hook planted in
/// `work/.claude/settings.json` all fail to happen (files unchanged, the
/// listener untouched, the hook's marker absent); the one Bash call runs
/// through guard-sh.
#[test]
#[ignore = "e2e: installs Claude Code from npm; run with `cargo test --test e2e -- --ignored`"]
fn claude_is_offered_only_bash_and_nothing_else_it_asks_for_happens() {
    let arm = Arm::build();
    let hostile = Hostile::plant_and_serve(&arm);
    let (records, harness_home) = bypass_trial(&arm, &hostile.mock, "claude -p (hostile)");
    hostile.assert_nothing_happened(&records);
    hostile.assert_the_transcript_names_each_attempt(
        &arm,
        &transcript_in(&harness_home.join(".claude")),
    );
}

/// One `claude -p` run of `arm` with the arm's own flags in
/// bypass-permissions mode (what unattended benchmark runs use), its HOME
/// and config folder the arm's `harness-home/`: the audit records and
/// that folder.
fn bypass_trial(arm: &Arm, mock: &MockServer, what: &str) -> (Vec<Value>, std::path::PathBuf) {
    let flags: Vec<String> = serde_json::from_str(
        &std::fs::read_to_string(arm.out.join("runtimes/claude-code/flags.json")).expect("flags"),
    )
    .expect("flags.json");
    let harness_home = arm.out.join("harness-home");
    let mut command = Command::new("timeout");
    command
        .arg("120")
        .arg(claude())
        .args(["-p", "use every tool"])
        .args(&flags)
        .arg("--dangerously-skip-permissions")
        .current_dir(arm.work_dir())
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", &harness_home)
        .env("CLAUDE_CONFIG_DIR", harness_home.join(".claude"))
        // Claude Code refuses bypass mode as root unless told it is sandboxed.
        .env("IS_SANDBOX", "1")
        .env("ANTHROPIC_BASE_URL", mock.url())
        .env("ANTHROPIC_API_KEY", "e2e-dummy-key")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
    let (records, _) = arm.run_trial(what, &mut command);
    (records, harness_home)
}

/// The one session transcript Claude Code wrote under `config`
/// (`CLAUDE_CONFIG_DIR`, or `HOME/.claude`).
fn transcript_in(config: &Path) -> std::path::PathBuf {
    let projects = config.join("projects");
    let mut found = Vec::new();
    for dir in std::fs::read_dir(&projects)
        .expect("projects folder")
        .flatten()
    {
        for f in std::fs::read_dir(dir.path())
            .expect("project folder")
            .flatten()
        {
            if f.path().extension().is_some_and(|e| e == "jsonl") {
                found.push(f.path());
            }
        }
    }
    assert_eq!(found.len(), 1, "one transcript: {found:?}");
    found.remove(0)
}

/// The gitea-mcp arm: Claude Code is offered the MCP server's tools and no
/// built-in at all; a model asking for Bash and Write gets errors, its MCP
/// call is answered, and the transcript check (`--channel mcp:gitea`)
/// names the two calls outside the channel.
#[test]
#[ignore = "e2e: installs Claude Code from npm; run with `cargo test --test e2e -- --ignored`"]
fn claude_in_the_mcp_arm_is_offered_only_the_servers_tools() {
    let arm = Arm::build_mcp();
    let root = arm.root.path();
    let marker = root.join("bash-ran");
    let outside = root.join("outside.txt");
    let uses = serde_json::json!([
        {"name": "mcp__gitea__list_issues", "input": {}},
        {"name": "Bash", "input": {"command": format!("echo x > {}", marker.display())}},
        {"name": "Write", "input": {"file_path": outside, "content": "written"}},
    ]);
    let mock = MockServer::start_with(
        "mock_anthropic.py",
        root,
        "unused",
        &[("MOCK_TOOL_USES", &uses.to_string())],
    );
    let (records, harness_home) = bypass_trial(&arm, &mock, "claude -p (mcp arm)");
    assert!(
        records.is_empty(),
        "no guard-sh in the MCP arm: {records:?}"
    );
    let offered = offered_tools(&mock);
    assert!(!offered.is_empty(), "no request offered tools");
    for tools in &offered {
        assert_eq!(tools, &["mcp__gitea__list_issues"], "{offered:?}");
    }
    let results: Vec<(String, bool)> = tool_results(&mock).into_values().collect();
    assert_eq!(results.len(), 3, "{results:?}");
    assert!(
        results
            .iter()
            .any(|(text, err)| !err && text.contains("STUB-MCP #1")),
        "{results:?}"
    );
    assert_eq!(
        results.iter().filter(|(_, err)| *err).count(),
        2,
        "{results:?}"
    );
    assert!(!marker.exists(), "Bash ran");
    assert!(!outside.exists(), "Write landed outside the arm");
    let (status, report) = cross_check_with(
        &arm,
        &transcript_in(&harness_home.join(".claude")),
        &["--channel", "mcp:gitea", "--allow-empty"],
    );
    assert_eq!(status, 1, "{report}");
    let mut named: Vec<String> = findings(&report, "tool-outside-channel")
        .iter()
        .map(|m| m.split('`').nth(1).unwrap_or_default().to_string())
        .collect();
    named.sort();
    assert_eq!(named, ["Bash", "Write"], "{report}");
}

#[test]
#[ignore = "e2e: installs Claude Code from npm; run with `cargo test --test e2e -- --ignored`"]
fn claude_line_sees_neither_the_model_key_nor_the_shells_environ() {
    // Claude Code hands its Bash tool its own environment, model key
    // included: the line must see neither the variable nor the bytes.
    let t = Trial::run(
        r#"echo "key=${ANTHROPIC_API_KEY:-unset}"; tr "\0" "\n" < /proc/self/environ | wc -l"#,
    );
    let (text, _) = t.tool_result();
    assert!(text.contains("key=unset"), "{text}");
    assert!(!text.contains("e2e-dummy-key"), "{text}");
    assert!(text.contains("not its memory or environment"), "{text}");
}
