//! A trial's bounds under guard-sh-launch: a fork bomb and a memory bomb
//! stop at the arm's bounds, what a trial leaves running is ended, and a
//! trial without a cgroup says so.
//!
//! Every bomb runs inside a cgroup this test makes (a `pids.max` of its
//! own, far below the machine's) and under `timeout`, so a failing test
//! cannot starve the machine; the judges are outside guard-sh: the trial
//! group's process count sampled while the bomb runs, a probe that keeps
//! forking beside it, a `/proc` scan for survivors, and the records.

use crate::launch::{finding_kinds, text};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A v1 `pids` group (or a v2 group where it offers `pids`) that this
/// test made, with its own bound; removed when dropped.
struct Containment {
    dir: PathBuf,
}

impl Containment {
    fn new(max: u64) -> Option<Containment> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let name = format!("guard-sh-test-{}-{nanos}", std::process::id());
        for base in ["/sys/fs/cgroup/pids", "/sys/fs/cgroup"] {
            let dir = Path::new(base).join(&name);
            if std::fs::create_dir(&dir).is_ok() {
                if std::fs::write(dir.join("pids.max"), max.to_string()).is_ok() {
                    return Some(Containment { dir });
                }
                let _ = std::fs::remove_dir(&dir);
            }
        }
        None
    }

    fn processes(&self) -> Vec<i32> {
        std::fs::read_to_string(self.dir.join("cgroup.procs"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.parse().ok())
            .collect()
    }

    /// Whether the group is empty, or becomes so within `limit` (a process
    /// killed at the trial's end leaves the group only once it has exited).
    fn empties_within(&self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        while !self.processes().is_empty() {
            if Instant::now() > deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        true
    }

    /// The trial groups the launcher made inside this one.
    fn trial_groups(&self) -> Vec<PathBuf> {
        std::fs::read_dir(&self.dir)
            .map(|d| {
                d.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.is_dir())
                    .collect()
            })
            .unwrap_or_default()
    }
}

impl Drop for Containment {
    fn drop(&mut self) {
        for pid in self.processes() {
            // SAFETY: kill(2) of a process in the group this test made.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
        std::thread::sleep(Duration::from_millis(50));
        for group in self.trial_groups() {
            let _ = std::fs::remove_dir(group);
        }
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// `arm-build tea` into `root/arm` with `extra` options (bounds).
fn arm_with(root: &Path, extra: &[&str]) -> Value {
    crate::built_tea_arm_with(root, extra)
}

/// `timeout 60 guard-sh-launch --arm ARM -- env SHELL -c LINE` in the
/// arm's work folder, started inside `containment` (the child moves
/// itself there before its exec).
fn launch_line(definition: &Value, root: &Path, line: &str, containment: &Containment) -> Command {
    use std::os::unix::process::CommandExt;
    let mut c = crate::launched_line(definition, root, &root.join("arm/work"), line);
    let procs = std::ffi::CString::new(
        containment
            .dir
            .join("cgroup.procs")
            .into_os_string()
            .into_encoded_bytes(),
    )
    .expect("a path without NUL");
    // SAFETY: between fork and exec only open, write and close, on a path
    // made before the fork.
    unsafe {
        c.pre_exec(move || {
            let fd = libc::open(procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
            if fd < 0 || libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                return Err(std::io::Error::last_os_error());
            }
            libc::close(fd);
            Ok(())
        });
    }
    c
}

fn records(root: &Path) -> Vec<Value> {
    std::fs::read_to_string(root.join("arm/audit/audit.jsonl"))
        .expect("the log")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a record"))
        .collect()
}

fn harness_end(root: &Path) -> Value {
    records(root)
        .into_iter()
        .find(|r| r["type"] == "harness-end")
        .expect("harness-end")
}

fn verify(root: &Path) -> Value {
    let o = Command::new(env!("CARGO_BIN_EXE_guard-sh-audit"))
        .args(["--require-harness", "--json"])
        .arg(root.join("arm/audit/audit.jsonl"))
        .output()
        .expect("run guard-sh-audit");
    serde_json::from_slice(&o.stdout).expect("report")
}

/// Processes anywhere on the machine in a trial group of this test.
fn survivors(groups: &[PathBuf]) -> Vec<String> {
    let names: Vec<String> = groups
        .iter()
        .filter_map(|g| g.file_name()?.to_str().map(str::to_string))
        .collect();
    std::fs::read_dir("/proc")
        .expect("/proc")
        .flatten()
        .filter_map(|e| {
            let cgroup = std::fs::read_to_string(e.path().join("cgroup")).ok()?;
            names
                .iter()
                .any(|n| cgroup.contains(n.as_str()))
                .then(|| e.file_name().to_string_lossy().into_owned())
        })
        .collect()
}

/// One bomb at a time: each measures the machine around it (a probe's
/// forks, a time bound), which another bomb beside it would disturb.
static ONE_BOMB: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn containment(test: &str) -> Option<(std::sync::MutexGuard<'static, ()>, Containment)> {
    let turn = ONE_BOMB.lock().unwrap_or_else(|e| e.into_inner());
    let made = Containment::new(1000);
    if made.is_none() {
        crate::audit_support::skipped(test, "cannot make a cgroup to contain the bomb (not root?)");
    }
    made.map(|made| (turn, made))
}

#[test]
fn a_fork_bomb_stops_at_the_trials_process_bound_and_the_machine_keeps_forking() {
    let Some((_turn, containment)) = containment("fork bomb") else {
        return;
    };
    let root = tempfile::tempdir().expect("tempdir");
    let definition = arm_with(root.path(), &["--max-processes", "64"]);
    // Into files, not pipes this test would not read while it samples:
    // the bomb's thousands of messages would fill a pipe and hold it.
    let (out_file, err_file) = (root.path().join("out"), root.path().join("err"));
    let file = |p: &Path| std::fs::File::create(p).expect("create");
    let mut child = launch_line(
        &definition,
        root.path(),
        "f(){ f|f& }; f; sleep 3; echo done",
        &containment,
    )
    .stdout(file(&out_file))
    .stderr(file(&err_file))
    .spawn()
    .expect("launch the bomb");
    // While it runs: the trial's group never holds more than its bound,
    // and a probe outside it forks as usual.
    let (mut most, mut probes, mut failed_probes) = (0usize, 0, 0);
    let mut groups = Vec::new();
    while child.try_wait().expect("wait").is_none() {
        for group in containment.trial_groups() {
            // The kernel's own high-water mark where it keeps one (a
            // sample every 20 ms can miss a bomb that is over in less).
            let count = std::fs::read_to_string(group.join("pids.peak"))
                .ok()
                .and_then(|peak| peak.trim().parse().ok())
                .or_else(|| {
                    std::fs::read_to_string(group.join("cgroup.procs"))
                        .ok()
                        .map(|p| p.lines().count())
                })
                .unwrap_or(0);
            most = most.max(count);
            if !groups.contains(&group) {
                groups.push(group);
            }
        }
        probes += 1;
        if !Command::new("true").status().is_ok_and(|s| s.success()) {
            failed_probes += 1;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = child.wait().expect("wait");
    let stderr = std::fs::read_to_string(&err_file).expect("stderr");
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(
        std::fs::read_to_string(&out_file)
            .expect("stdout")
            .ends_with("done\n")
    );
    assert!(!groups.is_empty(), "no trial group was made: {stderr}");
    assert!(most <= 64, "the trial held {most} processes");
    assert!(most > 8, "the bomb never ran: {stderr}");
    assert!(
        probes > 10 && failed_probes == 0,
        "{failed_probes} of {probes} probes failed"
    );
    assert!(
        stderr.contains("Resource temporarily unavailable"),
        "{stderr}"
    );
    assert!(
        stderr.contains("ran into its processes bound (64 processes)"),
        "{stderr}"
    );
    assert_eq!(survivors(&groups), Vec::<String>::new());
    assert!(
        containment.empties_within(Duration::from_secs(2)),
        "{:?}",
        containment.processes()
    );
    let end = harness_end(root.path());
    assert_eq!(end["bounds_hit"], serde_json::json!(["processes"]), "{end}");
    assert!(finding_kinds(&verify(root.path())).contains(&"bound-hit".to_string()));
}

#[test]
fn what_a_trial_leaves_running_is_ended_and_counted() {
    let Some((_turn, containment)) = containment("left running") else {
        return;
    };
    let root = tempfile::tempdir().expect("tempdir");
    let definition = arm_with(root.path(), &[]);
    let out = launch_line(
        &definition,
        root.path(),
        "sleep 40 & sleep 41 & echo started",
        &containment,
    )
    .output()
    .expect("launch");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // Each job: the copy of the shell that waits for it, and its sleep.
    assert!(
        text(&out.stderr).contains("ended 4 processes the trial left running"),
        "{}",
        text(&out.stderr)
    );
    assert!(
        containment.empties_within(Duration::from_secs(2)),
        "{:?}",
        containment.processes()
    );
    let end = harness_end(root.path());
    assert_eq!(end["ended"], 4, "{end}");
    let harness = records(root.path())
        .into_iter()
        .find(|r| r["type"] == "harness")
        .expect("harness");
    assert!(
        harness["bounds"]["enforced"]
            .as_str()
            .is_some_and(|e| e.starts_with("cgroup")),
        "{harness}"
    );
    assert_eq!(harness["bounds"]["processes"], 512);
    let report = verify(root.path());
    assert!(
        !finding_kinds(&report).contains(&"unbounded".to_string()),
        "{report}"
    );
}

#[test]
fn a_memory_bomb_ends_inside_the_trial_at_its_bound() {
    let Some((_turn, containment)) = containment("memory bomb") else {
        return;
    };
    let root = tempfile::tempdir().expect("tempdir");
    let definition = arm_with(root.path(), &["--max-memory-mib", "64"]);
    let started = Instant::now();
    let out = launch_line(
        &definition,
        root.path(),
        "x=$(seq 1 100000000); echo ${#x}",
        &containment,
    )
    .output()
    .expect("launch");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(137), "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(30));
    assert!(
        stderr.contains("ran into its memory bound (64 MiB)"),
        "{stderr}"
    );
    let end = harness_end(root.path());
    assert_eq!(end["bounds_hit"], serde_json::json!(["memory"]), "{end}");
    assert!(containment.empties_within(Duration::from_secs(2)));
}

/// Where no cgroup can be had (here: `GUARD_SH_CGROUP=off`), the trial
/// runs, the launcher warns, the record says why, and the verifier told
/// to require a launched trial reports it as unbounded.
#[test]
fn a_trial_without_a_cgroup_says_so_and_is_reported_unbounded() {
    let Some((_turn, containment)) = containment("no cgroup") else {
        return;
    };
    let root = tempfile::tempdir().expect("tempdir");
    let definition = arm_with(root.path(), &[]);
    let out = launch_line(&definition, root.path(), "tea x", &containment)
        .env("GUARD_SH_CGROUP", "off")
        .output()
        .expect("launch");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("no cgroup for the trial"));
    assert!(containment.trial_groups().is_empty());
    let harness = records(root.path())
        .into_iter()
        .find(|r| r["type"] == "harness")
        .expect("harness");
    assert_eq!(
        harness["bounds"]["enforced"], "none: GUARD_SH_CGROUP=off",
        "{harness}"
    );
    let report = verify(root.path());
    assert_eq!(finding_kinds(&report), ["unbounded"], "{report}");
}

/// A runaway write stops at the arm's file bound (`RLIMIT_FSIZE`, set by
/// the launcher for the whole trial): the file holds exactly the bound,
/// the writer is ended by `SIGXFSZ` (the line's status 128+25) or told
/// `EFBIG`, and the harness record states the bound. Judged by the file's
/// size.
#[test]
fn a_runaway_file_stops_at_the_trials_file_bound() {
    let Some((_turn, containment)) = containment("file bound") else {
        return;
    };
    let root = tempfile::tempdir().expect("tempdir");
    let definition = arm_with(root.path(), &["--max-file-mib", "1"]);
    let out = launch_line(
        &definition,
        root.path(),
        "seq 1 100000000 > big; echo status $?",
        &containment,
    )
    .output()
    .expect("launch");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    // Ended by SIGXFSZ, or told EFBIG where the signal is ignored (as the
    // harness may have it): either way it stops at the bound and says so.
    let stdout = text(&out.stdout);
    assert!(
        stdout == format!("status {}\n", 128 + libc::SIGXFSZ)
            || (stdout == "status 1\n" && stderr.contains("File too large")),
        "{stdout}{stderr}"
    );
    let size = std::fs::metadata(root.path().join("arm/work/big"))
        .expect("big")
        .len();
    assert_eq!(size, 1 << 20);
    let harness = records(root.path())
        .into_iter()
        .find(|r| r["type"] == "harness")
        .expect("harness");
    assert_eq!(harness["bounds"]["file_mib"], 1, "{harness}");
}

/// Launch `line` in an arm built with `bound_option` (a bound the
/// launcher's watch counts) inside a containment of its own, and check
/// that the watch ended the whole trial: within 20 s, by `SIGKILL`, with
/// `said` on stderr, `bound` in `harness-end` and nothing left running.
/// The trial's folder, for more checks; `None` when no cgroup can be made.
fn ended_by_the_watch(
    test: &str,
    bound_option: [&str; 2],
    line: &str,
    said: &str,
    bound: &str,
) -> Option<tempfile::TempDir> {
    let (_turn, containment) = containment(test)?;
    let root = tempfile::tempdir().expect("tempdir");
    let definition = arm_with(root.path(), &bound_option);
    let started = Instant::now();
    let out = launch_line(&definition, root.path(), line, &containment)
        .output()
        .expect("launch");
    let stderr = text(&out.stderr);
    assert!(started.elapsed() < Duration::from_secs(20), "{stderr}");
    assert_eq!(out.status.code(), Some(128 + libc::SIGKILL), "{stderr}");
    assert!(stderr.contains(said), "{stderr}");
    let end = harness_end(root.path());
    assert_eq!(end["bounds_hit"], serde_json::json!([bound]), "{end}");
    assert!(end["ended"].as_u64().is_some_and(|n| n >= 1), "{end}");
    assert!(containment.empties_within(Duration::from_secs(2)));
    Some(root)
}

/// An endless loop in a line (in the shell itself, no program) stops at
/// the trial's CPU time bound: the launcher ends the whole trial, says so,
/// and records it. Judged by the time it took and the records.
#[test]
fn an_endless_loop_stops_at_the_trials_cpu_time_bound() {
    ended_by_the_watch(
        "cpu bound",
        ["--max-cpu-seconds", "2"],
        "while :; do :; done",
        "ran past its CPU time bound (2 s)",
        "cpu",
    );
}

/// `timeout 60 guard-sh -c LINE` alone (no launcher, no cgroup), with the
/// arm's environment, in its work folder.
fn standalone_line(definition: &Value, root: &Path, line: &str) -> std::process::Output {
    let shell = definition["shell"]["path"].as_str().expect("shell.path");
    let mut c = Command::new("/usr/bin/timeout");
    c.args(["60", shell, "-c", line])
        .current_dir(root.join("arm/work"))
        .env_clear();
    for (k, v) in definition["shell"]["env"].as_object().expect("shell.env") {
        c.env(k, v.as_str().expect("string"));
    }
    c.output().expect("run guard-sh")
}

/// Processes on the machine whose command line is exactly `argv`.
fn running(argv: &[&str]) -> Vec<i32> {
    let wanted: Vec<u8> = argv
        .iter()
        .flat_map(|a| [a.as_bytes(), b"\0"].concat())
        .collect();
    std::fs::read_dir("/proc")
        .expect("/proc")
        .flatten()
        .filter_map(|e| {
            let pid: i32 = e.file_name().to_str()?.parse().ok()?;
            (std::fs::read(e.path().join("cmdline")).ok()? == wanted).then_some(pid)
        })
        .collect()
}

/// A line past its wall-time bound is ended by guard-sh itself, with no
/// launcher and no cgroup: a program it waits for, a program in a command
/// substitution, a loop of the shell's own; the line fails with 124 and
/// says so, the log records the bound and the verifier names it (a new
/// shell the line starts, `… | bash`, included). A job
/// the line puts in the background outlives it, as in bash. Judged by the
/// time taken and by `/proc`: the waited-for `sleep` is gone at once.
#[test]
fn a_line_past_its_wall_time_bound_is_ended_by_the_shell_alone() {
    let root = tempfile::tempdir().expect("tempdir");
    let definition = arm_with(root.path(), &["--max-line-seconds", "1"]);
    let lines = [
        ("sleep 31.25; echo after", ["sleep", "31.25"]),
        ("x=$(sleep 31.5); echo after", ["sleep", "31.5"]),
        ("sleep 31.75 | cat; echo after", ["sleep", "31.75"]),
        ("while :; do :; done; echo after", ["sleep", "none"]),
        // A new shell reading many short commands runs within the bound
        // of the line that started it, not a fresh one per command.
        (
            "printf 'sleep 0.6\\n%.0s' 1 2 3 4 5 6 | bash; echo after",
            ["sleep", "0.6"],
        ),
    ];
    for (line, argv) in lines {
        let started = Instant::now();
        let out = standalone_line(&definition, root.path(), line);
        let stderr = text(&out.stderr);
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "{line}: {stderr}"
        );
        assert_eq!(out.status.code(), Some(124), "{line}: {stderr}");
        assert_eq!(text(&out.stdout), "", "{line}");
        assert!(
            stderr.contains("the line ran past its wall-time bound (1 s)"),
            "{line}: {stderr}"
        );
        assert_eq!(running(&argv), Vec::<i32>::new(), "{line}: left running");
    }
    let session = records(root.path())
        .into_iter()
        .find(|r| r["type"] == "session")
        .expect("session");
    assert_eq!(session["line_seconds"], 1, "the session says its bound");
    let bounds: Vec<Value> = records(root.path())
        .into_iter()
        .filter(|r| r["type"] == "bound")
        .collect();
    assert_eq!(bounds.len(), lines.len(), "{bounds:?}");
    assert_eq!(bounds[0]["bound"], "line-seconds");
    assert_eq!(bounds[0]["limit"], 1);
    let report = Command::new(env!("CARGO_BIN_EXE_guard-sh-audit"))
        .arg("--json")
        .arg(root.path().join("arm/audit/audit.jsonl"))
        .output()
        .expect("guard-sh-audit");
    assert_eq!(report.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&report.stdout).expect("report");
    assert!(
        finding_kinds(&report).contains(&"bound-hit".to_string()),
        "{report}"
    );

    let out = standalone_line(
        &definition,
        root.path(),
        "sleep 32.75 > /dev/null 2>&1 & echo started",
    );
    assert_eq!(text(&out.stdout), "started\n");
    std::thread::sleep(Duration::from_millis(1500));
    let job = running(&["sleep", "32.75"]);
    assert_eq!(job.len(), 1, "the background job outlives its line");
    // SAFETY: ending the sleep this test started.
    unsafe {
        libc::kill(job[0], libc::SIGKILL);
    }
}

/// The same bound under the launcher, with the line served: the trial
/// goes on, the harness gets 124, and the verifier names the bound.
#[test]
fn a_served_line_past_its_wall_time_bound_ends_with_124() {
    let Some((_turn, containment)) = containment("line bound") else {
        return;
    };
    let root = tempfile::tempdir().expect("tempdir");
    let definition = arm_with(root.path(), &["--max-line-seconds", "1"]);
    let started = Instant::now();
    let out = launch_line(
        &definition,
        root.path(),
        "sleep 33.25; echo after",
        &containment,
    )
    .output()
    .expect("launch");
    let stderr = text(&out.stderr);
    assert!(started.elapsed() < Duration::from_secs(15), "{stderr}");
    assert_eq!(out.status.code(), Some(124), "{stderr}");
    assert!(stderr.contains("wall-time bound (1 s)"), "{stderr}");
    let harness = records(root.path())
        .into_iter()
        .find(|r| r["type"] == "harness")
        .expect("harness");
    assert_eq!(harness["bounds"]["line_seconds"], 1, "{harness}");
    assert!(
        records(root.path()).iter().any(|r| r["type"] == "bound"),
        "no bound record"
    );
    let report = verify(root.path());
    assert!(
        finding_kinds(&report).contains(&"bound-hit".to_string()),
        "{report}"
    );
}

/// Many files, each far below the file bound, fill the trial's disk
/// bound: the launcher counts the bytes under `work/` and `tmp/`, ends the
/// whole trial past it, says so and records it. Judged by the time taken
/// and the records.
#[test]
fn files_past_the_trials_disk_bound_end_the_trial() {
    let Some(root) = ended_by_the_watch(
        "disk bound",
        ["--max-disk-mib", "2"],
        "for i in 1 2 3 4 5 6 7 8; do seq 1 200000 > f$i; done; sleep 30; echo after",
        "passed their bound (2 MiB): ending it",
        "disk",
    ) else {
        return;
    };
    let report = verify(root.path());
    assert!(
        finding_kinds(&report).contains(&"bound-hit".to_string()),
        "{report}"
    );
}
