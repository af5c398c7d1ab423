//! What every harness trial needs: the agent installed from npm into a
//! cache folder, a freshly built `tea` arm with a stub `tea`, a fake model
//! server on loopback, a listener that must never be reached, and the
//! audit log read back.

#![allow(clippy::expect_used)] // test code reports failures by panicking

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};

/// What the stub `tea` prints: the model must get exactly this back.
pub const STUB_TEA_OUTPUT: &str = "STUB-TEA #1 first issue\nSTUB-TEA #2 second issue\n";

/// Where agents are installed: `GUARD_SH_E2E_CACHE`, else `~/.cache/guard-sh-e2e`.
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("GUARD_SH_E2E_CACHE") {
        return PathBuf::from(d);
    }
    let home = std::env::var_os("HOME").unwrap_or_else(|| "/root".into());
    Path::new(&home).join(".cache/guard-sh-e2e")
}

/// One npm install at a time (the packages are large; tests share them).
static INSTALL: Mutex<()> = Mutex::new(());

/// Install `package@version` into `cache/name-version` unless there, and
/// return the executable `rel` inside it. Fails the test (never skips)
/// when npm or the registry cannot be reached.
pub fn npm_install(package: &str, version: &str, rel: &str) -> PathBuf {
    let _one = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
    let name = package.rsplit('/').next().unwrap_or(package);
    let dir = cache_dir().join(format!("{name}-{version}"));
    let exe = dir.join(rel);
    if runs_version(&exe, version) {
        return exe;
    }
    std::fs::create_dir_all(&dir).expect("create the e2e cache folder");
    let out = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(&dir)
        .arg(format!("{package}@{version}"))
        .output()
        .unwrap_or_else(|e| {
            panic!("e2e: cannot run npm ({e}); install it (Debian: apt-get install npm)")
        });
    assert!(
        out.status.success(),
        "e2e: `npm install {package}@{version}` failed: is the npm registry reachable?\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        runs_version(&exe, version),
        "e2e: {} does not report version {version} after npm install",
        exe.display()
    );
    exe
}

fn runs_version(exe: &Path, version: &str) -> bool {
    Command::new(exe)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains(version))
        .unwrap_or(false)
}

/// The stub `tea`/`git`, compiled once per test run: a program named `tea`
/// prints [`STUB_TEA_OUTPUT`] and `args: ARGS` (`tea connect HOST:PORT`
/// instead tries a TCP connection there, as a tool reaching past the forge
/// would), under any other name it exits 0. Compiled rather than a `#!/bin/sh` script so that no shell is
/// in the arm's execute set (`guard-sh-launch` leaves shells out).
pub fn stub_binary() -> &'static Path {
    static STUB: OnceLock<PathBuf> = OnceLock::new();
    STUB.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("guard-sh-e2e-stub-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("mkdir stub folder");
        let source = dir.join("stub.rs");
        std::fs::write(
            &source,
            format!(
                "fn main() {{\n\
                 let args: Vec<String> = std::env::args().collect();\n\
                 if args[0].ends_with(\"tea\") && args.get(1).map(String::as_str) == Some(\"connect\") {{\n\
                 match std::net::TcpStream::connect(&args[2]) {{\n\
                 Ok(_) => println!(\"connected\"),\n\
                 Err(e) => {{ eprintln!(\"tea: {{e}}\"); std::process::exit(1) }}\n\
                 }}\n\
                 }} else if args[0].ends_with(\"tea\") {{\n\
                 print!(\"{}\");\n\
                 println!(\"args: {{}}\", args[1..].join(\" \"));\n\
                 }}\n}}\n",
                STUB_TEA_OUTPUT.escape_default()
            ),
        )
        .expect("write stub source");
        let exe = dir.join("stub");
        let out = Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()))
            .args(["-O", "-o"])
            .arg(&exe)
            .arg(&source)
            .output()
            .expect("run rustc");
        assert!(
            out.status.success(),
            "compile the stub tool: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        exe
    })
}

/// A built `tea` arm in a temp folder, with a home for the agent.
pub struct Arm {
    pub root: tempfile::TempDir,
    pub out: PathBuf,
    pub home: PathBuf,
    pub definition: Value,
}

impl Arm {
    /// `arm-build tea` with stub `tea`/`git` first on PATH, and the guard-sh
    /// built with these tests (its `guard-bash` sits next to arm-build).
    pub fn build() -> Arm {
        Arm::build_in(&std::env::temp_dir())
    }

    /// [`Arm::build`] in a new folder inside `parent`.
    pub fn build_in(parent: &Path) -> Arm {
        let root = tempfile::tempdir_in(parent).expect("tempdir");
        let stubs = root.path().join("stubs");
        std::fs::create_dir(&stubs).expect("mkdir stubs");
        for name in ["tea", "git"] {
            std::fs::copy(stub_binary(), stubs.join(name)).expect("copy the stub");
        }
        Arm::build_from_stubs("tea", root)
    }

    /// `arm-build gitea-mcp` with `tests/e2e/mock_mcp.py` as `gitea-mcp`
    /// (one tool, `list_issues`), in a new folder inside the temp folder.
    pub fn build_mcp() -> Arm {
        let root = tempfile::tempdir().expect("tempdir");
        let stubs = root.path().join("stubs");
        std::fs::create_dir(&stubs).expect("mkdir stubs");
        let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/mock_mcp.py");
        std::fs::copy(server, stubs.join("gitea-mcp")).expect("copy the MCP stub");
        Arm::build_from_stubs("gitea-mcp", root)
    }

    /// `arm-build ARM` into `ROOT/arm` with `ROOT/stubs` first on PATH, and
    /// a home for the agent in `ROOT/home`.
    fn build_from_stubs(arm: &str, root: tempfile::TempDir) -> Arm {
        let stubs = root.path().join("stubs");
        let out = root.path().join("arm");
        let home = root.path().join("home");
        std::fs::create_dir(&home).expect("mkdir home");
        let definition = crate::common::ArmBuild::new(arm, "http://127.0.0.1:3000", &out)
            .stubs(&stubs)
            .definition();
        Arm {
            root,
            out,
            home,
            definition,
        }
    }

    pub fn work_dir(&self) -> PathBuf {
        self.out.join("work")
    }

    pub fn audit_log(&self) -> PathBuf {
        self.out.join("audit/audit.jsonl")
    }

    /// The `SHELL` arm-build chose: it must contain `bash`.
    pub fn shell(&self) -> String {
        self.definition["shell"]["path"]
            .as_str()
            .expect("shell.path")
            .to_string()
    }

    /// Run one harness trial (`what` names it in messages): it must exit 0
    /// with the fake model's final `done`; returns the audit log's records
    /// and the harness's stderr.
    pub fn run_trial(&self, what: &str, command: &mut Command) -> (Vec<Value>, String) {
        let started = std::time::Instant::now();
        let out = command
            .output()
            .unwrap_or_else(|e| panic!("run {what}: {e}"));
        eprintln!("{what} took {:?}", started.elapsed());
        assert!(
            out.status.success(),
            "{what} failed ({:?}): {}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            "done",
            "the session did not finish"
        );
        let records = self.audit_records();
        for r in records.iter().filter(|r| r["type"] == "session") {
            eprintln!("guard-sh argv: {}", r["argv"]);
        }
        (records, String::from_utf8_lossy(&out.stderr).into_owned())
    }

    /// Every record of the audit log (none if it does not exist).
    pub fn audit_records(&self) -> Vec<Value> {
        read_json_lines(&self.audit_log())
    }

    /// `guard-sh-audit --json LOG`: exit status and report.
    pub fn verify(&self) -> (i32, Value) {
        self.verify_with(&[])
    }

    /// [`Arm::verify`] with more options (e.g. `--require-harness`).
    pub fn verify_with(&self, options: &[&str]) -> (i32, Value) {
        let o = Command::new(env!("CARGO_BIN_EXE_guard-sh-audit"))
            .arg("--json")
            .args(options)
            .arg(self.audit_log())
            .output()
            .expect("run guard-sh-audit");
        let report = serde_json::from_slice(&o.stdout).expect("audit report JSON");
        (o.status.code().unwrap_or(-1), report)
    }
}

/// Parse a JSON Lines file; a missing file has no lines.
pub fn read_json_lines(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("bad JSON line in {}: {e}: {l}", path.display()))
        })
        .collect()
}

/// A fake model server (a Python script in this folder) on 127.0.0.1.
pub struct MockServer {
    child: Child,
    pub port: u16,
    pub log: PathBuf,
}

impl MockServer {
    /// Start `script` with a free port; `cmd` is the shell command the fake
    /// model asks for.
    pub fn start(script: &str, dir: &Path, cmd: &str) -> MockServer {
        MockServer::start_with(script, dir, cmd, &[])
    }

    /// [`MockServer::start`] with more variables for the script.
    pub fn start_with(script: &str, dir: &Path, cmd: &str, env: &[(&str, &str)]) -> MockServer {
        let log = dir.join(format!("{script}.log"));
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/e2e")
            .join(script);
        let mut child = Command::new("python3")
            .arg(&path)
            .arg("0")
            .arg(&log)
            .current_dir(dir)
            .env("MOCK_CMD", cmd)
            .env("MOCK_CMD_FILE", dir.join("no-such-cmd-file"))
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start python3 mock server");
        let mut first = String::new();
        let stdout = child.stdout.take().expect("mock stdout");
        BufReader::new(stdout)
            .read_line(&mut first)
            .expect("mock port line");
        let port = first
            .trim()
            .strip_prefix("PORT ")
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("mock server did not report its port: {first:?}"));
        MockServer { child, port, log }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every request the server logged.
    pub fn requests(&self) -> Vec<Value> {
        read_json_lines(&self.log)
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback listener the agent's `curl` is pointed at: it must never see
/// a connection.
pub struct Listener {
    inner: TcpListener,
    pub port: u16,
}

impl Listener {
    pub fn new() -> Listener {
        let inner = TcpListener::bind("127.0.0.1:0").expect("bind listener");
        inner.set_nonblocking(true).expect("nonblocking");
        let port = inner.local_addr().expect("addr").port();
        Listener { inner, port }
    }

    /// Whether anything connected (the backlog holds it even unaccepted).
    pub fn was_reached(&self) -> bool {
        self.inner.accept().is_ok()
    }
}

/// The audit sessions whose line text contains `needle`, each as its records.
pub fn sessions_with_line<'a>(records: &'a [Value], needle: &str) -> Vec<Vec<&'a Value>> {
    let ids: Vec<&str> = records
        .iter()
        .filter(|r| r["type"] == "line" && r["text"].as_str().is_some_and(|t| t.contains(needle)))
        .filter_map(|r| r["session"].as_str())
        .collect();
    let mut out = Vec::new();
    for id in ids {
        let s: Vec<&Value> = records.iter().filter(|r| r["session"] == id).collect();
        if !out
            .iter()
            .any(|o: &Vec<&Value>| o.first().map(|r| r["session"] == id).unwrap_or(false))
        {
            out.push(s);
        }
    }
    out
}

/// The session that ran `tea issues list --repo o/r | head -5`: its verdict
/// allowed the line, it spawned both members, each from the arm's bin folder.
pub fn assert_tea_pipeline_session(s: &[&Value], arm: &Arm) {
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
    let bin = arm.out.join("bin");
    assert!(
        s.iter().filter(|r| r["type"] == "spawn").all(|r| r["path"]
            .as_str()
            .is_some_and(|p| Path::new(p).starts_with(&bin))),
        "every spawn resolves in the arm's bin folder: {s:?}"
    );
}

/// The built-in tools Claude Code offered in each request that offered
/// any: the arm's allowlist (`--tools Bash`) leaves Bash and a placeholder
/// that only keeps deferred loading on (`defer_loading`, "never call").
pub fn offered_tools(mock: &MockServer) -> Vec<Vec<String>> {
    mock.requests()
        .iter()
        .filter_map(|r| r["body"]["tools"].as_array())
        .filter(|tools| !tools.is_empty())
        .map(|tools| {
            tools
                .iter()
                .filter(|t| !(t["name"] == "DeferredToolPlaceholder" && t["defer_loading"] == true))
                .filter_map(|t| t["name"].as_str().map(str::to_string))
                .collect()
        })
        .collect()
}

/// Every `tool_result` block Claude Code sent back: tool_use id → (text, is_error).
/// The text of a `tool_result` block (a string, or its text parts).
pub fn tool_result_text(block: &Value) -> String {
    match &block["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
        other => other.to_string(),
    }
}

pub fn tool_results(mock: &MockServer) -> std::collections::BTreeMap<String, (String, bool)> {
    let mut out = std::collections::BTreeMap::new();
    for req in mock.requests() {
        for message in req["body"]["messages"].as_array().into_iter().flatten() {
            for block in message["content"].as_array().into_iter().flatten() {
                if block["type"] != "tool_result" {
                    continue;
                }
                let text = tool_result_text(block);
                let id = block["tool_use_id"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                out.insert(id, (text, block["is_error"] == true));
            }
        }
    }
    out
}

/// `guard-sh-audit --json --transcript T --policy P LOG`.
pub fn cross_check(arm: &Arm, transcript: &Path) -> (i32, Value) {
    cross_check_with(arm, transcript, &[])
}

/// [`cross_check`] with more options (`--channel mcp:gitea`, `--allow-empty`).
pub fn cross_check_with(arm: &Arm, transcript: &Path, options: &[&str]) -> (i32, Value) {
    let o = Command::new(env!("CARGO_BIN_EXE_guard-sh-audit"))
        .arg("--json")
        .args(options)
        .arg("--transcript")
        .arg(transcript)
        .arg("--policy")
        .arg(arm.out.join("policy.json"))
        .arg(arm.audit_log())
        .output()
        .expect("run guard-sh-audit");
    let report = serde_json::from_slice(&o.stdout).expect("audit report JSON");
    (o.status.code().unwrap_or(-1), report)
}

/// The messages of the report's findings of `kind`.
pub fn findings(report: &Value, kind: &str) -> Vec<String> {
    report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["kind"] == kind)
        .filter_map(|f| f["message"].as_str().map(str::to_string))
        .collect()
}

/// A model that asks, in one message, for every tool a shell arm does not
/// offer (Write outside the arm, Read of the policy, a Monitor WebSocket, a
/// subagent, a WebFetch) and for one Bash call, with a hook planted in
/// `work/.claude/settings.json`; and what must hold afterwards.
pub struct Hostile {
    pub mock: MockServer,
    listener: Listener,
    outside: PathBuf,
    hook_marker: PathBuf,
    policy: PathBuf,
    policy_before: Vec<u8>,
    uses: Value,
}

impl Hostile {
    pub fn plant_and_serve(arm: &Arm) -> Hostile {
        let listener = Listener::new();
        let root = arm.root.path();
        let outside = root.join("outside.txt");
        let hook_marker = root.join("hook-ran");
        let planted = arm.work_dir().join(".claude");
        std::fs::create_dir_all(&planted).expect("mkdir .claude");
        let hook = serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
            {"type": "command", "command": format!("touch {}", hook_marker.display())}
        ]}]}});
        std::fs::write(planted.join("settings.json"), hook.to_string()).expect("plant the hook");
        let policy = arm.out.join("policy.json");
        let policy_before = std::fs::read(&policy).expect("policy");
        let port = listener.port;
        let uses = serde_json::json!([
            {"name": "Write", "input": {"file_path": outside, "content": "written"}},
            {"name": "Read", "input": {"file_path": policy}},
            {"name": "Monitor", "input": {"description": "watch", "timeout_ms": 2000,
                                          "ws": {"url": format!("ws://127.0.0.1:{port}/")}}},
            {"name": "Agent", "input": {"description": "help", "prompt": "run id",
                                        "subagent_type": "general-purpose"}},
            {"name": "WebFetch", "input": {"url": format!("http://127.0.0.1:{port}/"),
                                           "prompt": "read it"}},
            {"name": "Bash", "input": {"command": "echo via-bash", "description": "echo"}},
        ]);
        let mock = MockServer::start_with(
            "mock_anthropic.py",
            root,
            "unused",
            &[("MOCK_TOOL_USES", &uses.to_string())],
        );
        Hostile {
            mock,
            listener,
            outside,
            hook_marker,
            policy,
            policy_before,
            uses,
        }
    }

    /// Only Bash was offered; no file changed, nothing reached the
    /// listener, the hook never ran; every other call came back an error,
    /// and the Bash call ran through guard-sh.
    pub fn assert_nothing_happened(&self, records: &[Value]) {
        let offered = offered_tools(&self.mock);
        assert!(!offered.is_empty(), "no request offered tools");
        for tools in &offered {
            assert_eq!(tools, &["Bash"], "offered: {offered:?}");
        }
        assert!(!self.outside.exists(), "Write landed outside the arm");
        assert_eq!(
            std::fs::read(&self.policy).expect("policy"),
            self.policy_before
        );
        assert!(
            !self.listener.was_reached(),
            "Monitor or WebFetch reached the listener"
        );
        assert!(!self.hook_marker.exists(), "the planted hook ran");
        let results = tool_results(&self.mock);
        let uses = self.uses.as_array().expect("uses");
        assert_eq!(results.len(), uses.len(), "{results:?}");
        for (i, u) in uses.iter().enumerate() {
            // `toolu_mock_N_I`: N counts the server's answers, I the call.
            let (text, is_error) = results
                .iter()
                .find(|(id, _)| id.ends_with(&format!("_{i}")))
                .map(|(_, r)| r)
                .unwrap_or_else(|| panic!("no result for call {i}: {results:?}"));
            if u["name"] == "Bash" {
                assert!(!is_error && text.trim() == "via-bash", "{text}");
            } else {
                assert!(*is_error, "{}: {text}", u["name"]);
            }
        }
        assert_eq!(
            sessions_with_line(records, "echo via-bash").len(),
            1,
            "{records:?}"
        );
    }

    /// `guard-sh-audit --transcript` names the five calls outside the
    /// channel, and nothing else.
    pub fn assert_the_transcript_names_each_attempt(&self, arm: &Arm, transcript: &Path) {
        let (status, report) = cross_check(arm, transcript);
        assert_eq!(status, 1, "{report}");
        let mut outside: Vec<String> = findings(&report, "tool-outside-channel")
            .iter()
            .map(|m| m.split('`').nth(1).unwrap_or_default().to_string())
            .collect();
        outside.sort();
        assert_eq!(
            outside,
            ["Agent", "Monitor", "Read", "WebFetch", "Write"],
            "{report}"
        );
        assert!(
            findings(&report, "call-not-recorded").is_empty(),
            "{report}"
        );
        assert!(
            findings(&report, "record-without-call").is_empty(),
            "{report}"
        );
    }
}
