//! No input hangs or crashes guard-sh: deep recursion, huge brace
//! expansions, bad loop counts and `read` option errors end with a message
//! and a status, never a signal, a hang or a silently shortened result.
//! (Where bash behaves the same, the case is also in `tests/diff/cases/`.)

#![allow(clippy::panic, clippy::unwrap_used)] // test code reports failures by panicking

use crate::common;

use std::io::Write;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

/// Run `args` under guard-sh with `stdin`, failing the test after 30 s.
fn run(args: &[&str], stdin: &str) -> Output {
    let arm = common::test_arm(&[], None);
    let work = arm.dir.path();
    let mut child = common::guard_cmd(&arm, work)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("guard-sh hung on {args:?} / {stdin:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn recursion_through_nested_groups_ends_with_status_1_not_a_stack_overflow() {
    // 50 groups: deep enough that each call costs much stack, and within
    // the parser's stack budget in debug builds (about 60 levels there).
    let open = "{ ".repeat(50);
    let close = "} ".repeat(50);
    let line = format!("f() {{ {open} f; {close} }}; f; echo not reached");
    let out = run(&["-c", &line], "");
    let stderr = common::text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("maximum function nesting level exceeded"),
        "{stderr}"
    );
    assert_eq!(common::text(&out.stdout), "");
}

#[test]
fn plain_recursion_ends_with_status_1() {
    let out = run(&["-c", "f() { f; }; f; echo not reached"], "");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(common::text(&out.stdout), "");
}

/// `f N` recurses N function calls deep, then prints `bottom`.
const COUNTDOWN: &str = "f() { if [ $1 -gt 0 ]; then f $(($1-1)); else echo bottom; fi; }";

#[test]
fn a_hundred_calls_deep_is_not_refused() {
    // The stack check knows where the stack ends: a limit taken from the
    // pages mapped so far (what musl's pthread_getattr_np reports for the
    // main thread) refuses the first command.
    let out = run(&["-c", &format!("{COUNTDOWN}; f 100")], "");
    assert_eq!(
        common::text(&out.stdout),
        "bottom\n",
        "{}",
        common::text(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn recursion_under_a_small_stack_limit_ends_with_status_1_not_a_crash() {
    // 199 calls (within the nesting limit of 200) need about 1 MiB of
    // stack; with RLIMIT_STACK at 768 KiB the stack check must stop them
    // (a check that assumed the usual 8 MiB lets the process die of the
    // overflow, signal 6).
    let arm = common::test_arm(&[], None);
    let mut cmd = common::guard_cmd(&arm, arm.dir.path());
    cmd.args(["-c", &format!("{COUNTDOWN}; f 199; echo not reached")]);
    // SAFETY: setrlimit is async-signal-safe and touches no memory of the parent.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, || {
            let limit = libc::rlimit {
                rlim_cur: 768 * 1024,
                rlim_max: libc::RLIM_INFINITY,
            };
            if libc::setrlimit(libc::RLIMIT_STACK, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    let stderr = common::text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr} {:?}", out.status);
    assert!(stderr.contains("(stack nearly exhausted)"), "{stderr}");
    assert_eq!(common::text(&out.stdout), "");
}

#[test]
fn closed_standard_descriptors_are_dev_null_not_the_first_file_opened() {
    // guard-sh skips Rust's runtime set-up, which opened /dev/null on a
    // closed descriptor 0, 1 or 2; it must still do so before it opens
    // anything, or the policy, the audit log or a command's pipe would
    // take the number. Writing to the closed output then succeeds.
    let arm = common::test_arm(&[], None);
    let mut cmd = common::guard_cmd(&arm, arm.dir.path());
    cmd.args([
        "-c",
        "echo out; echo err >&2; cat < /dev/null; echo done-$?",
    ]);
    // SAFETY: close(2) is async-signal-safe.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, || {
            for fd in 0..3 {
                libc::close(fd);
            }
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", out.status);
    let log = std::fs::read_to_string(&arm.audit).unwrap();
    for line in log.lines() {
        let record: serde_json::Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("audit line is not JSON ({e}): {line:?}"));
        assert!(record.get("type").is_some(), "{line}");
    }
    assert!(
        log.contains("\"exit\""),
        "the command's exit is recorded: {log}"
    );
}

#[test]
fn a_closed_standard_descriptor_without_dev_null_stops_guard_sh_with_126() {
    // A Landlock domain that may read and write everything but what lies
    // beneath /dev: /dev/null cannot be opened on the closed descriptor,
    // so nothing may run (Rust's runtime aborted here).
    use landlock::{
        ABI, Access, AccessFs, PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreatedAttr,
    };
    let arm = common::test_arm(&[], None);
    let rights = AccessFs::ReadFile | AccessFs::WriteFile;
    let mut ruleset = Ruleset::default()
        .handle_access(AccessFs::from_all(ABI::V1) & rights)
        .unwrap()
        .create()
        .unwrap();
    for entry in std::fs::read_dir("/").unwrap() {
        let path = entry.unwrap().path();
        if path != std::path::Path::new("/dev") {
            ruleset = ruleset
                .add_rule(PathBeneath::new(PathFd::new(&path).unwrap(), rights))
                .unwrap();
        }
    }
    let ruleset: Option<std::os::fd::OwnedFd> = ruleset.into();
    let ruleset = ruleset.expect("Landlock is available");
    let ruleset_fd = std::os::fd::AsRawFd::as_raw_fd(&ruleset);
    let run = |close_stdout: bool| {
        let mut cmd = common::guard_cmd(&arm, arm.dir.path());
        cmd.args(["-c", ":"]);
        // SAFETY: prctl, the Landlock system call and close are
        // async-signal-safe and allocate nothing.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(&mut cmd, move || {
                if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                    || libc::syscall(libc::SYS_landlock_restrict_self, ruleset_fd, 0) != 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                if close_stdout {
                    libc::close(1);
                }
                Ok(())
            });
        }
        cmd.output().unwrap()
    };
    let open = run(false);
    assert_eq!(
        open.status.code(),
        Some(0),
        "{}",
        common::text(&open.stderr)
    );
    let closed = run(true);
    let stderr = common::text(&closed.stderr);
    assert_eq!(closed.status.code(), Some(126), "{stderr}");
    assert!(stderr.contains("/dev/null cannot be opened"), "{stderr}");
}

#[test]
fn a_brace_expansion_past_the_limit_is_an_error_not_a_shorter_list() {
    let out = run(&["-c", "echo {1..100005}"], "");
    let stderr = common::text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("brace expansion gives more than 100000 words"),
        "{stderr}"
    );
    assert_eq!(
        common::text(&out.stdout),
        "",
        "no truncated list is printed"
    );
    let at_limit = run(&["-c", "echo {1..100000} | wc -w"], "");
    assert_eq!(common::text(&at_limit.stdout).trim(), "100000");
}

#[test]
fn a_loop_count_that_is_not_a_number_ends_the_loop_and_the_shell() {
    let out = run(
        &[
            "-c",
            "x=oops; while true; do echo hi; break $x; done; echo after",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(128));
    assert_eq!(common::text(&out.stdout), "hi\n");
}

#[test]
fn a_read_option_error_in_a_stdin_session_leaves_the_next_line_to_run() {
    let out = run(&[], "read -n not_a_number\necho next line runs\n");
    assert_eq!(common::text(&out.stdout), "next line runs\n");
    assert!(common::text(&out.stderr).contains("read: not_a_number: invalid number"));
}
