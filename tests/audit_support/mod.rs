//! Shared setup for the audit tests that run the guard-sh binary: stub
//! programs that leave marker files, a test arm that allows them, reading
//! a log back, running the verifier, and a tiny tmpfs.

#![allow(clippy::expect_used, dead_code, clippy::panic)] // test code reports failures by panicking

pub use crate::common::*;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A test arm with `mark FILE` (creates FILE) and `selfkill` (dies of
/// SIGKILL) besides the common utilities, and a work folder.
pub struct AuditArm {
    pub arm: TestArm,
    pub work: PathBuf,
    _stubs: tempfile::TempDir,
}

impl AuditArm {
    pub fn new() -> AuditArm {
        let stubs_dir = tempfile::tempdir().expect("tempdir");
        let stubs = stubs_dir.path();
        let mark = write_stub(stubs, "mark", "#!/bin/sh\n: > \"$1\"\n");
        let selfkill = write_stub(stubs, "selfkill", "#!/bin/sh\nkill -KILL $$\n");
        let arm = test_arm(&[("mark", mark), ("selfkill", selfkill)], None);
        let work = arm.dir.path().join("work");
        std::fs::create_dir(&work).expect("work");
        AuditArm {
            arm,
            work,
            _stubs: stubs_dir,
        }
    }

    /// guard-sh with this arm's policy, logging to `log`, in the work folder.
    pub fn guard(&self, log: &Path) -> Command {
        let mut c = guard_cmd(&self.arm, &self.work);
        c.env("GUARD_SH_AUDIT", log);
        c
    }

    /// A marker path in the work folder.
    pub fn marker(&self, name: &str) -> PathBuf {
        self.work.join(name)
    }
}

impl Default for AuditArm {
    fn default() -> Self {
        AuditArm::new()
    }
}

/// Every record of a log, parsed; panics on a line that is not JSON or a
/// final line without newline (a torn record).
pub fn records(log: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(log).expect("read log");
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "the log ends in a torn record"
    );
    text.lines()
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("line {}: not JSON ({e}): {l}", i + 1))
        })
        .collect()
}

/// Records of one type.
pub fn of_type<'a>(records: &'a [Value], kind: &str) -> Vec<&'a Value> {
    records.iter().filter(|r| r["type"] == kind).collect()
}

/// Run `guard-sh-audit --json LOGS…`: its exit status and parsed report.
pub fn verify_json(logs: &[&Path]) -> (i32, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_guard-sh-audit"))
        .arg("--json")
        .args(logs)
        .output()
        .expect("run guard-sh-audit");
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("report is not JSON ({e}): {}", text(&out.stdout)));
    (out.status.code().unwrap_or(-1), report)
}

/// Poll until `cond` holds (10 s at most).
pub fn wait_until(what: &str, cond: impl Fn() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !cond() {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// A tmpfs of a few KiB mounted for one test, unmounted on drop.
pub struct Tmpfs {
    pub dir: tempfile::TempDir,
}

impl Tmpfs {
    /// Mount one with `options` (e.g. `size=64k`), or `None` where mounting
    /// is not permitted (not root, no `CAP_SYS_ADMIN`).
    pub fn mount(options: &str) -> Option<Tmpfs> {
        let dir = tempfile::tempdir().expect("tempdir");
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", options, "tmpfs"])
            .arg(dir.path())
            .status()
            .is_ok_and(|s| s.success());
        ok.then_some(Tmpfs { dir })
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Fill the filesystem: append 4 KiB blocks to a filler file until the
    /// kernel says it is full.
    pub fn fill(&self) {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.path("filler"))
            .expect("filler");
        let block = [b'f'; 4096];
        loop {
            match f.write(&block) {
                Ok(n) if n == block.len() => continue,
                Ok(_) => continue,
                Err(e) => {
                    assert_eq!(e.raw_os_error(), Some(libc::ENOSPC), "filling: {e}");
                    return;
                }
            }
        }
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

/// Set to `1` to let the tmpfs tests pass without running where no tmpfs
/// can be mounted (not root); unset, such a test fails, so a skip never
/// reads as a pass by accident.
pub const ALLOW_SKIP_ENV: &str = "GUARD_SH_TEST_ALLOW_SKIP";

/// A test that could not run here: fails, unless [`ALLOW_SKIP_ENV`] says
/// to skip it (then it says so loudly).
pub fn skipped(test: &str, why: &str) {
    if std::env::var_os(ALLOW_SKIP_ENV).is_some_and(|v| v == "1") {
        eprintln!("\n*** SKIPPED {test}: {why} ({ALLOW_SKIP_ENV}=1) ***\n");
        return;
    }
    panic!("{test}: {why}; run as root, or set {ALLOW_SKIP_ENV}=1 to skip it knowingly");
}
