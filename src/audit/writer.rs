//! The log writer: appends one hash-chained JSON line per event, with one
//! `write(2)` per record, or fails.
//!
//! Guarantees:
//! - The file is opened with `O_APPEND` (created with mode 0600 if new, its
//!   missing parent folders with 0700). Each record, newline included, goes
//!   out in a single `write(2)`; on a local filesystem the kernel appends it
//!   whole, so records of concurrent sessions never interleave. A short write
//!   (full filesystem) is an error, and its bytes are cut back off the file
//!   so later sessions append clean lines. Room for one short `unrecorded`
//!   note is kept allocated past the end of the file (`fallocate`, size
//!   unchanged), so a session whose record failed for lack of space still
//!   says so, and the verifier names it.
//! - The descriptor is private to guard-sh ([`private_fd`]). Before each
//!   write it is checked with `fstat` and `F_GETFL` (still the file opened,
//!   still appending) and the path with `stat`: if the path is gone
//!   (removed, moved away) or names another file (replaced), recording fails
//!   rather than writing where nobody will look.
//! - Every string is redacted ([`Redactor`]) before serialization.
//! - The first record must be [`Event::Session`]; later ones must not be.
//! - After a failure that may have left bytes in the file (short write, file
//!   gone) the sink refuses every later record. A failed `write(2)` that wrote
//!   nothing (e.g. `ENOSPC`) leaves the chain intact, so a later record may
//!   succeed.
//! - Records are not `fsync`ed: they survive guard-sh crashing, not the
//!   machine losing power.

use super::record::{ZERO_HASH, encode_record, line_hash, now_rfc3339};
use super::trial::TrialKey;
use super::{AuditError, AuditSink, Event, Redactor};
use crate::os::private_fd;
use std::fs::{DirBuilder, File, OpenOptions};
use std::io::{ErrorKind, Seek, Write};
use std::os::fd::{AsRawFd, FromRawFd, IntoRawFd};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// An [`AuditSink`] appending to a JSON Lines file.
#[derive(Debug)]
pub struct FileSink {
    file: File,
    path: PathBuf,
    /// Device and inode of the file at open time.
    identity: (u64, u64),
    redactor: Redactor,
    session: String,
    next_seq: u64,
    prev: String,
    /// Set once the file can no longer be trusted to hold a clean chain.
    broken: Option<String>,
    /// Whether the filesystem takes `fallocate` (to keep room for a note).
    can_reserve: bool,
    /// The trial's key: every record is sealed with it ([`super::trial`]).
    seal: Option<TrialKey>,
}

/// Room kept allocated past the log's end for one `unrecorded` note.
const UNRECORDED_RESERVE: usize = 1024;

impl FileSink {
    /// Open (or create) the log at `path` for a new session.
    pub fn open(path: &Path, redactor: Redactor) -> Result<FileSink, AuditError> {
        let io = |e: std::io::Error| AuditError::io(path, e);
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            if !parent.exists() {
                DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(parent)
                    .map_err(io)?;
            }
        }
        // Non-blocking, so a FIFO with no reader does not hold the shell
        // (it fails, `ENXIO`, or is refused below); no effect on a file.
        let opened = OpenOptions::new()
            .append(true)
            .create(true)
            .mode(0o600)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
            .open(path)
            .map_err(io)?;
        // Among guard-sh's private descriptors, which no line can name.
        let fd = private_fd::claim(opened.into_raw_fd()).map_err(io)?;
        // SAFETY: `fd` was just returned by claim and nothing else owns it.
        let file = unsafe { File::from_raw_fd(fd) };
        let meta = file.metadata().map_err(io)?;
        // Only a regular file keeps what is written to it: `/dev/null`, a
        // FIFO or a terminal would let every line run unrecorded.
        if !meta.is_file() {
            let why = if meta.is_dir() {
                "is a folder"
            } else {
                "is not a regular file (a device, a FIFO or a socket keeps no record)"
            };
            return Err(AuditError::Unusable {
                path: path.to_path_buf(),
                why: why.into(),
            });
        }
        Ok(FileSink {
            file,
            path: path.to_path_buf(),
            identity: (meta.dev(), meta.ino()),
            redactor,
            session: new_session_id()?,
            next_seq: 0,
            prev: ZERO_HASH.to_string(),
            broken: None,
            can_reserve: true,
            seal: None,
        })
    }

    /// A sink for a new session on the same open log file: the descriptor
    /// is duplicated (so `O_APPEND` and the file's identity carry over and
    /// the path is never opened again), the copy private and close-on-exec
    /// ([`private_fd`]), and the session id, sequence and hash chain start
    /// afresh. A forked copy of the shell records through one of these, so
    /// it needs no right to open the log and never interleaves its records
    /// with the parent's chain.
    pub fn fork_session(&self, redactor: Redactor) -> Result<FileSink, AuditError> {
        let io = |e: std::io::Error| AuditError::io(&self.path, e);
        let fd = private_fd::duplicate(self.file.as_raw_fd()).map_err(io)?;
        // SAFETY: `fd` was just returned by fcntl and nothing else owns it.
        let file = unsafe { File::from_raw_fd(fd) };
        Ok(FileSink {
            file,
            path: self.path.clone(),
            identity: self.identity,
            redactor,
            session: new_session_id()?,
            next_seq: 0,
            prev: ZERO_HASH.to_string(),
            broken: self.broken.clone(),
            can_reserve: self.can_reserve,
            seal: self.seal.clone(),
        })
    }

    /// The redactor every record passes through.
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// Seal every record of this session (and of sessions forked from it)
    /// with the trial's key. Call before the first record.
    pub fn seal_with(&mut self, key: TrialKey) {
        self.seal = Some(key);
    }

    /// The descriptor records are written through (a private one).
    pub fn descriptor(&self) -> std::os::fd::RawFd {
        self.file.as_raw_fd()
    }

    /// This session's id (unique across processes).
    pub fn session_id(&self) -> &str {
        &self.session
    }

    /// The log's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records written so far in this session.
    pub fn records_written(&self) -> u64 {
        self.next_seq
    }

    /// Append one event. On `Err` the event is not (fully) in the log and the
    /// action it describes must not happen.
    pub fn append(&mut self, event: Event) -> Result<(), AuditError> {
        if let Some(why) = &self.broken {
            return Err(AuditError::Broken {
                path: self.path.clone(),
                why: why.clone(),
            });
        }
        let is_start = event.starts_session();
        if is_start != (self.next_seq == 0) {
            return Err(AuditError::Order(if is_start {
                "a session record after the session started".into()
            } else {
                "the first record of a session must be a session record".into()
            }));
        }
        let kind = event.kind();
        let line = self.encode(event)?;
        let end = self.check_file()?;
        let written = self
            .reserve(end, line.len())
            .map_err(|e| AuditError::io(&self.path, e))
            .and_then(|()| self.write_record(&line));
        if let Err(e) = written {
            if self.next_seq > 0 && self.broken.is_none() {
                self.note_unrecorded(kind, line.len(), &e);
            }
            return Err(e);
        }
        self.chain(&line);
        Ok(())
    }

    /// Advance the chain past `line`, just written.
    fn chain(&mut self, line: &[u8]) {
        self.prev = hex::encode(line_hash(&line[..line.len() - 1]));
        self.next_seq += 1;
    }

    /// Make sure the file (`end` bytes long) has room for `len` more bytes plus
    /// [`UNRECORDED_RESERVE`] (allocated past its end, its size unchanged),
    /// so that when a record cannot be written an `unrecorded` note still
    /// fits. Filesystems without `fallocate` skip this.
    fn reserve(&mut self, end: u64, len: usize) -> std::io::Result<()> {
        if !self.can_reserve {
            return Ok(());
        }
        let fd = self.file.as_raw_fd();
        let want = (len + UNRECORDED_RESERVE) as libc::off_t;
        // SAFETY: fallocate on a descriptor this sink owns, with plain numbers.
        let r = unsafe { libc::fallocate(fd, libc::FALLOC_FL_KEEP_SIZE, end as libc::off_t, want) };
        if r == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            // Not supported here, or not a regular file (a device, a FIFO).
            Some(libc::EOPNOTSUPP | libc::ENOSYS | libc::EINVAL | libc::ENODEV | libc::ESPIPE) => {
                self.can_reserve = false;
                Ok(())
            }
            _ => Err(e),
        }
    }

    /// After a record of `kind` (`len` bytes) failed with `why`, write a
    /// short `unrecorded` record in the reserved room, so the verifier can
    /// name the session whose action did not happen unrecorded. Best effort:
    /// if even this fails, the session simply ends there.
    fn note_unrecorded(&mut self, kind: &str, len: usize, why: &AuditError) {
        let note = Event::Unrecorded {
            kind: kind.to_string(),
            bytes: len as u64,
            reason: why.to_string().chars().take(200).collect(),
        };
        let Ok(line) = self.encode(note) else {
            return;
        };
        if line.len() <= UNRECORDED_RESERVE && self.write_record(&line).is_ok() {
            self.chain(&line);
        }
    }

    /// Serialize `event` as the next record, newline included: its strings
    /// redacted in place, then written straight from the typed event
    /// (`{"type":…,fields…}`) after the chain's fields.
    fn encode(&self, mut event: Event) -> Result<Vec<u8>, AuditError> {
        self.redactor.redact_event(&mut event);
        let ts = now_rfc3339();
        let mut line = encode_record(&self.session, self.next_seq, &ts, &self.prev, &event)
            .map_err(AuditError::Encode)?;
        if let Some(key) = &self.seal {
            key.seal(&mut line);
        }
        line.push(b'\n');
        Ok(line)
    }

    /// Fail if the file we hold is no longer the log at `path`: the
    /// descriptor must still be the file opened (device and inode) in append
    /// mode, and one `stat` of the path must name that same file (so it is
    /// linked there, not removed or replaced). Returns the file's size.
    fn check_file(&mut self) -> Result<u64, AuditError> {
        let fd = self.file.as_raw_fd();
        if private_fd::identity(fd) != Some(self.identity) {
            return Err(self.poison(format!(
                "descriptor {fd} is no longer the log file guard-sh opened"
            )));
        }
        // SAFETY: F_GETFL on a descriptor this sink owns.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        if flags < 0 || flags & libc::O_APPEND == 0 || flags & libc::O_ACCMODE == libc::O_RDONLY {
            return Err(self.poison(format!("descriptor {fd} is no longer open for appending")));
        }
        match std::fs::metadata(&self.path) {
            Ok(now) if (now.dev(), now.ino()) == self.identity => Ok(now.len()),
            Ok(_) => Err(self.poison("the log file was moved or replaced".into())),
            Err(e) if e.kind() == ErrorKind::NotFound => {
                Err(self.poison("the log file was removed (or moved away)".into()))
            }
            Err(e) => Err(self.poison(format!("the log path is unusable: {e}"))),
        }
    }

    /// Exactly one `write(2)` of the whole record (retried only when
    /// interrupted before writing anything). A short write (the filesystem
    /// filled up mid-record) is cut back off the end of the file, so no torn
    /// bytes are left for later records to be glued to; only when that
    /// cannot be done safely is the sink poisoned.
    fn write_record(&mut self, line: &[u8]) -> Result<(), AuditError> {
        loop {
            match self.file.write(line) {
                Ok(n) if n == line.len() => return Ok(()),
                Ok(n) => {
                    let why = format!(
                        "short write: {n} of {} bytes (filesystem full?)",
                        line.len()
                    );
                    return Err(match self.cut_back(n) {
                        Ok(()) => AuditError::Unusable {
                            path: self.path.clone(),
                            why: format!("{why}; the partial record was removed"),
                        },
                        Err(e) => self.poison(format!("{why}; the last record is torn ({e})")),
                    });
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(AuditError::io(&self.path, e)),
            }
        }
    }

    /// Remove the `written` bytes a short write just appended, if they are
    /// still the file's last bytes (no other session appended since).
    fn cut_back(&mut self, written: usize) -> std::io::Result<()> {
        let end = self.file.stream_position()?;
        let size = self.file.metadata()?.len();
        if size != end || (written as u64) > end {
            return Err(std::io::Error::other("another session appended after it"));
        }
        self.file.set_len(end - written as u64)
    }

    fn poison(&mut self, why: String) -> AuditError {
        self.broken = Some(why.clone());
        AuditError::Broken {
            path: self.path.clone(),
            why,
        }
    }
}

impl Drop for FileSink {
    fn drop(&mut self) {
        private_fd::forget(self.file.as_raw_fd());
    }
}

impl AuditSink for FileSink {
    fn record(&mut self, event: Event) -> Result<(), String> {
        self.append(event).map_err(|e| e.to_string())
    }
}

/// `PID-MILLIS-RANDOM`: unique across concurrent processes and restarts
/// (64 random bits from the kernel).
fn new_session_id() -> Result<String, AuditError> {
    let mut random = [0u8; 8];
    crate::os::random::fill(&mut random).map_err(|e| AuditError::io(Path::new("getrandom"), e))?;
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    Ok(format!(
        "{}-{ms}-{}",
        std::process::id(),
        hex::encode(random)
    ))
}
