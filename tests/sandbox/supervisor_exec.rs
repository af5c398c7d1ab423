//! Nothing outside a command's exec plan starts anywhere in its process
//! tree, and the ELF loader never starts as a program: the supervisor
//! (seccomp user notification) checks every `execve` of the tree, Landlock
//! underneath or not.
//!
//! The arm is a built `tea` arm whose `tea` is a copy of `env` (a compiled
//! program that runs what it is told, as tea runs git) and whose helper is
//! Debian's real `git` (2.39). The oracle is `strace -f` of the whole run:
//! every program that started must be guard-sh, the tool, git or one of
//! git's own programs, and the marker a hostile program would write must
//! not exist. Each case runs with Landlock on and with
//! `GUARD_SH_LANDLOCK=off`, where the supervisor alone must hold.

#![cfg(target_arch = "x86_64")]
#![allow(clippy::panic, clippy::unwrap_used)] // test code reports failures by panicking

use crate::common;
use crate::sandbox_support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const STRACE: &str = "/usr/bin/strace";
const LOADER: &str = "/lib64/ld-linux-x86-64.so.2";
const GIT: &str = "/usr/bin/git";

struct Arm {
    root: tempfile::TempDir,
    dir: PathBuf,
}

impl Arm {
    fn new() -> Arm {
        Arm::with_tea(|tea| {
            std::fs::copy("/usr/bin/env", tea).unwrap();
        })
    }

    /// An arm whose `tea` is what `make` puts at the path it is given.
    fn with_tea(make: impl FnOnce(&Path)) -> Arm {
        let root = tempfile::tempdir().unwrap();
        let stubs = root.path().join("stubs");
        std::fs::create_dir(&stubs).unwrap();
        make(&stubs.join("tea"));
        std::os::unix::fs::symlink(GIT, stubs.join("git")).unwrap();
        let dir = root.path().join("arm");
        common::ArmBuild::new("tea", "http://127.0.0.1:3999", &dir)
            .stubs(&stubs)
            .run();
        // A program the agent could place in its work folder.
        std::fs::copy("/usr/bin/dash", dir.join("work/sh-copy")).unwrap();
        Arm { root, dir }
    }

    fn work(&self) -> PathBuf {
        self.dir.join("work")
    }

    /// Where a hostile program writes (the work folder: writable under
    /// Landlock too, so only the exec check stands in the way).
    fn marker(&self) -> PathBuf {
        self.work().join("pwned")
    }

    /// `line` in the arm's guard-sh under `strace -f`; the output and the
    /// programs that started (guard-sh itself first).
    fn run(&self, line: &str, landlock: bool, supervisor: bool) -> (Output, Vec<String>) {
        let trace = self.root.path().join("trace.out");
        let mut c = Command::new(STRACE);
        c.args(["-f", "-qq", "-e", "trace=execve,execveat", "-o"])
            .arg(&trace)
            .arg(common::guard_sh())
            .args(["-c", line])
            .env_clear()
            .env("LANG", "C.UTF-8")
            .env("GUARD_SH_POLICY", self.dir.join("policy.json"))
            .current_dir(self.work());
        if !landlock {
            c.env("GUARD_SH_LANDLOCK", "off");
        }
        if !supervisor {
            c.env("GUARD_SH_SUPERVISOR", "off");
        }
        let out = output_within(c, std::time::Duration::from_secs(30), line);
        let text = sandbox_support::join_resumed(&std::fs::read_to_string(&trace).unwrap());
        let started = text
            .lines()
            .filter(|l| l.contains("execve") && l.trim_end().ends_with("= 0"))
            .filter_map(|l| l.split('"').nth(1).map(str::to_string))
            .collect();
        (out, started)
    }

    /// Each started program (after guard-sh) is the tool, git or git's own.
    fn assert_only_the_plan_ran(&self, started: &[String], case: &str) {
        let tool = self.dir.join("bin/tea");
        for path in &started[1..] {
            let real = std::fs::canonicalize(path).unwrap_or_else(|_| PathBuf::from(path));
            let ok = Path::new(path) == tool
                || real == Path::new(GIT)
                || real.starts_with("/usr/lib/git-core")
                || real == self.root.path().join("stubs/tea");
            assert!(ok, "{case}: {path} started: {started:?}");
        }
        assert!(!self.marker().exists(), "{case}: the hostile program ran");
    }

    fn audit(&self) -> Vec<Value> {
        std::fs::read_to_string(self.dir.join("audit/audit.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// A git repository in the work folder with `config` appended to its
    /// `.git/config`.
    fn repo(&self, config: &str) -> PathBuf {
        let repo = self.work().join("repo");
        let _ = std::fs::remove_dir_all(&repo);
        let git = |args: &[&str]| {
            let o = Command::new(GIT)
                .args(args)
                .current_dir(&repo)
                .env("HOME", self.root.path())
                .output()
                .unwrap();
            assert!(
                o.status.success(),
                "git {args:?}: {}",
                common::text(&o.stderr)
            );
        };
        std::fs::create_dir(&repo).unwrap();
        git(&["init", "-q"]);
        std::fs::write(repo.join("f"), "x\n").unwrap();
        git(&["add", "f"]);
        git(&[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "one",
        ]);
        let mut text = std::fs::read_to_string(repo.join(".git/config")).unwrap();
        text.push_str(config);
        std::fs::write(repo.join(".git/config"), text).unwrap();
        repo
    }
}

/// Run `c` to its end, failing the test if it takes longer than `limit`
/// (a connection that reached a listener which never answers would wait).
fn output_within(mut c: Command, limit: std::time::Duration, what: &str) -> Output {
    use std::process::Stdio;
    let mut child = c
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + limit;
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            // Kill the whole group strace started: guard-sh and its children.
            let _ = child.kill();
            panic!("{what}: still running after {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    child.wait_with_output().unwrap()
}

/// `sh-copy -c 'echo pwned > MARKER'` run through the loader.
fn hostile(arm: &Arm) -> String {
    format!(
        "{LOADER} {} -c \"echo pwned > {}\"",
        arm.work().join("sh-copy").display(),
        arm.marker().display()
    )
}

#[test]
fn the_loader_named_as_a_program_is_refused_and_recorded() {
    let arm = Arm::new();
    let line = format!("tea {}", hostile(&arm).replace('"', "'"));
    for landlock in [true, false] {
        let (out, started) = arm.run(&line, landlock, true);
        let stderr = common::text(&out.stderr);
        assert_ne!(out.status.code(), Some(0), "{stderr}");
        assert!(stderr.contains("Permission denied"), "{stderr}");
        arm.assert_only_the_plan_ran(&started, &format!("loader, landlock {landlock}"));
        let refused: Vec<Value> = arm
            .audit()
            .into_iter()
            .filter(|r| r["type"] == "exec" && r["allowed"] == false)
            .collect();
        assert!(
            refused
                .iter()
                .any(|r| r["path"] == LOADER
                    && r["reason"].as_str().unwrap_or("").contains("loader")),
            "{refused:?}"
        );
    }
}

#[test]
fn without_the_supervisor_landlock_alone_lets_the_loader_run_a_copied_program() {
    // The hole the supervisor closes: Landlock must let the loader execute
    // (it is every dynamic program's interpreter) and does not see mmap.
    let arm = Arm::new();
    let line = format!("tea {}", hostile(&arm).replace('"', "'"));
    let (_, started) = arm.run(&line, true, false);
    assert!(started.iter().any(|p| p == LOADER), "{started:?}");
    assert!(arm.marker().exists(), "the loader did not run the copy");
}

/// Repository settings that make git start a program, each with the git
/// command that triggers it. The arm pins some of them for git
/// (`GIT_CONFIG_*` in the tool's environment: fsmonitor, hooksPath, pager,
/// ext::), so git ignores those; the rest reach `execve`, where the
/// supervisor and Landlock refuse them.
fn hostile_configs(arm: &Arm) -> Vec<(&'static str, String, Vec<String>)> {
    let h = hostile(arm);
    let loader_only = format!("{LOADER} {}", arm.work().join("sh-copy").display());
    vec![
        (
            // Run as a path, without a shell: the loader itself.
            "core.gitProxy",
            format!("[core]\n\tgitProxy = {LOADER}\n"),
            vec!["ls-remote".into(), "git://127.0.0.1:9/x".into()],
        ),
        (
            "core.sshCommand",
            format!("[core]\n\tsshCommand = {h}\n"),
            vec!["ls-remote".into(), "ssh://127.0.0.1:9/x".into()],
        ),
        (
            "alias (direct)",
            format!("[alias]\n\tx = !{LOADER}\n"),
            vec!["x".into(), arm.work().join("sh-copy").display().to_string()],
        ),
        (
            "alias (shell)",
            format!("[alias]\n\ty = !{h}\n"),
            vec!["y".into()],
        ),
        (
            "core.fsmonitor",
            format!("[core]\n\tfsmonitor = {h}\n"),
            vec!["status".into()],
        ),
        (
            "core.hooksPath",
            format!(
                "[core]\n\thooksPath = {}\n",
                arm.work().join("hooks").display()
            ),
            vec![
                "commit".into(),
                "--allow-empty".into(),
                "-qm".into(),
                "two".into(),
            ],
        ),
        (
            "ext:: transport",
            "[protocol \"ext\"]\n\tallow = always\n".to_string(),
            vec!["ls-remote".into(), format!("ext::{loader_only}")],
        ),
        (
            "core.pager",
            format!("[core]\n\tpager = {h}\n[pager]\n\tlog = true\n"),
            vec!["-p".into(), "log".into()],
        ),
        (
            "include.path",
            format!(
                "[include]\n\tpath = {}\n",
                arm.work().join("included.cfg").display()
            ),
            vec!["ls-remote".into(), "ssh://127.0.0.1:9/x".into()],
        ),
        (
            "filter.*.clean",
            format!("[filter \"x\"]\n\tclean = {h}\n"),
            vec!["add".into(), "f".into()],
        ),
        (
            "diff.external",
            format!("[diff]\n\texternal = {loader_only}\n"),
            vec!["diff".into(), "HEAD".into()],
        ),
    ]
}

#[test]
fn hostile_repository_config_starts_nothing_outside_the_plan() {
    let arm = Arm::new();
    // A hook the hooksPath case points at.
    let hooks = arm.work().join("hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    let hook = hooks.join("pre-commit");
    std::fs::write(
        &hook,
        format!(
            "#!{}\necho pwned > {}\n",
            arm.work().join("sh-copy").display(),
            arm.marker().display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    // A config file the include.path case pulls in.
    std::fs::write(
        arm.work().join("included.cfg"),
        format!("[core]\n\tsshCommand = {}\n", hostile(&arm)),
    )
    .unwrap();
    for (key, config, args) in hostile_configs(&arm) {
        arm.repo(&config);
        std::fs::write(arm.work().join("repo/f"), "changed\n").unwrap();
        std::fs::write(arm.work().join("repo/.gitattributes"), "* filter=x\n").unwrap();
        let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
        let line = format!("cd repo && tea git {}", quoted.join(" "));
        for landlock in [true, false] {
            let (_, started) = arm.run(&line, landlock, true);
            arm.assert_only_the_plan_ran(&started, &format!("{key}, landlock {landlock}"));
        }
    }
}

#[test]
fn every_program_of_the_tree_is_recorded_with_its_parent() {
    let arm = Arm::new();
    arm.repo("");
    let (out, started) = arm.run("cd repo && tea git log --oneline", true, true);
    assert_eq!(out.status.code(), Some(0), "{}", common::text(&out.stderr));
    let execs: Vec<Value> = arm
        .audit()
        .into_iter()
        .filter(|r| r["type"] == "exec" && r["allowed"] == true)
        .collect();
    let mut recorded: Vec<PathBuf> = execs
        .iter()
        .map(|r| std::fs::canonicalize(r["path"].as_str().unwrap()).unwrap())
        .collect();
    let mut seen: Vec<PathBuf> = started[1..]
        .iter()
        .map(|p| std::fs::canonicalize(p).unwrap())
        .collect();
    recorded.sort();
    seen.sort();
    assert_eq!(
        recorded, seen,
        "the exec records differ from what strace saw start"
    );
    assert!(
        execs.iter().all(|r| r["ppid"].as_i64().unwrap_or(0) > 0),
        "{execs:?}"
    );
}

#[test]
fn hostile_repository_config_reaches_no_other_host() {
    use std::net::TcpListener;
    let arm = Arm::new();
    // The arm's forge is 127.0.0.1:3999; a relay on another loopback address.
    let relay = TcpListener::bind("127.0.0.2:0").unwrap();
    relay.set_nonblocking(true).unwrap();
    let port = relay.local_addr().unwrap().port();
    for config in [
        format!("[http]\n\tproxy = http://127.0.0.2:{port}\n"),
        format!("[url \"http://127.0.0.2:{port}/\"]\n\tinsteadOf = http://127.0.0.1:3999/\n"),
    ] {
        arm.repo(&config);
        for landlock in [true, false] {
            let (_, started) = arm.run(
                "cd repo && tea git ls-remote http://127.0.0.1:3999/o/r",
                landlock,
                true,
            );
            arm.assert_only_the_plan_ran(&started, &config);
            assert!(
                relay.accept().is_err(),
                "{config}: the relay saw a connection"
            );
        }
    }
    let refused: Vec<Value> = arm
        .audit()
        .into_iter()
        .filter(|r| r["type"] == "connect" && r["allowed"] == false)
        .collect();
    assert!(
        refused
            .iter()
            .any(|r| r["address"] == format!("127.0.0.2:{port}")),
        "{refused:?}"
    );
}

/// The shell answers its command's execs while it waits for it; when it
/// stops waiting with the command still running (here `lastpipe`: the
/// shell runs the loop that reads the tool's output), the tree is handed
/// to a supervisor process, which refuses and records the loader there
/// (its own session). Were the tree left unserved, the tool would block in
/// `execve` and the loop would never see the end of its output: the run
/// would not finish.
#[test]
fn a_tree_the_shell_stops_waiting_for_is_served_by_a_supervisor_process() {
    let arm = Arm::new();
    let line = format!(
        "shopt -s lastpipe; tea {} 2>&1 | while read -r l; do echo \"got $l\"; done",
        hostile(&arm).replace('"', "'")
    );
    for landlock in [true, false] {
        let _ = std::fs::remove_file(arm.dir.join("audit/audit.jsonl"));
        let (out, started) = arm.run(&line, landlock, true);
        arm.assert_only_the_plan_ran(&started, &format!("lastpipe, landlock {landlock}"));
        assert!(
            common::text(&out.stdout).contains("Permission denied"),
            "{}",
            common::text(&out.stderr)
        );
        let audit = arm.audit();
        let supervisors: Vec<&Value> = audit
            .iter()
            .filter(|r| r["type"] == "session" && r["mode"] == "supervisor")
            .collect();
        let refused = audit
            .iter()
            .find(|r| r["type"] == "exec" && r["allowed"] == false && r["path"] == LOADER)
            .unwrap_or_else(|| panic!("no refused loader: {audit:?}"));
        assert!(
            supervisors
                .iter()
                .any(|s| s["session"] == refused["session"]),
            "the refusal was not the supervisor process's: {audit:?}"
        );
    }
}

/// A job's copy killed while its command waits for the exec answer must
/// not leave the command waiting for ever: the command had a copy of the
/// copy's inbox, which kept the listener it sent there alive. Five hundred
/// `sleep 5 & kill -KILL $!` (the old code left a few children in
/// `execve` in most runs, with Landlock on and off); the oracle is `/proc`:
/// no process of this guard-sh binary whose command line carries the run's
/// token is left a second after the shell ended (a command that did exec
/// is `sleep`, not guard-sh).
#[test]
fn a_job_killed_mid_spawn_leaves_no_command_waiting_for_its_exec() {
    let arm = common::test_arm(&[], None);
    let work = tempfile::tempdir().unwrap();
    let guard = std::fs::canonicalize(common::guard_sh()).unwrap();
    for landlock in [true, false] {
        let token = format!("token-{}-{landlock}", std::process::id());
        let line = format!(
            ": {token}; for i in $(seq 500); do sleep 5 >/dev/null 2>&1 & kill -KILL $!; done; wait"
        );
        let mut c = common::guard_cmd(&arm, work.path());
        c.args(["-c", &line])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        if !landlock {
            c.env("GUARD_SH_LANDLOCK", "off");
        }
        let mut child = c.spawn().unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while child.try_wait().unwrap().is_none() {
            assert!(std::time::Instant::now() < deadline, "guard-sh did not end");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        std::thread::sleep(std::time::Duration::from_secs(1));
        let mut stuck = Vec::new();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let dir = entry.path();
            let is_guard = std::fs::read_link(dir.join("exe")).is_ok_and(|exe| exe == guard);
            let cmdline = std::fs::read(dir.join("cmdline")).unwrap_or_default();
            if is_guard && String::from_utf8_lossy(&cmdline).contains(&token) {
                stuck.push(dir);
            }
        }
        for dir in &stuck {
            if let Some(pid) = dir
                .file_name()
                .and_then(|n| n.to_str()?.parse::<i32>().ok())
            {
                // SAFETY: killing a process this test's shell left behind.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
        assert!(
            stuck.is_empty(),
            "landlock {landlock}: left waiting: {stuck:?}"
        );
    }
}

/// The shell judges a command's own exec before the child may go, and the
/// filter lets that one call through unasked; a program the plan refuses
/// (here the tool itself is the loader) is left to the supervisor, which
/// refuses and records it. strace sees it fail; with Landlock on and off.
#[test]
fn a_tool_that_is_the_loader_is_refused_at_its_own_exec() {
    let arm = Arm::with_tea(|tea| std::os::unix::fs::symlink(LOADER, tea).unwrap());
    for landlock in [true, false] {
        let (out, started) = arm.run("tea ./sh-copy -c 'echo pwned > pwned'", landlock, true);
        assert_eq!(out.status.code(), Some(126), "landlock {landlock}");
        assert_eq!(started.len(), 1, "landlock {landlock}: {started:?}");
        arm.assert_only_the_plan_ran(&started, &format!("landlock {landlock}"));
        let refused = arm
            .audit()
            .into_iter()
            .filter(|r| r["type"] == "exec" && r["allowed"] == false)
            .count();
        assert_eq!(refused, 1 + usize::from(!landlock), "landlock {landlock}");
    }
}

/// A program a tool tries to start outside the plan is refused, and the
/// refusal is said on the line's stderr in guard-sh's words (where the
/// agent reads the tool's own error), not left to look like a missing
/// file; with Landlock on and off (the supervisor refuses it alone).
/// Judged by `strace`: the program never started.
#[test]
fn an_exec_refused_inside_a_tool_is_said_on_the_lines_stderr() {
    let arm = Arm::new();
    let copy = arm.work().join("sh-copy");
    let line = format!(
        "tea {} -c 'echo pwned > {}'",
        copy.display(),
        arm.marker().display()
    );
    for landlock in [true, false] {
        let (out, started) = arm.run(&line, landlock, true);
        let case = format!("landlock {landlock}");
        arm.assert_only_the_plan_ran(&started, &case);
        let stderr = common::text(&out.stderr);
        assert!(
            stderr.contains(&format!(
                "guard-sh: denied: tea: running {} is not permitted",
                copy.display()
            )),
            "{case}: {stderr}"
        );
        assert_eq!(
            stderr.matches("guard-sh: denied:").count(),
            1,
            "{case}: said once per attempt: {stderr}"
        );
    }
}
