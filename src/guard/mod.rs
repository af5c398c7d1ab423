//! Stage 2: AST × policy → verdict, before anything runs.
//!
//! The static check visits every command the line can reach; the dynamic
//! checks ([`check_argv`], [`check_assignment`], [`check_write_target`]) are
//! called by the interpreter at run time on final, expanded values and are
//! authoritative.

pub mod builtins;

use crate::policy::{CommandRule, Policy};
use crate::syntax::ast::{List, Span};
use serde::Serialize;
use std::path::Path;

/// Why something was refused: the rule's identifier and a sentence for a person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Deny {
    pub rule: &'static str,
    pub reason: String,
    pub span: Option<Span>,
}

/// The static verdict on one line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verdict {
    pub allowed: bool,
    pub commands: Vec<serde_json::Value>,
}

/// Static check of a parsed line (stub: replaced by the guard implementation).
pub fn check_list(policy: &Policy, list: &List) -> Verdict {
    let _ = (policy, list);
    Verdict { allowed: false, commands: Vec::new() }
}

/// Dynamic check of a final argv before spawning an external command.
/// Returns the rule of the command to run.
pub fn check_argv<'p>(policy: &'p Policy, argv: &[Vec<u8>]) -> Result<&'p CommandRule, Deny> {
    let _ = (policy, argv);
    Err(Deny { rule: "stub", reason: "guard not written yet".into(), span: None })
}

/// Dynamic check of an assignment or `export` of `name`.
pub fn check_assignment(policy: &Policy, name: &str) -> Result<(), Deny> {
    let _ = (policy, name);
    Err(Deny { rule: "stub", reason: "guard not written yet".into(), span: None })
}

/// Dynamic check of a file guard-sh itself is about to open for writing.
pub fn check_write_target(policy: &Policy, path: &Path) -> Result<(), Deny> {
    let _ = (policy, path);
    Err(Deny { rule: "stub", reason: "guard not written yet".into(), span: None })
}
