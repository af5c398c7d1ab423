//! guard-sh's own confinement ([`restrict_guard_sh`]). Landlock restricts
//! the calling thread, so each test confines a thread of its own and checks
//! from that thread what guard-sh's redirections and spawns could do.

#![allow(clippy::expect_used)] // test code reports failures by panicking

use crate::sandbox_support;

use guard_sh::sandbox::landlock::{Enforcement, restrict_guard_sh};
use sandbox_support::*;
use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

/// Run `f` in a fresh thread confined with `restrict_guard_sh(policy)`.
fn in_confined_thread<T: Send + 'static>(
    policy: guard_sh::policy::Policy,
    cwd: PathBuf,
    f: impl FnOnce() -> T + Send + 'static,
) -> (Enforcement, T) {
    std::thread::spawn(move || {
        let enforcement = restrict_guard_sh(&policy, &cwd).expect("restrict guard-sh");
        (enforcement, f())
    })
    .join()
    .expect("confined thread")
}

#[test]
fn guard_sh_cannot_write_policy_bin_folder_or_a_new_audit_log_after_restricting_itself() {
    let arm = Arm::new();
    let tool = arm.stub("tool", "#!/bin/sh\necho tool-ran\n");
    let r = rule(&tool, &[], &[], &[]);
    let policy = arm.policy(commands(&r));
    // The audit log is opened before the restriction, as guard-sh does.
    let mut audit = std::fs::OpenOptions::new()
        .append(true)
        .open(arm.path("arm/audit.log"))
        .expect("open audit log");
    let (policy_file, bin, audit_path, work) = (
        arm.path("arm/policy.json"),
        arm.path("arm/bin"),
        arm.path("arm/audit.log"),
        arm.path("work"),
    );

    let (enforcement, results) = in_confined_thread(policy, arm.path("work"), move || {
        let policy_write = std::fs::write(&policy_file, b"{}").map_err(|e| e.raw_os_error());
        let bin_link = std::os::unix::fs::symlink("/usr/bin/curl", bin.join("curl"))
            .map_err(|e| e.raw_os_error());
        let reopen_audit = std::fs::OpenOptions::new()
            .append(true)
            .open(&audit_path)
            .map(|_| ())
            .map_err(|e| e.raw_os_error());
        let open_audit = audit
            .write_all(b"{\"record\":1}\n")
            .map_err(|e| e.raw_os_error());
        let work_write = std::fs::write(work.join("out.txt"), b"ok").map_err(|e| e.raw_os_error());
        (policy_write, bin_link, reopen_audit, open_audit, work_write)
    });

    assert!(
        matches!(enforcement, Enforcement::Landlock { .. }),
        "{enforcement}"
    );
    let (policy_write, bin_link, reopen_audit, open_audit, work_write) = results;
    assert_eq!(policy_write, Err(Some(libc::EACCES)));
    assert_eq!(bin_link, Err(Some(libc::EACCES)));
    assert_eq!(reopen_audit, Err(Some(libc::EACCES)));
    assert_eq!(
        open_audit,
        Ok(()),
        "an already open audit log stays writable"
    );
    assert_eq!(work_write, Ok(()));
    assert_eq!(
        std::fs::read_to_string(arm.path("arm/policy.json")).expect("policy"),
        "{\"original\":true}\n"
    );
    assert_eq!(
        std::fs::read_to_string(arm.path("arm/audit.log")).expect("audit"),
        "{\"record\":1}\n"
    );
}

#[test]
fn guard_sh_can_still_spawn_policy_commands_but_not_foreign_programs() {
    let arm = Arm::new();
    let tool = arm.stub("tool", "#!/bin/sh\necho tool-ran\n");
    let r = rule(&tool, &[], &[], &[]);
    let policy = arm.policy(commands(&r));
    let tool_path = tool.clone();

    let (_, (tool_out, curl)) = in_confined_thread(policy, arm.path("work"), move || {
        let tool_out = Command::new(&tool_path)
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
        let curl = Command::new("/usr/bin/curl")
            .arg("--version")
            .output()
            .map(|_| ())
            .map_err(|e| e.raw_os_error());
        (tool_out.map_err(|e| e.raw_os_error()), curl)
    });

    assert_eq!(tool_out, Ok("tool-ran\n".to_string()));
    assert_eq!(curl, Err(Some(libc::EACCES)));
}

#[test]
fn guard_sh_connects_only_to_the_union_of_rule_ports() {
    let arm = Arm::new();
    let a = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let b = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let (pa, pb) = (
        a.local_addr().expect("addr").port(),
        b.local_addr().expect("addr").port(),
    );
    let tool = arm.stub("tool", "#!/bin/sh\ntrue\n");
    let mut commands = commands(&rule(&tool, &[], &[pa], &[]));
    commands.insert(
        "other".into(),
        rule(std::path::Path::new("/usr/bin/true"), &[], &[], &[]),
    );
    let policy = arm.policy(commands);

    let (_, (to_a, to_b)) = in_confined_thread(policy, arm.path("work"), move || {
        let connect = |p: u16| {
            std::net::TcpStream::connect(("127.0.0.1", p))
                .map(|_| ())
                .map_err(|e| e.raw_os_error())
        };
        (connect(pa), connect(pb))
    });

    assert_eq!(to_a, Ok(()));
    assert_eq!(to_b, Err(Some(libc::EACCES)));
}

#[test]
fn forked_audit_session_records_through_the_open_descriptor_after_restriction() {
    use guard_sh::audit::verify::{VerifyOptions, verify_logs};
    use guard_sh::audit::{AuditSink, Event, FileSink, Redactor, session_event};

    let arm = Arm::new();
    let tool = arm.stub("tool", "#!/bin/sh\ntrue\n");
    let policy = arm.policy(commands(&rule(&tool, &[], &[], &[])));
    let log = arm.path("arm/audit.log");
    let redactor = Redactor::from_policy(&policy.audit).expect("redactor");
    let mut parent = FileSink::open(&log, redactor.clone()).expect("open log");
    let policy_sha256 = "ab".repeat(32);
    let session = |mode: &str| {
        session_event(
            &policy,
            &policy_sha256,
            "landlock",
            &["guard-sh".into()],
            mode,
            "/w",
            None,
        )
    };
    parent.record(session("command")).expect("parent session");
    let before = fds_on(&log);
    let base = parent.fork_session(redactor.clone()).expect("fork base");
    let added: Vec<i32> = fds_on(&log).difference(&before).copied().collect();
    assert_eq!(added.len(), 1, "one duplicate: {added:?}");
    assert!(
        added[0] >= 10,
        "the copy lands above the agent's descriptors: {added:?}"
    );
    // SAFETY: F_GETFD on a descriptor this process holds.
    let flags = unsafe { libc::fcntl(added[0], libc::F_GETFD) };
    assert_eq!(
        flags & libc::FD_CLOEXEC,
        libc::FD_CLOEXEC,
        "programs never inherit it"
    );
    let parent_session = parent.session_id().to_string();
    let child_record = session("subshell");
    let log_path = log.clone();

    let (_, (reopen, forked)) = in_confined_thread(policy.clone(), arm.path("work"), move || {
        let reopen = FileSink::open(&log_path, redactor.clone()).map(|_| ());
        let forked = base.fork_session(redactor).and_then(|mut child| {
            child.append(child_record)?;
            child.append(Event::Error {
                message: "from the copy".into(),
            })?;
            Ok(child.session_id().to_string())
        });
        (
            reopen.map_err(|e| e.to_string()),
            forked.map_err(|e| e.to_string()),
        )
    });
    parent
        .record(Event::Error {
            message: "from the parent".into(),
        })
        .expect("parent goes on");

    let reopen = reopen.expect_err("the confined process cannot open the log by path");
    assert!(reopen.contains("Permission denied"), "{reopen}");
    let child_session = forked.expect("the copy records through the duplicate");
    assert_ne!(child_session, parent_session, "a fresh session id");
    let report = verify_logs(
        &[log],
        VerifyOptions {
            allow_empty: true,
            ..VerifyOptions::default()
        },
    );
    assert!(
        report.findings.iter().all(|f| f.kind.exit_code() != 3),
        "{:#?}",
        report.findings
    );
    let records: Vec<(String, u64)> = report
        .sessions
        .iter()
        .map(|s| (s.id.clone(), s.records))
        .collect();
    assert_eq!(records, vec![(parent_session, 2), (child_session, 2)]);
}

/// The descriptors of this process that are open on `path`.
fn fds_on(path: &std::path::Path) -> std::collections::BTreeSet<i32> {
    std::fs::read_dir("/proc/self/fd")
        .expect("fd folder")
        .filter_map(|e| e.ok())
        .filter(|e| std::fs::read_link(e.path()).is_ok_and(|t| t == path))
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .collect()
}

/// With a stored execute set (what `arm-build` writes), guard-sh's own
/// domain grants exactly it: the kernel refuses the tool when the set is
/// empty and runs it when the set holds its chain.
#[test]
fn guard_sh_own_domain_grants_exactly_the_stored_execute_set() {
    use guard_sh::sandbox::landlock::guard_sh_execute_set;
    let arm = Arm::new();
    let tool = arm.stub("tool", "#!/bin/sh\necho tool-ran\n");
    let r = rule(&tool, &[], &[], &[]);
    let resolved = arm.policy(commands(&r));
    let run_tool = |policy: guard_sh::policy::Policy| {
        let tool = tool.clone();
        in_confined_thread(policy, arm.path("work"), move || {
            Command::new(&tool)
                .output()
                .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                .map_err(|e| e.raw_os_error())
        })
    };

    let mut empty = resolved.clone();
    empty.sandbox.execute = Some(Vec::new());
    let (enforcement, refused) = run_tool(empty);
    assert!(matches!(enforcement, Enforcement::Landlock { .. }));
    assert_eq!(refused, Err(Some(libc::EACCES)));

    let mut stored = resolved.clone();
    stored.sandbox.execute = Some(
        guard_sh_execute_set(&resolved, &arm.path("work"))
            .into_iter()
            .collect(),
    );
    let (_, ran) = run_tool(stored);
    assert_eq!(ran, Ok("tool-ran\n".to_string()));
}
