//! The bounds the launcher counts itself while the harness runs: the
//! trial's CPU time (the cgroup's own count) and the bytes under the arm's
//! `work/` and `tmp/` (no kernel counter covers two folders of an ordinary
//! file system). Past either, the whole trial is ended.

use crate::sandbox::cgroup::TrialCgroup;
use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// One thread's watch over a running trial.
pub(super) struct TrialWatch<'a> {
    /// The trial's cgroup, for its CPU time and to end it; without one,
    /// ending the trial ends the harness.
    pub cgroup: Option<&'a TrialCgroup>,
    pub cpu_limit: Duration,
    /// The folders whose bytes count, and their bound.
    pub disk: Vec<PathBuf>,
    pub disk_limit: u64,
    stopped: AtomicBool,
    /// Processes the watcher ended, once a bound was passed.
    ended: AtomicUsize,
    /// The bound passed (`cpu`, `disk`), if one was.
    hit: Mutex<Option<&'static str>>,
}

impl<'a> TrialWatch<'a> {
    /// How often the counts are read: a loop on every core passes the CPU
    /// bound by at most this, times the cores; a writer passes the disk
    /// bound by at most what it writes in this time, or in ten times the
    /// walk when walking the folders takes longer (many files).
    const EVERY: Duration = Duration::from_millis(200);

    pub fn new(
        cgroup: Option<&'a TrialCgroup>,
        bounds: &crate::policy::Bounds,
        disk: Vec<PathBuf>,
    ) -> TrialWatch<'a> {
        TrialWatch {
            cgroup,
            cpu_limit: Duration::from_secs(bounds.cpu_seconds),
            disk,
            disk_limit: bounds.disk_mib.saturating_mul(1 << 20),
            stopped: AtomicBool::new(false),
            ended: AtomicUsize::new(0),
            hit: Mutex::new(None),
        }
    }

    /// Read the counts until [`TrialWatch::stop`] or a bound is passed.
    pub fn watch(&self) {
        // The next count of the bytes: a walk of many files is done at
        // most a tenth of the time, so the watch costs the machine little.
        let mut next_walk = Instant::now();
        while !self.stopped.load(Ordering::SeqCst) {
            std::thread::sleep(Self::EVERY);
            let walk = Instant::now() >= next_walk;
            let started = Instant::now();
            let passed = self.passed(walk);
            if walk {
                next_walk = Instant::now() + started.elapsed().saturating_mul(9);
            }
            if let Some(bound) = passed {
                *self.hit.lock().unwrap_or_else(PoisonError::into_inner) = Some(bound);
                self.ended.store(self.end_trial(), Ordering::SeqCst);
                return;
            }
        }
    }

    /// The bound the trial is past now, said on stderr; the bytes are
    /// counted only when `walk`.
    fn passed(&self, walk: bool) -> Option<&'static str> {
        let cpu = self.cgroup.and_then(TrialCgroup::cpu_time);
        if cpu.is_some_and(|used| used > self.cpu_limit) {
            eprintln!(
                "guard-sh-launch: the trial ran past its CPU time bound ({} s): ending it",
                self.cpu_limit.as_secs()
            );
            return Some("cpu");
        }
        if !walk {
            return None;
        }
        let used = disk_bytes(&self.disk);
        if used > self.disk_limit {
            eprintln!(
                "guard-sh-launch: the trial's files under {} passed their bound ({} MiB): ending it",
                self.disk
                    .iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" and "),
                self.disk_limit >> 20
            );
            return Some("disk");
        }
        None
    }

    /// End every process of the trial (or, without a cgroup, the harness)
    /// and say how many were ended.
    fn end_trial(&self) -> usize {
        match self.cgroup {
            Some(cgroup) => cgroup.end_all(Duration::from_secs(10)).unwrap_or(0),
            None => {
                let harness = super::HARNESS_PID.load(Ordering::SeqCst);
                // SAFETY: signalling the launcher's own child (the watch
                // starts once it is forked).
                let ended = harness > 0 && unsafe { libc::kill(harness, libc::SIGKILL) } == 0;
                usize::from(ended)
            }
        }
    }

    pub fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
    }

    /// What the watch ended and the bound it passed, once it has stopped.
    pub fn outcome(self) -> (usize, Option<&'static str>) {
        let hit = self
            .hit
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        (self.ended.into_inner(), hit)
    }
}

/// The bytes the files and folders under `roots` take on disk (allocated
/// blocks, so a sparse file counts what it holds), each inode once; links
/// are counted, never followed. A walk that takes longer than a second
/// stops there with what it counted (a folder of millions of names must
/// not stall the watch).
pub fn disk_bytes(roots: &[PathBuf]) -> u64 {
    let started = Instant::now();
    let mut seen = HashSet::new();
    let mut total = 0u64;
    let mut pending: Vec<PathBuf> = roots.to_vec();
    while let Some(path) = pending.pop() {
        if started.elapsed() > Duration::from_secs(1) {
            break;
        }
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if seen.insert((meta.dev(), meta.ino())) {
            total = total.saturating_add(meta.blocks().saturating_mul(512));
        }
        if meta.is_dir() {
            pending.extend(children(&path));
        }
    }
    total
}

fn children(folder: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(folder)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_count_written_blocks_once_per_inode_and_not_through_links() {
        let dir = tempfile::tempdir().expect("test setup");
        let root = dir.path().join("work");
        std::fs::create_dir_all(root.join("a/b")).expect("test setup");
        let empty = disk_bytes(std::slice::from_ref(&root));
        std::fs::write(root.join("a/b/one"), vec![7u8; 1 << 20]).expect("test setup");
        std::fs::hard_link(root.join("a/b/one"), root.join("a/two")).expect("test setup");
        let outside = dir.path().join("outside");
        std::fs::write(&outside, vec![7u8; 4 << 20]).expect("test setup");
        std::os::unix::fs::symlink(&outside, root.join("link")).expect("test setup");
        let sparse = std::fs::File::create(root.join("sparse")).expect("test setup");
        sparse.set_len(64 << 20).expect("test setup");
        let used = disk_bytes(std::slice::from_ref(&root)) - empty;
        assert!(
            ((1 << 20)..(1 << 20) + (64 << 10)).contains(&used),
            "one MiB written once, not the link's target nor the sparse length: {used}"
        );
    }
}
