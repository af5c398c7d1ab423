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
fn standard_descriptors_closed_by_the_caller_stay_closed_for_the_line_as_under_bash() {
    // guard-sh skips Rust's runtime set-up, which opened /dev/null on a
    // closed descriptor 0, 1 or 2. It holds /dev/null there while it opens
    // its own files (or the policy or the audit log would take the number)
    // and closes it again before the line runs: `echo` then fails with a
    // write error, a command inherits the descriptor closed, and a pipe
    // does not take the number (bash's behavior, here the oracle). The
    // line reports through a file, as the three descriptors are closed.
    let bash = common::system_program("bash").expect("bash is required");
    let arm = common::test_arm(&[], None);
    let line = "echo out; s1=$?; read x; s2=$?; echo a | cat; s3=$?; \
                cat /dev/null; s4=$?; ls /nonexistent-guard-sh; s5=$?; \
                echo \"$s1 $s2 $s3 $s4 $s5\" > report; cat report | tr 0-9 a-j > report2";
    let mut reports = Vec::new();
    for shell in [common::guard_sh(), bash] {
        let _ = std::fs::remove_file(arm.dir.path().join("report2"));
        // The policy and log variables guard-sh needs, for both shells.
        let with_arm = common::guard_cmd(&arm, arm.dir.path());
        let mut cmd = std::process::Command::new(&shell)
            .args(["-c", line])
            .envs(
                with_arm
                    .get_envs()
                    .filter_map(|(k, v)| Some((k.to_owned(), v?.to_owned()))),
            )
            .env("PATH", "/usr/bin:/bin")
            .current_dir(arm.dir.path())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn_with_closed_standard_descriptors();
        let status = cmd.wait().unwrap();
        let report = std::fs::read_to_string(arm.dir.path().join("report2")).unwrap_or_default();
        reports.push((shell, status.code(), report));
    }
    assert_eq!(reports[0].2, "b b b b c\n", "{reports:?}");
    assert_eq!(reports[0].2, reports[1].2, "{reports:?}");
    assert_eq!(reports[0].1, reports[1].1, "{reports:?}");
    // guard-sh's own files did not take the numbers: every record is whole.
    let log = std::fs::read_to_string(&arm.audit).unwrap();
    for line in log.lines() {
        let record: serde_json::Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("audit line is not JSON ({e}): {line:?}"));
        assert!(record.get("type").is_some(), "{line}");
    }
    assert!(
        log.contains("\"exit\""),
        "the commands' exits are recorded: {log}"
    );
}

/// Spawning with descriptors 0, 1 and 2 closed in the child.
trait SpawnClosed {
    fn spawn_with_closed_standard_descriptors(&mut self) -> std::process::Child;
}

impl SpawnClosed for std::process::Command {
    fn spawn_with_closed_standard_descriptors(&mut self) -> std::process::Child {
        // SAFETY: close(2) is async-signal-safe.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(self, || {
                for fd in 0..3 {
                    libc::close(fd);
                }
                Ok(())
            });
        }
        self.spawn().unwrap()
    }
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
