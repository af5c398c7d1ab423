//! The audit log cannot be touched from inside the shell: no redirection,
//! `exec`, `/dev/fd/N` or `/proc/*/fd/N` path reaches the descriptors
//! guard-sh holds for itself (the log, its copies for forked shells, the
//! abort pipe), found at run time or guessed, in subshells, `$(…)`,
//! pipelines and stdin sessions.
//!
//! Judged from outside guard-sh: `strace -f` of the whole run gives every
//! program that started, and each must have its `spawn` record; the log's
//! bytes must be records of guard-sh's own (valid JSON, chains intact, the
//! attack's marker only inside the records that quote the line). Each
//! attack runs with Landlock on and with `GUARD_SH_LANDLOCK=off`, where the
//! guard alone must hold.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)] // test code reports failures by panicking

use crate::common;
use crate::sandbox_support;

use guard_sh::policy::Policy;
use proptest::prelude::*;
use serde_json::Value;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The text an attack tries to get into the log.
const MARKER: &str = "FORGED";

/// Record types that quote the agent's line (or an argv of it), where the
/// marker may appear.
const QUOTING_TYPES: [&str; 4] = ["line", "verdict", "denied", "error"];

const STRACE: &str = "/usr/bin/strace";

/// The raw-api arm built by arm-build into a temp folder.
struct Trial {
    _dir: tempfile::TempDir,
    arm: PathBuf,
    work: PathBuf,
    log: PathBuf,
}

impl Trial {
    fn new() -> Trial {
        let dir = tempfile::tempdir().unwrap();
        let arm = dir.path().join("arm");
        common::ArmBuild::new("raw-api", "http://127.0.0.1:3999", &arm).run();
        let policy = Policy::load(&arm.join("policy.json")).unwrap();
        let log = policy.audit.path.clone().expect("the arm names its log");
        Trial {
            work: arm.join("work"),
            arm,
            log,
            _dir: dir,
        }
    }

    /// guard-sh reading `script` as a stdin session, under `strace -f` when
    /// `traced`; returns the programs strace saw start (guard-sh excluded).
    fn run(&self, script: &str, landlock: bool, traced: bool) -> Vec<String> {
        let trace = self.work.join("../trace.out");
        let mut cmd = if traced {
            let mut c = Command::new(STRACE);
            c.args(["-f", "-qq", "-e", "trace=execve", "-o"])
                .arg(&trace)
                .arg(common::guard_sh());
            c
        } else {
            Command::new(common::guard_sh())
        };
        cmd.env_clear()
            .env("HOME", &self.work)
            .env("LC_ALL", "C")
            .env("GUARD_SH_POLICY", self.policy_path())
            .env("GUARD_SH_AUDIT", &self.log)
            .current_dir(&self.work)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if !landlock {
            cmd.env("GUARD_SH_LANDLOCK", "off");
        }
        // Only 0-2 are passed on: a descriptor this test inherited (from
        // whatever started it) must not be what an attack line writes to.
        // SAFETY: close_range is async-signal-safe; nothing else runs
        // between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32);
                Ok(())
            });
        }
        let mut child = cmd.spawn().expect("run guard-sh");
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(script.as_bytes()).unwrap();
        drop(stdin);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while child.try_wait().unwrap().is_none() {
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                panic!("guard-sh hung on {script:?}");
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let out = child.wait_with_output().unwrap();
        let stderr = common::text(&out.stderr);
        assert!(
            out.status.code().is_some(),
            "guard-sh died of a signal on {script:?}: {stderr}"
        );
        if !traced {
            return Vec::new();
        }
        let text = sandbox_support::join_resumed(&std::fs::read_to_string(&trace).unwrap());
        let started: Vec<String> = text
            .lines()
            .filter(|l| l.contains("execve(\"") && l.trim_end().ends_with("= 0"))
            .filter_map(|l| l.split('"').nth(1).map(str::to_string))
            .collect();
        assert_eq!(
            started.first().map(PathBuf::from),
            Some(common::guard_sh()),
            "{text}"
        );
        started[1..].to_vec()
    }

    fn policy_path(&self) -> PathBuf {
        self.arm.join("policy.json")
    }
}

/// Every line of the log is a record guard-sh wrote: JSON, chains intact
/// (the verifier finds no corrupt, torn or broken record), the marker only
/// inside records that quote the line. Returns the records.
fn assert_log_is_guard_shs_own(log: &Path, attack: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(log).unwrap();
    assert!(
        text.ends_with('\n'),
        "{attack}: the log ends in a torn record"
    );
    let records: Vec<Value> = text
        .lines()
        .map(|l| {
            serde_json::from_str(l).unwrap_or_else(|e| {
                panic!("{attack}: a line of the log is not a record ({e}): {l}")
            })
        })
        .collect();
    for r in &records {
        let kind = r["type"].as_str().unwrap_or_default();
        if !QUOTING_TYPES.contains(&kind) {
            assert!(
                !r.to_string().contains(MARKER),
                "{attack}: a `{kind}` record carries the marker: {r}"
            );
        }
    }
    let out = Command::new(env!("CARGO_BIN_EXE_guard-sh-audit"))
        .arg("--json")
        .arg(log)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let broken: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| {
            ["corrupt", "truncated", "chain-break"].contains(&f["kind"].as_str().unwrap_or(""))
        })
        .collect();
    assert!(broken.is_empty(), "{attack}: {broken:?}");
    records
}

/// Paths of the `spawn` records, in order.
fn spawned(records: &[Value]) -> Vec<String> {
    records
        .iter()
        .filter(|r| r["type"] == "spawn")
        .map(|r| r["path"].as_str().unwrap().to_string())
        .collect()
}

/// Lines that try to write, forge, silence or drain through guard-sh's
/// own descriptors. Each is followed in the session by `seq 7 7`, whose
/// spawn must still be recorded.
const ATTACKS: &[&str] = &[
    // The number found at run time, then used through eval.
    r#"for n in $(seq 3 400); do if [ /proc/$$/fd/$n -ef "$GUARD_SH_AUDIT" ]; then eval "echo '{\"FORGED\":1}' >&$n"; fi; done"#,
    r#"for n in $(seq 3 400); do if [ /proc/$$/fd/$n -ef "$GUARD_SH_AUDIT" ]; then eval "exec $n>/dev/null"; fi; done"#,
    // Guessed numbers: write, dup, close, replace, read-write.
    r#"n=256; eval "echo FORGED >&$n""#,
    r#"echo FORGED >&256"#,
    r#"exec 256>/dev/null 257>/dev/null"#,
    r#"for n in 256 257 258 259 260 261; do eval "exec $n>&-"; done"#,
    r#"for n in 256 257 258 259; do eval "exec 3>&$n"; echo FORGED >&3; done"#,
    r#"for n in 256 257 258 259; do eval "exec $n<>/dev/null"; done"#,
    r#"for n in 258 259; do eval "cat <&$n"; done"#,
    // Paths to the descriptors.
    r#"echo FORGED >> /proc/self/fd/256"#,
    r#"echo FORGED >> /dev/fd/257"#,
    r#"echo FORGED > /proc/$$/fd/256"#,
    r#"echo FORGED 1<> /proc/$$/fd/257"#,
    r#"cat < /proc/self/fd/258 > /dev/null"#,
    r#"for n in $(seq 250 270); do echo FORGED >> /proc/$$/fd/$n; done"#,
    // The same from a subshell, a command substitution and a pipeline.
    r#"( echo FORGED >&257; echo FORGED >> /proc/self/fd/256 )"#,
    r#"x=$(echo FORGED >> /dev/fd/256; n=257; eval "echo FORGED >&$n")"#,
    r#"echo FORGED | { cat >> /proc/self/fd/256; }"#,
    r#"echo FORGED | tee -a /proc/$$/fd/256 /proc/$$/fd/257"#,
];

fn attack_and_check(trial: &Trial, attack: &str, landlock: bool) {
    let script = format!("{attack}\nseq 7 7\n");
    let _ = std::fs::remove_file(&trial.log);
    let started = trial.run(&script, landlock, true);
    let records = assert_log_is_guard_shs_own(&trial.log, attack);
    let mut recorded = spawned(&records);
    let mut started = started;
    recorded.sort();
    started.sort();
    assert_eq!(
        recorded, started,
        "{attack} (landlock {landlock}): the spawn records differ from what strace saw start"
    );
    let last_spawn = records.iter().rev().find(|r| r["type"] == "spawn");
    assert_eq!(
        last_spawn.map(|r| r["argv"].clone()),
        Some(serde_json::json!(["seq", "7", "7"])),
        "{attack} (landlock {landlock}): the line after the attack was not recorded"
    );
}

#[test]
fn no_line_reaches_guard_shs_descriptors_with_landlock() {
    let trial = Trial::new();
    for attack in ATTACKS {
        attack_and_check(&trial, attack, true);
    }
}

#[test]
fn no_line_reaches_guard_shs_descriptors_with_the_guard_alone() {
    let trial = Trial::new();
    for attack in ATTACKS {
        attack_and_check(&trial, attack, false);
    }
}

#[test]
fn a_descriptor_number_guard_sh_reserves_is_refused_with_a_reason() {
    let trial = Trial::new();
    for line in ["echo hi >&300", "exec 256<&-", "cat <&999"] {
        let out = common::guard_cmd_with(&trial.policy_path(), &trial.log, &trial.work)
            .args(["-c", line])
            .output()
            .unwrap();
        let stderr = common::text(&out.stderr);
        assert_eq!(out.status.code(), Some(126), "{line}: {stderr}");
        assert!(
            stderr.contains("is reserved for guard-sh's own use"),
            "{line}: {stderr}"
        );
    }
    // Numbers below the floor are the line's own, as in bash.
    let out = common::guard_cmd_with(&trial.policy_path(), &trial.log, &trial.work)
        .args(["-c", "exec 9>&1; echo nine >&9; exec 9>&-"])
        .output()
        .unwrap();
    assert_eq!(common::text(&out.stdout), "nine\n");
}

/// One redirection over a descriptor number chosen from the line's own
/// range, guard-sh's range and the edges between.
fn redirection() -> impl Strategy<Value = String> {
    let number = prop_oneof![0u32..12, 250u32..264, 0u32..400];
    // Descriptors an `exec` may replace: not 0, which is where the
    // session's next lines come from.
    let target = prop_oneof![1u32..12, 250u32..264, 1u32..400];
    // `exec N<>/proc/self/fd/0` would hold a writer of the session's own
    // stdin pipe, which then never ends (bash waits the same way): the
    // paths an `exec` keeps open name descriptors from 3 up, and no `exec`
    // copies 0 elsewhere (`exec 5<&0; exec 2<>/proc/self/fd/5` waits
    // forever in bash too).
    let kept = prop_oneof![3u32..12, 250u32..264, 3u32..400];
    let source = prop_oneof![1u32..12, 250u32..264, 1u32..400];
    let kept_path = prop_oneof![
        Just("/dev/null".to_string()),
        kept.clone().prop_map(|n| format!("/proc/self/fd/{n}")),
        kept.prop_map(|n| format!("/dev/fd/{n}")),
    ];
    let path = prop_oneof![
        Just("/dev/null".to_string()),
        number.clone().prop_map(|n| format!("/proc/self/fd/{n}")),
        number.clone().prop_map(|n| format!("/dev/fd/{n}")),
        number.clone().prop_map(|n| format!("/proc/$$/fd/{n}")),
    ];
    prop_oneof![
        (target.clone(), source.clone()).prop_map(|(a, b)| format!("exec {a}>&{b}")),
        (target.clone(), source).prop_map(|(a, b)| format!("exec {a}<&{b}")),
        target.clone().prop_map(|a| format!("exec {a}>&-")),
        (target, kept_path).prop_map(|(a, p)| format!("exec {a}<>{p}")),
        number.clone().prop_map(|a| format!("echo {MARKER} >&{a}")),
        path.clone().prop_map(|p| format!("echo {MARKER} >> {p}")),
        path.prop_map(|p| format!("echo {MARKER} > {p}")),
        number
            .clone()
            .prop_map(|a| format!("n={a}; eval \"echo {MARKER} >&$n\"")),
        number.prop_map(|a| format!("( exec {a}>&- ; echo {MARKER} >&{a} )")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Random redirections over random descriptor numbers, guard alone:
    /// the log holds only guard-sh's records, and the session's last
    /// command is still recorded.
    #[test]
    fn random_redirections_leave_the_log_to_guard_sh(lines in proptest::collection::vec(redirection(), 1..8)) {
        let trial = Trial::new();
        let mut script = lines.join("\n");
        script.push_str("\nseq 7 7\n");
        trial.run(&script, false, false);
        let records = assert_log_is_guard_shs_own(&trial.log, &script);
        let last_spawn = records.iter().rev().find(|r| r["type"] == "spawn");
        prop_assert_eq!(
            last_spawn.map(|r| r["argv"].clone()),
            Some(serde_json::json!(["seq", "7", "7"])),
            "{}", script
        );
    }
}
