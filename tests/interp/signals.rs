//! Signals and statuses through the guard-sh binary: a child killed by a
//! signal is `128+N`, SIGTERM/SIGHUP to guard-sh end its foreground job and
//! then guard-sh itself (by the same signal), and no child is left a zombie.

#![allow(clippy::expect_used)] // test code reports failures by panicking

use crate::common;

use std::os::unix::process::ExitStatusExt;
use std::time::{Duration, Instant};

/// The pids of guard-sh's children that are zombies (state `Z` in /proc).
fn zombie_children(parent: u32) -> Vec<u32> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // pid (comm) state ppid …: comm may hold spaces, so split after ')'.
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r.to_string()) else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.len() > 1 && fields[0] == "Z" && fields[1] == parent.to_string() {
            found.push(pid);
        }
    }
    found
}

/// Start guard-sh on `line` with piped output.
fn start(arm: &common::TestArm, work: &std::path::Path, line: &str) -> std::process::Child {
    common::guard_cmd(arm, work)
        .args(["-c", line])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn guard-sh")
}

fn wait_for_file(path: &std::path::Path) {
    let t0 = Instant::now();
    while !path.exists() && t0.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(path.exists(), "{} never appeared", path.display());
}

fn signal(pid: u32, sig: i32) {
    // SAFETY: signalling a child this test started.
    unsafe {
        libc::kill(pid as i32, sig);
    }
}

#[test]
fn a_child_killed_by_a_signal_gives_128_plus_n() {
    let arm = common::test_arm(&[], None);
    let work = tempfile::tempdir().expect("work");
    let out = common::run_guard(
        &arm,
        work.path(),
        &[
            "-c",
            "sleep 5 & kill -KILL $!; wait $!; echo \"$?\"; (kill -TERM $BASHPID); echo \"$?\"",
        ],
    );
    assert_eq!(common::text(&out.stdout), "137\n143\n");
}

#[test]
fn sigterm_ends_the_foreground_job_and_guard_sh_dies_by_it() {
    let arm = common::test_arm(&[], None);
    let work = tempfile::tempdir().expect("work");
    let ready = work.path().join("ready");
    let child = start(
        &arm,
        work.path(),
        "trap 'echo exit-trap' EXIT; touch ready; sleep 100; echo after",
    );
    wait_for_file(&ready);
    std::thread::sleep(Duration::from_millis(100));
    let t0 = Instant::now();
    signal(child.id(), libc::SIGTERM);
    let out = child.wait_with_output().expect("wait");
    assert!(
        t0.elapsed() < Duration::from_secs(5),
        "the job was not ended"
    );
    assert_eq!(out.status.signal(), Some(libc::SIGTERM));
    assert_eq!(common::text(&out.stdout), "exit-trap\n");
}

/// A session reading its lines from a pipe ends on SIGTERM or SIGHUP while
/// it waits for the next one, by that signal, as bash does (it waited for
/// input first, and an agent's harness that ended it waited with it). A
/// line begun but not ended when the signal came does not run.
#[test]
fn a_session_waiting_for_its_next_line_dies_by_sigterm_or_sighup() {
    use std::io::Write;
    let arm = common::test_arm(&[], None);
    for sig in [libc::SIGTERM, libc::SIGHUP] {
        let work = tempfile::tempdir().expect("work");
        let mut child = common::guard_cmd(&arm, work.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn guard-sh");
        let mut input = child.stdin.take().expect("stdin");
        input
            .write_all(b"touch ready\ntouch half")
            .expect("write the lines");
        input.flush().expect("flush");
        wait_for_file(&work.path().join("ready"));
        std::thread::sleep(Duration::from_millis(100));
        let t0 = Instant::now();
        signal(child.id(), sig);
        let mut waited = None;
        while t0.elapsed() < Duration::from_secs(5) {
            waited = child.try_wait().expect("try_wait");
            if waited.is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        // Still alive: end it (the input is ours) before failing.
        if waited.is_none() {
            let _ = child.kill();
        }
        drop(input);
        let out = child.wait_with_output().expect("wait");
        assert!(
            waited.is_some(),
            "signal {sig}: guard-sh still waited for input"
        );
        assert_eq!(out.status.signal(), Some(sig), "{:?}", out.status);
        assert!(
            !work.path().join("half").exists(),
            "signal {sig}: the unfinished line ran"
        );
    }
}

#[test]
fn sighup_ends_a_pipeline_and_guard_sh() {
    let arm = common::test_arm(&[], None);
    let work = tempfile::tempdir().expect("work");
    let ready = work.path().join("ready");
    let child = start(
        &arm,
        work.path(),
        "touch ready; sleep 100 | sleep 100; echo after",
    );
    wait_for_file(&ready);
    std::thread::sleep(Duration::from_millis(100));
    let t0 = Instant::now();
    signal(child.id(), libc::SIGHUP);
    let out = child.wait_with_output().expect("wait");
    assert!(
        t0.elapsed() < Duration::from_secs(5),
        "the pipeline was not ended"
    );
    assert_eq!(out.status.signal(), Some(libc::SIGHUP));
    assert_eq!(common::text(&out.stdout), "");
}

#[test]
fn no_zombie_children_after_wait_or_a_killed_pipeline() {
    let arm = common::test_arm(&[], None);
    let work = tempfile::tempdir().expect("work");
    let ready = work.path().join("ready");
    // Background jobs waited for, jobs that ended on their own, and a
    // pipeline killed by a signal; then guard-sh idles so /proc can be read.
    let child = start(
        &arm,
        work.path(),
        "sleep 0.1 & sleep 0.1 & wait; sleep 0.1 & sleep 0.3; true; \
         (kill -TERM $BASHPID) | sleep 0.1; cat <(echo x) >/dev/null; touch ready; sleep 3",
    );
    wait_for_file(&ready);
    std::thread::sleep(Duration::from_millis(300));
    let zombies = zombie_children(child.id());
    signal(child.id(), libc::SIGTERM);
    let _ = child.wait_with_output();
    assert_eq!(zombies, Vec::<u32>::new());
}

#[test]
fn a_signal_ignored_at_start_stays_ignored_for_the_shell_and_its_commands() {
    // POSIX: a non-interactive shell cannot trap or reset a signal that was
    // ignored when it started (`nohup guard-sh -c …`). Compared with bash on
    // the same line: the listing, surviving `kill -HUP $$`, and the SigIgn
    // mask a command (and a subshell's command) starts with.
    use std::os::unix::process::CommandExt;
    let line = "trap 'echo hup' HUP; trap - HUP; trap 'echo hup' HUP; trap; kill -HUP $$; \
                echo after; grep SigIgn /proc/self/status; (grep SigIgn /proc/self/status)";
    let hup_ignored = |cmd: &mut std::process::Command| {
        // SAFETY: only signal() between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                libc::signal(libc::SIGHUP, libc::SIG_IGN);
                // Nothing else ignored, however this test was started (a
                // script started in the background ignores SIGINT).
                libc::signal(libc::SIGINT, libc::SIG_DFL);
                libc::signal(libc::SIGQUIT, libc::SIG_DFL);
                Ok(())
            });
        }
    };
    let arm = common::test_arm(&[], None);
    let work = tempfile::tempdir().expect("work");
    let mut guard = common::guard_cmd(&arm, work.path());
    guard.args(["-c", line]);
    hup_ignored(&mut guard);
    let guard = guard.output().expect("run guard-sh");
    let mut bash = std::process::Command::new("bash");
    bash.args(["--norc", "--noprofile", "-c", line]);
    hup_ignored(&mut bash);
    let bash = bash.output().expect("run bash");
    let bash_out = common::text(&bash.stdout);
    let lines: Vec<&str> = bash_out.lines().collect();
    assert_eq!(lines[..2], ["trap -- '' SIGHUP", "after"], "bash itself");
    for mask in &lines[2..] {
        let bits = u64::from_str_radix(mask.trim_start_matches("SigIgn:\t"), 16).expect("mask");
        assert_eq!(bits & 1, 1, "bash: SIGHUP not ignored in {mask}");
    }
    assert_eq!(lines.len(), 4, "{bash_out}");
    assert_eq!(
        common::text(&guard.stdout),
        bash_out,
        "{}",
        common::text(&guard.stderr)
    );
    assert_eq!(guard.status.code(), Some(0));
}
