//! Runtime configs: what each agent harness needs to run one arm.
//!
//! Each harness is offered exactly the arm's channel, by allowlist: shell
//! arms the shell tool alone (Claude: `tools: ["Bash"]` / `--tools Bash`),
//! the MCP arm no built-in tool at all (`tools: []` / `--tools ""`) and
//! only its server's tools. Every built-in the pinned releases know is
//! also denied by name, for a harness that ignores the allowlist. No
//! settings file, hook, skill, plugin or MCP server from disk is loaded
//! (`settingSources: []` / `--setting-sources ""`, strict MCP config,
//! `--disable-slash-commands`), and the harness's HOME and config folder
//! are the arm's `harness-home/`, empty after every build. Shell arms point
//! the harness's `SHELL` at guard-sh through a path that contains `bash`,
//! because Claude Code ignores any other. Option names are those of
//! Claude Code 2.1.332, the Claude Agent SDK 0.3.335 and Codex 0.171.0,
//! which the end-to-end tests drive.

use super::error::BuildError;
use crate::armbuild::compile::ResolvedMcp;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The variables Codex's `shell_environment_policy.inherit = "core"` keeps
/// (codex-rs/core exec_env.rs).
const CODEX_CORE_VARS: [&str; 9] = [
    "HOME", "LOGNAME", "PATH", "SHELL", "USER", "USERNAME", "TMPDIR", "TEMP", "TMP",
];

/// Codex 0.171.0 features (`codex features list`) on by default that offer
/// the model a tool or load code or instructions from disk, switched off
/// for every arm: subagents, goals, image viewing and generation, apps,
/// browser and computer use, hooks, plugins, skills, tool suggestions,
/// worktrees.
const CODEX_OFF_FEATURES: [&str; 16] = [
    "multi_agent",
    "goals",
    "view_image",
    "image_generation",
    "apps",
    "browser_use",
    "browser_use_external",
    "computer_use",
    "hooks",
    "plugins",
    "remote_plugin",
    "skill_search",
    "skill_mcp_dependency_install",
    "tool_suggest",
    "sleep_tool",
    "worktrees",
];

/// Claude's shell tools: the one built-in a shell arm is offered (the
/// first), and what an arm without a shell denies.
pub const CLAUDE_SHELL_TOOLS: [&str; 3] = ["Bash", "BashOutput", "KillShell"];
/// Every other Claude built-in (Claude Code 2.1.332's `sdk-tools.d.ts` and
/// the tools it offers by default, each a name it knows: it warns about a
/// deny rule that matches no tool), denied by name: files, subagents,
/// skills, web, scheduling, monitoring, worktrees, MCP resources.
pub const CLAUDE_OTHER_TOOLS: [&str; 40] = [
    "Agent",
    "Task",
    "TaskCreate",
    "TaskGet",
    "TaskUpdate",
    "TaskList",
    "TaskStop",
    "TaskOutput",
    "Edit",
    "Read",
    "Write",
    "NotebookEdit",
    "Glob",
    "Grep",
    "WebFetch",
    "WebSearch",
    "TodoWrite",
    "Skill",
    "ToolSearch",
    "Workflow",
    "ListAgents",
    "ReportFindings",
    "ScheduleWakeup",
    "Monitor",
    "CronCreate",
    "CronDelete",
    "CronList",
    "RemoteTrigger",
    "EnterWorktree",
    "ExitWorktree",
    "EnterPlanMode",
    "ExitPlanMode",
    "AskUserQuestion",
    "ListMcpResourcesTool",
    "ReadMcpResourceTool",
    "SendUserMessage",
    "SendMessage",
    "PushNotification",
    "Artifact",
    "ProposeGoal",
];

/// What the runtime configs are made from.
pub struct RuntimeInputs<'a> {
    pub system_prompt: &'a str,
    pub system_prompt_file: &'a Path,
    pub work_dir: &'a Path,
    /// The arm's temp folder (writable by guard-sh).
    pub tmp_dir: &'a Path,
    /// The harness's own HOME and config folder.
    pub harness_home: &'a Path,
    /// Shell arms: the variables the harness sets for itself (SHELL, guard-sh's).
    pub shell_env: Option<&'a BTreeMap<String, String>>,
    /// Shell arms: guard-sh under the file name `bash`, Codex's login shell.
    pub codex_shell: Option<&'a Path>,
    /// What Codex's own sandbox may let its commands and its patch tool
    /// write: the work and temp folders, never the audit folder or a
    /// tool's login.
    pub writable_roots: &'a [PathBuf],
    /// MCP arms: the server.
    pub mcp: Option<&'a ResolvedMcp>,
}

/// Where the runtime configs were written (recorded in `arm.json`).
#[derive(Debug, Clone)]
pub struct RuntimeFiles {
    pub claude_agent_sdk: PathBuf,
    pub claude_code_mcp: PathBuf,
    pub claude_code_settings: PathBuf,
    pub claude_code_flags: PathBuf,
    pub codex_config: PathBuf,
}

impl RuntimeFiles {
    pub fn new(dir: &Path) -> Self {
        RuntimeFiles {
            claude_agent_sdk: dir.join("claude-agent-sdk.json"),
            claude_code_mcp: dir.join("claude-code").join(".mcp.json"),
            claude_code_settings: dir.join("claude-code").join("settings.json"),
            claude_code_flags: dir.join("claude-code").join("flags.json"),
            codex_config: dir.join("codex").join("config.toml"),
        }
    }

    pub fn to_json(&self) -> Value {
        json!({
            "claudeAgentSdk": self.claude_agent_sdk,
            "claudeCode": {
                "mcpConfig": self.claude_code_mcp,
                "settings": self.claude_code_settings,
                "flags": self.claude_code_flags,
            },
            "codex": self.codex_config,
        })
    }
}

/// The arm's channel for Claude: the built-in tools offered (an
/// allowlist), the tools pre-approved, and every other built-in, denied.
struct ClaudeTools {
    offered: Vec<String>,
    allowed: Vec<String>,
    denied: Vec<String>,
}

fn claude_tools(inputs: &RuntimeInputs) -> ClaudeTools {
    let mut denied: Vec<String> = CLAUDE_OTHER_TOOLS.iter().map(|s| s.to_string()).collect();
    match inputs.mcp {
        Some(m) => {
            denied.extend(CLAUDE_SHELL_TOOLS.iter().map(|s| s.to_string()));
            ClaudeTools {
                offered: Vec::new(),
                allowed: vec![format!("mcp__{}", m.server)],
                denied,
            }
        }
        None => {
            denied.extend(CLAUDE_SHELL_TOOLS[1..].iter().map(|s| s.to_string()));
            ClaudeTools {
                offered: vec![CLAUDE_SHELL_TOOLS[0].to_string()],
                allowed: vec![CLAUDE_SHELL_TOOLS[0].to_string()],
                denied,
            }
        }
    }
}

/// For shell arms, guard-sh as the harness's shell.
fn claude_env(inputs: &RuntimeInputs) -> BTreeMap<String, String> {
    let mut env = inputs.shell_env.cloned().unwrap_or_default();
    if let Some(shell) = env.get("SHELL").cloned() {
        env.insert("CLAUDE_CODE_SHELL".into(), shell);
        // Claude Code's wrapper ends with `pwd -P >| $CLAUDE_CODE_TMPDIR/claude-…-cwd`;
        // the arm's temp folder is one guard-sh may write.
        env.insert(
            "CLAUDE_CODE_TMPDIR".into(),
            inputs.tmp_dir.to_string_lossy().into_owned(),
        );
    }
    env
}

/// [`claude_env`] plus HOME and the config folder in the arm: the whole
/// process environment the SDK starts Claude Code with (its `env` option
/// replaces the environment; without HOME the CLI wrote into the
/// operator's `~/.claude`). Claude Code started by hand takes these two on
/// its command line (README), since its settings apply after start-up.
fn harness_env(inputs: &RuntimeInputs) -> BTreeMap<String, String> {
    let mut env = claude_env(inputs);
    env.insert(
        "HOME".into(),
        inputs.harness_home.to_string_lossy().into_owned(),
    );
    env.insert(
        "CLAUDE_CONFIG_DIR".into(),
        inputs
            .harness_home
            .join(".claude")
            .to_string_lossy()
            .into_owned(),
    );
    env
}

fn mcp_servers(inputs: &RuntimeInputs) -> Value {
    match inputs.mcp {
        Some(m) => json!({
            m.server.as_str(): { "type": "stdio", "command": m.command, "args": m.args, "env": m.env }
        }),
        None => json!({}),
    }
}

fn to_pretty(what: &'static str, v: &Value) -> Result<String, BuildError> {
    serde_json::to_string_pretty(v)
        .map(|s| s + "\n")
        .map_err(|e| BuildError::Serialize {
            what,
            message: e.to_string(),
        })
}

/// The Claude Agent SDK `options` object. Its `env` replaces the
/// harness's whole environment: add `PATH` and the model's credentials
/// (`ANTHROPIC_API_KEY`), and keep its `HOME`.
pub fn claude_agent_sdk(inputs: &RuntimeInputs) -> Result<String, BuildError> {
    let tools = claude_tools(inputs);
    to_pretty(
        "Claude Agent SDK options",
        &json!({
            "systemPrompt": inputs.system_prompt,
            "cwd": inputs.work_dir,
            "env": harness_env(inputs),
            "tools": tools.offered,
            "mcpServers": mcp_servers(inputs),
            "strictMcpConfig": true,
            "settingSources": [],
            "skills": [],
            "plugins": [],
            "agents": {},
            "allowedTools": tools.allowed,
            "disallowedTools": tools.denied,
        }),
    )
}

/// Claude Code's `.mcp.json`.
pub fn claude_code_mcp(inputs: &RuntimeInputs) -> Result<String, BuildError> {
    to_pretty(
        "Claude Code .mcp.json",
        &json!({ "mcpServers": mcp_servers(inputs) }),
    )
}

/// Claude Code settings (`--settings FILE`).
pub fn claude_code_settings(inputs: &RuntimeInputs) -> Result<String, BuildError> {
    let tools = claude_tools(inputs);
    to_pretty(
        "Claude Code settings",
        &json!({
            "env": claude_env(inputs),
            "permissions": { "allow": tools.allowed, "deny": tools.denied },
            "disableAllHooks": true,
            "enableAllProjectMcpServers": false,
        }),
    )
}

/// The Claude Code command-line flags, as a JSON array of arguments.
pub fn claude_code_flags(
    inputs: &RuntimeInputs,
    files: &RuntimeFiles,
) -> Result<String, BuildError> {
    let tools = claude_tools(inputs);
    let args = json!([
        "--tools",
        tools.offered.join(","),
        "--setting-sources",
        "",
        "--settings",
        files.claude_code_settings,
        "--mcp-config",
        files.claude_code_mcp,
        "--strict-mcp-config",
        "--disable-slash-commands",
        "--system-prompt-file",
        inputs.system_prompt_file,
        "--allowedTools",
        tools.allowed.join(","),
        "--disallowedTools",
        tools.denied.join(","),
    ]);
    to_pretty("Claude Code flags", &args)
}

/// A Codex `config.toml` fragment.
pub fn codex_config(inputs: &RuntimeInputs) -> Result<String, BuildError> {
    use toml::{Table, Value as T};
    let strings = |v: &[String]| T::Array(v.iter().cloned().map(T::String).collect());
    let table = |m: &BTreeMap<String, String>| {
        T::Table(
            m.iter()
                .map(|(k, v)| (k.clone(), T::String(v.clone())))
                .collect(),
        )
    };
    let mut root = Table::new();
    root.insert("web_search".into(), T::String("disabled".into()));
    let mut features = Table::new();
    features.insert("web_search_request".into(), T::Boolean(false));
    for feature in CODEX_OFF_FEATURES {
        features.insert(feature.into(), T::Boolean(false));
    }
    if inputs.mcp.is_some() {
        features.insert("shell_tool".into(), T::Boolean(false));
        features.insert("unified_exec".into(), T::Boolean(false));
    }
    root.insert("features".into(), T::Table(features));
    // A question to the operator (inert in `codex exec`, still offered).
    let mut ask = Table::new();
    ask.insert("enabled".into(), T::Boolean(false));
    let mut tools = Table::new();
    tools.insert("experimental_request_user_input".into(), T::Table(ask));
    root.insert("tools".into(), T::Table(tools));
    if let Some(env) = inputs.shell_env {
        // Codex's "core" set, plus the trial's id and seal that
        // guard-sh-launch hands the harness (inherit = "core" would drop
        // them, and guard-sh could not prove its records belong to the trial).
        let mut policy = Table::new();
        policy.insert("inherit".into(), T::String("all".into()));
        let include: Vec<T> = CODEX_CORE_VARS
            .iter()
            .chain(&["GUARD_SH_*"])
            .map(|v| T::String((*v).into()))
            .collect();
        policy.insert("include_only".into(), T::Array(include));
        policy.insert("set".into(), table(env));
        root.insert("shell_environment_policy".into(), T::Table(policy));
    }
    if inputs.shell_env.is_some() {
        // Under `-s workspace-write` Codex makes all but these read-only,
        // for its commands and its own patch tool: without the audit
        // folder guard-sh refuses every command (fail closed), and nothing
        // Codex does in-process reaches the log or a tool's login.
        let roots: Vec<String> = inputs
            .writable_roots
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        let mut write = Table::new();
        write.insert("writable_roots".into(), strings(&roots));
        write.insert("network_access".into(), T::Boolean(true));
        root.insert("sandbox_workspace_write".into(), T::Table(write));
    }
    if let Some(m) = inputs.mcp {
        let mut s = Table::new();
        s.insert(
            "command".into(),
            T::String(m.command.to_string_lossy().into_owned()),
        );
        s.insert("args".into(), strings(&m.args));
        s.insert("env".into(), table(&m.env));
        let mut servers = Table::new();
        servers.insert(m.server.clone(), T::Table(s));
        root.insert("mcp_servers".into(), T::Table(servers));
    }
    let body = toml::to_string(&root).map_err(|e| BuildError::Serialize {
        what: "Codex config",
        message: e.to_string(),
    })?;
    let head = match inputs.codex_shell {
        Some(shell) => format!(
            "# Codex config fragment from arm-build. Codex ignores $SHELL: it runs\n\
             # `LOGIN_SHELL -lc CMD`, LOGIN_SHELL being the user's passwd entry, used only\n\
             # when its file is named bash or zsh. Run Codex as a user whose login shell is\n\
             # {}\n\
             # (guard-sh under the name bash). The model can still name another shell in\n\
             # exec_command's `shell` argument (e.g. \"sh\" runs /bin/sh): start Codex with\n\
             # `guard-sh-launch --arm ARM_DIR --allow-exec CODEX_VENDOR_DIR -- codex …`,\n\
             # which lets it execute nothing but the arm's shell and commands.\n",
            shell.display()
        ),
        None => "# Codex config fragment from arm-build (no shell: only the MCP server's tools).\n"
            .to_string(),
    };
    Ok(head + &body)
}
