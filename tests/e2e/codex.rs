//! Codex CLI, as shipped on npm, runs its `exec_command` tool through
//! guard-sh when its user's login shell is the `bash` link arm-build makes
//! (`shell.codexLoginShell`); with only `SHELL` set it runs the real bash,
//! and the verifier reports that trial as not clean.
//!
//! Codex takes the shell from the passwd entry (not `$SHELL`), so each run
//! gets a private mount namespace (`unshare --mount`, root) in which
//! `/etc/passwd` names that link as the user's shell.

use crate::support::{Arm, Listener, MockServer, STUB_TEA_OUTPUT, npm_install, sessions_with_line};
use serde_json::Value;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The pinned Codex CLI release these tests were checked against.
pub const VERSION: &str = "0.171.0";

fn codex() -> PathBuf {
    npm_install(
        "@openai/codex",
        VERSION,
        "node_modules/@openai/codex/bin/codex.js",
    )
}

/// `/etc/passwd` with this user's login shell replaced by `shell`.
fn passwd_with_shell(shell: &Path, dir: &Path) -> PathBuf {
    let uid = std::fs::metadata("/proc/self")
        .expect("stat /proc/self")
        .uid()
        .to_string();
    let text = std::fs::read_to_string("/etc/passwd").expect("read /etc/passwd");
    let mut found = false;
    let lines: Vec<String> = text
        .lines()
        .map(|l| {
            let mut f: Vec<&str> = l.split(':').collect();
            if f.len() == 7 && f[2] == uid {
                found = true;
                f[6] = shell.to_str().expect("UTF-8 shell path");
            }
            f.join(":")
        })
        .collect();
    assert!(found, "uid {uid} has no /etc/passwd entry");
    let path = dir.join("passwd");
    std::fs::write(&path, lines.join("\n") + "\n").expect("write passwd");
    path
}

/// One `codex exec` run whose fake model asks for `cmd` once.
struct Trial {
    arm: Arm,
    mock: MockServer,
    records: Vec<Value>,
}

impl Trial {
    /// `login_shell`: the passwd shell for the run (`None`: the machine's own).
    fn run(cmd: &str, login_shell: Option<&Path>, arm: Arm) -> Trial {
        Trial::run_with(cmd, login_shell, arm, &[])
    }

    /// `mock_env`: variables for the fake server (e.g. `MOCK_EXEC_ARGS`).
    fn run_with(
        cmd: &str,
        login_shell: Option<&Path>,
        arm: Arm,
        mock_env: &[(&str, &str)],
    ) -> Trial {
        let codex = codex();
        let mock = MockServer::start_with("mock_openai.py", arm.root.path(), cmd, mock_env);
        let home = arm.root.path().join("codex-home");
        std::fs::create_dir_all(&home).expect("mkdir codex home");
        let fragment = std::fs::read_to_string(arm.out.join("runtimes/codex/config.toml"))
            .expect("read the arm's Codex config");
        let config = format!(
            "model = \"mock-model\"\nmodel_provider = \"mock\"\n{fragment}\n\
             [model_providers.mock]\nname = \"mock\"\nbase_url = \"{}/v1\"\nwire_api = \"responses\"\n",
            mock.url()
        );
        std::fs::write(home.join("config.toml"), config).expect("write config.toml");
        let mut command = match login_shell {
            Some(shell) => {
                let passwd = passwd_with_shell(shell, arm.root.path());
                let mut c = Command::new("unshare");
                c.args(["--mount", "--propagation", "private", "sh", "-c"])
                    .arg("mount --bind \"$0\" /etc/passwd && exec \"$@\"")
                    .arg(passwd);
                c
            }
            None => Command::new("env"),
        };
        let records = arm.run_trial(
            "codex exec",
            command
                .args(["timeout", "120"])
                .arg(&codex)
                .args([
                    "exec",
                    "--skip-git-repo-check",
                    "-s",
                    "danger-full-access",
                    "run the command",
                ])
                .current_dir(arm.work_dir())
                .env_clear()
                .env("PATH", "/usr/bin:/bin")
                .env("HOME", arm.root.path().join("home"))
                .env("CODEX_HOME", &home)
                .env("SHELL", arm.shell()),
        );
        Trial { arm, mock, records }
    }

    fn guarded(cmd: &str) -> Trial {
        Trial::guarded_with(cmd, &[])
    }

    fn guarded_with(cmd: &str, mock_env: &[(&str, &str)]) -> Trial {
        let arm = Arm::build();
        let shell = PathBuf::from(
            arm.definition["shell"]["codexLoginShell"]
                .as_str()
                .expect("codexLoginShell"),
        );
        assert_eq!(shell.file_name().and_then(|n| n.to_str()), Some("bash"));
        Trial::run_with(cmd, Some(&shell), arm, mock_env)
    }

    /// The command's exit code and output, as Codex reported them to the model.
    fn tool_output(&self) -> (i64, String) {
        for req in self.mock.requests() {
            for item in req["body"]["input"].as_array().into_iter().flatten() {
                if item["type"] != "function_call_output" {
                    continue;
                }
                let text = item["output"].as_str().unwrap_or_default();
                let code = text
                    .lines()
                    .find_map(|l| l.strip_prefix("Process exited with code "))
                    .and_then(|c| c.trim().parse().ok())
                    .unwrap_or_else(|| panic!("no exit code in {text:?}"));
                let output = text
                    .split_once("Output:\n")
                    .map(|(_, o)| o.to_string())
                    .unwrap_or_default();
                return (code, output);
            }
        }
        panic!(
            "the fake model never received a function_call_output: {:?}",
            self.mock.requests()
        );
    }

    /// The one guard-sh session that ran `cmd`, checked for Codex's argv shape.
    fn session_for(&self, cmd: &str) -> Vec<&Value> {
        let mut sessions = sessions_with_line(&self.records, cmd);
        assert_eq!(
            sessions.len(),
            1,
            "one session ran the call: {:?}",
            self.records
        );
        let s = sessions.remove(0);
        let session = s
            .iter()
            .find(|r| r["type"] == "session")
            .expect("session record");
        let login = self.arm.definition["shell"]["codexLoginShell"].clone();
        assert_eq!(session["argv"], serde_json::json!([login, "-lc", cmd]));
        s
    }

    fn assert_clean(&self) {
        let (status, report) = self.arm.verify();
        assert_eq!(status, 0, "guard-sh-audit: {report}");
        assert_eq!(report["clean"], true);
    }

    fn assert_denied(&self, cmd: &str, name: &str) {
        let (code, output) = self.tool_output();
        assert_eq!(code, 126, "{output}");
        assert!(
            output.starts_with(&format!("guard-sh: denied: \"{name}\"")),
            "{output}"
        );
        let s = self.session_for(cmd);
        let verdict = s
            .iter()
            .find(|r| r["type"] == "verdict")
            .expect("a verdict");
        assert_eq!(verdict["allowed"], false);
        assert!(
            !s.iter().any(|r| r["type"] == "spawn"),
            "nothing of a denied line runs: {s:?}"
        );
        self.assert_clean();
    }
}

#[test]
#[ignore = "e2e: installs Codex from npm; run with `cargo test --test e2e -- --ignored`"]
fn codex_allowed_tea_pipeline_returns_the_stub_output_and_is_audited() {
    let cmd = "tea issues list --repo o/r | head -5";
    let t = Trial::guarded(cmd);
    let (code, output) = t.tool_output();
    assert_eq!(code, 0, "{output}");
    assert_eq!(
        output.trim_end(),
        format!("{STUB_TEA_OUTPUT}args: issues list --repo o/r").trim_end()
    );
    let s = t.session_for(cmd);
    assert!(
        s.iter()
            .any(|r| r["type"] == "verdict" && r["allowed"] == true),
        "{s:?}"
    );
    let spawns: Vec<&Value> = s
        .iter()
        .filter(|r| r["type"] == "spawn")
        .map(|r| &r["argv"])
        .collect();
    assert!(
        spawns.contains(&&serde_json::json!([
            "tea", "issues", "list", "--repo", "o/r"
        ])),
        "{spawns:?}"
    );
    assert!(
        spawns.contains(&&serde_json::json!(["head", "-5"])),
        "{spawns:?}"
    );
    let bin = t.arm.out.join("bin");
    assert!(
        s.iter().filter(|r| r["type"] == "spawn").all(|r| r["path"]
            .as_str()
            .is_some_and(|p| Path::new(p).starts_with(&bin))),
        "{s:?}"
    );
    // Codex 0.171 `exec` makes no start-up snapshot: the command is the only session.
    assert_eq!(
        t.records.iter().filter(|r| r["type"] == "session").count(),
        1,
        "{:?}",
        t.records
    );
    t.assert_clean();
}

#[test]
#[ignore = "e2e: installs Codex from npm; run with `cargo test --test e2e -- --ignored`"]
fn codex_denied_curl_returns_the_denial_and_never_connects() {
    let listener = Listener::new();
    let cmd = format!("curl http://127.0.0.1:{}/", listener.port);
    let t = Trial::guarded(&cmd);
    t.assert_denied(&cmd, "curl");
    assert!(!listener.was_reached(), "curl reached the listener");
}

#[test]
#[ignore = "e2e: installs Codex from npm; run with `cargo test --test e2e -- --ignored`"]
fn codex_denied_python_returns_the_denial() {
    let cmd = "python3 -c 'print(42)'";
    let t = Trial::guarded(cmd);
    t.assert_denied(cmd, "python3");
}

#[test]
#[ignore = "e2e: installs Codex from npm; run with `cargo test --test e2e -- --ignored`"]
fn codex_pty_exec_command_goes_through_guard_sh_too() {
    let listener = Listener::new();
    let cmd = format!(
        "tea issues list --repo o/r | head -1; curl http://127.0.0.1:{}/",
        listener.port
    );
    let t = Trial::guarded_with(&cmd, &[("MOCK_EXEC_ARGS", r#"{"tty": true}"#)]);
    let (code, output) = t.tool_output();
    assert_eq!(code, 126, "{output}");
    // A PTY turns \n into \r\n.
    assert!(
        output.starts_with("guard-sh: denied: \"curl\"") && output.ends_with("\r\n"),
        "{output:?}"
    );
    let s = t.session_for(&cmd);
    assert!(!s.iter().any(|r| r["type"] == "spawn"), "{s:?}");
    assert!(!listener.was_reached());
    t.assert_clean();
}

#[test]
#[ignore = "e2e: installs Codex from npm; run with `cargo test --test e2e -- --ignored`"]
fn codex_with_only_shell_set_runs_real_bash_and_is_reported_not_clean() {
    let arm = Arm::build();
    let t = Trial::run("echo $0", None, arm);
    let (code, output) = t.tool_output();
    assert_eq!(code, 0);
    assert_ne!(output.trim(), t.arm.shell(), "Codex used $SHELL after all");
    assert!(t.records.is_empty(), "guard-sh never ran: {:?}", t.records);
    let (status, report) = t.arm.verify();
    assert_eq!(status, 1, "{report}");
    assert!(
        report["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|f| f["kind"] == "no-sessions"),
        "{report}"
    );
}
