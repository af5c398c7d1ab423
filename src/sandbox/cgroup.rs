//! A cgroup for one trial: the kernel counts every process of it and the
//! memory it uses, stops a fork bomb at the trial's bound instead of the
//! machine's, ends a memory bomb inside the trial, and ends every process
//! of the trial at its end, however it was started (`setsid`, double
//! fork, a job the line left).
//!
//! Where: beneath the cgroup the launcher itself is in, on the unified
//! hierarchy (cgroup v2) when it offers the `pids` controller there, else
//! on the v1 `pids`, `memory`, `freezer` and `cpuacct` hierarchies (machines that
//! still mount them have no controller on the unified one). Making one
//! needs write access there: root, or a delegated subtree. Where none can
//! be made, the trial runs without these bounds and its records say why.
//!
//! Ending a trial: v2 writes `cgroup.kill`, which the kernel applies to
//! every process at once; v1 freezes the group first (so nothing forks
//! while it is emptied), sends `SIGKILL` to each process, thaws it, and
//! repeats until it is empty.

use crate::policy::Bounds;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The prefix of every trial cgroup's name.
pub const NAME_PREFIX: &str = "guard-sh-";

/// How the bounds hold.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Groups {
    /// One group on the unified hierarchy.
    V2(PathBuf),
    /// A group on each v1 hierarchy that is mounted: `pids` always.
    V1 {
        pids: PathBuf,
        memory: Option<PathBuf>,
        freezer: Option<PathBuf>,
        /// Counts the group's CPU time (`cpuacct.usage`).
        cpuacct: Option<PathBuf>,
    },
}

/// One trial's cgroup, removed when dropped (once it is empty).
#[derive(Debug)]
pub struct TrialCgroup {
    groups: Groups,
}

impl TrialCgroup {
    /// Make the trial's group, named `NAME_PREFIX` + `trial`, with
    /// `bounds`. Errs with why none can be had here.
    pub fn create(trial: &str, bounds: &Bounds) -> Result<TrialCgroup, String> {
        let name = format!("{NAME_PREFIX}{trial}");
        let mounts = std::fs::read_to_string("/proc/self/mountinfo")
            .map_err(|e| format!("/proc/self/mountinfo: {e}"))?;
        let own = std::fs::read_to_string("/proc/self/cgroup")
            .map_err(|e| format!("/proc/self/cgroup: {e}"))?;
        let unified = own_group(&mounts, &own, None);
        let v2_error = match unified
            .as_deref()
            .map(|parent| make_v2(parent, &name, bounds))
        {
            Some(Ok(group)) => {
                return Ok(TrialCgroup {
                    groups: Groups::V2(group),
                });
            }
            Some(Err(e)) => e,
            None => "no cgroup2 mount".to_string(),
        };
        let Some(pids_parent) = own_group(&mounts, &own, Some("pids")) else {
            return Err(format!("{v2_error}, and no v1 pids hierarchy"));
        };
        let pids = make_dir(&pids_parent, &name)?;
        let cgroup = TrialCgroup {
            groups: Groups::V1 {
                pids: pids.clone(),
                memory: own_group(&mounts, &own, Some("memory"))
                    .and_then(|p| make_dir(&p, &name).ok()),
                freezer: own_group(&mounts, &own, Some("freezer"))
                    .and_then(|p| make_dir(&p, &name).ok()),
                cpuacct: own_group(&mounts, &own, Some("cpuacct"))
                    .and_then(|p| make_dir(&p, &name).ok()),
            },
        };
        write(&pids.join("pids.max"), &bounds.processes.to_string())?;
        if let Groups::V1 {
            memory: Some(memory),
            ..
        } = &cgroup.groups
        {
            write(
                &memory.join("memory.limit_in_bytes"),
                &(bounds.memory_mib << 20).to_string(),
            )?;
        }
        Ok(cgroup)
    }

    /// The CPU time the group's processes have used (those that ended
    /// included), when the kernel counts it here.
    pub fn cpu_time(&self) -> Option<Duration> {
        match &self.groups {
            Groups::V2(group) => {
                read_counter(&group.join("cpu.stat"), "usage_usec").map(Duration::from_micros)
            }
            Groups::V1 { cpuacct, .. } => {
                let usage =
                    std::fs::read_to_string(cpuacct.as_ref()?.join("cpuacct.usage")).ok()?;
                usage.trim().parse().ok().map(Duration::from_nanos)
            }
        }
    }

    /// How many processes are in the group now.
    pub fn population(&self) -> io::Result<usize> {
        Ok(read_pids(&self.folders()[0].join("cgroup.procs"))?.len())
    }

    /// `cgroup2`, `cgroup1` (with which v1 controllers), for the records.
    pub fn how(&self) -> String {
        match &self.groups {
            Groups::V2(_) => "cgroup2 (pids.max, memory.max, cgroup.kill)".into(),
            Groups::V1 {
                memory,
                freezer,
                cpuacct,
                ..
            } => {
                let mut parts = vec!["pids.max"];
                if memory.is_some() {
                    parts.push("memory.limit_in_bytes");
                }
                if freezer.is_some() {
                    parts.push("freezer");
                }
                if cpuacct.is_some() {
                    parts.push("cpuacct.usage");
                }
                format!("cgroup1 ({})", parts.join(", "))
            }
        }
    }

    /// The `cgroup.procs` files a process writes `0` to, to enter the group
    /// (one per hierarchy), opened now so that a process confined later
    /// can still enter through them.
    pub fn entry_files(&self) -> io::Result<Vec<std::fs::File>> {
        self.folders()
            .iter()
            .map(|folder| {
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(folder.join("cgroup.procs"))
            })
            .collect()
    }

    /// The bounds the trial ran into: `processes` when a fork failed at
    /// the bound, `memory` when the kernel ended a process for memory.
    pub fn bounds_hit(&self) -> Vec<String> {
        let mut hit = Vec::new();
        let (pids, memory_counter) = match &self.groups {
            Groups::V2(group) => (
                group.clone(),
                Some((group.join("memory.events"), "oom_kill")),
            ),
            Groups::V1 { pids, memory, .. } => (
                pids.clone(),
                memory
                    .as_ref()
                    .map(|m| (m.join("memory.oom_control"), "oom_kill")),
            ),
        };
        if counter(&pids.join("pids.events"), "max") > 0 {
            hit.push("processes".to_string());
        }
        if let Some((file, key)) = memory_counter
            && counter(&file, key) > 0
        {
            hit.push("memory".to_string());
        }
        hit
    }

    /// End every process in the group; how many there were. Waits (at
    /// most `patience`) until the group is empty.
    pub fn end_all(&self, patience: Duration) -> io::Result<usize> {
        let procs = self.folders()[0].join("cgroup.procs");
        let deadline = Instant::now() + patience;
        let mut ended = std::collections::BTreeSet::new();
        loop {
            self.freeze(true);
            let pids = read_pids(&procs)?;
            if pids.is_empty() {
                self.freeze(false);
                return Ok(ended.len());
            }
            match &self.groups {
                Groups::V2(group) => {
                    write(&group.join("cgroup.kill"), "1").map_err(io::Error::other)?
                }
                Groups::V1 { .. } => {
                    for &pid in &pids {
                        // SAFETY: kill(2) with integer arguments; each pid is
                        // in the trial's group, which holds nothing else.
                        unsafe {
                            libc::kill(pid, libc::SIGKILL);
                        }
                    }
                }
            }
            ended.extend(pids);
            self.freeze(false);
            if Instant::now() > deadline {
                return Err(io::Error::other(format!(
                    "processes of the trial are still alive after {patience:?}"
                )));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// v1: freeze (`true`) or thaw the group, when it has a freezer; a
    /// freeze waits a little for the group to be frozen.
    fn freeze(&self, frozen: bool) {
        let Groups::V1 {
            freezer: Some(freezer),
            ..
        } = &self.groups
        else {
            return;
        };
        let state = freezer.join("freezer.state");
        let wanted = if frozen { "FROZEN" } else { "THAWED" };
        if write(&state, wanted).is_err() || !frozen {
            return;
        }
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if std::fs::read_to_string(&state).is_ok_and(|s| s.trim() == "FROZEN") {
                return;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// The group's folder on each hierarchy, the one that counts
    /// processes first.
    fn folders(&self) -> Vec<PathBuf> {
        match &self.groups {
            Groups::V2(group) => vec![group.clone()],
            Groups::V1 {
                pids,
                memory,
                freezer,
                cpuacct,
            } => std::iter::once(pids.clone())
                .chain(memory.clone())
                .chain(freezer.clone())
                .chain(cpuacct.clone())
                .collect(),
        }
    }
}

impl Drop for TrialCgroup {
    fn drop(&mut self) {
        for folder in self.folders() {
            let _ = std::fs::remove_dir(folder);
        }
    }
}

/// Enter the groups whose `cgroup.procs` files are `entries` (from
/// [`TrialCgroup::entry_files`]): only a `write(2)` each, safe after
/// `fork`. Returns the errno of the first that failed.
pub fn enter(entries: &[std::os::fd::RawFd]) -> Result<(), i32> {
    for &fd in entries {
        // SAFETY: write(2) of a two-byte literal to a descriptor the caller
        // holds open.
        let written = unsafe { libc::write(fd, b"0\n".as_ptr().cast(), 2) };
        if written < 0 {
            return Err(io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO));
        }
    }
    Ok(())
}

/// A v2 group `name` beneath `parent`, with `pids` (and `memory`, where
/// offered) enabled for it and bounded.
fn make_v2(parent: &Path, name: &str, bounds: &Bounds) -> Result<PathBuf, String> {
    let offered = std::fs::read_to_string(parent.join("cgroup.controllers")).unwrap_or_default();
    let offered: Vec<&str> = offered.split_whitespace().collect();
    if !offered.contains(&"pids") {
        return Err(format!("{} offers no pids controller", parent.display()));
    }
    let enabled =
        std::fs::read_to_string(parent.join("cgroup.subtree_control")).unwrap_or_default();
    for controller in ["pids", "memory"] {
        if offered.contains(&controller) && !enabled.split_whitespace().any(|c| c == controller) {
            write(
                &parent.join("cgroup.subtree_control"),
                &format!("+{controller}"),
            )?;
        }
    }
    let group = make_dir(parent, name)?;
    write(&group.join("pids.max"), &bounds.processes.to_string())?;
    if offered.contains(&"memory") {
        write(
            &group.join("memory.max"),
            &(bounds.memory_mib << 20).to_string(),
        )?;
    }
    Ok(group)
}

/// The folder of this process's own group on the hierarchy that has
/// `controller` (v1), or on the unified one (`None`): its mount point
/// joined with the group's path below the mount's root.
fn own_group(mountinfo: &str, own: &str, controller: Option<&str>) -> Option<PathBuf> {
    let path = own.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (id, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let wanted = match controller {
            None => id == "0" && controllers.is_empty(),
            Some(c) => controllers.split(',').any(|have| have == c),
        };
        wanted.then_some(path)
    })?;
    mountinfo.lines().find_map(|line| {
        // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER
        let (before, after) = line.split_once(" - ")?;
        let fields: Vec<&str> = before.split(' ').collect();
        let mut after = after.split(' ');
        let (fstype, super_options) = (after.next()?, after.nth(1)?);
        let matches = match controller {
            None => fstype == "cgroup2",
            Some(c) => fstype == "cgroup" && super_options.split(',').any(|o| o == c),
        };
        if !matches {
            return None;
        }
        let (root, point) = (fields.get(3)?, fields.get(4)?);
        let below = path
            .strip_prefix(root)
            .unwrap_or(path)
            .trim_start_matches('/');
        Some(Path::new(point).join(below))
    })
}

fn make_dir(parent: &Path, name: &str) -> Result<PathBuf, String> {
    let dir = parent.join(name);
    match std::fs::create_dir(&dir) {
        Ok(()) => Ok(dir),
        Err(e) => Err(format!("{}: {e}", dir.display())),
    }
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The number after `key` in a `KEY VALUE` lines file; 0 when absent.
fn counter(file: &Path, key: &str) -> u64 {
    read_counter(file, key).unwrap_or(0)
}

/// [`counter`], or None when the file cannot be read (the kernel does not
/// count it here).
fn read_counter(file: &Path, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    Some(
        text.lines()
            .find_map(|line| {
                let (k, v) = line.split_once(' ')?;
                (k == key).then(|| v.trim().parse().ok()).flatten()
            })
            .unwrap_or(0),
    )
}

fn read_pids(procs: &Path) -> io::Result<Vec<libc::pid_t>> {
    Ok(std::fs::read_to_string(procs)?
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOUNTS: &str = "\
30 25 0:26 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
31 25 0:27 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
32 25 0:28 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
33 25 0:29 /inner /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer
";
    const OWN: &str = "8:pids:/\n4:memory:/api/abc\n6:freezer:/inner/x\n0::/\n";

    #[test]
    fn each_hierarchys_own_group_is_found_below_its_mount() {
        assert_eq!(
            own_group(MOUNTS, OWN, Some("pids")),
            Some(PathBuf::from("/sys/fs/cgroup/pids"))
        );
        assert_eq!(
            own_group(MOUNTS, OWN, Some("memory")),
            Some(PathBuf::from("/sys/fs/cgroup/memory/api/abc"))
        );
        assert_eq!(
            own_group(MOUNTS, OWN, Some("freezer")),
            Some(PathBuf::from("/sys/fs/cgroup/freezer/x"))
        );
        assert_eq!(
            own_group(MOUNTS, OWN, None),
            Some(PathBuf::from("/sys/fs/cgroup/unified"))
        );
        assert_eq!(own_group(MOUNTS, OWN, Some("cpu")), None);
    }

    #[test]
    fn counters_are_read_by_key() {
        let dir = std::env::temp_dir().join(format!("guard-sh-counter-{}", std::process::id()));
        std::fs::write(&dir, "low 0\nmax 7\n").expect("write");
        assert_eq!(counter(&dir, "max"), 7);
        assert_eq!(counter(&dir, "oom_kill"), 0);
        let _ = std::fs::remove_file(&dir);
    }
}
