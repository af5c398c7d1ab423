//! The harness's side of a trial: the tool calls its transcript shows,
//! checked against guard-sh's line records.
//!
//! guard-sh sees only what reaches it. A model that used a tool outside the
//! arm's channel (a file tool, a subagent, the web), or a shell that ran
//! past guard-sh, leaves no record in the audit log, but it does leave a
//! call in the harness's transcript. So `guard-sh-audit --transcript FILE`
//! reads the calls and reports, as findings that make the trial invalid:
//! a tool outside the channel, a shell call with no guard-sh session whose
//! line contains its command, and a guard-sh session whose line no call
//! asked for (something other than the model ran guard-sh).
//!
//! Transcripts read (JSON Lines, one record per line): Claude Code's
//! session file (`CLAUDE_CONFIG_DIR/projects/…/SESSION.jsonl`) and the
//! Claude Agent SDK's message stream saved one message per line (both:
//! `assistant` records whose `message.content` holds `tool_use` blocks);
//! Codex's session file (`CODEX_HOME/sessions/…/rollout-….jsonl`:
//! `response_item` records whose payload is a `function_call`,
//! `custom_tool_call` or `local_shell_call`).

use serde_json::Value;
use std::collections::BTreeSet;

/// Which tools belong to the arm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Channel {
    /// The shell tool alone (Claude's `Bash`; Codex's `shell`,
    /// `exec_command`, `write_stdin`, `local_shell`).
    Shell,
    /// The named MCP server's tools alone (`mcp__SERVER__…`).
    Mcp(String),
}

/// The shell tools' names in the harnesses read.
const SHELL_TOOLS: [&str; 6] = [
    "Bash",
    "shell",
    "container.exec",
    "exec_command",
    "write_stdin",
    "local_shell",
];

impl Channel {
    /// `shell`, or `mcp:SERVER`.
    pub fn parse(text: &str) -> Result<Channel, String> {
        match text.split_once(':') {
            None if text == "shell" => Ok(Channel::Shell),
            Some(("mcp", server)) if !server.is_empty() => Ok(Channel::Mcp(server.to_string())),
            _ => Err(format!("{text:?}: expected `shell` or `mcp:SERVER`")),
        }
    }

    fn allows(&self, tool: &str) -> bool {
        match self {
            Channel::Shell => SHELL_TOOLS.contains(&tool),
            Channel::Mcp(server) => tool
                .strip_prefix("mcp__")
                .and_then(|rest| rest.strip_prefix(server.as_str()))
                .is_some_and(|rest| rest.starts_with("__")),
        }
    }
}

/// One tool call of the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    pub tool: String,
    /// A shell call's command line.
    pub command: Option<String>,
    /// The transcript line (1-based) that holds it.
    pub line: usize,
}

/// Every tool call in `text`, once each (a call repeated under the same id
/// counts once); an unparsable line is an error naming it.
pub fn read_calls(text: &str) -> Result<Vec<Call>, String> {
    let mut calls = Vec::new();
    let mut seen = BTreeSet::new();
    for (i, raw) in text.lines().enumerate() {
        if raw.trim().is_empty() {
            continue;
        }
        let record: Value =
            serde_json::from_str(raw).map_err(|e| format!("line {}: not JSON: {e}", i + 1))?;
        for (id, call) in calls_in(&record, i + 1) {
            if id.is_empty() || seen.insert(id) {
                calls.push(call);
            }
        }
    }
    Ok(calls)
}

/// The calls one record holds, each with its id.
fn calls_in(record: &Value, line: usize) -> Vec<(String, Call)> {
    let mut out = Vec::new();
    if record["type"] == "assistant" {
        for block in record["message"]["content"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if block["type"] != "tool_use" {
                continue;
            }
            let tool = block["name"].as_str().unwrap_or_default().to_string();
            let command = block["input"]["command"].as_str().map(str::to_string);
            let id = block["id"].as_str().unwrap_or_default().to_string();
            out.push((
                id,
                Call {
                    tool,
                    command,
                    line,
                },
            ));
        }
    }
    if record["type"] == "response_item" {
        let payload = &record["payload"];
        let kind = payload["type"].as_str().unwrap_or_default();
        let name = payload["name"].as_str().unwrap_or_default();
        let tool = match kind {
            "function_call" | "custom_tool_call" => codex_tool_name(payload, name),
            "local_shell_call" => "local_shell".to_string(),
            _ => return out,
        };
        let arguments: Value = match &payload["arguments"] {
            Value::String(s) => serde_json::from_str(s).unwrap_or(Value::Null),
            other => other.clone(),
        };
        let command = codex_command(&arguments).or_else(|| codex_command(&payload["action"]));
        let id = payload["call_id"].as_str().unwrap_or_default().to_string();
        out.push((
            id,
            Call {
                tool,
                command,
                line,
            },
        ));
    }
    out
}

/// A Codex call's tool as the channel names it: an MCP server's tool comes
/// as `"namespace": "mcp__SERVER", "name": "TOOL"` and is
/// `mcp__SERVER__TOOL`; a built-in tool has no namespace.
fn codex_tool_name(payload: &Value, name: &str) -> String {
    match payload["namespace"].as_str() {
        Some(namespace) if !namespace.is_empty() => {
            let namespace = namespace.trim_end_matches("__");
            match name.strip_prefix(namespace) {
                Some(rest) if rest.starts_with("__") => name.to_string(),
                _ => format!("{namespace}__{name}"),
            }
        }
        _ => name.to_string(),
    }
}

/// A Codex shell call's command: `cmd` (exec_command), or `command` as a
/// string or an argv whose last word is the script of `bash -lc SCRIPT`.
fn codex_command(arguments: &Value) -> Option<String> {
    if let Some(cmd) = arguments["cmd"].as_str() {
        return Some(cmd.to_string());
    }
    match &arguments["command"] {
        Value::String(s) => Some(s.clone()),
        Value::Array(words) => {
            let words: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
            match words.as_slice() {
                [_, flag, script] if flag.ends_with('c') && flag.starts_with('-') => {
                    Some((*script).to_string())
                }
                _ => Some(words.join(" ")),
            }
        }
        _ => None,
    }
}

/// The text of one guard-sh session's line records.
#[derive(Debug, Clone)]
pub struct RecordedLines {
    pub session: String,
    pub text: String,
}

/// What the cross-check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mismatch {
    /// A call to a tool outside the arm's channel.
    OutsideChannel(Call),
    /// A shell call no guard-sh session recorded.
    NotRecorded(Call),
    /// A guard-sh session no call asked for.
    NoCall { session: String, text: String },
}

/// What Claude Code runs through the shell by itself, which no model call
/// asks for: its environment snapshot (a script that sets
/// `SNAPSHOT_FILE=`), and a bare `env` at start-up (a model's call is
/// always wrapped: `… eval 'env' …`).
fn is_harness_own(text: &str) -> bool {
    text.contains("SNAPSHOT_FILE=") || text == "env"
}

/// Match each shell call to the first unmatched session whose lines
/// contain its command (as written, or as Claude Code quotes it inside
/// `eval '…'`), `redact` applied to the command first as guard-sh applied
/// it to the line.
pub fn cross_check(
    calls: &[Call],
    sessions: &[RecordedLines],
    channel: &Channel,
    redact: &dyn Fn(&str) -> String,
) -> Vec<Mismatch> {
    let mut found = Vec::new();
    let mut matched = vec![false; sessions.len()];
    for call in calls {
        if !channel.allows(&call.tool) {
            found.push(Mismatch::OutsideChannel(call.clone()));
            continue;
        }
        let Some(command) = &call.command else {
            continue;
        };
        let command = redact(command);
        let quoted = command.replace('\'', "'\"'\"'");
        // The harness's own sessions answer no call: a short command
        // (`echo`) found inside its snapshot script would otherwise hide a
        // call that ran past guard-sh.
        let hit = sessions.iter().enumerate().position(|(i, s)| {
            !matched[i]
                && !is_harness_own(&s.text)
                && (s.text.contains(&command) || s.text.contains(&quoted))
        });
        match hit {
            Some(i) => matched[i] = true,
            None => found.push(Mismatch::NotRecorded(call.clone())),
        }
    }
    for (i, s) in sessions.iter().enumerate() {
        if !matched[i] && !is_harness_own(&s.text) {
            found.push(Mismatch::NoCall {
                session: s.session.clone(),
                text: s.text.clone(),
            });
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(session: &str, text: &str) -> RecordedLines {
        RecordedLines {
            session: session.into(),
            text: text.into(),
        }
    }

    #[test]
    fn claude_and_codex_calls_are_read_once_each() {
        let text = concat!(
            r#"{"type":"user","message":{"content":"go"}}"#,
            "\n",
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"a","name":"Bash","input":{"command":"ls"}},{"type":"tool_use","id":"b","name":"Write","input":{"file_path":"/x"}}]}}"#,
            "\n",
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"a","name":"Bash","input":{"command":"ls"}}]}}"#,
            "\n",
            r#"{"type":"response_item","payload":{"type":"function_call","name":"shell","call_id":"c","arguments":"{\"command\":[\"bash\",\"-lc\",\"tea issues\"]}"}}"#,
            "\n",
            r#"{"type":"response_item","payload":{"type":"function_call","name":"exec_command","call_id":"d","arguments":"{\"cmd\":\"echo hi\"}"}}"#,
            "\n",
        );
        let calls = read_calls(text).unwrap_or_default();
        let got: Vec<(&str, Option<&str>, usize)> = calls
            .iter()
            .map(|c| (c.tool.as_str(), c.command.as_deref(), c.line))
            .collect();
        assert_eq!(
            got,
            [
                ("Bash", Some("ls"), 2),
                ("Write", None, 2),
                ("shell", Some("tea issues"), 4),
                ("exec_command", Some("echo hi"), 5),
            ]
        );
        assert!(read_calls("{\"type\":\n").is_err());
    }

    #[test]
    fn every_mismatch_is_named() {
        let call = |tool: &str, command: Option<&str>, line| Call {
            tool: tool.into(),
            command: command.map(str::to_string),
            line,
        };
        let calls = [
            call("Bash", Some("echo 'a b'"), 1),
            call("Read", None, 2),
            call("Bash", Some("curl -H 'x: SECRET' u"), 3),
            call("Bash", Some("echo unrecorded"), 4),
        ];
        let sessions = [
            lines("s1", "eval 'echo '\"'\"'a b'\"'\"'' < /dev/null"),
            lines("s2", "curl -H 'x: [REDACTED]' u"),
            lines("s3", "SNAPSHOT_FILE=/tmp/x; source ~/.bashrc"),
            lines("s4", "id > /tmp/hook-ran"),
            lines("s5", "env"),
        ];
        let redact = |c: &str| c.replace("SECRET", "[REDACTED]");
        let found = cross_check(&calls, &sessions, &Channel::Shell, &redact);
        assert_eq!(
            found,
            [
                Mismatch::OutsideChannel(calls[1].clone()),
                Mismatch::NotRecorded(calls[3].clone()),
                Mismatch::NoCall {
                    session: "s4".into(),
                    text: "id > /tmp/hook-ran".into()
                },
            ]
        );
        // The harness's own sessions answer no call.
        let snapshot = [lines("s1", "SNAPSHOT_FILE=/tmp/x; echo ok")];
        let echo = [call("Bash", Some("echo"), 1)];
        assert_eq!(
            cross_check(&echo, &snapshot, &Channel::Shell, &|c| c.to_string()),
            [Mismatch::NotRecorded(echo[0].clone())]
        );
        // One session answers one call: the same command twice needs two.
        let twice = [call("Bash", Some("ls"), 1), call("Bash", Some("ls"), 2)];
        let once = [lines("s1", "ls")];
        assert_eq!(
            cross_check(&twice, &once, &Channel::Shell, &|c| c.to_string()),
            [Mismatch::NotRecorded(twice[1].clone())]
        );
    }

    #[test]
    fn codex_namespaced_mcp_calls_are_the_servers_tools() {
        let text = [
            r#"{"type":"response_item","payload":{"type":"function_call","namespace":"mcp__gitea","name":"list_issues","call_id":"a","arguments":"{}"}}"#,
            r#"{"type":"response_item","payload":{"type":"function_call","namespace":"mcp__gitea","name":"mcp__gitea__get_issue","call_id":"b","arguments":"{}"}}"#,
            r#"{"type":"response_item","payload":{"type":"function_call","namespace":"mcp__other","name":"exec_command","call_id":"c","arguments":"{}"}}"#,
            r#"{"type":"response_item","payload":{"type":"function_call","name":"read_mcp_resource","call_id":"d","arguments":"{}"}}"#,
        ]
        .join("\n");
        let calls = read_calls(&text).expect("read");
        let tools: Vec<&str> = calls.iter().map(|c| c.tool.as_str()).collect();
        assert_eq!(
            tools,
            [
                "mcp__gitea__list_issues",
                "mcp__gitea__get_issue",
                "mcp__other__exec_command",
                "read_mcp_resource"
            ]
        );
        let gitea = Channel::Mcp("gitea".into());
        let allowed: Vec<bool> = tools.iter().map(|t| gitea.allows(t)).collect();
        assert_eq!(allowed, [true, true, false, false]);
        // Another server's tool named like a shell tool is not the shell.
        assert!(!Channel::Shell.allows(tools[2]));
    }

    #[test]
    fn the_mcp_channel_is_its_servers_tools_alone() {
        let gitea = Channel::Mcp("gitea".into());
        assert!(gitea.allows("mcp__gitea__list_issues"));
        assert!(!gitea.allows("mcp__giteax__list_issues"));
        assert!(!gitea.allows("mcp__other__x"));
        assert!(!gitea.allows("Bash"));
        assert_eq!(Channel::parse("mcp:gitea"), Ok(gitea));
        assert_eq!(Channel::parse("shell"), Ok(Channel::Shell));
        assert!(Channel::parse("mcp:").is_err());
    }
}
