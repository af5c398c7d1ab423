//! The compiled policy: what one arm's agent may run, as loaded by guard-sh.
//!
//! It is produced from `arms/NAME.toml` plus `arms/harmless.toml` by
//! `arm-build` (or `guard-sh --arm NAME`) and written as JSON so that
//! guard-sh loads it with one parse and no lookups. Everything the guard, the
//! interpreter and the sandbox decide comes from here; nothing is hard-coded
//! per arm.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Version of the compiled format; guard-sh refuses other versions.
pub const POLICY_FORMAT: u32 = 1;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    pub format: u32,
    /// The arm's name, e.g. `tea`.
    pub arm: String,
    /// `false` for arms without a shell (`gitea-mcp`): every command is denied.
    pub shell: bool,
    /// The arm's one tool, if it has a shell (also a key of `commands`).
    pub tool: Option<String>,
    /// The curated bin folder: the only place command names resolve.
    pub bin_dir: PathBuf,
    /// Every command name the agent may run, keyed by the name it types.
    pub commands: BTreeMap<String, CommandRule>,
    /// Rules for assignments and for the environment children get.
    pub env: EnvPolicy,
    pub sandbox: SandboxPolicy,
    pub audit: AuditPolicy,
    /// What one trial may use at once, counted by the kernel.
    #[serde(default)]
    pub bounds: Bounds,
}

#[cfg(test)]
impl Policy {
    /// The unit tests' fixture: arm `t` with a shell, bin folder `/b`, no
    /// command, no environment rule, the default sandbox, audit and
    /// bounds. A test adds what it is about.
    pub(crate) fn bare() -> Policy {
        Policy {
            format: POLICY_FORMAT,
            arm: "t".into(),
            shell: true,
            tool: None,
            bin_dir: "/b".into(),
            commands: BTreeMap::new(),
            env: EnvPolicy {
                pass: vec![],
                set: BTreeMap::new(),
                deny: vec![],
            },
            sandbox: SandboxPolicy::default(),
            audit: AuditPolicy::default(),
            bounds: Bounds::default(),
        }
    }
}

/// What one trial (every process of it: the harness, the line server and
/// every line's commands) or one standalone guard-sh session may use,
/// counted by the kernel in a cgroup made for it where one can be (see
/// `crate::sandbox::cgroup`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bounds {
    /// Processes and threads alive at once (`pids.max`): a fork bomb
    /// stops here instead of at the machine's limit.
    pub processes: u64,
    /// Memory charged to the trial, in MiB (`memory.max`, v1's
    /// `memory.limit_in_bytes`): past it the kernel ends a process of the
    /// trial, never one outside it.
    pub memory_mib: u64,
    /// The largest file a process of the trial may write, in MiB
    /// (`RLIMIT_FSIZE`): a runaway `yes > out` stops there, with
    /// `SIGXFSZ`.
    #[serde(default = "Bounds::default_file_mib")]
    pub file_mib: u64,
    /// The bytes of every file under the arm's `work/` and `tmp/`
    /// together, in MiB (counted by the launcher): many files each below
    /// `file_mib` still fill a disk.
    #[serde(default = "Bounds::default_disk_mib")]
    pub disk_mib: u64,
    /// CPU time all processes of the trial may use together, in seconds
    /// (the cgroup's own count): past it the trial is ended.
    #[serde(default = "Bounds::default_cpu_seconds")]
    pub cpu_seconds: u64,
    /// Wall time of one line, in seconds (guard-sh's own clock): past it
    /// the line's commands are ended and the line fails with status 124.
    #[serde(default = "Bounds::default_line_seconds")]
    pub line_seconds: u64,
}

impl Bounds {
    fn default_file_mib() -> u64 {
        1024
    }

    fn default_cpu_seconds() -> u64 {
        3600
    }

    fn default_disk_mib() -> u64 {
        4096
    }

    fn default_line_seconds() -> u64 {
        900
    }
}

impl Default for Bounds {
    fn default() -> Bounds {
        Bounds {
            processes: 512,
            memory_mib: 4096,
            file_mib: Bounds::default_file_mib(),
            cpu_seconds: Bounds::default_cpu_seconds(),
            disk_mib: Bounds::default_disk_mib(),
            line_seconds: Bounds::default_line_seconds(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CommandKind {
    /// The arm's one tool.
    Tool,
    /// A member of the shared harmless-utilities set.
    Utility,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandRule {
    pub kind: CommandKind,
    /// The real executable the bin-folder entry points at (resolved at build time).
    pub path: PathBuf,
    /// Argument rules; any match denies the command.
    #[serde(default)]
    pub deny: Vec<ArgRule>,
    /// Extra executables the kernel lets this command run (the tool's helpers
    /// and interpreters: for `gitea-axi` `/usr/bin/env`, `node`, `git`, `tea`).
    #[serde(default)]
    pub exec_allow: Vec<PathBuf>,
    /// `PATH` given to this command's process (folders of helper links, never
    /// the agent's bin folder unless listed). Empty: `PATH` is unset.
    #[serde(default)]
    pub path_env: Vec<PathBuf>,
    /// Extra environment for this command (e.g. the tool's credentials).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// TCP ports this command may connect to (Landlock ABI >= 4). Empty: none.
    #[serde(default)]
    pub connect_ports: Vec<u16>,
    /// `HOST:PORT` endpoints this command may reach (the forge): the exec
    /// supervisor refuses every other address. Empty: none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub connect_hosts: Vec<String>,
    /// Extra folders this command may write (e.g. the tool's config home).
    #[serde(default)]
    pub writable: Vec<PathBuf>,
}

/// A rule over a command's arguments (`argv[1..]`). Each carries the reason
/// shown to the agent when it matches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "match", rename_all = "kebab-case", deny_unknown_fields)]
pub enum ArgRule {
    /// An argument that could be the subcommand equals `name` (`tea api`):
    /// the first operand, or any operand before it that follows an option
    /// which may take a value (`tea --repo o/r api`, `tea -o json api`).
    Subcommand { name: String, reason: String },
    /// A long option `--name`, `--name=VALUE`, or any abbreviation of it that
    /// GNU getopt would accept (`--compress`, `--compress-prog=gzip`), before
    /// a `--` that ends the options.
    LongOption { name: String, reason: String },
    /// A short option letter, alone or bundled (`-x`, `-ax`), before `--`.
    ShortOption { letter: char, reason: String },
    /// Any argument equal to `value`.
    Argument { value: String, reason: String },
    /// An operand of at least `min_digits` digits, optionally followed by
    /// `.` and more digits (`date MMDDhhmm[[CC]YY][.ss]` sets the clock).
    NumericOperand { min_digits: u32, reason: String },
    /// An argument (or `--opt=VALUE` value) that is a URL whose scheme is
    /// not one of `allowed` (`tftp://…`, `file://…`, `gopher://…`).
    UrlScheme {
        allowed: Vec<String>,
        reason: String,
    },
}

impl ArgRule {
    pub fn reason(&self) -> &str {
        match self {
            ArgRule::Subcommand { reason, .. }
            | ArgRule::LongOption { reason, .. }
            | ArgRule::ShortOption { reason, .. }
            | ArgRule::Argument { reason, .. }
            | ArgRule::NumericOperand { reason, .. }
            | ArgRule::UrlScheme { reason, .. } => reason,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvPolicy {
    /// Inherited variables passed to children unchanged (exact names, or a
    /// prefix ending in `*` such as `LC_*`).
    pub pass: Vec<String>,
    /// Variables every child gets (after `pass`).
    #[serde(default)]
    pub set: BTreeMap<String, String>,
    /// Names the agent may not assign or export, and that are removed from
    /// every child's environment (exact, or a prefix ending in `*`). Each
    /// with the reason shown when an assignment is refused.
    pub deny: Vec<EnvDeny>,
}

impl EnvPolicy {
    /// The rule of `deny` that `name` falls under.
    pub fn denial(&self, name: &str) -> Option<&EnvDeny> {
        self.deny
            .iter()
            .find(|d| env_pattern_matches(&d.pattern, name))
    }

    /// Is `name` one the arm sets for every command and denies the agent
    /// (`HOME`, the XDG folders, `CURL_HOME`)? No command can receive the
    /// agent's value of it, so the shell may hold one for its own uses
    /// (`~`, `cd`) as bash does; a command that would have received it
    /// from bash is refused instead (`sandbox::env::changed_held_name`).
    /// `PATH` is never held: it picks the program bash would run.
    pub fn held_by_arm(&self, name: &str) -> bool {
        name != "PATH" && self.set.contains_key(name) && self.denial(name).is_some()
    }

    /// The names the arm holds, each with the value a command with `rule`
    /// gets for it (the rule's own, else the arm's).
    pub fn held_values<'s: 'r, 'r>(
        &'s self,
        rule: &'r CommandRule,
    ) -> impl Iterator<Item = (&'s str, &'r str)> + 'r {
        self.set
            .iter()
            .filter(|(name, _)| self.held_by_arm(name))
            .map(|(name, arms)| (name.as_str(), rule.env.get(name).unwrap_or(arms).as_str()))
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvDeny {
    pub pattern: String,
    pub reason: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// Enforce what the kernel supports; warn once per session if nothing.
    #[default]
    BestEffort,
    /// Refuse to run when Landlock cannot be enforced.
    Required,
    /// No kernel confinement (tests, or platforms without Landlock).
    Off,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct SandboxPolicy {
    #[serde(default)]
    pub mode: SandboxMode,
    /// Folders every command (and guard-sh's own redirections) may write.
    #[serde(default)]
    pub writable: Vec<PathBuf>,
    /// Paths no command may write, whatever else says (policy, bin folder,
    /// audit log). Redirections into them are refused by guard-sh itself.
    #[serde(default)]
    pub protected: Vec<PathBuf>,
    /// Paths no command may read (the harness's home and login, the audit
    /// log, the arm's configs): each command's Landlock domain grants
    /// reading everywhere but beneath these (and other tools' own
    /// folders, see `CommandRule::writable`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreadable: Vec<PathBuf>,
    /// Every file (or helper folder) any command may execute, with its
    /// start-up chain, as `arm-build` resolved it: guard-sh's own Landlock
    /// domain grants exactly these instead of reading every program's
    /// header at each start. Each command's own domain is still resolved
    /// from the files as they are when it starts. Absent: guard-sh
    /// resolves the set itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execute: Option<Vec<PathBuf>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct AuditPolicy {
    /// The audit log, unless `--audit`/`GUARD_SH_AUDIT` say otherwise.
    #[serde(default)]
    pub path: Option<PathBuf>,
    /// SHA-256 (hex) of secrets to redact from logged text (the arm's token).
    #[serde(default)]
    pub redact_sha256: Vec<String>,
    /// Secrets to redact, in clear (only in policies whose file is private).
    #[serde(default)]
    pub redact: Vec<String>,
}

/// An environment pattern of the policy (`env.deny`, a rule's `env`):
/// `NAME` matches exactly; `PREFIX*` matches every name starting with
/// PREFIX, `*SUFFIX` every name ending with SUFFIX.
pub fn env_pattern_matches(pattern: &str, name: &str) -> bool {
    if let Some(prefix) = pattern.strip_suffix('*') {
        return name.starts_with(prefix);
    }
    match pattern.strip_prefix('*') {
        Some(suffix) => name.ends_with(suffix),
        None => pattern == name,
    }
}
