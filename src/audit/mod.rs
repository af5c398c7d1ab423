//! The append-only audit log: one JSON line per event, hash-chained per
//! session, and its verifier.
//!
//! Fail closed: a caller that cannot [`AuditSink::record`] an event must not
//! run the command the event is about (guard-sh prints
//! `guard-sh: audit log unavailable: …` and exits 126).
//!
//! # Record format
//!
//! Each line is one record:
//! `{"session":ID,"seq":N,"ts":"2026-12-03T07:13:00.123Z","prev":HASH,"type":T,...fields}`.
//! `session` is `PID-MILLIS-RANDOM`, unique across concurrent processes;
//! `seq` counts from 0 (the `session` record) within a session; `prev` is the
//! SHA-256 (hex) of the previous line of the same session as written (without
//! its newline), 64 zeros for `seq` 0. Sessions share one file safely: each
//! record is a single `O_APPEND` write. Secrets from the policy's
//! `audit.redact` / `audit.redact_sha256` are replaced by `[REDACTED]`
//! ([`redact`] explains how hashed secrets are found).
//!
//! # Where the log goes
//!
//! First match wins: `--audit FILE`; `GUARD_SH_AUDIT=FILE`; the policy's
//! `audit.path`; else `$XDG_STATE_HOME/guard-sh/audit.jsonl`
//! (`~/.local/state/guard-sh/audit.jsonl`), announced once on stderr. Missing
//! folders are created (mode 0700), a new log file gets mode 0600.
//!
//! # Verifying
//!
//! `guard-sh-audit LOG... [--json]` ([`verify`]) reports per session the
//! commands run, the denials, the binaries reached, leaks and chain breaks.
//! Exit 0 clean, 1 a leak / denied-but-executed / no sessions, 3 a corrupt
//! log or broken chain. A hash chain cannot show that the *last* records of
//! a session were cut off cleanly or that the last record was rewritten;
//! keep a copy of the log (or its hash) outside the agent's reach for that.

pub mod event;
pub mod location;
pub mod record;
pub mod redact;
pub mod report;
pub mod session;
pub mod transcript;
pub mod trial;
pub mod verify;
pub mod writer;

pub use event::Event;
pub use location::{resolve_audit_path, resolve_audit_path_from_env};
pub use redact::Redactor;
pub use session::session_event;
pub use writer::FileSink;

use std::path::{Path, PathBuf};

/// Why an event could not be recorded (or a log could not be opened).
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {why}", path.display())]
    Unusable { path: PathBuf, why: String },
    /// The file may hold a partial record or is no longer the log.
    #[error("{}: {why}; no further records can be written", path.display())]
    Broken { path: PathBuf, why: String },
    #[error("cannot encode a record: {0}")]
    Encode(serde_json::Error),
    #[error("records out of order: {0}")]
    Order(String),
    #[error("{0}")]
    Redact(String),
    #[error("no audit log location: give --audit FILE or GUARD_SH_AUDIT, or set HOME")]
    NoLocation,
}

impl AuditError {
    fn io(path: &Path, source: std::io::Error) -> AuditError {
        AuditError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Where the interpreter sends its events. The real writer ([`FileSink`])
/// appends to a file; tests may collect events in memory.
pub trait AuditSink {
    /// Record one event durably. An `Err` means the event was not recorded
    /// and the action it describes must not happen.
    fn record(&mut self, event: Event) -> Result<(), String>;
}

/// A sink that keeps events in memory (tests, `--explain`).
#[derive(Debug, Default)]
pub struct MemorySink {
    pub events: Vec<Event>,
}

impl AuditSink for MemorySink {
    fn record(&mut self, event: Event) -> Result<(), String> {
        self.events.push(event);
        Ok(())
    }
}
