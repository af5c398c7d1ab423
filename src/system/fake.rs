//! A simulated process layer for interpreter tests: nothing is started.
//!
//! Each spawn is recorded with its argv, envp, cwd and the descriptors the
//! child would inherit (named after what they were opened on), writes the
//! output the test scripted for its name to its standard output, and ends
//! with the status the test scripted. Output the shell writes to a
//! descriptor is kept per open file, so tests can read what `echo` wrote.
//!
//! A copy of the shell (subshell, pipeline member, substitution) is run in
//! this process: [`Processes::fork_shell`] returns [`Forked::Simulated`], the
//! shell runs the copy's work at once on a copy of its state, and
//! [`Processes::end_simulated_copy`] puts the parent's descriptors, folder,
//! mask and signals back. Copies therefore run one after the other, never side by
//! side: a pipe keeps everything written to it, and a read of an empty
//! pipe is the end of its input (a reader that expects a writer started
//! after it sees nothing).

use super::{
    Access, Disposition, ExitStatus, Fd, FileInfo, FileKind, Files, Forked, Host, Limit, Listing,
    OpenMode, Pid, ProcessGroup, Processes, Signals, SpawnError, SpawnRequest, Supervision,
    Terminal,
};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io;
use std::path::{Path, PathBuf};

/// What one spawn looked like.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpawnRecord {
    pub pid: Pid,
    pub path: PathBuf,
    pub argv: Vec<String>,
    pub envp: Vec<(String, String)>,
    pub cwd: PathBuf,
    /// Descriptor number → what it refers to (`stdin`, `stdout`, `stderr`,
    /// `file:PATH`, `pipe:N:r`/`pipe:N:w`).
    pub fds: BTreeMap<Fd, String>,
}

impl SpawnRecord {
    pub fn env(&self, name: &str) -> Option<&str> {
        self.envp
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Debug, Clone)]
struct OpenFile {
    label: String,
    inheritable: bool,
    /// Where the next read starts (a copy made by `dup2` reads on alone).
    offset: usize,
}

/// The simulated system.
#[derive(Debug)]
pub struct FakeSystem {
    fds: HashMap<Fd, OpenFile>,
    /// Bytes written per label (`stdout`, `stderr`, `file:…`).
    pub written: BTreeMap<String, Vec<u8>>,
    pub spawns: Vec<SpawnRecord>,
    /// Exit status per command name; default 0.
    pub statuses: HashMap<String, i32>,
    exits: HashMap<Pid, ExitStatus>,
    next_pid: Pid,
    next_pipe: u32,
    pub cwd: PathBuf,
    mask: u32,
    /// The files `file_info` knows, by absolute path (a relative one is
    /// taken from `cwd`; links are not modelled).
    pub files: BTreeMap<PathBuf, FileInfo>,
    /// The effective user and group ids.
    pub ids: (u32, u32),
    /// What `read_file` returns, by path as the table names it.
    pub contents: BTreeMap<PathBuf, Vec<u8>>,
    /// The parent's process id.
    pub ppid: Pid,
    /// The real user id (the effective one is `ids.0`).
    pub uid: u32,
    /// The next `random_bytes` fill: each byte one more than the last.
    next_random: u8,
    /// What `now` says: seconds since the epoch.
    pub now: i64,
    /// What `host_name` says.
    pub host: Option<Vec<u8>>,
    /// The soft and hard limit `resource_limit` gives for every resource.
    pub limits: (u64, u64),
    /// The user and system CPU seconds each `cpu_seconds` call adds.
    pub cpu_per_call: (f64, f64),
    cpu_calls: std::cell::Cell<u32>,
    /// What a spawned program writes to its standard output, by name.
    pub outputs: HashMap<String, Vec<u8>>,
    /// The pid of each copy of the shell, in the order they were made.
    pub copies: Vec<Pid>,
    /// The parents of the copy running now, innermost last.
    parents: Vec<ParentProcess>,
    /// Bytes of each pipe (`pipe:N`) already read.
    pipe_read: HashMap<String, usize>,
    /// What `trap` asked for each signal (absent: the shell's default).
    pub dispositions: BTreeMap<i32, Disposition>,
    /// Signals ignored when the shell started.
    pub ignored_at_start: BTreeSet<i32>,
    /// Signals that arrived at the shell and are not handled yet.
    pub received: BTreeSet<i32>,
    /// Every `kill`: the pid and the signal.
    pub kills: Vec<(Pid, i32)>,
    /// The signal the shell asked to die by, if it did.
    pub died_by: Option<i32>,
    /// When the line being run must have ended (`bound_line`).
    pub line_deadline: Option<std::time::Instant>,
    /// Names that are no program anywhere (every other name is one).
    pub nowhere: BTreeSet<String>,
}

/// What a simulated copy of the shell changes and its parent gets back.
#[derive(Debug)]
struct ParentProcess {
    copy: Pid,
    fds: HashMap<Fd, OpenFile>,
    cwd: PathBuf,
    mask: u32,
    dispositions: BTreeMap<i32, Disposition>,
    received: BTreeSet<i32>,
}

impl Default for FakeSystem {
    fn default() -> Self {
        Self::new()
    }
}

impl FakeSystem {
    pub fn new() -> Self {
        let mut fds = HashMap::new();
        for (fd, label) in [(0, "stdin"), (1, "stdout"), (2, "stderr")] {
            fds.insert(
                fd,
                OpenFile {
                    label: label.into(),
                    inheritable: true,
                    offset: 0,
                },
            );
        }
        FakeSystem {
            fds,
            written: BTreeMap::new(),
            spawns: Vec::new(),
            statuses: HashMap::new(),
            exits: HashMap::new(),
            next_pid: 1000,
            next_pipe: 0,
            cwd: PathBuf::from("/"),
            mask: 0o022,
            files: BTreeMap::new(),
            ids: (1000, 1000),
            contents: BTreeMap::new(),
            ppid: 998,
            uid: 1000,
            next_random: 0,
            now: 0,
            host: Some(b"fake-host".to_vec()),
            limits: (1024, 4096),
            cpu_per_call: (0.0, 0.0),
            cpu_calls: std::cell::Cell::new(0),
            outputs: HashMap::new(),
            copies: Vec::new(),
            parents: Vec::new(),
            pipe_read: HashMap::new(),
            dispositions: BTreeMap::new(),
            ignored_at_start: BTreeSet::new(),
            received: BTreeSet::new(),
            kills: Vec::new(),
            died_by: None,
            line_deadline: None,
            nowhere: BTreeSet::new(),
        }
    }

    /// Put a regular file holding `text` at `path` (mode 0644).
    pub fn add_text(&mut self, path: impl Into<PathBuf>, text: &[u8]) {
        let path = self.resolve(&path.into());
        self.add_file(path.clone(), FileKind::File, 0o644);
        self.set_contents(&path, text.to_vec());
    }

    /// `text` as the whole of the file at `path` (a table name), made a
    /// regular file with mode 0666 less the mask if the table lacks it.
    fn set_contents(&mut self, path: &Path, text: Vec<u8>) {
        if !self.files.contains_key(path) {
            self.add_file(path, FileKind::File, 0o666 & !self.mask);
        }
        if let Some(info) = self.files.get_mut(path) {
            info.size = text.len() as u64;
        }
        self.contents.insert(path.to_path_buf(), text);
    }

    /// Put a file of `kind` with permission bits `mode`, owned by the
    /// effective user, at `path` in the file table.
    pub fn add_file(&mut self, path: impl Into<PathBuf>, kind: FileKind, mode: u32) {
        let id = (0, self.files.len() as u64 + 1);
        let info = FileInfo {
            kind,
            mode,
            uid: self.ids.0,
            gid: self.ids.1,
            size: 0,
            id,
            modified: (0, 0),
            accessed: (0, 0),
        };
        self.files.insert(path.into(), info);
    }

    /// `path` as the table names it: from `cwd`, `.` and `..` applied by
    /// name.
    fn resolve(&self, path: &Path) -> PathBuf {
        crate::guard::lexical(&self.cwd.join(path))
    }

    /// The table's entry for `path`.
    fn file(&self, path: &Path) -> Option<&FileInfo> {
        self.files.get(&self.resolve(path))
    }

    /// Everything written to `label` so far, as text.
    pub fn output(&self, label: &str) -> String {
        self.written
            .get(label)
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default()
    }

    fn lowest_free(&self, from: Fd) -> Fd {
        let mut fd = from;
        while self.fds.contains_key(&fd) {
            fd += 1;
        }
        fd
    }

    fn insert(&mut self, label: String) -> Fd {
        let fd = self.lowest_free(3);
        self.fds.insert(
            fd,
            OpenFile {
                label,
                inheritable: false,
                offset: 0,
            },
        );
        fd
    }

    /// What a read of `fd` would still give: the rest of a file
    /// `add_text` filled, after the descriptor's offset; of a pipe's read
    /// end, what was written to it and not read yet; nothing for any other
    /// open file.
    fn unread(&self, fd: Fd) -> io::Result<&[u8]> {
        let file = self.fds.get(&fd).ok_or_else(Self::ebadf)?;
        if let Some(pipe) = Self::pipe_of(&file.label) {
            let written = self.written.get(&format!("{pipe}:w"));
            let read = self.pipe_read.get(pipe).copied().unwrap_or(0);
            return Ok(written.map_or(&[][..], |w| w.get(read..).unwrap_or_default()));
        }
        let text = file
            .label
            .strip_prefix("file:")
            .and_then(|path| self.contents.get(Path::new(path)));
        Ok(text.map_or(&[][..], |t| t.get(file.offset..).unwrap_or_default()))
    }

    /// `pipe:N` for the label of a pipe's read end.
    fn pipe_of(label: &str) -> Option<&str> {
        label.strip_suffix(":r").filter(|p| p.starts_with("pipe:"))
    }

    /// Move `fd` to the lowest free number at or above `min`.
    fn move_to(&mut self, fd: Fd, min: Fd) -> Fd {
        let Some(file) = self.fds.remove(&fd) else {
            return fd;
        };
        let new = self.lowest_free(min);
        self.fds.insert(new, file);
        new
    }

    fn is_trapped(&self, signal: i32) -> bool {
        self.dispositions.get(&signal) == Some(&Disposition::Catch)
    }

    /// Whether `signal` sent to the shell would reach it as a pending
    /// signal: a trap, or the shell's own SIGTERM/SIGHUP handler.
    fn is_caught(&self, signal: i32) -> bool {
        match self.dispositions.get(&signal) {
            Some(Disposition::Catch) => true,
            Some(Disposition::Ignore) => false,
            _ => [libc::SIGTERM, libc::SIGHUP].contains(&signal),
        }
    }

    fn ebadf() -> io::Error {
        io::Error::from_raw_os_error(libc::EBADF)
    }
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

impl Processes for FakeSystem {
    fn spawn(
        &mut self,
        req: &SpawnRequest,
        audit: &mut dyn crate::audit::AuditSink,
        before_release: &mut dyn FnMut(Pid, &mut dyn crate::audit::AuditSink) -> Result<(), String>,
    ) -> Result<Pid, SpawnError> {
        let pid = self.next_pid;
        self.next_pid += 1;
        before_release(pid, audit).map_err(SpawnError::Refused)?;
        let fds = self
            .fds
            .iter()
            .filter(|(_, f)| f.inheritable)
            .map(|(fd, f)| (*fd, f.label.clone()))
            .collect();
        let name = req.argv.first().map(|a| lossy(a)).unwrap_or_default();
        if let Some(output) = self.outputs.get(&name).cloned() {
            let stdout = self.fds.get(&1).filter(|f| f.inheritable);
            if let Some(label) = stdout.map(|f| f.label.clone()) {
                self.written.entry(label).or_default().extend(output);
            }
        }
        let status = self.statuses.get(&name).copied().unwrap_or(0);
        self.exits.insert(pid, ExitStatus::Exited(status));
        self.spawns.push(SpawnRecord {
            pid,
            path: req.path.clone(),
            argv: req.argv.iter().map(|a| lossy(a)).collect(),
            envp: req.envp.iter().map(|(k, v)| (lossy(k), lossy(v))).collect(),
            cwd: req.cwd.clone(),
            fds,
        });
        Ok(pid)
    }

    /// A copy run in this process (see the module docs): the parent's
    /// descriptors, folder, mask and signals are kept until the copy ends.
    fn fork_shell(&mut self, _pgroup: ProcessGroup) -> io::Result<Forked> {
        let copy = self.next_pid;
        self.next_pid += 1;
        self.copies.push(copy);
        self.parents.push(ParentProcess {
            copy,
            fds: self.fds.clone(),
            cwd: self.cwd.clone(),
            mask: self.mask,
            dispositions: self.dispositions.clone(),
            received: std::mem::take(&mut self.received),
        });
        Ok(Forked::Simulated(copy))
    }

    /// Never called: this system's copies are simulated.
    fn exit_child(&mut self, status: i32) -> ! {
        std::process::exit(status)
    }

    fn end_simulated_copy(&mut self, status: i32) {
        if let Some(parent) = self.parents.pop() {
            self.fds = parent.fds;
            self.cwd = parent.cwd;
            self.mask = parent.mask;
            self.dispositions = parent.dispositions;
            self.received = parent.received;
            self.exits
                .insert(parent.copy, ExitStatus::Exited(status & 0xff));
        }
    }

    fn wait(
        &mut self,
        pid: Pid,
        _audit: &mut dyn crate::audit::AuditSink,
    ) -> io::Result<ExitStatus> {
        self.exits
            .remove(&pid)
            .ok_or_else(|| io::Error::from_raw_os_error(libc::ECHILD))
    }

    /// The first of `pids` ends first: the table's processes end in order.
    fn wait_unless_trapped(
        &mut self,
        pids: &[Pid],
        audit: &mut dyn crate::audit::AuditSink,
    ) -> io::Result<Option<(Pid, ExitStatus)>> {
        let pid = *pids
            .first()
            .ok_or_else(|| io::Error::from_raw_os_error(libc::ECHILD))?;
        self.wait(pid, audit).map(|status| Some((pid, status)))
    }

    fn wait_or_stop(
        &mut self,
        pid: Pid,
        audit: &mut dyn crate::audit::AuditSink,
    ) -> io::Result<Result<ExitStatus, i32>> {
        self.wait(pid, audit).map(Ok)
    }

    fn try_wait(&mut self, pid: Pid) -> io::Result<Option<ExitStatus>> {
        self.exits
            .remove(&pid)
            .map(Some)
            .ok_or_else(|| io::Error::from_raw_os_error(libc::ECHILD))
    }

    /// 999 for the shell, a copy's own pid inside a copy.
    fn getpid(&self) -> Pid {
        self.parents.last().map_or(999, |p| p.copy)
    }

    /// Recorded; one sent to this process arrives if it is caught (a
    /// trap, or the shell's own SIGTERM/SIGHUP handler), else it is lost.
    fn kill(&mut self, pid: Pid, signal: i32) -> io::Result<()> {
        self.kills.push((pid, signal));
        if pid == self.getpid() && self.is_caught(signal) {
            self.received.insert(signal);
        }
        Ok(())
    }

    fn group_led_by(&self, _pid: Pid) -> Option<Pid> {
        None
    }

    fn parent_pid(&self) -> Pid {
        self.ppid
    }

    fn resource_limit(&self, _resource: Limit) -> io::Result<(u64, u64)> {
        Ok(self.limits)
    }

    fn set_process_group(&mut self, _pid: Pid, _pgid: Pid) -> io::Result<()> {
        Ok(())
    }

    fn bound_line(&mut self, within: Option<std::time::Duration>) {
        self.line_deadline = within.map(|d| std::time::Instant::now() + d);
    }

    fn line_bound_passed(&self) -> bool {
        self.line_deadline
            .is_some_and(|at| std::time::Instant::now() >= at)
    }

    /// Recorded in `died_by`; the test's process goes on.
    fn die_by(&mut self, signal: i32) -> i32 {
        self.died_by = Some(signal);
        128 + signal
    }

    /// `cpu_per_call` times the calls so far, this one included.
    fn cpu_seconds(&self) -> (f64, f64) {
        let calls = self.cpu_calls.get() + 1;
        self.cpu_calls.set(calls);
        let (user, system) = self.cpu_per_call;
        (user * f64::from(calls), system * f64::from(calls))
    }
}

impl Supervision for FakeSystem {}

impl Files for FakeSystem {
    fn private_pipe(&mut self) -> Option<(Fd, Fd)> {
        let (r, w) = self.pipe().ok()?;
        let floor = crate::os::private_fd::PRIVATE_FD_FLOOR;
        let r = self.move_to(r, floor);
        let w = self.move_to(w, floor);
        Some((r, w))
    }

    fn regular_file_at(&self, _fd: Fd) -> bool {
        false
    }

    fn rewind_by(&mut self, _fd: Fd, _bytes: usize) -> io::Result<()> {
        Err(io::Error::from_raw_os_error(libc::ESPIPE))
    }

    fn pipe(&mut self) -> io::Result<(Fd, Fd)> {
        let n = self.next_pipe;
        self.next_pipe += 1;
        let r = self.insert(format!("pipe:{n}:r"));
        let w = self.insert(format!("pipe:{n}:w"));
        Ok((r, w))
    }

    /// `/dev/fd/N` opens what descriptor N has open. Otherwise reading
    /// needs the file in the table; writing makes it (mode 0666 less the
    /// mask) and, unless appending, empties it; `exclusive` fails on a
    /// file that exists. Folders above a path are not checked.
    fn open(&mut self, path: &Path, mode: OpenMode) -> io::Result<Fd> {
        if let Some(fd) = path
            .strip_prefix("/dev/fd")
            .ok()
            .and_then(|n| n.to_str()?.parse::<Fd>().ok())
        {
            // The open file behind descriptor `fd` (a process substitution).
            let label = self.fds.get(&fd).ok_or_else(Self::ebadf)?.label.clone();
            return Ok(self.insert(label));
        }
        let path = self.resolve(path);
        let exists = self.files.contains_key(&path);
        match mode {
            OpenMode::Read if !exists => return Err(io::Error::from_raw_os_error(libc::ENOENT)),
            OpenMode::Write { exclusive: true } if exists => {
                return Err(io::Error::from_raw_os_error(libc::EEXIST));
            }
            OpenMode::Read => {}
            OpenMode::Write { .. } | OpenMode::Append | OpenMode::ReadWrite if !exists => {
                self.set_contents(&path, Vec::new());
            }
            OpenMode::Write { .. } | OpenMode::Append | OpenMode::ReadWrite => {}
        }
        Ok(self.insert(format!("file:{}", path.display())))
    }

    fn truncate(&mut self, fd: Fd) -> io::Result<()> {
        let label = self.fds.get(&fd).ok_or_else(Self::ebadf)?.label.clone();
        if let Some(path) = label.strip_prefix("file:").map(PathBuf::from) {
            self.set_contents(&path, Vec::new());
        }
        Ok(())
    }

    fn close(&mut self, fd: Fd) -> io::Result<()> {
        self.fds.remove(&fd).map(|_| ()).ok_or_else(Self::ebadf)
    }

    fn dup2(&mut self, from: Fd, to: Fd) -> io::Result<()> {
        let mut file = self.fds.get(&from).cloned().ok_or_else(Self::ebadf)?;
        file.inheritable = true;
        self.fds.insert(to, file);
        Ok(())
    }

    fn dup_saved(&mut self, fd: Fd) -> io::Result<Option<Fd>> {
        let Some(file) = self.fds.get(&fd).cloned() else {
            return Ok(None);
        };
        let new = self.lowest_free(crate::os::private_fd::PRIVATE_FD_FLOOR);
        self.fds.insert(
            new,
            OpenFile {
                inheritable: false,
                ..file
            },
        );
        Ok(Some(new))
    }

    fn move_inheritable(&mut self, fd: Fd, min: Fd) -> io::Result<Fd> {
        if !self.fds.contains_key(&fd) {
            return Err(Self::ebadf());
        }
        let new = self.move_to(fd, min);
        self.set_inheritable(new)?;
        Ok(new)
    }

    fn set_inheritable(&mut self, fd: Fd) -> io::Result<()> {
        let file = self.fds.get_mut(&fd).ok_or_else(Self::ebadf)?;
        file.inheritable = true;
        Ok(())
    }

    /// Kept per label; a file's bytes also go to its end in the table.
    fn write_all(&mut self, fd: Fd, data: &[u8]) -> io::Result<()> {
        let label = self.fds.get(&fd).ok_or_else(Self::ebadf)?.label.clone();
        if let Some(path) = label.strip_prefix("file:").map(PathBuf::from) {
            let mut text = self.contents.get(&path).cloned().unwrap_or_default();
            text.extend_from_slice(data);
            self.set_contents(&path, text);
        }
        self.written
            .entry(label)
            .or_default()
            .extend_from_slice(data);
        Ok(())
    }

    /// A file `add_text` filled and a pipe give their bytes (every copy
    /// of a pipe's read end reads on from the same place); anything else
    /// is empty.
    fn read(&mut self, fd: Fd, buf: &mut [u8]) -> io::Result<usize> {
        let rest = self.unread(fd)?;
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        if let Some(file) = self.fds.get_mut(&fd) {
            match Self::pipe_of(&file.label) {
                Some(pipe) => *self.pipe_read.entry(pipe.to_string()).or_default() += n,
                None => file.offset += n,
            }
        }
        Ok(n)
    }

    /// No signal arrives in the fake: a plain [`Files::read`].
    fn read_unless_terminated(&mut self, fd: Fd, buf: &mut [u8]) -> io::Result<usize> {
        self.read(fd, buf)
    }

    fn chdir(&mut self, path: &Path) -> io::Result<()> {
        self.cwd = path.to_path_buf();
        Ok(())
    }

    fn umask(&mut self, mask: u32) -> u32 {
        std::mem::replace(&mut self.mask, mask)
    }

    fn file_info(&self, path: &Path, _follow: bool) -> io::Result<FileInfo> {
        self.file(path)
            .copied()
            .ok_or_else(|| io::Error::from_raw_os_error(libc::ENOENT))
    }

    /// The owner's bits for the owner, the others' bits for everyone else
    /// (groups are not modelled).
    fn may_access(&self, path: &Path, access: Access) -> bool {
        let Some(info) = self.file(path) else {
            return false;
        };
        let shift = if info.uid == self.ids.0 { 6 } else { 0 };
        let bit = match access {
            Access::Read => 4,
            Access::Write => 2,
            Access::Execute => 1,
        };
        info.mode >> shift & bit != 0
    }

    fn effective_ids(&self) -> (u32, u32) {
        self.ids
    }

    /// `path` from `cwd`, `.` and `..` resolved by name (links are not
    /// modelled), if the table holds it.
    fn real_path(&self, path: &Path) -> io::Result<PathBuf> {
        let real = self.resolve(path);
        if self.files.contains_key(&real) {
            Ok(real)
        } else {
            Err(io::Error::from_raw_os_error(libc::ENOENT))
        }
    }

    fn read_file(&self, path: &Path) -> io::Result<Vec<u8>> {
        let path = self.resolve(path);
        match (self.contents.get(&path), self.files.get(&path)) {
            (Some(text), _) => Ok(text.clone()),
            (None, Some(info)) if info.kind == FileKind::Dir => {
                Err(io::Error::from_raw_os_error(libc::EISDIR))
            }
            (None, Some(_)) => Ok(Vec::new()),
            (None, None) => Err(io::Error::from_raw_os_error(libc::ENOENT)),
        }
    }

    fn current_dir(&self) -> io::Result<PathBuf> {
        Ok(self.cwd.clone())
    }

    fn real_user_id(&self) -> u32 {
        self.uid
    }

    /// Input is waiting on an open descriptor whose file `add_text` filled
    /// and which has bytes left; on anything else a wait times out.
    fn wait_readable(&self, fd: Fd, _seconds: f64) -> bool {
        self.unread(fd).is_ok_and(|rest| !rest.is_empty())
    }

    fn is_a_program(&self, name: &str) -> bool {
        !self.nowhere.contains(name)
    }

    /// The files of the table directly inside `dir` (a relative `dir`
    /// is taken from `cwd`).
    fn dir_names(&self, dir: &Path) -> io::Result<Listing> {
        use std::os::unix::ffi::OsStrExt;
        let dir = self.resolve(dir);
        match self.files.get(&dir) {
            Some(info) if info.kind == FileKind::Dir => {}
            Some(_) => return Err(io::Error::from_raw_os_error(libc::ENOTDIR)),
            None => return Err(io::Error::from_raw_os_error(libc::ENOENT)),
        }
        let names = self
            .files
            .keys()
            .filter(|p| p.parent() == Some(dir.as_path()))
            .filter_map(|p| p.file_name())
            .map(|n| n.as_bytes().to_vec())
            .collect();
        Ok(Listing { names, real: dir })
    }
}

impl Signals for FakeSystem {
    fn set_signal(&mut self, signal: i32, disposition: Disposition) {
        if disposition == Disposition::Default {
            self.received.remove(&signal);
        }
        self.dispositions.insert(signal, disposition);
    }

    fn ignored_at_entry(&self, signal: i32) -> bool {
        self.ignored_at_start.contains(&signal)
    }

    fn pending_termination(&self) -> Option<i32> {
        [libc::SIGTERM, libc::SIGHUP]
            .into_iter()
            .find(|s| self.received.contains(s) && !self.is_trapped(*s))
    }

    fn take_trapped(&mut self) -> Vec<i32> {
        let taken: Vec<i32> = self
            .received
            .iter()
            .copied()
            .filter(|s| self.is_trapped(*s))
            .collect();
        for s in &taken {
            self.received.remove(s);
        }
        taken
    }

    fn first_trapped_pending(&self) -> Option<i32> {
        self.received.iter().copied().find(|s| self.is_trapped(*s))
    }

    /// Traps are forgotten; the keyboard signals are not modelled.
    fn copy_signal_defaults(&mut self, _was_interactive: bool) {
        self.dispositions.retain(|_, d| *d != Disposition::Catch);
    }
}

impl Terminal for FakeSystem {
    fn isatty(&self, _fd: Fd) -> bool {
        false
    }

    fn tcsetpgrp(&mut self, _fd: Fd, _pgid: Pid) -> io::Result<()> {
        Ok(())
    }

    /// No descriptor of the fake is a terminal.
    fn terminal_name(&self, _fd: Fd) -> Option<Vec<u8>> {
        None
    }

    /// No descriptor of the fake is a terminal.
    fn raw_terminal(&mut self, _fd: Fd) -> Option<super::RawMode> {
        None
    }
}

impl Host for FakeSystem {
    fn random_bytes(&mut self, buf: &mut [u8]) {
        for b in buf {
            *b = self.next_random;
            self.next_random = self.next_random.wrapping_add(1);
        }
    }

    fn now(&self) -> i64 {
        self.now
    }

    fn host_name(&self) -> Option<Vec<u8>> {
        self.host.clone()
    }

    fn use_time_zone(&mut self, _zone: Option<&[u8]>) {}

    fn locale_exists(&self, _name: &[u8]) -> bool {
        true
    }
}
