//! The events guard-sh records. Serialized as `{"type": "...", ...}`; the
//! writer adds `session`, `seq`, `ts` and `prev` (the hash chain) around them.
//!
//! The session record carries everything the verifier needs to judge the
//! session's spawns without the policy file: the arm, the allowed command
//! names with their resolved paths, the tool's helpers, and the sandbox mode.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `Line::origin` values for text read at top level (as opposed to `eval`
/// or `source` text, which runs inside a line already checked). A prompt
/// that expands something is such text too: it runs before any line.
pub const TOP_LEVEL_ORIGINS: [&str; 6] = [
    "command",
    "script",
    "stdin",
    "interactive",
    "prompt",
    "prompt-command",
];

// The session record is large but written once per process; boxing it would
// only complicate every match on events.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Event {
    /// First record of a session (always `seq` 0). Build it with
    /// [`crate::audit::session_event`].
    Session {
        arm: String,
        /// SHA-256 (hex) of the policy file's bytes, as
        /// `GUARD_SH_POLICY_SHA256` pins it.
        policy_sha256: String,
        /// `landlock-abi-N` or `none`.
        enforcement: String,
        version: String,
        cwd: String,
        argv: Vec<String>,
        /// `command` (-c), `script`, `stdin`, `interactive`.
        mode: String,
        /// guard-sh's process id.
        #[serde(default)]
        pid: u32,
        /// `false` for arms without a shell: every spawn is a leak.
        #[serde(default)]
        shell: bool,
        /// The arm's one tool, if any.
        #[serde(default)]
        tool: Option<String>,
        /// The curated bin folder command names resolve in.
        #[serde(default)]
        bin_dir: String,
        /// Every command the agent may run: name as typed → resolved path.
        #[serde(default)]
        commands: BTreeMap<String, String>,
        /// Executables the kernel lets commands run besides themselves (the
        /// tool's helpers and interpreters). guard-sh never spawns these itself.
        #[serde(default)]
        helpers: Vec<String>,
        /// The policy's sandbox mode: `best-effort`, `required` or `off`.
        #[serde(default)]
        sandbox: String,
        /// Whether every command's `execve`s went to the supervisor
        /// (the exec supervisor, `sandbox::supervisor`).
        #[serde(default)]
        supervised: bool,
        /// The trial (harness session id) this guard-sh was started in;
        /// its records are then sealed ([`crate::audit::trial`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        trial: Option<String>,
        /// A line a server's worker ran (`cli::serve`): the pid of the
        /// client the harness started for it, which `pid` stands in for.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        client: Option<u32>,
        /// The wall time of one line, in seconds, that this guard-sh holds
        /// by its own clock, launched or not (the trial's other bounds are
        /// the `harness` record's).
        #[serde(default)]
        line_seconds: u64,
    },
    /// First and only record of a harness session, written by
    /// `guard-sh-launch` after it entered the harness's domain and before it
    /// starts the harness (see `sandbox::harness`).
    Harness {
        arm: String,
        /// SHA-256 (hex) of the policy file as pinned in `arm.json`.
        policy_sha256: String,
        /// `landlock-abi-N`, or `none` when the harness runs unconfined.
        enforcement: String,
        version: String,
        cwd: String,
        /// The harness program (resolved) and its argv.
        program: String,
        argv: Vec<String>,
        /// The launcher's process id (the harness keeps it after exec).
        pid: u32,
        /// Files or folders the harness may execute.
        execute: Vec<String>,
        /// Code interpreters left out → the commands that need them.
        left_out: BTreeMap<String, Vec<String>>,
        /// SHA-256 of the trial key, revealed by `harness-end`.
        #[serde(default)]
        key_sha256: String,
        /// Configuration a harness or tool reads that was already in the
        /// work folder (`.claude`, `AGENTS.md`, …) or, not the operator's
        /// seed, in the harness's homes (`harness-home/.codex/config.toml`)
        /// when the trial started.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        planted: Vec<String>,
        /// Every `execve` of the trial outside guard-sh's commands goes to
        /// an exec supervisor, recorded in a `harness-exec` session.
        #[serde(default)]
        supervised: bool,
        /// The arm has a shell (false: the MCP arm, whose trials record no
        /// line by design).
        #[serde(default = "yes")]
        shell: bool,
        /// The trial's bounds and how they hold (absent: a launcher that
        /// knew none).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bounds: Option<TrialBounds>,
        /// What `/tmp` is for the trial: `private: /tmp is ARM/tmp`, or
        /// `shared: WHY` (then closed to the arm's commands).
        #[serde(default, skip_serializing_if = "String::is_empty")]
        tmp: String,
    },
    /// Last record of a harness session: the harness has ended; the trial
    /// key is revealed so that every sealed record can be checked.
    HarnessEnd {
        status: Option<i32>,
        signal: Option<i32>,
        key: String,
        /// Every session naming the trial as the log held them when the
        /// harness ended (absent: a launcher that did not commit).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sessions: Option<Vec<super::trial::SessionCommitment>>,
        /// Processes of the trial still alive when the harness and the
        /// line server had ended, which the launcher then ended.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ended: Option<usize>,
        /// The bounds the trial ran into (`processes`, `memory`).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        bounds_hit: Vec<String>,
    },
    /// A line (or `eval`/`source` text) about to be parsed and checked.
    /// `origin` is one of [`TOP_LEVEL_ORIGINS`], or `eval` / `source`.
    Line { text: String, origin: String },
    /// The static verdict on the line recorded just before it.
    /// `commands` is the guard's verdict JSON (`Verdict::to_json`: an object
    /// with a `commands` array) or that array itself.
    Verdict {
        allowed: bool,
        commands: serde_json::Value,
    },
    /// A child process was started.
    Spawn {
        pid: i32,
        path: String,
        argv: Vec<String>,
        env_added: Vec<String>,
    },
    /// A program was about to start in a supervised command's process tree
    /// (the command itself, or anything it ran), seen by the supervisor:
    /// `allowed` false means the `execve` was refused, for `reason`.
    Exec {
        pid: i32,
        ppid: i32,
        path: String,
        allowed: bool,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        reason: String,
    },
    /// A network call in a supervised command's tree named a destination
    /// (`connect`, or a `send*` with an address): allowed only for the
    /// forge's address and port.
    Connect {
        pid: i32,
        ppid: i32,
        call: String,
        address: String,
        allowed: bool,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        reason: String,
    },
    /// A child process ended.
    Exit {
        pid: i32,
        status: Option<i32>,
        signal: Option<i32>,
        duration_ms: u64,
    },
    /// Something was refused at run time (the dynamic guard).
    Denied {
        rule: String,
        reason: String,
        argv: Vec<String>,
    },
    /// A failure worth recording (syntax error, spawn failure).
    Error { message: String },
    /// The line ran past one of its bounds (`line-seconds`): the commands
    /// it was waiting for were ended, and it failed with status 124.
    Bound { bound: String, limit: u64 },
    /// A record of type `kind` (`bytes` long) could not be written (the
    /// filesystem was full): the action it described did not happen, and
    /// the session's record of it is missing. Written in room reserved for
    /// it; the verifier reports it.
    Unrecorded {
        kind: String,
        bytes: u64,
        reason: String,
    },
}

/// The `type` tags of the records that open a session (seq 0).
pub const SESSION_START_KINDS: [&str; 2] = ["session", "harness"];

impl Event {
    /// Whether this event opens a session (see [`SESSION_START_KINDS`]).
    pub fn starts_session(&self) -> bool {
        SESSION_START_KINDS.contains(&self.kind())
    }

    /// The `type` tag this event is written with.
    pub fn kind(&self) -> &'static str {
        match self {
            Event::Session { .. } => "session",
            Event::Harness { .. } => "harness",
            Event::HarnessEnd { .. } => "harness-end",
            Event::Line { .. } => "line",
            Event::Verdict { .. } => "verdict",
            Event::Spawn { .. } => "spawn",
            Event::Exec { .. } => "exec",
            Event::Connect { .. } => "connect",
            Event::Exit { .. } => "exit",
            Event::Denied { .. } => "denied",
            Event::Error { .. } => "error",
            Event::Bound { .. } => "bound",
            Event::Unrecorded { .. } => "unrecorded",
        }
    }
}

/// `true`, for a field that defaults to it.
fn yes() -> bool {
    true
}

/// A trial's bounds as the `harness` record states them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrialBounds {
    /// Processes and threads alive at once.
    pub processes: u64,
    /// Memory, in MiB.
    pub memory_mib: u64,
    /// The largest file one process may write, in MiB (`RLIMIT_FSIZE`).
    #[serde(default)]
    pub file_mib: u64,
    /// CPU time of the whole trial, in seconds.
    #[serde(default)]
    pub cpu_seconds: u64,
    /// The bytes under the arm's `work/` and `tmp/`, in MiB (counted by
    /// the launcher).
    #[serde(default)]
    pub disk_mib: u64,
    /// Wall time of one line, in seconds (guard-sh's own clock).
    #[serde(default)]
    pub line_seconds: u64,
    /// How they hold: `cgroup1 (…)`, `cgroup2 (…)`, or `none: WHY`.
    pub enforced: String,
}
