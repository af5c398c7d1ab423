//! The verifier: reads audit logs, rebuilds each session's hash chain and
//! judges every spawn against the allowed set the session record carries.
//!
//! Guarantees: every line is either accounted to a session or reported; each
//! finding names its file, line, session and seq where they are known; a
//! trial with no session or no `line` record is never clean.
//!
//! Findings and the exit status they force:
//! - 3 (the log cannot be trusted): `unreadable`, `corrupt` (a line that is
//!   not a record), `truncated` (a final line without newline or not valid
//!   JSON), `chain-break` (missing, duplicated or reordered seq, a `prev`
//!   that does not match the previous record, a session without its session
//!   record).
//! - 1 (the trial is invalid): `leak` (a spawn whose path or name is outside
//!   the session's allowed set, or any spawn in an arm without a shell),
//!   `denied-but-executed` (a spawn of an argv the dynamic guard denied, or
//!   any spawn after a top-level line the static guard refused, before the
//!   next line), `sandbox-missing` (enforcement `none` in a session whose
//!   policy required the sandbox), `incomplete` (a top-level line with no
//!   verdict or error after it: a record could not be written, e.g. on a
//!   full filesystem, so what the line did is unknown), `no-sessions`,
//!   `no-lines`, `planted-config` (harness or tool configuration such as
//!   `.claude/` or `AGENTS.md` was in the work folder when a launched trial
//!   started).
//!
//! - Trials ([`super::trial`]): 3 `forged` (a record of a sealed trial
//!   whose MAC does not verify under the revealed key, or a revealed key
//!   that does not match the harness record's commitment); 1
//!   `trial-unproven` (a session names a trial the log has no harness
//!   record for, or whose key was never revealed; with `require_harness`,
//!   a session that names no trial, or more than one harness).
//!
//! 3 wins over 1.

use super::event::{Event, SESSION_START_KINDS, TOP_LEVEL_ORIGINS};
use super::record::{ZERO_HASH, line_hash};
use super::trial::SessionCommitment;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// What a finding is about. The order is by severity class, then kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    Leak,
    DeniedButExecuted,
    SandboxMissing,
    NoSessions,
    NoLines,
    HarnessUnconfined,
    Incomplete,
    PlantedConfig,
    Unbounded,
    BoundHit,
    TrialUnproven,
    ToolOutsideChannel,
    CallNotRecorded,
    RecordWithoutCall,
    ChainBreak,
    Forged,
    Truncated,
    Corrupt,
    Unreadable,
}

impl FindingKind {
    /// The exit status this finding forces: 1 invalid trial, 3 untrustworthy log.
    pub fn exit_code(self) -> i32 {
        match self {
            FindingKind::Leak
            | FindingKind::DeniedButExecuted
            | FindingKind::SandboxMissing
            | FindingKind::NoSessions
            | FindingKind::NoLines
            | FindingKind::HarnessUnconfined
            | FindingKind::Incomplete
            | FindingKind::PlantedConfig
            | FindingKind::Unbounded
            | FindingKind::BoundHit
            | FindingKind::TrialUnproven
            | FindingKind::ToolOutsideChannel
            | FindingKind::CallNotRecorded
            | FindingKind::RecordWithoutCall => 1,
            FindingKind::ChainBreak
            | FindingKind::Forged
            | FindingKind::Truncated
            | FindingKind::Corrupt
            | FindingKind::Unreadable => 3,
        }
    }

    /// The kebab-case name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            FindingKind::Leak => "leak",
            FindingKind::DeniedButExecuted => "denied-but-executed",
            FindingKind::SandboxMissing => "sandbox-missing",
            FindingKind::NoSessions => "no-sessions",
            FindingKind::NoLines => "no-lines",
            FindingKind::HarnessUnconfined => "harness-unconfined",
            FindingKind::Incomplete => "incomplete",
            FindingKind::PlantedConfig => "planted-config",
            FindingKind::Unbounded => "unbounded",
            FindingKind::BoundHit => "bound-hit",
            FindingKind::TrialUnproven => "trial-unproven",
            FindingKind::ToolOutsideChannel => "tool-outside-channel",
            FindingKind::CallNotRecorded => "call-not-recorded",
            FindingKind::RecordWithoutCall => "record-without-call",
            FindingKind::Forged => "forged",
            FindingKind::ChainBreak => "chain-break",
            FindingKind::Truncated => "truncated",
            FindingKind::Corrupt => "corrupt",
            FindingKind::Unreadable => "unreadable",
        }
    }
}

/// One problem, located as precisely as the log allows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub kind: FindingKind,
    pub session: Option<String>,
    pub seq: Option<u64>,
    /// The log file, and the 1-based line in it.
    pub file: Option<String>,
    pub line: Option<usize>,
    pub message: String,
}

/// Lines that are not records named one by one in a file; the rest are
/// counted in one finding.
const CORRUPT_SHOWN: usize = 10;

/// `SessionSummary::mode` of a session opened by a `harness` record.
pub const HARNESS_MODE: &str = "harness";

/// What one session did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SessionSummary {
    pub id: String,
    pub arm: Option<String>,
    pub mode: Option<String>,
    pub enforcement: Option<String>,
    pub sandbox: Option<String>,
    pub policy_sha256: Option<String>,
    /// Timestamp of the first record seen.
    pub started: Option<String>,
    /// Every record of the session, the session record included.
    pub records: u64,
    pub lines: u64,
    /// Children started.
    pub spawned: u64,
    /// Lines the static guard refused.
    pub denied_lines: u64,
    /// Commands the dynamic guard refused.
    pub denied_commands: u64,
    /// Spawns per resolved path.
    pub binaries: BTreeMap<String, u64>,
    /// Findings about this session.
    pub findings: u64,
}

/// The verdict on a set of logs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    pub clean: bool,
    pub exit_code: i32,
    /// Whether the log's records are sealed by a launched trial, and what
    /// that leaves unproven.
    pub sealing: String,
    pub files: Vec<String>,
    pub records: u64,
    pub sessions: Vec<SessionSummary>,
    pub findings: Vec<Finding>,
}

/// Knobs for [`verify_logs`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VerifyOptions {
    /// Accept a trial with no session or no line (an arm without a shell).
    pub allow_empty: bool,
    /// Require a `harness` record with Landlock enforcement: the trial's
    /// harness was started by `guard-sh-launch` in its domain.
    pub require_harness: bool,
}

/// The bytes of the regular file at `path`, as they were when it was
/// opened, read without waiting on anything: a FIFO, a device, a folder
/// or a socket is refused at once (opened non-blocking, judged by
/// `fstat`), and a file that grew or shrank while it was read is an error
/// (its end was being written: read it again once its writer is done).
pub fn read_regular_file(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        let kind = match meta.file_type() {
            t if t.is_dir() => "a folder",
            t if std::os::unix::fs::FileTypeExt::is_fifo(&t) => "a FIFO",
            t if std::os::unix::fs::FileTypeExt::is_char_device(&t) => "a character device",
            t if std::os::unix::fs::FileTypeExt::is_block_device(&t) => "a block device",
            _ => "a socket",
        };
        return Err(std::io::Error::other(format!("{kind}, not a regular file")));
    }
    let size = meta.len();
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    // One byte more than its size: a file growing faster than it is read
    // shows here, without reading it to its (moving) end.
    file.by_ref().take(size + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 != size || file.metadata()?.len() != size {
        return Err(std::io::Error::other(
            "it changed size while it was read (is something still writing it?)",
        ));
    }
    Ok(bytes)
}

/// Verify the logs at `paths`, in order. A path that names no file is a
/// finding: arm-build and guard-sh-launch create the log, so it is a wrong
/// path, never a clean trial.
pub fn verify_logs(paths: &[PathBuf], options: VerifyOptions) -> Report {
    let mut verifier = Verifier::default();
    for path in paths {
        let name = path.display().to_string();
        match read_regular_file(path) {
            Ok(bytes) => verifier.add(&name, &bytes),
            Err(e) => {
                let message = if e.kind() == std::io::ErrorKind::NotFound {
                    format!(
                        "no such file: {} (arm-build and guard-sh-launch create the log: is the path right?)",
                        path.display()
                    )
                } else {
                    format!("cannot read {}: {e}", path.display())
                };
                verifier.files.push(name.clone());
                verifier.findings.push(Finding {
                    kind: FindingKind::Unreadable,
                    session: None,
                    seq: None,
                    file: Some(name),
                    line: None,
                    message,
                });
            }
        }
    }
    verifier.finish(options)
}

/// The text of each session's `line` records in `paths`, sessions in order
/// of first appearance (read without verifying: [`verify_logs`] judges the
/// records themselves).
pub fn recorded_lines(paths: &[PathBuf]) -> Vec<crate::audit::transcript::RecordedLines> {
    let mut out: Vec<crate::audit::transcript::RecordedLines> = Vec::new();
    for path in paths {
        let text = read_regular_file(path)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        for record in text
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        {
            let (Some(session), Some(line)) = (record["session"].as_str(), record["text"].as_str())
            else {
                continue;
            };
            if record["type"] != "line" {
                continue;
            }
            match out.iter_mut().find(|s| s.session == session) {
                Some(s) => {
                    s.text.push('\n');
                    s.text.push_str(line);
                }
                None => out.push(crate::audit::transcript::RecordedLines {
                    session: session.to_string(),
                    text: line.to_string(),
                }),
            }
        }
    }
    out
}

/// Add the transcript cross-check's mismatches (from `file`) to `report`.
pub fn add_transcript_findings(
    report: &mut Report,
    file: &str,
    mismatches: &[crate::audit::transcript::Mismatch],
) {
    use crate::audit::transcript::Mismatch;
    for m in mismatches {
        let (kind, session, line, message) = match m {
            Mismatch::OutsideChannel(call) => (
                FindingKind::ToolOutsideChannel,
                None,
                Some(call.line),
                format!(
                    "the model called `{}`, a tool outside the arm's channel",
                    call.tool
                ),
            ),
            Mismatch::NotRecorded(call) => (
                FindingKind::CallNotRecorded,
                None,
                Some(call.line),
                format!(
                    "`{}` ran {:?}, which no guard-sh session recorded: a shell ran past guard-sh",
                    call.tool,
                    call.command.as_deref().unwrap_or_default()
                ),
            ),
            Mismatch::NoCall { session, text } => (
                FindingKind::RecordWithoutCall,
                Some(session.clone()),
                None,
                format!("guard-sh ran {text:?}, which no call in the transcript asked for"),
            ),
        };
        report.findings.push(Finding {
            kind,
            session,
            seq: None,
            file: Some(file.to_string()),
            line,
            message,
        });
        report.exit_code = report.exit_code.max(kind.exit_code());
        report.clean = false;
    }
}

/// A transcript that cannot be read or parsed: the cross-check cannot vouch
/// for the trial.
pub fn add_unreadable(report: &mut Report, file: &str, message: String) {
    report.findings.push(Finding {
        kind: FindingKind::Unreadable,
        session: None,
        seq: None,
        file: Some(file.to_string()),
        line: None,
        message,
    });
    report.exit_code = report.exit_code.max(FindingKind::Unreadable.exit_code());
    report.clean = false;
}

/// Verify log text held in memory (`name` labels it in findings).
pub fn verify_bytes(name: &str, bytes: &[u8], options: VerifyOptions) -> Report {
    let mut verifier = Verifier::default();
    verifier.add(name, bytes);
    verifier.finish(options)
}

/// One parsed record.
#[derive(Debug)]
struct Entry {
    /// The bytes the record's MAC covers and the MAC, if it is sealed.
    sealed: Option<(Vec<u8>, Vec<u8>)>,
    seq: u64,
    hash: [u8; 32],
    prev: String,
    kind: String,
    ts: String,
    value: Value,
    file: usize,
    line: usize,
}

#[derive(Debug, Default)]
struct Verifier {
    files: Vec<String>,
    /// Sessions in order of first appearance.
    order: Vec<String>,
    sessions: HashMap<String, Vec<Entry>>,
    findings: Vec<Finding>,
    records: u64,
}

impl Verifier {
    fn add(&mut self, name: &str, bytes: &[u8]) {
        let file = self.files.len();
        self.files.push(name.to_string());
        let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
        // `split` yields a final empty piece after a trailing newline.
        let unterminated = !lines.last().is_some_and(|last| last.is_empty());
        if !unterminated {
            lines.pop();
        }
        let count = lines.len();
        let mut corrupt = 0usize;
        for (i, line) in lines.into_iter().enumerate() {
            let is_last = i + 1 == count;
            let line_no = i + 1;
            if is_last && unterminated {
                let (session, seq) = salvage_ids(line);
                self.findings.push(Finding {
                    kind: FindingKind::Truncated,
                    session,
                    seq,
                    file: Some(name.to_string()),
                    line: Some(line_no),
                    message: "the last record has no final newline: the log was cut off or a write failed".into(),
                });
                continue;
            }
            match parse_entry(line, file, line_no) {
                Ok(entry) => {
                    self.records += 1;
                    let id = entry.value["session"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string();
                    if !self.sessions.contains_key(&id) {
                        self.order.push(id.clone());
                    }
                    self.sessions.entry(id).or_default().push(entry);
                }
                Err(why) => {
                    let (session, seq) = salvage_ids(line);
                    let kind = if is_last {
                        FindingKind::Truncated
                    } else {
                        FindingKind::Corrupt
                    };
                    // A file of garbage is one finding a line up to a
                    // point, then one that counts the rest.
                    if kind == FindingKind::Corrupt {
                        corrupt += 1;
                        if corrupt > CORRUPT_SHOWN {
                            continue;
                        }
                    }
                    self.findings.push(Finding {
                        kind,
                        session,
                        seq,
                        file: Some(name.to_string()),
                        line: Some(line_no),
                        message: format!("not a record: {why}"),
                    });
                }
            }
        }
        if corrupt > CORRUPT_SHOWN {
            self.findings.push(Finding {
                kind: FindingKind::Corrupt,
                session: None,
                seq: None,
                file: Some(name.to_string()),
                line: None,
                message: format!(
                    "{} more lines are not records (the first {CORRUPT_SHOWN} are named above): is this an audit log?",
                    corrupt - CORRUPT_SHOWN
                ),
            });
        }
    }

    /// What sealing proves of this log: every trial's key revealed (its
    /// records checked, its sessions committed), a key never revealed, or
    /// no launched trial at all (nothing tells a record added, changed or
    /// removed later from the rest).
    fn sealing(&self) -> String {
        let entries = || self.sessions.values().flatten();
        let trials = entries().filter(|e| e.kind == "harness").count();
        let revealed = entries()
            .filter(|e| e.kind == "harness-end" && e.value["key"].is_string())
            .count();
        match (trials, revealed) {
            (0, _) => "not sealed: no guard-sh-launch trial, so a record or session added, changed or removed later cannot be told from the rest".into(),
            (t, r) if r >= t => format!("sealed: {t} trial(s), each key revealed and its sessions committed"),
            (t, r) => format!(
                "sealed, but {} of {t} trial(s) never revealed its key: their records cannot be checked",
                t - r
            ),
        }
    }

    /// With `require_harness`: a trial whose `harness` record says its
    /// processes and memory ran without bounds (no cgroup could be made),
    /// or says nothing of them.
    fn check_bounds_held(&mut self) {
        let unbounded: Vec<(String, String)> = self
            .sessions
            .iter()
            .flat_map(|(id, entries)| entries.iter().map(move |e| (id, e)))
            .filter(|(_, e)| e.kind == "harness")
            .filter_map(|(id, e)| {
                let enforced = e.value["bounds"]["enforced"]
                    .as_str()
                    .unwrap_or("none: not recorded");
                enforced
                    .strip_prefix("none: ")
                    .map(|why| (id.clone(), why.to_string()))
            })
            .collect();
        for (id, why) in unbounded {
            self.findings.push(Finding {
                kind: FindingKind::Unbounded,
                session: Some(id),
                seq: Some(0),
                file: None,
                line: None,
                message: format!(
                    "the trial ran without bounds on its processes and memory ({why}): a fork or memory bomb could have reached the whole machine, and what the trial left running was not ended"
                ),
            });
        }
    }

    fn finish(mut self, options: VerifyOptions) -> Report {
        self.check_trials(options);
        let sealing = self.sealing();
        if options.require_harness {
            self.check_bounds_held();
        }
        // A trial of an arm without a shell (the MCP arm) has no lines by
        // design: only harness records, each saying so.
        let shell_less = self.sessions.values().flatten().all(|e| {
            e.kind == "harness" && e.value["shell"] == Value::Bool(false) || e.kind == "harness-end"
        });
        let mut summaries = Vec::new();
        let mut total_lines = 0;
        for id in std::mem::take(&mut self.order) {
            let entries = self.sessions.remove(&id).unwrap_or_default();
            let mut judge = SessionJudge::new(&id, &self.files, &entries);
            judge.check_chain();
            judge.judge_events();
            total_lines += judge.summary.lines;
            summaries.push(judge.summary);
            self.findings.extend(judge.findings);
        }
        if !options.allow_empty {
            if summaries.is_empty() {
                self.findings.push(trial_finding(
                    FindingKind::NoSessions,
                    "no guard-sh session in the log: the agent's commands did not go through guard-sh",
                ));
            } else if total_lines == 0 && !shell_less {
                self.findings.push(trial_finding(
                    FindingKind::NoLines,
                    "no command line was recorded in any session: the agent's commands did not go through guard-sh",
                ));
            }
        }
        if options.require_harness {
            let harnesses: Vec<&SessionSummary> = summaries
                .iter()
                .filter(|s| s.mode.as_deref() == Some(HARNESS_MODE))
                .collect();
            let confined = harnesses.iter().any(|s| {
                s.enforcement
                    .as_deref()
                    .is_some_and(|e| e.starts_with("landlock"))
            });
            if !confined {
                let message = if harnesses.is_empty() {
                    "no harness record: the agent harness was not started by guard-sh-launch, so it may have run programs past guard-sh"
                } else {
                    "the harness ran without kernel confinement (enforcement `none`): it may have run programs past guard-sh"
                };
                self.findings
                    .push(trial_finding(FindingKind::HarnessUnconfined, message));
            }
        }
        let exit_code = self
            .findings
            .iter()
            .map(|f| f.kind.exit_code())
            .max()
            .unwrap_or(0);
        Report {
            clean: exit_code == 0,
            exit_code,
            sealing,
            files: self.files,
            records: self.records,
            sessions: summaries,
            findings: self.findings,
        }
    }
}

impl Verifier {
    /// Check every session that names a trial against the trial's revealed
    /// key, and (with `require_harness`) that every session names one.
    fn check_trials(&mut self, options: VerifyOptions) {
        let mut findings = Vec::new();
        // Harness sessions: id → (commitment, revealed key).
        let mut trials: HashMap<&str, (String, Option<String>)> = HashMap::new();
        // What each trial's `harness-end` committed to: id → its sessions.
        let mut committed: BTreeMap<&str, Option<Vec<SessionCommitment>>> = BTreeMap::new();
        for (id, entries) in &self.sessions {
            let Some(first) = entries.iter().find(|e| e.seq == 0) else {
                continue;
            };
            if first.kind != "harness" {
                continue;
            }
            let commitment = first.value["key_sha256"].as_str().unwrap_or_default();
            let end = entries.iter().find(|e| e.kind == "harness-end");
            let revealed = end
                .and_then(|e| e.value["key"].as_str())
                .map(str::to_string);
            if let Some(end) = end {
                let sessions = serde_json::from_value(end.value["sessions"].clone()).ok();
                committed.insert(id, sessions);
            }
            trials.insert(id, (commitment.to_string(), revealed));
        }
        if options.require_harness && trials.len() > 1 {
            findings.push(trial_finding(
                FindingKind::TrialUnproven,
                "more than one harness record in the trial's log",
            ));
        }
        for id in &self.order {
            let entries = &self.sessions[id];
            let Some(first) = entries.iter().find(|e| e.seq == 0) else {
                continue;
            };
            let claimed = if first.kind == "harness" {
                Some(id.as_str())
            } else {
                first.value["trial"].as_str()
            };
            let finding = |kind, entry: Option<&Entry>, message: String| Finding {
                kind,
                session: Some(id.clone()),
                seq: entry.map(|e| e.seq),
                file: entry.and_then(|e| self.files.get(e.file).cloned()),
                line: entry.map(|e| e.line),
                message,
            };
            let Some(trial) = claimed else {
                if options.require_harness && first.kind == "session" {
                    findings.push(finding(
                        FindingKind::TrialUnproven,
                        Some(first),
                        "the session names no trial: guard-sh was not started under guard-sh-launch's harness".into(),
                    ));
                }
                continue;
            };
            let Some((commitment, revealed)) = trials.get(trial) else {
                findings.push(finding(
                    FindingKind::TrialUnproven,
                    Some(first),
                    format!(
                        "the session names trial {trial}, which has no harness record in the log"
                    ),
                ));
                continue;
            };
            let Some(key) = revealed.as_deref() else {
                findings.push(finding(
                    FindingKind::TrialUnproven,
                    Some(first),
                    format!("trial {trial}'s key was never revealed (no harness-end record: the launcher was killed or is still running), so its records cannot be checked"),
                ));
                continue;
            };
            let key = match super::trial::TrialKey::from_hex(key) {
                Some(k) if k.sha256_hex() == *commitment => k,
                _ => {
                    findings.push(finding(
                        FindingKind::Forged,
                        Some(first),
                        format!("trial {trial}'s revealed key does not match its harness record"),
                    ));
                    continue;
                }
            };
            if first.kind != "harness" {
                let commitments = committed.get(trial).and_then(Option::as_ref);
                if let Some((kind, message)) = commitment_finding(trial, commitments, id, entries) {
                    findings.push(finding(kind, Some(first), message));
                }
            }
            for e in entries {
                let sealed = e
                    .sealed
                    .as_ref()
                    .is_some_and(|(covered, mac)| key.verifies(covered, mac));
                if !sealed {
                    findings.push(finding(
                        FindingKind::Forged,
                        Some(e),
                        format!(
                            "seq {}: the `{}` record is not sealed by trial {trial}'s key: it was not written by guard-sh or the launcher",
                            e.seq, e.kind
                        ),
                    ));
                }
            }
        }
        findings.extend(self.removed_sessions(&committed));
        self.findings.extend(findings);
    }

    /// The sessions a trial committed to that the log no longer holds.
    fn removed_sessions(
        &self,
        committed: &BTreeMap<&str, Option<Vec<SessionCommitment>>>,
    ) -> Vec<Finding> {
        let mut findings = Vec::new();
        for (trial, sessions) in committed {
            for c in sessions.iter().flatten() {
                if !self.sessions.contains_key(&c.session) {
                    findings.push(Finding {
                        kind: FindingKind::Forged,
                        session: Some(c.session.clone()),
                        seq: None,
                        file: None,
                        line: None,
                        message: format!(
                            "trial {trial} ended with session {} of {} records, which the log no longer holds: removed",
                            c.session, c.records
                        ),
                    });
                }
            }
        }
        findings
    }
}

/// What is wrong with session `id` of a revealed trial (its `entries`)
/// against what the trial's `harness-end` committed to.
fn commitment_finding(
    trial: &str,
    commitments: Option<&Vec<SessionCommitment>>,
    id: &str,
    entries: &[Entry],
) -> Option<(FindingKind, String)> {
    let Some(commitments) = commitments else {
        return Some((
            FindingKind::TrialUnproven,
            format!(
                "trial {trial}'s harness-end commits to no list of sessions, so a session added, cut or removed after it cannot be told"
            ),
        ));
    };
    let Some(promised) = commitments.iter().find(|c| c.session == id) else {
        return Some((
            FindingKind::Forged,
            format!(
                "the session is not among those trial {trial} committed to when it ended: added afterwards"
            ),
        ));
    };
    let held = entries.len() as u64;
    let last = entries
        .iter()
        .find(|e| e.seq + 1 == promised.records)
        .map(|e| hex::encode(e.hash));
    if held < promised.records || last.is_none() {
        return Some((
            FindingKind::Forged,
            format!(
                "trial {trial} committed to {} records of this session; the log holds {held}: cut",
                promised.records
            ),
        ));
    }
    if last.as_deref() != Some(promised.last.as_str()) {
        return Some((
            FindingKind::Forged,
            format!(
                "record seq {} is not the one trial {trial} committed to: changed or spliced",
                promised.records - 1
            ),
        ));
    }
    if held > promised.records {
        return Some((
            FindingKind::TrialUnproven,
            format!(
                "{} records were written after trial {trial} ended and revealed its key: they prove nothing",
                held - promised.records
            ),
        ));
    }
    None
}

fn trial_finding(kind: FindingKind, message: &str) -> Finding {
    Finding {
        kind,
        session: None,
        seq: None,
        file: None,
        line: None,
        message: message.into(),
    }
}

/// Parse one line into a record with its envelope checked.
fn parse_entry(line: &[u8], file: usize, line_no: usize) -> Result<Entry, String> {
    if line.is_empty() {
        return Err("empty line".into());
    }
    let value: Value = serde_json::from_slice(line).map_err(|e| format!("invalid JSON ({e})"))?;
    let field = |name: &str| value.get(name).ok_or_else(|| format!("no `{name}` field"));
    let session = field("session")?
        .as_str()
        .ok_or("`session` is not a string")?;
    if session.is_empty() {
        return Err("`session` is empty".into());
    }
    let seq = field("seq")?
        .as_u64()
        .ok_or("`seq` is not a non-negative integer")?;
    let prev = field("prev")?
        .as_str()
        .ok_or("`prev` is not a string")?
        .to_string();
    let ts = field("ts")?
        .as_str()
        .ok_or("`ts` is not a string")?
        .to_string();
    let kind = field("type")?
        .as_str()
        .ok_or("`type` is not a string")?
        .to_string();
    let sealed = if value.get("mac").is_some() {
        super::record::unseal(line)
    } else {
        None
    };
    Ok(Entry {
        sealed,
        seq,
        hash: line_hash(line),
        prev,
        kind,
        ts,
        value,
        file,
        line: line_no,
    })
}

/// Best-effort session id and seq from a line that is not valid JSON
/// (records start with `{"session":"…","seq":N`).
fn salvage_ids(line: &[u8]) -> (Option<String>, Option<u64>) {
    let text = String::from_utf8_lossy(line);
    let session = text
        .split_once(r#""session":""#)
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(id, _)| id.to_string());
    let seq = text.split_once(r#""seq":"#).and_then(|(_, rest)| {
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    });
    (session, seq)
}

/// What a session record allows.
#[derive(Debug, Default)]
struct Allowed {
    shell: bool,
    /// name → the paths a spawn of it may show (resolved target, bin link).
    commands: BTreeMap<String, BTreeSet<String>>,
    helpers: BTreeSet<String>,
}

/// What judging a session's records carries from one record to the next.
#[derive(Default)]
struct Judged<'a> {
    /// What the session may spawn, from its session record.
    allowed: Option<Allowed>,
    /// Argvs the dynamic guard denied since the last line record, with their seq.
    denied_argvs: Vec<(Vec<String>, u64)>,
    /// Seq of a refused top-level line, until the next line record.
    refused_line: Option<u64>,
    /// Whether the last line record was a top-level line.
    last_origin_top: bool,
    /// A top-level line still waiting for its verdict (or syntax error).
    unjudged_line: Option<&'a Entry>,
}

struct SessionJudge<'a> {
    id: &'a str,
    files: &'a [String],
    entries: &'a [Entry],
    /// Index into `entries` of the one record per seq, when unique.
    unique: BTreeMap<u64, usize>,
    summary: SessionSummary,
    findings: Vec<Finding>,
    /// The session's commands ran under the exec supervisor: each program
    /// started has an `exec` record, counted there, not at its `spawn`.
    counts_execs: bool,
}

impl<'a> SessionJudge<'a> {
    fn new(id: &'a str, files: &'a [String], entries: &'a [Entry]) -> SessionJudge<'a> {
        let summary = SessionSummary {
            id: id.to_string(),
            records: entries.len() as u64,
            started: entries.first().map(|e| e.ts.clone()),
            ..SessionSummary::default()
        };
        SessionJudge {
            id,
            files,
            entries,
            unique: BTreeMap::new(),
            summary,
            findings: Vec::new(),
            counts_execs: false,
        }
    }

    fn find(
        &mut self,
        kind: FindingKind,
        entry: Option<&Entry>,
        seq: Option<u64>,
        message: String,
    ) {
        self.summary.findings += 1;
        self.findings.push(Finding {
            kind,
            session: Some(self.id.to_string()),
            seq: seq.or(entry.map(|e| e.seq)),
            file: entry.and_then(|e| self.files.get(e.file).cloned()),
            line: entry.map(|e| e.line),
            message,
        });
    }

    /// Missing, duplicated and reordered seqs; `prev` links; session record placement.
    fn check_chain(&mut self) {
        let entries = self.entries;
        let mut by_seq: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
        for (i, e) in entries.iter().enumerate() {
            by_seq.entry(e.seq).or_default().push(i);
        }
        for (&seq, idx) in &by_seq {
            if let [only] = idx[..] {
                self.unique.insert(seq, only);
                continue;
            }
            let identical = idx.iter().all(|&i| entries[i].hash == entries[idx[0]].hash);
            let lines: Vec<String> = idx.iter().map(|&i| entries[i].line.to_string()).collect();
            let what = if identical {
                "the same record"
            } else {
                "different records"
            };
            self.find(
                FindingKind::ChainBreak,
                Some(&entries[idx[1]]),
                None,
                format!(
                    "seq {seq} appears {} times ({what}, lines {}): duplicated",
                    idx.len(),
                    lines.join(", ")
                ),
            );
        }
        // Missing seqs, as ranges.
        let mut expected = 0u64;
        for &seq in by_seq.keys() {
            if seq > expected {
                let at = by_seq[&seq][0];
                let range = if seq - 1 == expected {
                    format!("seq {expected}")
                } else {
                    format!("seqs {expected}..={}", seq - 1)
                };
                let what = if expected == 0 {
                    " (including the session record)"
                } else {
                    ""
                };
                self.find(
                    FindingKind::ChainBreak,
                    Some(&entries[at]),
                    Some(expected),
                    format!("{range} missing{what} before seq {seq}: records deleted"),
                );
            }
            expected = seq + 1;
        }
        // Order in the file(s).
        let mut highest: Option<&Entry> = None;
        let mut seen: BTreeSet<u64> = BTreeSet::new();
        for e in entries {
            let first_time = seen.insert(e.seq);
            match highest {
                Some(h) if e.seq < h.seq && first_time => {
                    let message = format!(
                        "seq {} appears after seq {} (line {}): records reordered",
                        e.seq, h.seq, h.line
                    );
                    self.find(FindingKind::ChainBreak, Some(e), None, message);
                }
                Some(h) if e.seq <= h.seq => {}
                _ => highest = Some(e),
            }
        }
        // Links.
        for (&seq, &i) in &self.unique.clone() {
            let e = &entries[i];
            let expected_prev = if seq == 0 {
                Some(ZERO_HASH.to_string())
            } else {
                self.unique
                    .get(&(seq - 1))
                    .map(|&p| hex::encode(entries[p].hash))
            };
            if expected_prev.as_ref().is_some_and(|want| *want != e.prev) {
                let message = if seq == 0 {
                    "seq 0: prev is not 64 zeros: not the start of a chain".to_string()
                } else {
                    format!(
                        "seq {seq}: prev does not match the hash of seq {}: seq {} was altered (or seq {seq} forged)",
                        seq - 1,
                        seq - 1
                    )
                };
                self.find(FindingKind::ChainBreak, Some(e), None, message);
            }
            let is_session = SESSION_START_KINDS.contains(&e.kind.as_str());
            if is_session != (seq == 0) {
                let message = if is_session {
                    format!("seq {seq}: a second session record")
                } else {
                    format!("seq 0 is a `{}` record, not the session record", e.kind)
                };
                self.find(FindingKind::ChainBreak, Some(e), None, message);
            }
        }
    }

    /// Count events and judge spawns, in seq order.
    fn judge_events(&mut self) {
        let entries = self.entries;
        let order: Vec<usize> = self.unique.values().copied().collect();
        let mut state = Judged {
            last_origin_top: true,
            ..Judged::default()
        };
        for i in order {
            let e = &entries[i];
            match serde_json::from_value(e.value.clone()) {
                Ok(event) => self.judge_event(&mut state, e, event),
                Err(why) => {
                    let message = format!("seq {}: not a valid `{}` record: {why}", e.seq, e.kind);
                    self.find(FindingKind::Corrupt, Some(e), None, message);
                }
            }
        }
        if let Some(line) = state.unjudged_line {
            self.report_unjudged(line);
        }
    }

    /// Judge one record `e` (read as `event`) against what came before it.
    fn judge_event(&mut self, state: &mut Judged<'a>, e: &'a Entry, event: Event) {
        match event {
            Event::Session { .. } => state.allowed = self.session_started(e, event),
            Event::Harness { .. } => self.harness_started(e, event),
            Event::Line { origin, .. } => {
                if let Some(line) = state.unjudged_line.take() {
                    self.report_unjudged(line);
                }
                self.summary.lines += 1;
                state.denied_argvs.clear();
                state.refused_line = None;
                state.last_origin_top = TOP_LEVEL_ORIGINS.contains(&origin.as_str());
                if state.last_origin_top {
                    state.unjudged_line = Some(e);
                }
            }
            Event::Verdict { allowed: ok, .. } => {
                state.unjudged_line = None;
                if !ok {
                    self.summary.denied_lines += 1;
                    if state.last_origin_top {
                        state.refused_line = Some(e.seq);
                    }
                }
            }
            Event::Denied { argv, .. } => {
                self.summary.denied_commands += 1;
                state.denied_argvs.push((argv, e.seq));
            }
            Event::Spawn { path, argv, .. } => self.judge_spawn_record(state, e, &path, &argv),
            Event::Error { .. } => state.unjudged_line = None,
            Event::Unrecorded { kind, reason, .. } => {
                let message = format!(
                    "seq {}: a `{kind}` record could not be written ({reason}): the session's record is incomplete",
                    e.seq
                );
                self.find(FindingKind::Incomplete, Some(e), None, message);
            }
            Event::Exec { path, allowed, .. } => {
                if allowed {
                    *self.summary.binaries.entry(path).or_default() += 1;
                } else {
                    self.summary.denied_commands += 1;
                }
            }
            Event::Connect { allowed, .. } => {
                if !allowed {
                    self.summary.denied_commands += 1;
                }
            }
            Event::HarnessEnd { bounds_hit, .. } if !bounds_hit.is_empty() => {
                let message = format!(
                    "seq {}: the trial ran into its bound on {}: a fork failed, or processes were ended, at the bound, so the trial's commands did not all run as asked",
                    e.seq,
                    bounds_hit.join(" and ")
                );
                self.find(FindingKind::BoundHit, Some(e), None, message);
            }
            Event::Bound { bound, limit } => {
                let message = format!(
                    "seq {}: a line ran into its {bound} bound ({limit} s): its commands were ended there",
                    e.seq
                );
                self.find(FindingKind::BoundHit, Some(e), None, message);
            }
            Event::Exit { .. } | Event::HarnessEnd { .. } => {}
        }
    }

    /// A session record: the summary's facts, a finding if the sandbox was
    /// required but absent, and what the session may spawn.
    fn session_started(&mut self, e: &Entry, event: Event) -> Option<Allowed> {
        let Event::Session {
            arm,
            policy_sha256,
            enforcement,
            mode,
            shell,
            bin_dir,
            commands,
            helpers,
            sandbox,
            supervised,
            ..
        } = event
        else {
            return None;
        };
        self.counts_execs = supervised;
        if sandbox == "required" && enforcement == "none" {
            let message = format!(
                "seq {}: the policy requires the sandbox but enforcement is `none`",
                e.seq
            );
            self.find(FindingKind::SandboxMissing, Some(e), None, message);
        }
        self.summary.arm = Some(arm);
        self.summary.policy_sha256 = Some(policy_sha256);
        self.summary.enforcement = Some(enforcement);
        self.summary.mode = Some(mode);
        self.summary.sandbox = Some(sandbox);
        Some(Allowed {
            shell,
            commands: commands
                .into_iter()
                .map(|(name, path)| {
                    let link = Path::new(&bin_dir)
                        .join(&name)
                        .to_string_lossy()
                        .into_owned();
                    (name, BTreeSet::from([path, link]))
                })
                .collect(),
            helpers: helpers.into_iter().collect(),
        })
    }

    /// The launcher's `harness` record: the summary's facts, and a finding
    /// if the work folder held planted configuration.
    fn harness_started(&mut self, e: &Entry, event: Event) {
        let Event::Harness {
            arm,
            policy_sha256,
            enforcement,
            planted,
            ..
        } = event
        else {
            return;
        };
        if !planted.is_empty() {
            let message = format!(
                "seq {}: the work folder or the harness's homes held {} when the trial started: configuration an earlier trial (or anyone) left there steers this one; start each trial with guard-sh-launch --fresh (and the operator's own configuration with --seed-home)",
                e.seq,
                planted.join(", ")
            );
            self.find(FindingKind::PlantedConfig, Some(e), None, message);
        }
        self.summary.arm = Some(arm);
        self.summary.policy_sha256 = Some(policy_sha256);
        self.summary.enforcement = Some(enforcement);
        self.summary.mode = Some(HARNESS_MODE.to_string());
    }

    /// A spawn: counted, and a finding if its line was refused, its argv
    /// denied since that line, or its program is not the session's to run.
    fn judge_spawn_record(&mut self, state: &Judged<'a>, e: &Entry, path: &str, argv: &[String]) {
        self.summary.spawned += 1;
        if !self.counts_execs {
            *self.summary.binaries.entry(path.to_string()).or_default() += 1;
        }
        if let Some(at) = state.refused_line {
            let message = format!(
                "seq {}: {path} was spawned although the line was refused at seq {at}",
                e.seq
            );
            self.find(FindingKind::DeniedButExecuted, Some(e), None, message);
        }
        if let Some((_, at)) = state.denied_argvs.iter().find(|(d, _)| d == argv) {
            let message = format!(
                "seq {}: {path} {argv:?} was spawned although seq {at} denied that argv",
                e.seq
            );
            self.find(FindingKind::DeniedButExecuted, Some(e), None, message);
        }
        let why = match &state.allowed {
            Some(a) => judge_spawn(a, path, argv).map(|why| format!("spawned {path}: {why}")),
            None => Some(format!(
                "spawned {path} in a session without a session record: cannot be judged"
            )),
        };
        if let Some(why) = why {
            let message = format!("seq {}: {why}", e.seq);
            self.find(FindingKind::Leak, Some(e), None, message);
        }
    }

    fn report_unjudged(&mut self, line: &Entry) {
        let message = format!(
            "seq {}: the line has no verdict: a later record could not be written (filesystem full?) or guard-sh was killed, so what it ran is unknown",
            line.seq
        );
        self.find(FindingKind::Incomplete, Some(line), None, message);
    }
}

/// Why a spawn is outside the allowed set, or `None` if it is inside.
fn judge_spawn(allowed: &Allowed, path: &str, argv: &[String]) -> Option<String> {
    if !allowed.shell {
        return Some("the arm has no shell, so nothing may be spawned".into());
    }
    let Some(name) = argv.first() else {
        return Some("empty argv".into());
    };
    match allowed.commands.get(name) {
        Some(paths) if paths.contains(path) => None,
        Some(paths) => Some(format!(
            "`{name}` is allowed, but as {}, not {path}",
            paths.iter().cloned().collect::<Vec<_>>().join(" or ")
        )),
        None if allowed.helpers.contains(path) => Some(format!(
            "`{name}` is a helper of the tool, which guard-sh never spawns itself"
        )),
        None => Some(format!("`{name}` is not an allowed command")),
    }
}
