//! Codex CLI, as shipped on npm, runs its `exec_command` tool through
//! guard-sh when its user's login shell is the `bash` link arm-build makes
//! (`shell.codexLoginShell`); with only `SHELL` set it runs the real bash,
//! and the verifier reports that trial as not clean.
//!
//! Codex takes the shell from the passwd entry (not `$SHELL`), so each run
//! gets a private mount namespace (`unshare --mount`, root) in which
//! `/etc/passwd` names that link as the user's shell.

#![allow(clippy::expect_used)] // test code reports failures by panicking

use crate::support::{
    Arm, Listener, MockServer, STUB_TEA_OUTPUT, assert_tea_pipeline_session, cross_check,
    npm_install, sessions_with_line,
};
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
    /// What `codex exec` printed on stderr.
    stderr: String,
}

/// How a trial is set up.
#[derive(Default)]
struct Setup<'a> {
    /// The passwd shell for the run (`None`: the machine's own).
    login_shell: Option<PathBuf>,
    /// Variables for the fake server (e.g. `MOCK_EXEC_ARGS`, `MOCK_SHELL`).
    mock_env: &'a [(&'a str, &'a str)],
    /// Run Codex under `guard-sh-launch --arm`.
    launch: bool,
    /// Trace every `execve` of the run into this file (`strace -f`).
    strace: Option<PathBuf>,
    /// Codex's own sandbox (`-s`); `None`: `danger-full-access`.
    sandbox: Option<&'a str>,
}

/// The folder of the native Codex binary the npm launcher starts.
fn codex_vendor(codex_js: &Path) -> PathBuf {
    codex_js
        .ancestors()
        .nth(3)
        .expect("node_modules/@openai")
        .join("codex-linux-x64/vendor")
}

impl Trial {
    fn run(cmd: &str, arm: Arm, setup: Setup) -> Trial {
        let codex = codex();
        let mock = MockServer::start_with("mock_openai.py", arm.root.path(), cmd, setup.mock_env);
        let home = arm.root.path().join("codex-home");
        std::fs::create_dir_all(&home).expect("mkdir codex home");
        let fragment = std::fs::read_to_string(arm.out.join("runtimes/codex/config.toml"))
            .expect("read the arm's Codex config");
        let config = format!(
            "model = \"mock-model\"\nmodel_provider = \"mock\"\n{fragment}\n\
             [model_providers.mock]\nname = \"mock\"\nbase_url = \"{}/v1\"\nwire_api = \"responses\"\n",
            mock.url()
        );
        std::fs::write(home.join("config.toml"), &config).expect("write config.toml");
        // Under the launcher Codex's home is the arm's harness-home/.codex,
        // made from this seed at the start of the trial.
        let seed = arm.root.path().join("seed");
        std::fs::create_dir_all(seed.join(".codex")).expect("mkdir seed");
        std::fs::write(seed.join(".codex/config.toml"), &config).expect("write the seed");
        let mut command = match &setup.login_shell {
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
        command.args(["timeout", "120"]);
        if let Some(trace) = &setup.strace {
            command
                .args(["strace", "-f", "-qq", "-e", "trace=execve", "-o"])
                .arg(trace);
        }
        if setup.launch {
            command
                .arg(env!("CARGO_BIN_EXE_guard-sh-launch"))
                .arg("--arm")
                .arg(&arm.out)
                .arg("--allow-exec")
                .arg(codex_vendor(&codex))
                .arg("--seed-home")
                .arg(&seed)
                .arg("--");
        }
        // The MCP arm has no shell: Codex's own then, which it never runs.
        let arm_shell = match arm.definition["shell"]["path"].as_str() {
            Some(_) => arm.shell(),
            None => "/bin/sh".to_string(),
        };
        let (records, stderr) = arm.run_trial(
            "codex exec",
            command
                .arg(&codex)
                .args([
                    "exec",
                    "--skip-git-repo-check",
                    "-s",
                    setup.sandbox.unwrap_or("danger-full-access"),
                    "run the command",
                ])
                .current_dir(arm.work_dir())
                .env_clear()
                .env("PATH", "/usr/bin:/bin")
                .env("HOME", arm.root.path().join("home"))
                .env("CODEX_HOME", &home)
                .env("SHELL", arm_shell),
        );
        Trial {
            arm,
            mock,
            records,
            stderr,
        }
    }

    /// A trial whose login shell is the arm's `bash` link (guard-sh).
    fn guarded(cmd: &str) -> Trial {
        Trial::guarded_with(cmd, Setup::default())
    }

    fn guarded_with(cmd: &str, setup: Setup) -> Trial {
        Trial::guarded_on(Arm::build(), cmd, setup)
    }

    /// A guarded trial on an arm already built (to place files in it first).
    fn guarded_on(arm: Arm, cmd: &str, setup: Setup) -> Trial {
        let shell = PathBuf::from(
            arm.definition["shell"]["codexLoginShell"]
                .as_str()
                .expect("codexLoginShell"),
        );
        assert_eq!(shell.file_name().and_then(|n| n.to_str()), Some("bash"));
        Trial::run(
            cmd,
            arm,
            Setup {
                login_shell: Some(shell),
                ..setup
            },
        )
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

    /// The call was `tea issues list --repo o/r …` and returned the stub's
    /// output with status 0.
    fn assert_tea_list_output(&self) {
        let (code, output) = self.tool_output();
        assert_eq!(code, 0, "{output}");
        assert_eq!(
            output.trim_end(),
            format!("{STUB_TEA_OUTPUT}args: issues list --repo o/r").trim_end()
        );
    }

    /// The output Codex reported for a call it could not start.
    fn failed_call_output(&self) -> String {
        self.mock
            .requests()
            .iter()
            .flat_map(|req| req["body"]["input"].as_array().cloned().unwrap_or_default())
            .find(|item| item["type"] == "function_call_output")
            .and_then(|item| item["output"].as_str().map(str::to_string))
            .unwrap_or_else(|| panic!("no function_call_output: {:?}", self.mock.requests()))
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
    t.assert_tea_list_output();
    let s = t.session_for(cmd);
    assert_tea_pipeline_session(&s, &t.arm);
    // Codex 0.171 `exec` makes no start-up snapshot: the command is the
    // only shell session (beside its exec supervisor's).
    assert_eq!(
        t.records
            .iter()
            .filter(|r| r["type"] == "session" && r["mode"] != "supervisor")
            .count(),
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
    let t = Trial::guarded_with(
        &cmd,
        Setup {
            mock_env: &[("MOCK_EXEC_ARGS", r#"{"tty": true}"#)],
            ..Setup::default()
        },
    );
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
    let t = Trial::run("echo $0", arm, Setup::default());
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

/// A line that leaves `marker` and connects to `listener` when any real
/// shell runs it.
fn escape_line(marker: &Path, listener: &Listener) -> String {
    format!(
        "touch {}; curl -s -m 2 http://127.0.0.1:{}/",
        marker.display(),
        listener.port
    )
}

#[test]
#[ignore = "e2e: installs Codex from npm; run with `cargo test --test e2e -- --ignored`"]
fn codex_runs_a_shell_the_model_names_past_guard_sh_without_the_launcher() {
    // The hole the launcher closes: exec_command's `shell` argument.
    let listener = Listener::new();
    let arm = Arm::build();
    let marker = arm.root.path().join("marker");
    let cmd = escape_line(&marker, &listener);
    let t = Trial::guarded_on(
        arm,
        &cmd,
        Setup {
            mock_env: &[("MOCK_SHELL", "sh")],
            ..Setup::default()
        },
    );
    assert!(
        marker.exists(),
        "sh did not run the line: {:?}",
        t.tool_output()
    );
    assert!(listener.was_reached(), "curl did not connect");
    assert!(
        sessions_with_line(&t.records, &cmd).is_empty(),
        "guard-sh saw the line after all: {:?}",
        t.records
    );
    // The trial had no launcher: the verifier, told to require one, says so.
    let (status, report) = t.arm.verify_with(&["--require-harness"]);
    assert_eq!(status, 1, "{report}");
    assert!(
        report.to_string().contains("harness-unconfined"),
        "{report}"
    );
}

/// `guard-sh-launch --plan`: the files the harness's domain lets it execute.
fn launcher_plan(t: &Trial) -> Value {
    let o = Command::new(env!("CARGO_BIN_EXE_guard-sh-launch"))
        .arg("--arm")
        .arg(&t.arm.out)
        .arg("--allow-exec")
        .arg(codex_vendor(&codex()))
        .arg("--plan")
        .arg("--")
        .arg(codex())
        .env("PATH", "/usr/bin:/bin")
        .output()
        .expect("run guard-sh-launch --plan");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("plan JSON")
}

/// Every program `execve` started successfully in a `strace -f -e
/// trace=execve` log, canonical. `/proc/self/exe` (Codex re-running its own
/// binary, already in the log) is left out: read here it would name this test.
fn executed_programs(trace: &Path) -> Vec<PathBuf> {
    let text = std::fs::read_to_string(trace).expect("read the strace log");
    text.lines()
        .filter(|l| l.contains("execve(\"") && l.trim_end().ends_with("= 0"))
        .filter_map(|l| l.split("execve(\"").nth(1)?.split('"').next())
        .filter(|p| *p != "/proc/self/exe")
        .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| PathBuf::from(p)))
        .collect()
}

#[test]
#[ignore = "e2e: installs Codex from npm; run with `cargo test --test e2e -- --ignored`"]
fn codex_under_the_launcher_cannot_run_a_shell_the_model_names() {
    // Codex 0.171 maps `bash` to the user's login shell (here guard-sh, which
    // denies the line); any other name is executed as given (the kernel
    // refuses it: Landlock a shell, the exec supervisor the ELF loader,
    // which Landlock must let every program use).
    for (shell, expected) in [
        ("sh", "Permission denied"),
        ("/bin/dash", "Permission denied"),
        ("/lib64/ld-linux-x86-64.so.2", "Permission denied"),
        ("bash", "guard-sh: denied: \"touch\""),
    ] {
        let listener = Listener::new();
        let trace = tempfile::NamedTempFile::new().expect("trace file");
        let arm = Arm::build();
        let marker = arm.root.path().join("marker");
        let cmd = escape_line(&marker, &listener);
        let t = Trial::guarded_on(
            arm,
            &cmd,
            Setup {
                mock_env: &[("MOCK_SHELL", shell)],
                launch: true,
                strace: Some(trace.path().to_path_buf()),
                ..Setup::default()
            },
        );
        let output = t.failed_call_output();
        assert!(output.contains(expected), "shell {shell}: {output}");
        assert!(!marker.exists(), "shell {shell} ran the line");
        assert!(!listener.was_reached(), "shell {shell}: curl connected");
        // The kernel's own record: nothing ran that the plan does not allow,
        // and no shell ran at all.
        let plan = launcher_plan(&t);
        let allowed: Vec<PathBuf> = plan["execute"]
            .as_array()
            .expect("execute")
            .iter()
            .map(|p| PathBuf::from(p.as_str().expect("path")))
            .collect();
        // The launcher itself runs before its domain exists.
        let launcher = Path::new(env!("CARGO_BIN_EXE_guard-sh-launch"));
        let ran: Vec<PathBuf> = executed_programs(trace.path())
            .into_iter()
            .filter(|p| p != launcher)
            .collect();
        assert!(
            ran.iter().any(|p| p.ends_with("codex")),
            "no codex in the trace: {ran:?}"
        );
        for program in &ran {
            assert!(
                allowed.iter().any(|a| program.starts_with(a)),
                "shell {shell}: {} ran outside the plan {allowed:?}",
                program.display()
            );
            let name = program
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            assert!(
                !["sh", "dash", "bash"].contains(&name),
                "shell {shell}: {} ran",
                program.display()
            );
        }
    }
}

#[test]
#[ignore = "e2e: installs Codex from npm; run with `cargo test --test e2e -- --ignored`"]
fn codex_under_the_launcher_runs_the_allowed_pipeline_through_guard_sh() {
    let cmd = "tea issues list --repo o/r | head -5";
    let t = Trial::guarded_with(
        cmd,
        Setup {
            launch: true,
            ..Setup::default()
        },
    );
    t.assert_tea_list_output();
    let s = t.session_for(cmd);
    assert!(
        s.iter()
            .any(|r| r["type"] == "spawn" && r["argv"] == serde_json::json!(["head", "-5"])),
        "{s:?}"
    );
    t.assert_clean();
    let (status, report) = t.arm.verify_with(&["--require-harness"]);
    assert_eq!(status, 0, "{report}");
    // Debian's egrep and fgrep are `#!/bin/sh` scripts: the launcher says
    // they cannot run under it rather than let the harness run sh.
    assert!(
        t.stderr.contains("is left out of the harness's domain")
            && t.stderr.contains("egrep, fgrep"),
        "{}",
        t.stderr
    );
}

/// A clean Codex trial of the MCP arm under the launcher: the model calls
/// the arm's one MCP tool, Codex runs the arm's MCP server and sends the
/// call as `namespace: mcp__gitea`, and neither the log nor the
/// transcript check finds anything (no false alarm on the channel).
#[test]
#[ignore = "e2e: installs Codex from npm; run with `cargo test --test e2e -- --ignored`"]
fn codex_gitea_mcp_trial_under_the_launcher_is_clean() {
    let arm = Arm::build_mcp();
    let t = Trial::run(
        "",
        arm,
        Setup {
            launch: true,
            mock_env: &[("MOCK_MCP_CALL", "mcp__gitea list_issues")],
            ..Setup::default()
        },
    );
    let outputs: Vec<String> = t
        .mock
        .requests()
        .iter()
        .flat_map(|r| r["body"]["input"].as_array().cloned().unwrap_or_default())
        .filter(|i| i["type"] == "function_call_output")
        .map(|i| i["output"].to_string())
        .collect();
    assert!(
        outputs.iter().any(|o| o.contains("first issue")),
        "the MCP tool's result never came back: {outputs:?}\n{}",
        t.stderr
    );
    let rollout = walk(&t.arm.out.join("harness-home/.codex/sessions"))
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .expect("Codex's rollout");
    let (status, report) = t.arm.verify_with(&[
        "--require-harness",
        "--channel",
        "mcp:gitea",
        "--transcript",
        rollout.to_str().expect("utf-8"),
    ]);
    assert_eq!(status, 0, "{report}");
}

/// Codex applies `apply_patch` itself, in its own process, when the model
/// writes it inside `exec_command`: guard-sh never sees it. Under the
/// launcher the patch reaches only the harness's own folders: a file in
/// its `CODEX_HOME` is written (the patch tool ran), one in the audit
/// folder and one outside the arm are not, the log holds only sealed
/// records, and the next trial on the arm reports what the patch planted
/// in the home. Judged by the files that exist afterwards and the verifier.
#[test]
#[ignore = "e2e: installs Codex from npm; run with `cargo test --test e2e -- --ignored`"]
fn codex_under_the_launcher_patches_only_its_own_folders_and_a_planted_home_is_reported() {
    let arm = Arm::build();
    let hooks = arm.out.join("harness-home/.codex/hooks.json");
    let forged = arm.out.join("audit/forged.jsonl");
    let outside = arm.root.path().join("outside.txt");
    let patch = format!(
        "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: {}\n+{{}}\n*** Add File: {}\n+{{\"forged\":1}}\n*** Add File: {}\n+x\n*** End Patch\nEOF",
        hooks.display(),
        forged.display(),
        outside.display()
    );
    let t = Trial::guarded_on(
        arm,
        &patch,
        Setup {
            launch: true,
            ..Setup::default()
        },
    );
    assert!(hooks.is_file(), "the patch tool did not run: {}", t.stderr);
    assert!(!forged.exists(), "the patch wrote into the audit folder");
    assert!(!outside.exists(), "the patch wrote outside the arm");
    for record in &t.records {
        assert!(record["mac"].is_string(), "{record}");
    }
    let (_, report) = t.arm.verify_with(&["--require-harness"]);
    assert!(!report.to_string().contains("forged"), "{report}");
    // The next trial on the same arm, without --fresh: the hook file is
    // configuration no operator seeded.
    let o = Command::new(env!("CARGO_BIN_EXE_guard-sh-launch"))
        .arg("--arm")
        .arg(&t.arm.out)
        .args(["--", "env", "true"])
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .output()
        .expect("run guard-sh-launch");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (status, report) = t.arm.verify_with(&["--require-harness"]);
    assert_eq!(status, 1, "{report}");
    assert!(
        report
            .to_string()
            .contains("harness-home/.codex/hooks.json"),
        "{report}"
    );
}

#[test]
#[ignore = "e2e: installs Codex from npm; run with `cargo test --test e2e -- --ignored`"]
fn codex_own_sandboxes_make_guard_sh_refuse_every_command_for_want_of_its_audit_log() {
    // The arm lies outside /tmp (which workspace-write leaves writable):
    // the arm's Codex config lets Codex's sandbox write only the work and
    // temp folders, never the audit folder, so guard-sh fails closed in
    // both of Codex's own sandboxes (run Codex under guard-sh-launch).
    for (sandbox, error) in [
        ("read-only", "Read-only file system"),
        ("workspace-write", "Read-only file system"),
    ] {
        let arm = Arm::build_in(Path::new(env!("CARGO_TARGET_TMPDIR")));
        assert!(!arm.out.starts_with("/tmp"), "{:?}", arm.out);
        let t = Trial::guarded_on(
            arm,
            "tea issues list --repo o/r",
            Setup {
                sandbox: Some(sandbox),
                ..Setup::default()
            },
        );
        let (code, output) = t.tool_output();
        assert_eq!(code, 126, "{sandbox}: {output}");
        assert!(
            output.starts_with("guard-sh: audit log unavailable:") && output.contains(error),
            "{sandbox}: {output}"
        );
        assert!(
            !t.records.iter().any(|r| r["type"] == "spawn"),
            "{sandbox}: {:?}",
            t.records
        );
    }
}

#[test]
#[ignore = "e2e: installs Codex from npm; run with `cargo test --test e2e -- --ignored`"]
fn codex_is_offered_only_its_shell_tools_and_its_rollout_matches_the_log() {
    let cmd = "tea issues list --repo o/r | head -5";
    let t = Trial::guarded(cmd);
    let offered: Vec<Vec<String>> = t
        .mock
        .requests()
        .iter()
        .filter_map(|r| r["body"]["tools"].as_array())
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["name"].as_str().unwrap_or("(namespace)").to_string())
                .collect()
        })
        .collect();
    assert!(!offered.is_empty(), "no request offered tools");
    for tools in &offered {
        assert_eq!(tools, &["exec_command", "write_stdin"], "{offered:?}");
    }
    // Codex's rollout (CODEX_HOME/sessions/…/rollout-….jsonl) and the audit
    // log agree: one call, one session, nothing else.
    let rollouts: Vec<PathBuf> = walk(&t.arm.root.path().join("codex-home/sessions"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    assert_eq!(rollouts.len(), 1, "{rollouts:?}");
    let (status, report) = cross_check(&t.arm, &rollouts[0]);
    assert_eq!(status, 0, "{report}");
}

/// Every file beneath `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}
