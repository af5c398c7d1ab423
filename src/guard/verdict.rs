//! Verdict data: what the guard decided about each command a line can reach.
//! Denials are data (rule identifier + a sentence for a person); the audit
//! log and `--explain` write them unchanged.

use crate::syntax::ast::Span;
use crate::syntax::span::LineIndex;
use serde::Serialize;

/// The rule that decided about a command: a stable identifier, written to
/// the audit log and by `--explain` in kebab case (`foreign-command`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Allowed: the arm's tool.
    Tool,
    /// Allowed: a harmless utility.
    Utility,
    /// Allowed: a builtin of guard-sh.
    Builtin,
    /// Allowed: a function whose body is checked.
    Function,
    /// Judged later: the name is assembled at run time.
    RunTimeName,
    /// Judged later: text (`eval`, `source`, `trap`) parsed when it runs.
    RunTimeText,
    /// Refused: the arm offers no shell.
    ShellDisabled,
    /// Refused: a command named by a path.
    PathQualified,
    /// Refused: a program outside the arm.
    ForeignCommand,
    /// Refused without stopping the line: a name that is no command here
    /// nor a program anywhere on the system (a typo); it fails with 127
    /// where it is reached, as in bash.
    NotFound,
    /// Refused: an argument rule of the command matched.
    ArgumentRule,
    /// Refused: an argument or a write names a protected path.
    ProtectedPath,
    /// Refused: assigning a denied environment variable.
    Environment,
    /// Refused: the command name is empty.
    EmptyCommand,
    /// Refused: `eval` nested too deep to check.
    EvalDepth,
    /// Allowed: fixed `eval` or `trap` text that does not parse (it fails
    /// when it runs, running nothing).
    EvalSyntax,
    /// Refused: a builtin option guard-sh does not run.
    BuiltinOption,
    /// Refused: `builtin NAME` where NAME is not a builtin.
    NotABuiltin,
    /// Refused: a descriptor of guard-sh's own (the audit log, its pipes).
    PrivateDescriptor,
    /// Refused: an array subscript built at run time holding expansions.
    RuntimeSubscript,
    /// Refused: a file the shell would open is another process's in `/proc`.
    OtherProcess,
    /// Refused: a redirection to `/dev/tcp/…` or `/dev/udp/…` (a socket in bash).
    NetworkRedirection,
    /// Refused: a file the shell would read for a line that no command of
    /// the arm may read (beside the arm, the harness's home).
    UnreadablePath,
}

impl Rule {
    /// The identifier as written to the audit log.
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::Tool => "tool",
            Rule::Utility => "utility",
            Rule::Builtin => "builtin",
            Rule::Function => "function",
            Rule::RunTimeName => "run-time-name",
            Rule::RunTimeText => "run-time-text",
            Rule::ShellDisabled => "shell-disabled",
            Rule::PathQualified => "path-qualified",
            Rule::ForeignCommand => "foreign-command",
            Rule::NotFound => "not-found",
            Rule::ArgumentRule => "argument-rule",
            Rule::ProtectedPath => "protected-path",
            Rule::Environment => "environment",
            Rule::EmptyCommand => "empty-command",
            Rule::EvalDepth => "eval-depth",
            Rule::EvalSyntax => "eval-syntax",
            Rule::BuiltinOption => "builtin-option",
            Rule::NotABuiltin => "not-a-builtin",
            Rule::PrivateDescriptor => "private-descriptor",
            Rule::RuntimeSubscript => "runtime-subscript",
            Rule::OtherProcess => "other-process",
            Rule::NetworkRedirection => "network-redirection",
            Rule::UnreadablePath => "unreadable-path",
        }
    }
}

impl Rule {
    /// Whether a refusal by this rule stops the whole line before it runs
    /// (every rule but [`Rule::NotFound`], which fails only its command).
    pub fn stops_the_line(self) -> bool {
        self != Rule::NotFound
    }
}

/// Written as its identifier: `as_str` is the one place the names live.
impl Serialize for Rule {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why something was refused: a stable rule identifier and a reason a person
/// understands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Deny {
    /// The rule that refused.
    pub rule: Rule,
    /// The sentence shown to the agent and logged.
    pub reason: String,
    /// Where in the line, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
}

impl Deny {
    /// A refusal by `rule`, with no position yet.
    pub fn new(rule: Rule, reason: impl Into<String>) -> Deny {
        Deny {
            rule,
            reason: reason.into(),
            span: None,
        }
    }

    /// The refusal placed at `span`.
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
    /// What it is.
    pub kind: ReachedKind,
    /// Whether the policy permits it.
    pub allowed: bool,
    /// Why it is allowed or denied.
    pub reason: String,
    /// The rule that decided.
    pub rule: Rule,
    /// Where in the line.
    pub span: Span,
}

/// The static verdict on one line: allowed only if every reached item is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct Verdict {
    /// Whether the line may run.
    pub allowed: bool,
    /// Everything the line can reach, in order.
    pub commands: Vec<Reached>,
}

impl Verdict {
    /// The first denial that stops the line, for the one-line message on
    /// stderr.
    pub fn first_denial(&self) -> Option<&Reached> {
        self.commands
            .iter()
            .find(|c| !c.allowed && c.rule.stops_the_line())
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
            rule: Rule,
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

#[cfg(test)]
mod rule_tests {
    use super::Rule;

    /// The identifiers are part of the audit log's format: written as
    /// they always were.
    #[test]
    fn a_rule_is_written_as_its_identifier() {
        for (rule, written) in [
            (Rule::Tool, "\"tool\""),
            (Rule::RunTimeName, "\"run-time-name\""),
            (Rule::ForeignCommand, "\"foreign-command\""),
            (Rule::NotABuiltin, "\"not-a-builtin\""),
            (Rule::PrivateDescriptor, "\"private-descriptor\""),
            (Rule::RuntimeSubscript, "\"runtime-subscript\""),
            (Rule::OtherProcess, "\"other-process\""),
            (Rule::NetworkRedirection, "\"network-redirection\""),
        ] {
            assert_eq!(serde_json::to_string(&rule).unwrap_or_default(), written);
        }
    }
}
