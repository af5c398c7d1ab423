//! Arm data as written: the TOML of `arms/harmless.toml` and `arms/NAME.toml`.
//!
//! Every table refuses unknown fields, so a misspelt key is an error naming
//! the file and the field instead of a rule that silently does nothing.
//! String values marked "template" may use the placeholders of
//! [`crate::armbuild::template`].

use crate::policy::error::PolicyError;
use crate::policy::model::{ArgRule, SandboxMode};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// File name of the shared harmless set inside an arms folder.
pub const HARMLESS_FILE: &str = "harmless.toml";
/// File name of the shared base-prompt template inside an arms folder.
pub const BASE_PROMPT_FILE: &str = "base-prompt.txt";

/// `arms/harmless.toml`: the utilities and environment rules every arm shares.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HarmlessFile {
    #[serde(default)]
    pub description: String,
    pub env: EnvSource,
    /// Keyed by the name the agent types.
    pub utilities: BTreeMap<String, UtilitySource>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvSource {
    /// Inherited variables passed to children (exact, or `PREFIX*`).
    pub pass: Vec<String>,
    /// Variables every child gets from the arm (templates such as
    /// `{out}` filled), whatever the agent exports or the deny patterns say.
    #[serde(default)]
    pub set: BTreeMap<String, String>,
    /// Variables the agent may not assign and children never inherit.
    pub deny: Vec<EnvDenySource>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvDenySource {
    pub pattern: String,
    pub reason: String,
}

/// One harmless utility.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UtilitySource {
    /// guard-sh implements it itself; a bin link is made only if a binary
    /// of that name exists on the build-time `PATH` (e.g. `cd` has none).
    #[serde(default)]
    pub builtin: bool,
    /// Program to resolve, when it differs from the name.
    pub binary: Option<String>,
    /// Programs this utility itself runs (e.g. Debian's `egrep` script runs
    /// `grep`): linked into a private folder that becomes its `PATH`.
    #[serde(default)]
    pub helpers: Vec<String>,
    #[serde(default)]
    pub deny: Vec<RuleSource>,
}

/// `match` names the [`ArgRule`] variant; the other fields are its data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RuleKind {
    Subcommand,
    LongOption,
    ShortOption,
    Argument,
    NumericOperand,
    UrlScheme,
}

/// An argument rule as written, with examples checked at compile time.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleSource {
    #[serde(rename = "match")]
    pub kind: RuleKind,
    /// For `subcommand` and `long-option` (without the leading `--`).
    pub name: Option<String>,
    /// For `short-option`.
    pub letter: Option<char>,
    /// For `argument`.
    pub value: Option<String>,
    /// For `numeric-operand`.
    pub min_digits: Option<u32>,
    /// For `url-scheme`: the schemes a URL argument may have.
    pub allowed: Option<Vec<String>>,
    /// Shown to the agent when the rule denies a command.
    pub reason: String,
    /// Full argvs (command name first) no rule of the command may deny.
    #[serde(default)]
    pub allow_examples: Vec<Vec<String>>,
    /// Full argvs this rule must deny.
    #[serde(default)]
    pub deny_examples: Vec<Vec<String>>,
}

impl RuleSource {
    /// The compiled rule, or an error naming `field` when the variant's data is missing.
    pub fn to_arg_rule(&self, path: &Path, field: &str) -> Result<ArgRule, PolicyError> {
        let need = |what: &str, v: Option<String>| {
            v.filter(|s| !s.is_empty()).ok_or_else(|| {
                PolicyError::invalid(
                    path,
                    format!("{field}.{what}"),
                    "required for this kind of rule",
                )
            })
        };
        let extra = |present: bool, what: &str| {
            if present {
                Err(PolicyError::invalid(
                    path,
                    format!("{field}.{what}"),
                    "not used by this kind of rule",
                ))
            } else {
                Ok(())
            }
        };
        let reason = self.reason.clone();
        if reason.trim().is_empty() {
            return Err(PolicyError::invalid(
                path,
                format!("{field}.reason"),
                "must not be empty",
            ));
        }
        Ok(match self.kind {
            RuleKind::Subcommand | RuleKind::LongOption => {
                extra(self.allowed.is_some(), "allowed")?;
                extra(self.min_digits.is_some(), "min_digits")?;
                extra(self.letter.is_some(), "letter")?;
                extra(self.value.is_some(), "value")?;
                let name = need("name", self.name.clone())?;
                if name.starts_with('-') {
                    return Err(PolicyError::invalid(
                        path,
                        format!("{field}.name"),
                        "write the name without leading dashes",
                    ));
                }
                if self.kind == RuleKind::Subcommand {
                    ArgRule::Subcommand { name, reason }
                } else {
                    ArgRule::LongOption { name, reason }
                }
            }
            RuleKind::ShortOption => {
                extra(self.allowed.is_some(), "allowed")?;
                extra(self.min_digits.is_some(), "min_digits")?;
                extra(self.name.is_some(), "name")?;
                extra(self.value.is_some(), "value")?;
                let letter = self.letter.ok_or_else(|| {
                    PolicyError::invalid(
                        path,
                        format!("{field}.letter"),
                        "required for this kind of rule",
                    )
                })?;
                if letter == '-' {
                    return Err(PolicyError::invalid(
                        path,
                        format!("{field}.letter"),
                        "`-` is not an option letter",
                    ));
                }
                ArgRule::ShortOption { letter, reason }
            }
            RuleKind::Argument => {
                extra(self.name.is_some(), "name")?;
                extra(self.letter.is_some(), "letter")?;
                extra(self.min_digits.is_some(), "min_digits")?;
                extra(self.allowed.is_some(), "allowed")?;
                ArgRule::Argument {
                    value: need("value", self.value.clone())?,
                    reason,
                }
            }
            RuleKind::NumericOperand => {
                extra(self.allowed.is_some(), "allowed")?;
                extra(self.name.is_some(), "name")?;
                extra(self.letter.is_some(), "letter")?;
                extra(self.value.is_some(), "value")?;
                let min_digits = self.min_digits.filter(|&n| n > 0).ok_or_else(|| {
                    PolicyError::invalid(
                        path,
                        format!("{field}.min_digits"),
                        "required for this kind of rule (a positive number)",
                    )
                })?;
                ArgRule::NumericOperand { min_digits, reason }
            }
            RuleKind::UrlScheme => {
                extra(self.name.is_some(), "name")?;
                extra(self.letter.is_some(), "letter")?;
                extra(self.value.is_some(), "value")?;
                extra(self.min_digits.is_some(), "min_digits")?;
                let allowed = self
                    .allowed
                    .clone()
                    .filter(|a| !a.is_empty())
                    .ok_or_else(|| {
                        PolicyError::invalid(
                            path,
                            format!("{field}.allowed"),
                            "required for this kind of rule (the schemes a URL may have)",
                        )
                    })?;
                ArgRule::UrlScheme { allowed, reason }
            }
        })
    }
}

/// `arms/NAME.toml`: one arm.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArmFile {
    /// Must equal the file's stem.
    pub name: String,
    pub description: String,
    /// `false`: the agent has no shell at all (an MCP-only arm).
    #[serde(default = "yes")]
    pub shell: bool,
    /// Kernel confinement level the compiled policy asks for.
    #[serde(default)]
    pub sandbox: SandboxMode,
    /// The one tool (shell arms only).
    pub tool: Option<ToolSource>,
    /// The MCP server (MCP arms only).
    pub mcp: Option<McpSource>,
    pub bootstrap: BootstrapSource,
    /// Arm-private files written into the output folder (e.g. a login).
    #[serde(default)]
    pub files: Vec<FileSource>,
    /// What one trial of the arm may use (`arm-build --max-processes`,
    /// `--max-memory-mib` override it); absent: the defaults.
    #[serde(default)]
    pub bounds: crate::policy::Bounds,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolSource {
    /// The name the agent types.
    pub name: String,
    /// Program to resolve, when it differs from the name.
    pub binary: Option<String>,
    /// Programs the tool runs itself (its `#!` interpreter and its helpers),
    /// resolved on `PATH`, linked into a private folder that becomes the
    /// tool's `PATH`, and allowed to execute in its sandbox.
    #[serde(default)]
    pub helpers: Vec<String>,
    /// Absolute paths (files or folders) the tool may also execute, such as
    /// git's remote helpers; the ones missing at build time are left out.
    #[serde(default)]
    pub exec_allow: Vec<String>,
    /// Allow TCP connections to the host URL's port (default `true`).
    #[serde(default = "yes")]
    pub connect_host: bool,
    /// More TCP ports the tool may connect to.
    #[serde(default)]
    pub connect_ports: Vec<u16>,
    /// Folders the tool may write besides the arm's work folders (template).
    #[serde(default)]
    pub writable: Vec<String>,
    /// Environment of the tool's process: its credentials (values are templates).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Names from `env` also handed to the agent's shell by the runtime.
    #[serde(default)]
    pub shell_env: Vec<String>,
    #[serde(default)]
    pub deny: Vec<RuleSource>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpSource {
    /// Key under `mcpServers` / `[mcp_servers.KEY]`; tools appear as `mcp__KEY__*`.
    pub server: String,
    /// The server program, resolved on `PATH`.
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    /// The server's environment (values are templates).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BootstrapSource {
    /// Text after the base prompt (template).
    pub text: String,
    /// An Agent Skill whose body follows `text`.
    pub skill: Option<SkillSource>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillSource {
    /// Bundled copy, relative to the folder that holds the arms folder
    /// (e.g. `skills/gitea-axi/SKILL.md`).
    pub bundled: String,
    /// Where an installed tool keeps its own skill, relative to the root of
    /// the package that holds the tool's real executable (the nearest
    /// folder above it with a `package.json`).
    #[serde(default)]
    pub installed: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileSource {
    /// Relative to the output folder (template).
    pub path: String,
    /// Template.
    pub content: String,
}

/// Parse `path` as TOML of type `T`, naming the file in every error.
pub fn read_toml<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, PolicyError> {
    let text = std::fs::read_to_string(path).map_err(|e| PolicyError::io(path, e))?;
    toml::from_str(&text).map_err(|e| PolicyError::Toml {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// The names of the arms in `dir` (every `*.toml` except the harmless set), sorted.
pub fn list_arms(dir: &Path) -> Result<Vec<String>, PolicyError> {
    let entries = std::fs::read_dir(dir).map_err(|e| PolicyError::io(dir, e))?;
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| PolicyError::io(dir, e))?;
        let file = entry.file_name();
        let Some(file) = file.to_str() else { continue };
        if let Some(stem) = file.strip_suffix(".toml")
            && file != HARMLESS_FILE
        {
            names.push(stem.to_string());
        }
    }
    names.sort();
    Ok(names)
}

/// Read and check `dir/ARM.toml`.
pub fn read_arm(dir: &Path, arm: &str) -> Result<(PathBuf, ArmFile), PolicyError> {
    let valid = !arm.is_empty()
        && arm != "harmless"
        && arm
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
        && !arm.starts_with('.');
    let path = dir.join(format!("{arm}.toml"));
    if !valid || !path.is_file() {
        let known = list_arms(dir)
            .map(|v| v.join(", "))
            .unwrap_or_else(|e| e.to_string());
        return Err(PolicyError::UnknownArm {
            arm: arm.to_string(),
            dir: dir.to_path_buf(),
            known,
        });
    }
    let file: ArmFile = read_toml(&path)?;
    if file.name != arm {
        return Err(PolicyError::invalid(
            &path,
            "name",
            format!("is {:?} but the file is {arm}.toml", file.name),
        ));
    }
    match (file.shell, &file.tool, &file.mcp) {
        (true, Some(_), None) | (false, None, Some(_)) => Ok((path, file)),
        (true, None, _) => Err(PolicyError::invalid(
            &path,
            "tool",
            "a shell arm needs a [tool] table",
        )),
        (true, Some(_), Some(_)) => Err(PolicyError::invalid(
            &path,
            "mcp",
            "a shell arm has one tool and no [mcp] server",
        )),
        (false, Some(_), _) => Err(PolicyError::invalid(
            &path,
            "tool",
            "an arm with shell = false has no tool",
        )),
        (false, None, None) => Err(PolicyError::invalid(
            &path,
            "mcp",
            "an arm with shell = false needs an [mcp] table",
        )),
    }
}
