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
        serde_json::json!({ "allowed": self.allowed, "commands": self.commands_json(source, 0) })
    }

    /// Append each reached command to `out` as a JSON object, comma
    /// separated (`first`: none written yet, in `out` or before it), its
    /// `at` counted in an input where `source` starts after `lines_before`
    /// lines. Written straight from the verdict: no `serde_json::Value` on
    /// the way.
    pub fn write_commands_json(
        &self,
        source: &[u8],
        lines_before: usize,
        first: &mut bool,
        out: &mut Vec<u8>,
    ) {
        /// The keys in `to_json`'s (sorted) order.
        #[derive(Serialize)]
        struct Entry<'a> {
            allowed: bool,
            at: String,
            kind: ReachedKind,
            name: &'a str,
            reason: &'a str,
            rule: &'a str,
        }
        let lines = LineIndex::new(source);
        for c in &self.commands {
            let mut at = lines.line_col(c.span.start());
            at.line += lines_before;
            if !std::mem::take(first) {
                out.push(b',');
            }
            let entry = Entry {
                allowed: c.allowed,
                at: at.to_string(),
                kind: c.kind,
                name: &c.name,
                reason: &c.reason,
                rule: c.rule,
            };
            // Writing into a Vec cannot fail; the entry holds no map with
            // non-string keys.
            let _ = serde_json::to_writer(&mut *out, &entry);
        }
    }

    /// Each reached command as JSON, its `at` counted in an input where
    /// `source` starts after `lines_before` lines.
    pub fn commands_json(&self, source: &[u8], lines_before: usize) -> Vec<serde_json::Value> {
        let lines = LineIndex::new(source);
        self.commands
            .iter()
            .map(|c| {
                let mut at = lines.line_col(c.span.start());
                at.line += lines_before;
                serde_json::json!({
                    "name": c.name,
                    "kind": c.kind,
                    "allowed": c.allowed,
                    "rule": c.rule,
                    "reason": c.reason,
                    "at": at.to_string(),
                })
            })
            .collect()
    }
}
