//! Kernel confinement end to end, through the guard-sh binary: the test
//! policies are deliberately permissive (no argument rules), so only the
//! Landlock domains stand between the agent and a foreign program. `strace
//! -f`, run outside guard-sh, is the oracle of what the kernel executed.

mod sandbox_support;

use guard_sh::policy::{Policy, SandboxMode};
use guard_sh::sandbox::pin::policy_sha256;
use sandbox_support::*;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output, Stdio};

const GUARD_SH: &str = env!("CARGO_BIN_EXE_guard-sh");

/// A test arm whose tool is `tool_body` (a script), plus `sort`, `tee`, `mkdir`.
fn arm_with_tool(tool_body: &str) -> (Arm, Policy, Vec<u8>) {
    let arm = Arm::new();
    let stub = arm.stub("tool", tool_body);
    let mut commands = BTreeMap::from([("tool".to_string(), rule(&stub, &[], &[], &[]))]);
    for name in ["sort", "tee", "mkdir", "cat"] {
        commands.insert(name.into(), utility(&format!("/usr/bin/{name}")));
    }
    let mut policy = arm.policy(commands);
    policy.tool = Some("tool".into());
    policy.env.pass = vec!["HOME".into(), "LC_ALL".into()];
    policy.audit.path = Some(arm.path("arm/audit.log"));
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
fn command(arm: &Arm, program: &str) -> Command {
    let mut c = Command::new(program);
    c.env_clear()
        .envs(guard_env(arm))
        .current_dir(arm.path("work"))
        .stdin(Stdio::null());
    c
}

fn guard(arm: &Arm) -> Command {
    command(arm, GUARD_SH)
}

fn run(arm: &Arm, line: &str) -> Output {
    guard(arm)
        .args(["-c", line])
        .output()
        .expect("run guard-sh")
}

/// guard-sh -c LINE under `strace -f -e trace=execve` (strace unconfined).
fn run_traced_guard(arm: &Arm, line: &str, extra_env: &[(&str, &str)]) -> (Output, String) {
    let trace = arm.path("strace.out");
    let out = command(arm, STRACE)
        .args(["-f", "-qq", "-e", "trace=execve", "-o"])
        .arg(&trace)
        .args([GUARD_SH, "-c", line])
        .envs(extra_env.iter().copied())
        .output()
        .expect("run strace guard-sh");
    let text = std::fs::read_to_string(&trace).expect("read trace");
    (out, text)
}

#[test]
fn guard_sh_sort_compress_program_is_not_executed_without_an_argument_rule() {
    let (arm, _, _) = arm_with_tool("#!/bin/sh\ntrue\n");
    let lines: String = (0..20000)
        .map(|i| format!("{}\n", (i * 7919) % 20000))
        .collect();
    std::fs::write(arm.path("work/input"), lines).expect("input");
    let (out, trace) = run_traced_guard(
        &arm,
        "sort -S 4k -T . --compress-program=/usr/bin/gzip input > sorted",
        &[],
    );

    assert_ne!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert!(
        executed(&trace, &arm.path("arm/bin/sort").to_string_lossy()),
        "sort itself ran:\n{trace}"
    );
    assert!(refused_with_eacces(&trace, "/usr/bin/gzip"), "{trace}");
    assert!(!executed(&trace, "/usr/bin/gzip"), "{trace}");
}

#[test]
fn guard_sh_tool_stub_that_execs_curl_is_refused_by_the_kernel() {
    let (arm, _, _) = arm_with_tool("#!/bin/sh\nexec /usr/bin/curl --version\n");
    let (out, trace) = run_traced_guard(&arm, "tool", &[]);

    assert_eq!(out.status.code(), Some(126), "stderr: {}", stderr(&out));
    assert!(refused_with_eacces(&trace, "/usr/bin/curl"), "{trace}");
    assert!(!executed(&trace, "/usr/bin/curl"), "{trace}");
}

#[test]
fn guard_sh_without_landlock_runs_the_same_stub_unconfined() {
    let (arm, _, _) = arm_with_tool("#!/bin/sh\nexec /usr/bin/curl --version\n");
    let (out, trace) = run_traced_guard(&arm, "tool", &[("GUARD_SH_LANDLOCK", "off")]);

    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert!(executed(&trace, "/usr/bin/curl"), "{trace}");
}

#[test]
fn guard_sh_refuses_to_run_a_required_sandbox_without_landlock() {
    let (arm, mut policy, _) = arm_with_tool("#!/bin/sh\necho ran\n");
    policy.sandbox.mode = SandboxMode::Required;
    std::fs::write(
        arm.path("arm/policy.json"),
        serde_json::to_vec(&policy).expect("json"),
    )
    .expect("policy");
    let out = guard(&arm)
        .env("GUARD_SH_LANDLOCK", "off")
        .args(["-c", "tool"])
        .output()
        .expect("guard-sh");

    assert_ne!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "", "nothing ran");
    assert!(
        stderr(&out).contains("requires the Landlock sandbox"),
        "{}",
        stderr(&out)
    );
    let with_landlock = run(&arm, "tool");
    assert_eq!(
        stdout(&with_landlock),
        "ran\n",
        "stderr: {}",
        stderr(&with_landlock)
    );
}

#[test]
fn guard_sh_agent_cannot_write_policy_bin_folder_or_audit_log_and_next_session_loads_the_original()
{
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
        format!("echo '{{}}' | tee {}", p.display()),
        format!("echo x | tee -a {}", a.display()),
        format!("mkdir {}/evil", b.display()),
        format!("cd {} && echo x > curl", b.display()),
        "echo '{}' > ../arm/policy.json".to_string(),
    ];
    for line in &attempts {
        let out = run(&arm, line);
        assert_ne!(
            out.status.code(),
            Some(0),
            "{line}: must fail; stderr: {}",
            stderr(&out)
        );
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
    let next = guard(&arm)
        .env("GUARD_SH_POLICY_SHA256", &pin)
        .args(["-c", "tool"])
        .output()
        .expect("guard-sh");
    assert_eq!(stdout(&next), "ran\n", "stderr: {}", stderr(&next));
}

#[test]
fn guard_sh_refuses_a_policy_that_does_not_match_its_pin() {
    let (arm, _, _) = arm_with_tool("#!/bin/sh\necho ran\n");
    let out = guard(&arm)
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

/// A folder beside the arm that no rule makes writable.
fn elsewhere(arm: &Arm) -> std::path::PathBuf {
    let dir = arm.path("elsewhere");
    std::fs::create_dir_all(&dir).expect("mkdir elsewhere");
    dir
}

#[test]
fn guard_sh_own_redirection_outside_the_writable_roots_is_refused_by_the_kernel() {
    let (arm, _, _) = arm_with_tool("#!/bin/sh\n");
    let target = elsewhere(&arm).join("f");
    // The static guard does not know this path; only guard-sh's own domain stops it.
    let line = format!("echo x > {}; echo after=$?", target.display());

    let out = run(&arm, &line);
    assert_eq!(stdout(&out), "after=1\n", "stderr: {}", stderr(&out));
    assert!(
        stderr(&out).contains("Permission denied"),
        "{}",
        stderr(&out)
    );
    assert!(!target.exists());

    let off = guard(&arm)
        .env("GUARD_SH_LANDLOCK", "off")
        .args(["-c", &line])
        .output()
        .expect("run guard-sh");
    assert_eq!(stdout(&off), "after=0\n", "stderr: {}", stderr(&off));
    assert!(target.exists(), "without Landlock the write goes through");
}

#[test]
fn guard_sh_hash_bang_tool_runs_its_chain_but_not_a_foreign_interpreter() {
    let (arm, _, _) =
        arm_with_tool("#!/bin/sh\necho via-chain\n/usr/bin/python3 -c 1\necho py=$?\n");
    let (out, trace) = run_traced_guard(&arm, "tool; echo next", &[]);

    assert_eq!(
        stdout(&out),
        "via-chain\npy=126\nnext\n",
        "stderr: {}",
        stderr(&out)
    );
    let tool_ran = [arm.path("tools/tool"), arm.path("arm/bin/tool")]
        .iter()
        .any(|p| executed(&trace, &p.to_string_lossy()));
    assert!(tool_ran, "{trace}");
    assert!(refused_with_eacces(&trace, "/usr/bin/python3"), "{trace}");
    assert!(!executed(&trace, "/usr/bin/python3"), "{trace}");
}

#[test]
fn guard_sh_tool_stub_cannot_write_outside_its_roots_but_can_inside() {
    let (arm, _, _) = arm_with_tool("");
    let outside = elsewhere(&arm).join("g");
    let body = format!(
        "#!/bin/sh\necho x > {}; echo out=$?\necho y > in.txt; echo in=$?\n",
        outside.display()
    );
    arm.stub("tool", &body);

    let out = run(&arm, "tool; echo next");
    assert_eq!(
        stdout(&out),
        "out=2\nin=0\nnext\n",
        "stderr: {}",
        stderr(&out)
    );
    assert!(!outside.exists());
    assert_eq!(
        std::fs::read_to_string(arm.path("work/in.txt")).expect("in.txt"),
        "y\n"
    );
}

#[test]
fn guard_sh_tool_connects_only_to_the_ports_its_rule_lists() {
    use std::net::TcpListener;
    let allowed = TcpListener::bind("127.0.0.1:0").expect("bind");
    let forbidden = TcpListener::bind("127.0.0.1:0").expect("bind");
    let (ap, fp) = (
        allowed.local_addr().expect("addr").port(),
        forbidden.local_addr().expect("addr").port(),
    );
    let arm = Arm::new();
    let stub = arm.stub(
        "tool",
        "#!/usr/bin/bash\nif exec 3<>/dev/tcp/127.0.0.1/$1; then echo connected; else echo refused; fi\n",
    );
    let mut commands = BTreeMap::from([("tool".to_string(), rule(&stub, &[], &[ap], &[]))]);
    commands.insert("cat".into(), utility("/usr/bin/cat"));
    let mut policy = arm.policy(commands);
    policy.tool = Some("tool".into());
    policy.env.pass = vec!["HOME".into(), "LC_ALL".into()];
    policy.audit.path = Some(arm.path("arm/audit.log"));
    install(&arm, &policy);
    allowed.set_nonblocking(true).expect("nonblocking");
    forbidden.set_nonblocking(true).expect("nonblocking");

    let out = run(&arm, &format!("tool {fp}; tool {ap}"));
    assert_eq!(
        stdout(&out),
        "refused\nconnected\n",
        "stderr: {}",
        stderr(&out)
    );
    assert!(
        forbidden.accept().is_err(),
        "the forbidden listener saw a connection"
    );
    assert!(
        allowed.accept().is_ok(),
        "the allowed listener saw no connection"
    );

    let off = guard(&arm)
        .env("GUARD_SH_LANDLOCK", "off")
        .args(["-c", &format!("tool {fp}")])
        .output()
        .expect("run guard-sh");
    assert_eq!(stdout(&off), "connected\n", "stderr: {}", stderr(&off));
}

#[test]
fn guard_sh_without_landlock_records_enforcement_none() {
    let (arm, _, _) = arm_with_tool("#!/bin/sh\necho ran\n");
    let out = guard(&arm)
        .env("GUARD_SH_LANDLOCK", "off")
        .args(["-c", "tool"])
        .output()
        .expect("run guard-sh");
    assert_eq!(stdout(&out), "ran\n", "stderr: {}", stderr(&out));
    let log = std::fs::read_to_string(arm.path("arm/audit.log")).expect("log");
    let session: serde_json::Value =
        serde_json::from_str(log.lines().next().expect("a record")).expect("json");
    assert_eq!(session["enforcement"], "none", "{session}");
    let on = run(&arm, "tool");
    assert_eq!(stdout(&on), "ran\n");
    let log = std::fs::read_to_string(arm.path("arm/audit.log")).expect("log");
    assert!(
        log.lines()
            .any(|l| l.contains("\"enforcement\":\"landlock-abi-")),
        "{log}"
    );
}
