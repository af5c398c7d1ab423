//! The events guard-sh records. Serialized as `{"type": "...", ...}`; the
//! writer adds `session`, `seq`, `ts` and `prev` (the hash chain) around them.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Event {
    /// First record of a session.
    Session {
        arm: String,
        policy_sha256: String,
        /// `landlock-abi-N` or `none`.
        enforcement: String,
        version: String,
        cwd: String,
        argv: Vec<String>,
        /// `command` (-c), `script`, `stdin`, `interactive`.
        mode: String,
    },
    /// A line (or `eval`/`source` text) about to be parsed and checked.
    Line { text: String, origin: String },
    /// The static verdict on a line.
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
}
