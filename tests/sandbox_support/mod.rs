//! Shared fixtures of the sandbox suites: a throw-away arm layout, tool stubs,
//! confined spawning, and `strace` as the independent oracle of what the
//! kernel let run.
#![allow(dead_code, clippy::expect_used)] // test helpers report failures by panicking

use guard_sh::policy::{CommandKind, CommandRule, EnvPolicy, Policy, SandboxMode, SandboxPolicy};
use guard_sh::sandbox::landlock::Confinement;
use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub const STRACE: &str = "/usr/bin/strace";

/// A temp folder laid out like a built arm: `work/` (writable),
/// `arm/policy.json`, `arm/bin/`, `arm/audit.log` (protected), `tools/`
/// (stubs), `outside/` (neither).
pub struct Arm {
    pub dir: tempfile::TempDir,
}

impl Arm {
    pub fn new() -> Arm {
        let dir = tempfile::tempdir().expect("temp dir");
        for sub in ["work", "arm/bin", "tools", "outside"] {
            std::fs::create_dir_all(dir.path().join(sub)).expect("create layout");
        }
        std::fs::write(dir.path().join("arm/policy.json"), b"{\"original\":true}\n")
            .expect("write policy");
        std::fs::write(dir.path().join("arm/audit.log"), b"").expect("write audit log");
        Arm { dir }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// An executable script `tools/NAME` with `body` (its first line is the `#!`).
    pub fn stub(&self, name: &str, body: &str) -> PathBuf {
        crate::common::write_stub(&self.path("tools"), name, body)
    }

    /// A best-effort policy: writable `work/`, protected policy, bin folder
    /// and audit log, with `commands`.
    pub fn policy(&self, commands: BTreeMap<String, CommandRule>) -> Policy {
        Policy {
            format: guard_sh::policy::model::POLICY_FORMAT,
            arm: "sandbox-test".into(),
            shell: true,
            tool: None,
            bin_dir: self.path("arm/bin"),
            commands,
            env: EnvPolicy {
                pass: vec![],
                set: BTreeMap::new(),
                deny: vec![],
            },
            sandbox: SandboxPolicy {
                mode: SandboxMode::BestEffort,
                writable: vec![self.path("work")],
                protected: vec![
                    self.path("arm/policy.json"),
                    self.path("arm/bin"),
                    self.path("arm/audit.log"),
                ],
                unreadable: vec![self.path("arm/audit.log")],
                // guard-sh resolves it, as for a policy written by hand.
                execute: None,
            },
            audit: Default::default(),
            bounds: Default::default(),
        }
    }
}

/// A tool rule for `path` with the given helpers, ports and extra folders.
pub fn rule(
    path: &Path,
    exec_allow: &[&str],
    connect_ports: &[u16],
    writable: &[PathBuf],
) -> CommandRule {
    CommandRule {
        kind: CommandKind::Tool,
        path: path.to_path_buf(),
        deny: vec![],
        exec_allow: exec_allow.iter().map(PathBuf::from).collect(),
        path_env: vec![PathBuf::from("/usr/bin")],
        env: BTreeMap::new(),
        connect_ports: connect_ports.to_vec(),
        connect_hosts: Vec::new(),
        writable: writable.to_vec(),
    }
}

/// Prepare the confinement of `exe` under `rule` of `policy`, with `work/` as cwd.
pub fn confine(arm: &Arm, policy: &Policy, rule: &CommandRule, exe: &Path) -> Confinement {
    Confinement::for_command(policy, rule, exe, &arm.path("work")).expect("prepare confinement")
}

/// Run `program args` inside `confinement` (entered between fork and exec).
pub fn run_confined(
    confinement: &Confinement,
    cwd: &Path,
    program: &Path,
    args: &[&str],
) -> Output {
    let mut cmd = Command::new(program);
    cmd.args(args).current_dir(cwd).env("PATH", "/usr/bin");
    let confinement = confinement.clone();
    // SAFETY: `enforce` makes only system calls (no allocation, no locks).
    unsafe {
        cmd.pre_exec(move || confinement.enforce().map_err(|e| e.into_io()));
    }
    // A stub written by a parallel test can be "text file busy" for a
    // moment (a sibling's fork still holds the write descriptor until it
    // execs); only that error is retried.
    for _ in 0..20 {
        match cmd.output() {
            Err(e) if e.raw_os_error() == Some(libc::ETXTBSY) => {
                std::thread::sleep(std::time::Duration::from_millis(20))
            }
            other => return other.expect("spawn confined program"),
        }
    }
    cmd.output().expect("spawn confined program")
}

/// Run `program args` under `strace -f -e trace=execve,connect`, the tracer
/// itself inside `confinement` (so the rule under test must list
/// [`STRACE`] in `exec_allow`, and `cwd` must be writable: the trace is
/// written there). Returns the output and the trace.
pub fn run_traced(
    confinement: &Confinement,
    cwd: &Path,
    program: &Path,
    args: &[&str],
) -> (Output, String) {
    let trace_file = cwd.join("strace.out");
    let trace_path = trace_file.to_string_lossy().into_owned();
    let program = program.to_string_lossy().into_owned();
    let mut strace_args = vec![
        "-f",
        "-qq",
        "-e",
        "trace=execve,connect",
        "-o",
        &trace_path,
        &program,
    ];
    strace_args.extend_from_slice(args);
    let out = run_confined(confinement, cwd, Path::new(STRACE), &strace_args);
    let trace = std::fs::read_to_string(&trace_file).expect("read trace");
    (out, trace)
}

/// The `execve` lines of `trace` whose target is `path`.
pub fn execve_lines(trace: &str, path: &str) -> Vec<String> {
    let needle = format!("execve(\"{path}\"");
    join_resumed(trace)
        .lines()
        .filter(|l| l.contains(&needle))
        .map(str::to_string)
        .collect()
}

/// True when `trace` shows a successful `execve` of `path`.
pub fn executed(trace: &str, path: &str) -> bool {
    execve_lines(trace, path)
        .iter()
        .any(|l| l.trim_end().ends_with("= 0"))
}

/// True when `trace` shows an `execve` of `path` refused with `EACCES`.
pub fn refused_with_eacces(trace: &str, path: &str) -> bool {
    execve_lines(trace, path)
        .iter()
        .any(|l| l.contains("= -1 EACCES"))
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// One tool in a map of commands, keyed `tool`.
pub fn commands(rule: &CommandRule) -> BTreeMap<String, CommandRule> {
    BTreeMap::from([("tool".to_string(), rule.clone())])
}

/// Link each command into `arm/bin` and write `policy` as `arm/policy.json`
/// (replacing the placeholder). Returns the policy file's bytes.
pub fn install(arm: &Arm, policy: &Policy) -> Vec<u8> {
    for (name, rule) in &policy.commands {
        std::os::unix::fs::symlink(&rule.path, policy.bin_dir.join(name)).expect("bin link");
    }
    let bytes = serde_json::to_vec_pretty(policy).expect("policy json");
    std::fs::write(arm.path("arm/policy.json"), &bytes).expect("write policy");
    bytes
}

/// A harmless-utility rule for the system program `path` (no helpers, no
/// ports, no folders, no argument rules).
pub fn utility(path: &str) -> CommandRule {
    CommandRule {
        kind: CommandKind::Utility,
        path_env: vec![],
        ..rule(Path::new(path), &[], &[], &[])
    }
}

/// An `strace -f` trace with each call that another process interrupted
/// (`PID call(… <unfinished ...>` … `PID <... call resumed>…) = R`) joined
/// back into one line, so a call's name, arguments and result can be read
/// from a single line (the resumed half alone names no path).
pub fn join_resumed(trace: &str) -> String {
    let mut pending: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    let mut out = String::new();
    for line in trace.lines() {
        let pid = line.split_whitespace().next().unwrap_or("").to_string();
        if let Some(head) = line.strip_suffix(" <unfinished ...>") {
            pending.insert(pid, head.to_string());
            continue;
        }
        if let Some(at) = line.find(" resumed>") {
            if let Some(head) = pending.remove(&pid) {
                out.push_str(&head);
                out.push_str(&line[at + " resumed>".len()..]);
                out.push('\n');
                continue;
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    for head in pending.into_values() {
        out.push_str(&head);
        out.push('\n');
    }
    out
}

/// `guard-sh -c LINE` in the `work/` folder of an arm `arm-build` built,
/// with only its policy in the environment; Landlock off unless `landlock`.
pub fn run_in_built_arm(arm: &Path, line: &str, landlock: bool) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_guard-sh"));
    c.args(["-c", line])
        .env_clear()
        .env("GUARD_SH_POLICY", arm.join("policy.json"))
        .current_dir(arm.join("work"));
    if !landlock {
        c.env("GUARD_SH_LANDLOCK", "off");
    }
    c.output().expect("run guard-sh")
}

/// The `denied` records of the audit log at `log`, in order.
pub fn denials(log: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|r| r["type"] == "denied")
        .collect()
}
