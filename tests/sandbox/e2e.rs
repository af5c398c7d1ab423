//! Kernel confinement end to end, through the guard-sh binary: the test
//! policies are deliberately permissive (no argument rules), so only the
//! Landlock domains stand between the agent and a foreign program. `strace
//! -f`, run outside guard-sh, is the oracle of what the kernel executed; a
//! loopback listener the test owns is the oracle of what was connected to.
//!
//! Every scenario runs twice: with Landlock, and with
//! `GUARD_SH_LANDLOCK=off` (a machine without it). Both runs assert the
//! enforcement level every audit session record states, and the run without
//! Landlock asserts that what the kernel stopped now happens, so each
//! scenario shows it can fail.

#![allow(clippy::expect_used)] // test code reports failures by panicking

use crate::sandbox_support;

use guard_sh::audit::verify::{VerifyOptions, verify_logs};
use guard_sh::policy::sha256_hex as policy_sha256;
use guard_sh::policy::{CommandRule, Policy, SandboxMode};
use guard_sh::sandbox::landlock::{Enforcement, probe};
use sandbox_support::*;
use std::collections::BTreeMap;
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const GUARD_SH: &str = env!("CARGO_BIN_EXE_guard-sh");

/// The warning a best-effort session prints once without Landlock.
const NO_LANDLOCK_WARNING: &str = "Landlock is not available";

/// Whether guard-sh runs on this machine's Landlock or as if it had none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kernel {
    /// Landlock alone (the exec supervisor off).
    Landlock,
    /// Neither: what the guard alone does.
    Off,
    /// The exec supervisor alone (Landlock off): it checks every `execve`
    /// of a command's tree, and nothing else.
    Supervisor,
}

impl Kernel {
    fn env(self) -> Vec<(&'static str, &'static str)> {
        match self {
            Kernel::Landlock => vec![("GUARD_SH_SUPERVISOR", "off")],
            Kernel::Off => vec![("GUARD_SH_LANDLOCK", "off"), ("GUARD_SH_SUPERVISOR", "off")],
            Kernel::Supervisor => vec![("GUARD_SH_LANDLOCK", "off")],
        }
    }

    /// The enforcement level the audit session records must state.
    fn enforcement(self) -> String {
        match self {
            Kernel::Landlock => {
                let found = probe();
                assert_ne!(found, Enforcement::None, "these tests need Landlock");
                found.to_string()
            }
            Kernel::Off | Kernel::Supervisor => "none".to_string(),
        }
    }

    /// Landlock is on.
    fn confines(self) -> bool {
        self == Kernel::Landlock
    }

    /// Something below the guard refuses an `execve` outside the plan.
    fn confines_exec(self) -> bool {
        self != Kernel::Off
    }
}

/// `scenario(Kernel)` as two tests: `scenario::with_landlock` and
/// `scenario::without_landlock`.
macro_rules! with_and_without_landlock {
    ($($scenario:ident),* $(,)?) => {$(
        mod $scenario {
            #[test]
            fn with_landlock() {
                super::$scenario(super::Kernel::Landlock)
            }
            #[test]
            fn without_landlock() {
                super::$scenario(super::Kernel::Off)
            }
        }
    )*};
}

/// `scenario(Kernel::Supervisor)` as `scenario_under_the_supervisor`.
macro_rules! under_the_supervisor_alone {
    ($($scenario:ident => $test:ident),* $(,)?) => {$(
        #[test]
        fn $test() {
            $scenario(Kernel::Supervisor)
        }
    )*};
}

under_the_supervisor_alone!(
    sort_compress_program_is_not_executed => sort_compress_program_is_not_executed_under_the_supervisor,
    tool_stub_that_execs_curl_is_refused_by_the_kernel => tool_stub_that_execs_curl_is_refused_under_the_supervisor,
    shebang_script_tool_runs_its_chain_but_cannot_exec_a_foreign_binary => shebang_script_tool_cannot_exec_a_foreign_binary_under_the_supervisor,
);

with_and_without_landlock!(
    sort_compress_program_is_not_executed,
    tool_stub_that_execs_curl_is_refused_by_the_kernel,
    shebang_script_tool_runs_its_chain_but_cannot_exec_a_foreign_binary,
    tool_stub_cannot_write_outside_its_roots,
    tool_stub_cannot_connect_to_a_loopback_port_it_may_not_reach,
    guard_sh_own_redirection_outside_the_roots_is_refused_by_the_kernel,
    policy_that_forgot_its_protected_files_is_still_held_by_the_kernel,
    agent_cannot_write_policy_bin_folder_or_audit_log_and_next_session_loads_the_original,
    subshells_pipelines_process_substitution_cd_and_here_docs_work_confined,
    interactive_session_in_a_terminal_works_confined,
);

/// A test arm whose tool is `tool_body` (a script) that may connect to
/// `ports`, plus `sort`, `tee`, `mkdir`, `cat`.
fn arm_with(tool_body: &str, ports: &[u16]) -> (Arm, Policy, Vec<u8>) {
    arm_edited(tool_body, ports, |_| {})
}

fn arm_with_tool(tool_body: &str) -> (Arm, Policy, Vec<u8>) {
    arm_with(tool_body, &[])
}

/// As [`arm_with`], with `edit` applied to the policy before it is written.
fn arm_edited(
    tool_body: &str,
    ports: &[u16],
    edit: impl FnOnce(&mut Policy),
) -> (Arm, Policy, Vec<u8>) {
    let arm = Arm::new();
    let stub = arm.stub("tool", tool_body);
    let mut commands: BTreeMap<String, CommandRule> =
        BTreeMap::from([("tool".to_string(), rule(&stub, &[], ports, &[]))]);
    for name in ["sort", "tee", "mkdir", "cat"] {
        commands.insert(name.into(), utility(&format!("/usr/bin/{name}")));
    }
    let mut policy = arm.policy(commands);
    policy.tool = Some("tool".into());
    policy.env.pass = vec!["HOME".into(), "LC_ALL".into()];
    policy.audit.path = Some(arm.path("arm/audit.log"));
    edit(&mut policy);
    let bytes = install(&arm, &policy);
    (arm, policy, bytes)
}

/// The environment guard-sh gets: the test arm's policy and audit log.
fn guard_env(arm: &Arm) -> Vec<(&'static str, std::ffi::OsString)> {
    vec![
        ("HOME", arm.path("work").into()),
        ("LC_ALL", "C".into()),
        ("GUARD_SH_POLICY", arm.path("arm/policy.json").into()),
        ("GUARD_SH_AUDIT", arm.path("arm/audit.log").into()),
    ]
}

/// `program` with a clean environment plus guard-sh's, in `work/`.
fn command(arm: &Arm, program: &str, kernel: Kernel) -> Command {
    let mut c = Command::new(program);
    c.env_clear()
        .envs(guard_env(arm))
        .envs(kernel.env())
        .current_dir(arm.path("work"))
        .stdin(Stdio::null());
    c
}

fn guard(arm: &Arm, kernel: Kernel) -> Command {
    command(arm, GUARD_SH, kernel)
}

fn run(arm: &Arm, line: &str, kernel: Kernel) -> Output {
    guard(arm, kernel)
        .args(["-c", line])
        .output()
        .expect("run guard-sh")
}

/// guard-sh -c LINE under `strace -f -e trace=execve` (strace unconfined).
fn run_traced_guard(arm: &Arm, line: &str, kernel: Kernel) -> (Output, String) {
    let trace = arm.path("strace.out");
    let out = command(arm, STRACE, kernel)
        .args(["-f", "-qq", "-e", "trace=execve", "-o"])
        .arg(&trace)
        .args([GUARD_SH, "-c", line])
        .output()
        .expect("run strace guard-sh");
    let text = std::fs::read_to_string(&trace).expect("read trace");
    (out, text)
}

/// Every session record in the arm's audit log states `kernel`'s
/// enforcement level, the log verifies without a chain break, and `out`
/// carries the no-Landlock warning exactly when Landlock is off.
fn assert_session(arm: &Arm, kernel: Kernel, out: &Output) {
    assert_enforcement(arm, kernel, out);
    let report = verify_logs(
        &[arm.path("arm/audit.log")],
        VerifyOptions {
            allow_empty: true,
            ..VerifyOptions::default()
        },
    );
    assert!(
        report.findings.iter().all(|f| f.kind.exit_code() != 3),
        "the log must stay intact: {:#?}",
        report.findings
    );
}

/// As [`assert_session`], without verifying the log (for a run that wrote
/// into it on purpose).
fn assert_enforcement(arm: &Arm, kernel: Kernel, out: &Output) {
    let text = std::fs::read_to_string(arm.path("arm/audit.log")).expect("audit log");
    let levels: Vec<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|r| r["type"] == "session")
        .map(|r| r["enforcement"].as_str().unwrap_or("?").to_string())
        .collect();
    assert!(!levels.is_empty(), "no session record:\n{text}");
    let expected = kernel.enforcement();
    assert!(
        levels.iter().all(|l| *l == expected),
        "enforcement {levels:?}, expected {expected}"
    );
    let warnings = stderr(out).matches(NO_LANDLOCK_WARNING).count();
    let expected_warnings = usize::from(!kernel.confines());
    assert_eq!(warnings, expected_warnings, "stderr: {}", stderr(out));
}

fn sort_compress_program_is_not_executed(kernel: Kernel) {
    let (arm, _, _) = arm_with_tool("#!/bin/sh\ntrue\n");
    let lines: String = (0..20000)
        .map(|i| format!("{}\n", (i * 7919) % 20000))
        .collect();
    std::fs::write(arm.path("work/input"), lines).expect("input");
    let (out, trace) = run_traced_guard(
        &arm,
        "sort -n -S 4k -T . --compress-program=/usr/bin/gzip input > sorted; echo \"sort=$?\"; echo next",
        kernel,
    );

    assert_session(&arm, kernel, &out);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert!(
        executed(&trace, &arm.path("arm/bin/sort").to_string_lossy()),
        "sort itself ran:\n{trace}"
    );
    let sorted = std::fs::read_to_string(arm.path("work/sorted")).unwrap_or_default();
    if kernel.confines_exec() {
        // sort either reports the failed compressor (2) or dies writing
        // to it (SIGPIPE, 128+13), depending on timing; both are the
        // kernel's refusal surfacing normally.
        let status_line = stdout(&out);
        assert!(
            status_line == "sort=2\nnext\n" || status_line == "sort=141\nnext\n",
            "{status_line:?} stderr: {}",
            stderr(&out)
        );
        assert!(refused_with_eacces(&trace, "/usr/bin/gzip"), "{trace}");
        assert!(!executed(&trace, "/usr/bin/gzip"), "{trace}");
    } else {
        assert_eq!(stdout(&out), "sort=0\nnext\n", "stderr: {}", stderr(&out));
        assert!(executed(&trace, "/usr/bin/gzip"), "{trace}");
        assert!(
            sorted.starts_with("0\n1\n2\n"),
            "sorted: {:?}",
            &sorted[..20.min(sorted.len())]
        );
    }
}

fn tool_stub_that_execs_curl_is_refused_by_the_kernel(kernel: Kernel) {
    let (arm, _, _) = arm_with_tool("#!/bin/sh\nexec /usr/bin/curl --version\n");
    let (out, trace) =
        run_traced_guard(&arm, "tool > version; echo \"tool=$?\"; echo next", kernel);

    assert_session(&arm, kernel, &out);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    if kernel.confines_exec() {
        assert_eq!(stdout(&out), "tool=126\nnext\n", "stderr: {}", stderr(&out));
        assert!(
            stderr(&out).contains("Permission denied"),
            "{}",
            stderr(&out)
        );
        assert!(refused_with_eacces(&trace, "/usr/bin/curl"), "{trace}");
        assert!(!executed(&trace, "/usr/bin/curl"), "{trace}");
    } else {
        assert_eq!(stdout(&out), "tool=0\nnext\n", "stderr: {}", stderr(&out));
        assert!(executed(&trace, "/usr/bin/curl"), "{trace}");
        let version = std::fs::read_to_string(arm.path("work/version")).expect("version");
        assert!(version.starts_with("curl "), "{version}");
    }
}

fn shebang_script_tool_runs_its_chain_but_cannot_exec_a_foreign_binary(kernel: Kernel) {
    let (arm, _, _) = arm_with_tool(
        "#!/usr/bin/env python3\n\
         import os, sys\n\
         print('chain-ran', flush=True)\n\
         if sys.argv[1:] == ['escape']:\n\
         \x20   try:\n\
         \x20       os.execv('/usr/bin/curl', ['curl', '--version'])\n\
         \x20   except OSError as e:\n\
         \x20       print('exec-refused', e.errno, flush=True)\n\
         \x20       sys.exit(3)\n",
    );
    let (out, trace) = run_traced_guard(
        &arm,
        "tool; echo \"plain=$?\"; tool escape > escape.out; echo \"escape=$?\"; echo next",
        kernel,
    );

    assert_session(&arm, kernel, &out);
    let tool = arm.path("arm/bin/tool").to_string_lossy().into_owned();
    assert!(executed(&trace, &tool), "{trace}");
    assert!(
        executed(&trace, "/usr/bin/python3"),
        "env ran python3:\n{trace}"
    );
    let escape = std::fs::read_to_string(arm.path("work/escape.out")).expect("escape.out");
    if kernel.confines_exec() {
        assert_eq!(
            stdout(&out),
            "chain-ran\nplain=0\nescape=3\nnext\n",
            "stderr: {}",
            stderr(&out)
        );
        assert_eq!(escape, "chain-ran\nexec-refused 13\n");
        assert!(refused_with_eacces(&trace, "/usr/bin/curl"), "{trace}");
        assert!(!executed(&trace, "/usr/bin/curl"), "{trace}");
    } else {
        assert_eq!(
            stdout(&out),
            "chain-ran\nplain=0\nescape=0\nnext\n",
            "stderr: {}",
            stderr(&out)
        );
        assert!(escape.contains("\ncurl "), "{escape}");
        assert!(executed(&trace, "/usr/bin/curl"), "{trace}");
    }
}

fn tool_stub_cannot_write_outside_its_roots(kernel: Kernel) {
    let (arm, _, _) = arm_with_tool(
        "#!/bin/sh\necho leaked > \"$1\"; echo \"outside=$?\"; echo kept > inside.txt; echo \"inside=$?\"\n",
    );
    let target = arm.path("outside/escape.txt");
    let line = format!("tool '{}'; echo \"tool=$?\"; echo next", target.display());
    let (out, _) = run_traced_guard(&arm, &line, kernel);

    assert_session(&arm, kernel, &out);
    assert_eq!(
        std::fs::read_to_string(arm.path("work/inside.txt"))
            .ok()
            .as_deref(),
        Some("kept\n"),
        "writing inside the roots works"
    );
    if kernel.confines() {
        assert_eq!(
            stdout(&out),
            "outside=2\ninside=0\ntool=0\nnext\n",
            "stderr: {}",
            stderr(&out)
        );
        assert!(
            stderr(&out).contains("Permission denied"),
            "{}",
            stderr(&out)
        );
        assert!(!target.exists(), "nothing written outside");
    } else {
        assert_eq!(
            stdout(&out),
            "outside=0\ninside=0\ntool=0\nnext\n",
            "stderr: {}",
            stderr(&out)
        );
        assert_eq!(
            std::fs::read_to_string(&target).ok().as_deref(),
            Some("leaked\n")
        );
    }
}

fn listener() -> (TcpListener, u16) {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    l.set_nonblocking(true).expect("nonblocking");
    let port = l.local_addr().expect("addr").port();
    (l, port)
}

/// How many connections `l` has waiting (polled for up to 200 ms, after the
/// client has exited, so a refused connect shows as none).
fn connections(l: &TcpListener) -> usize {
    let deadline = Instant::now() + Duration::from_millis(200);
    let mut seen = 0;
    while Instant::now() < deadline {
        match l.accept() {
            Ok(_) => seen += 1,
            Err(_) => std::thread::sleep(Duration::from_millis(10)),
        }
    }
    seen
}

fn tool_stub_cannot_connect_to_a_loopback_port_it_may_not_reach(kernel: Kernel) {
    let (allowed, allowed_port) = listener();
    let (forbidden, forbidden_port) = listener();
    let (arm, _, _) = arm_with(
        "#!/bin/bash\nif exec 3<>/dev/tcp/127.0.0.1/$1; then echo connected; else echo refused; fi\n",
        &[allowed_port],
    );
    let line =
        format!("tool {forbidden_port}; echo \"forbidden=$?\"; tool {allowed_port}; echo next");
    let (out, _) = run_traced_guard(&arm, &line, kernel);

    assert_session(&arm, kernel, &out);
    assert_eq!(connections(&allowed), 1, "the allowed port is reached");
    if kernel.confines() {
        assert_eq!(
            stdout(&out),
            "refused\nforbidden=0\nconnected\nnext\n",
            "stderr: {}",
            stderr(&out)
        );
        assert!(
            stderr(&out).contains("Permission denied"),
            "{}",
            stderr(&out)
        );
        assert_eq!(connections(&forbidden), 0, "the listener saw no connection");
    } else {
        assert_eq!(
            stdout(&out),
            "connected\nforbidden=0\nconnected\nnext\n",
            "stderr: {}",
            stderr(&out)
        );
        assert_eq!(connections(&forbidden), 1);
    }
}

fn guard_sh_own_redirection_outside_the_roots_is_refused_by_the_kernel(kernel: Kernel) {
    let (arm, _, _) = arm_with_tool("#!/bin/sh\ntrue\n");
    // A link inside the working folder: the guard resolves it, finds a path
    // it does not protect, and opens it; only the kernel knows `outside/`
    // is not a writable root.
    let linked = arm.path("outside/linked.txt");
    std::os::unix::fs::symlink(&linked, arm.path("work/link")).expect("symlink");
    let direct = arm.path("outside/direct.txt");
    let line = format!(
        "echo x > link; echo \"link=$?\"; echo y >> '{}'; echo \"direct=$?\"; \
         exec 4> ../outside/fd.txt; echo \"exec=$?\"; echo inside > ok.txt; echo next",
        direct.display()
    );
    let (out, _) = run_traced_guard(&arm, &line, kernel);

    assert_session(&arm, kernel, &out);
    assert_eq!(
        std::fs::read_to_string(arm.path("work/ok.txt"))
            .ok()
            .as_deref(),
        Some("inside\n")
    );
    if kernel.confines() {
        assert_eq!(
            stdout(&out),
            "link=1\ndirect=1\nexec=1\nnext\n",
            "stderr: {}",
            stderr(&out)
        );
        assert_eq!(
            stderr(&out).matches("Permission denied").count(),
            3,
            "{}",
            stderr(&out)
        );
        for file in [&linked, &direct, &arm.path("outside/fd.txt")] {
            assert!(!file.exists(), "{} was created", file.display());
        }
    } else {
        assert_eq!(
            stdout(&out),
            "link=0\ndirect=0\nexec=0\nnext\n",
            "stderr: {}",
            stderr(&out)
        );
        assert_eq!(
            std::fs::read_to_string(&linked).ok().as_deref(),
            Some("x\n")
        );
        assert!(direct.exists() && arm.path("outside/fd.txt").exists());
    }
}

fn policy_that_forgot_its_protected_files_is_still_held_by_the_kernel(kernel: Kernel) {
    // The policy names nothing as protected, so the static and dynamic
    // path checks let every write through; the writable roots still hold.
    let (arm, _, bytes) = arm_edited("#!/bin/sh\ntrue\n", &[], |p| p.sandbox.protected.clear());
    let line = "echo '{}' > ../arm/policy.json; echo \"redirect=$?\"; \
                echo x | tee -a ../arm/audit.log > /dev/null; echo \"tee=$?\"; \
                mkdir ../arm/bin/evil; echo \"mkdir=$?\"; echo next";
    let (out, _) = run_traced_guard(&arm, line, kernel);

    let policy_now = std::fs::read(arm.path("arm/policy.json")).expect("policy");
    let evil = arm.path("arm/bin/evil");
    if kernel.confines() {
        assert_session(&arm, kernel, &out);
        assert_eq!(
            stdout(&out),
            "redirect=1\ntee=1\nmkdir=1\nnext\n",
            "stderr: {}",
            stderr(&out)
        );
        assert_eq!(policy_now, bytes, "the policy is unchanged");
        assert!(!evil.exists());
    } else {
        assert_eq!(
            stdout(&out),
            "redirect=0\ntee=0\nmkdir=0\nnext\n",
            "stderr: {}",
            stderr(&out)
        );
        assert_eq!(
            policy_now, b"{}\n",
            "the unconfined shell overwrote its policy"
        );
        assert!(evil.is_dir());
        let log = std::fs::read_to_string(arm.path("arm/audit.log")).expect("log");
        assert!(
            log.lines().any(|l| l == "x"),
            "tee appended to the audit log"
        );
        assert_enforcement(&arm, kernel, &out);
    }
}

fn agent_cannot_write_policy_bin_folder_or_audit_log_and_next_session_loads_the_original(
    kernel: Kernel,
) {
    let (arm, _, bytes) = arm_with_tool("#!/bin/sh\necho ran\n");
    let pin = policy_sha256(&bytes);
    let (p, b, a) = (
        arm.path("arm/policy.json"),
        arm.path("arm/bin"),
        arm.path("arm/audit.log"),
    );
    let attempts = [
        format!("echo '{{}}' > {}", p.display()),
        format!("echo '{{}}' >| {}", p.display()),
        format!("echo x >> {}", a.display()),
        // `>&FILE` and `1>&FILE` are `&>FILE`: a write target like `>`,
        // written out or known only when the line runs.
        format!("echo '{{}}' >& {}", p.display()),
        format!("echo '{{}}' 1>&{}", p.display()),
        format!("f={}; echo '{{}}' >&$f", p.display()),
        format!("echo x >& {}", a.display()),
        "echo '{}' >&../arm/policy.json".to_string(),
        format!("echo '{{}}' | tee {}", p.display()),
        format!("echo x | tee -a {}", a.display()),
        format!("mkdir {}/evil", b.display()),
        format!("cd {} && echo x > curl", b.display()),
        "echo '{}' > ../arm/policy.json".to_string(),
        "cd ../arm && mkdir bin/evil".to_string(),
    ];
    for line in &attempts {
        let out = run(&arm, line, kernel);
        assert_ne!(
            out.status.code(),
            Some(0),
            "{line}: must fail; stderr: {}",
            stderr(&out)
        );
    }
    // A glob cannot name the policy: the shell lists no folder the
    // commands may not read, so the pattern stays as written (without
    // Landlock tee writes a file of that name beside it; the policy is
    // judged below).
    let out = run(&arm, "echo '{}' | tee ../arm/pol*.json", kernel);
    assert_eq!(stdout(&out), "{}\n", "stderr: {}", stderr(&out));
    if kernel == Kernel::Landlock {
        assert_ne!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    }

    assert_eq!(
        std::fs::read(&p).expect("policy"),
        bytes,
        "the policy is unchanged"
    );
    assert_eq!(
        std::fs::read_dir(&b).expect("bin").count(),
        5,
        "nothing added to the bin folder"
    );
    let audit = std::fs::read_to_string(&a).expect("audit");
    assert!(
        audit.lines().all(|l| l.starts_with('{')),
        "only guard-sh's records in the audit log:\n{audit}"
    );
    let next = guard(&arm, kernel)
        .env("GUARD_SH_POLICY_SHA256", &pin)
        .args(["-c", "tool"])
        .output()
        .expect("guard-sh");
    assert_eq!(stdout(&next), "ran\n", "stderr: {}", stderr(&next));
    assert_session(&arm, kernel, &next);
}

/// Shell constructs that fork copies of guard-sh, open files or hand data
/// through descriptors, each printing one line.
const CONSTRUCTS: &str = r#"echo "sub=$(echo inner)"
( echo paren > paren.txt ); cat paren.txt
echo abc | tr a-z A-Z | cat
cat <(echo procsub)
tee >(cat > teed.txt) < /dev/null; sleep 0.1; echo "teed=$(cat teed.txt | wc -c)"
mkdir -p d/e && cd d/e && pwd > ../../cwd.txt && cd ../.. && cat cwd.txt | tr / '\n' | tail -n 2 | tr '\n' ' '; echo
cat <<EOF
heredoc $(echo expanded)
EOF
big=$(seq 1 30000); cat <<EOF | wc -l
$big
EOF
exec 3> fd3.txt; echo three >&3; exec 3>&-; cat fd3.txt
{ echo bg > bg.txt; } & wait; cat bg.txt
f() { echo "func $1"; }; f arg | cat
echo "end"
"#;

const CONSTRUCTS_OUT: &str = "sub=inner\nparen\nABC\nprocsub\nteed=0\nd e \nheredoc expanded\n30000\nthree\nbg\nfunc arg\nend\n";

fn subshells_pipelines_process_substitution_cd_and_here_docs_work_confined(kernel: Kernel) {
    let (arm, _, _) = arm_with_tool("#!/bin/sh\ntrue\n");
    let mut commands = BTreeMap::new();
    for name in ["tr", "wc", "tail", "seq", "sleep"] {
        commands.insert(name.to_string(), utility(&format!("/usr/bin/{name}")));
    }
    // Add the extra utilities to the installed policy.
    let mut policy: Policy =
        serde_json::from_slice(&std::fs::read(arm.path("arm/policy.json")).expect("policy"))
            .expect("parse policy");
    for (name, rule) in commands {
        std::os::unix::fs::symlink(&rule.path, policy.bin_dir.join(&name)).expect("bin link");
        policy.commands.insert(name, rule);
    }
    std::fs::write(
        arm.path("arm/policy.json"),
        serde_json::to_vec_pretty(&policy).expect("json"),
    )
    .expect("write policy");
    let script = arm.path("work/constructs.sh");
    std::fs::write(&script, CONSTRUCTS).expect("script");
    let out = guard(&arm, kernel).arg(&script).output().expect("guard-sh");

    assert_eq!(stdout(&out), CONSTRUCTS_OUT, "stderr: {}", stderr(&out));
    assert_eq!(out.status.code(), Some(0));
    assert_session(&arm, kernel, &out);
    let log = std::fs::read_to_string(arm.path("arm/audit.log")).expect("log");
    let subshells = log
        .lines()
        .filter(|l| l.contains("\"mode\":\"subshell\""))
        .count();
    assert!(
        subshells >= 5,
        "forked copies recorded sessions of their own:\n{log}"
    );
}

fn interactive_session_in_a_terminal_works_confined(kernel: Kernel) {
    use portable_pty::{CommandBuilder, PtySize, native_pty_system};
    use std::io::{Read, Write};
    use std::sync::mpsc;

    let (arm, _, _) = arm_with_tool("#!/bin/sh\necho tool-ran\n");
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 24,
            cols: 120,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("pty");
    let mut cmd = CommandBuilder::new(GUARD_SH);
    cmd.env_clear();
    for (k, v) in guard_env(&arm).into_iter().chain(
        kernel
            .env()
            .into_iter()
            .map(|(k, v)| (k, std::ffi::OsString::from(v))),
    ) {
        cmd.env(k, v);
    }
    cmd.env("PS1", "PROMPT> ");
    cmd.env("TERM", "dumb");
    cmd.cwd(arm.path("work"));
    let mut child = pair.slave.spawn_command(cmd).expect("spawn");
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().expect("reader");
    let mut writer = pair.master.take_writer().expect("writer");
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let mut seen = String::new();
    let mut expect = |needle: &str| -> bool {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(at) = seen.find(needle) {
                seen.drain(..at + needle.len());
                return true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(chunk) => seen.push_str(&String::from_utf8_lossy(&chunk)),
                Err(_) => return false,
            }
        }
    };
    assert!(expect("PROMPT> "), "no first prompt");
    let mut send = |line: &str| {
        writer.write_all(line.as_bytes()).expect("type");
        writer.flush().expect("flush");
    };
    send("echo \"got $(tool)\" | cat > out.txt; cat out.txt\n");
    assert!(expect("got tool-ran\r\n"), "substitution and pipeline ran");
    assert!(expect("PROMPT> "));
    send("echo x > ../outside/tty.txt; echo \"status=$?\"\n");
    let refused = if kernel.confines() {
        "status=1"
    } else {
        "status=0"
    };
    assert!(expect(refused), "expected {refused}");
    assert!(expect("PROMPT> "), "the shell goes on");
    send("exit 7\n");
    let status = child.wait().expect("wait");
    assert_eq!(status.exit_code(), 7);
    assert_eq!(arm.path("outside/tty.txt").exists(), !kernel.confines());
    let log = arm.path("arm/audit.log");
    let text = std::fs::read_to_string(&log).expect("log");
    let expected = format!("\"enforcement\":\"{}\"", kernel.enforcement());
    assert!(text.contains(&expected), "{text}");
    assert!(text.contains("\"mode\":\"interactive\""), "{text}");
}

#[test]
fn required_sandbox_refuses_to_run_without_landlock_and_runs_with_it() {
    let (arm, _, _) = arm_edited("#!/bin/sh\necho ran\n", &[], |p| {
        p.sandbox.mode = SandboxMode::Required;
    });
    let out = run(&arm, "tool", Kernel::Off);

    assert_eq!(out.status.code(), Some(126), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "", "nothing ran");
    assert!(
        stderr(&out).contains("requires the Landlock sandbox"),
        "{}",
        stderr(&out)
    );
    let with_landlock = run(&arm, "tool", Kernel::Landlock);
    assert_eq!(
        stdout(&with_landlock),
        "ran\n",
        "stderr: {}",
        stderr(&with_landlock)
    );
    assert_eq!(stderr(&with_landlock), "");
}

/// A policy whose `tee` may write into the folder that holds the policy:
/// every other command's domain can be built, guard-sh's own (which covers
/// every rule's folders) cannot.
fn arm_whose_self_domain_cannot_be_built(mode: SandboxMode) -> Arm {
    let (arm, _, _) = arm_edited("#!/bin/sh\necho ran\n", &[], |p| {
        p.sandbox.mode = mode;
        if let Some(tee) = p.commands.get_mut("tee") {
            tee.writable = vec![
                p.bin_dir
                    .parent()
                    .map(Path::to_path_buf)
                    .unwrap_or_default(),
            ];
        }
    });
    arm
}

#[test]
fn required_sandbox_refuses_to_start_when_guard_sh_cannot_confine_itself() {
    let arm = arm_whose_self_domain_cannot_be_built(SandboxMode::Required);
    let out = run(&arm, "tool", Kernel::Landlock);

    assert_eq!(out.status.code(), Some(126), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "", "nothing ran");
    assert!(
        stderr(&out).contains("cannot confine guard-sh itself: protected path"),
        "{}",
        stderr(&out)
    );
    let log = std::fs::read_to_string(arm.path("arm/audit.log")).expect("log");
    assert!(log.contains("cannot confine guard-sh itself"), "{log}");
}

#[test]
fn best_effort_sandbox_warns_once_when_guard_sh_cannot_confine_itself_and_goes_on() {
    let arm = arm_whose_self_domain_cannot_be_built(SandboxMode::BestEffort);
    let out = run(&arm, "tool; tool", Kernel::Landlock);

    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "ran\nran\n");
    assert_eq!(
        stderr(&out)
            .matches("warning: sandbox: cannot confine guard-sh itself")
            .count(),
        1,
        "{}",
        stderr(&out)
    );
}

#[test]
fn guard_sh_refuses_a_policy_that_does_not_match_its_pin() {
    let (arm, _, _) = arm_with_tool("#!/bin/sh\necho ran\n");
    let out = guard(&arm, Kernel::Landlock)
        .env("GUARD_SH_POLICY_SHA256", policy_sha256(b"another policy"))
        .args(["-c", "tool"])
        .output();
    let out = out.expect("guard-sh");

    assert_eq!(out.status.code(), Some(2), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "");
    assert!(
        stderr(&out).contains("GUARD_SH_POLICY_SHA256"),
        "{}",
        stderr(&out)
    );
    assert!(Path::new(&arm.path("arm/policy.json")).is_file());
}
