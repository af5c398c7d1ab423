//! Verdict data: what the guard decided about each command a line can reach.
//! Denials are data (rule identifier + a sentence for a person); the audit
//! log and `--explain` write them unchanged.

use crate::syntax::ast::Span;
use crate::syntax::span::LineIndex;
use serde::Serialize;

/// Why something was refused: a stable rule identifier and a reason a person
/// understands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Deny {
    pub rule: &'static str,
    pub reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
}

impl Deny {
    pub fn new(rule: &'static str, reason: impl Into<String>) -> Deny {
        Deny {
            rule,
            reason: reason.into(),
            span: None,
        }
    }

    pub fn at(mut self, span: Span) -> Deny {
        self.span = Some(span);
        self
    }
}

impl std::fmt::Display for Deny {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

/// What kind of thing a reached command is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReachedKind {
    /// The arm's one tool.
    Tool,
    /// A harmless utility from the shared set.
    Utility,
    /// A builtin of guard-sh's interpreter (runs nothing external).
    Builtin,
    /// A function defined in this line or session (its body is checked).
    Function,
    /// A name assembled at run time (`$X`, globs, braces): checked when it runs.
    RunTime,
    /// An assignment (`NAME=value` or `export NAME`), listed when refused.
    Assignment,
    /// A redirection target, listed when refused.
    Redirect,
    /// A name the policy does not permit.
    Foreign,
}

/// One command (or assignment, or redirection) the line can reach.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reached {
    /// The command name as written (lossy UTF-8); for run-time names, the source text.
    pub name: String,
    pub kind: ReachedKind,
    pub allowed: bool,
    /// Why it is allowed or denied.
    pub reason: String,
    /// The rule that decided (`tool`, `utility`, `builtin`, `foreign-command`, …).
    pub rule: &'static str,
    pub span: Span,
}

/// The static verdict on one line: allowed only if every reached item is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct Verdict {
    pub allowed: bool,
    pub commands: Vec<Reached>,
}

impl Verdict {
    /// The first denial, for the one-line message on stderr.
    pub fn first_denial(&self) -> Option<&Reached> {
        self.commands.iter().find(|c| !c.allowed)
    }

    /// JSON for `--explain` and the audit log, with `LINE:COL` positions
    /// computed from `source`.
    pub fn to_json(&self, source: &[u8]) -> serde_json::Value {
        let lines = LineIndex::new(source);
        let commands: Vec<serde_json::Value> = self
            .commands
            .iter()
            .map(|c| {
                serde_json::json!({
                    "name": c.name,
                    "kind": c.kind,
                    "allowed": c.allowed,
                    "rule": c.rule,
                    "reason": c.reason,
                    "at": lines.line_col(c.span.start).to_string(),
                })
            })
            .collect();
        serde_json::json!({ "allowed": self.allowed, "commands": commands })
    }
}
