//! Compiling one arm: `arms/NAME.toml` + `arms/harmless.toml` + build inputs → [`Policy`].
//!
//! Guarantee: every name in the result points at an absolute, canonical
//! executable found on the build-time `PATH` (or the build fails naming the
//! missing program), every argument rule's examples hold, and every
//! placeholder is filled. Nothing arm-specific is decided here: it all comes
//! from the TOML.

use super::examples::check_examples;
use super::source::{self, ArmFile, HarmlessFile, McpSource, RuleSource, ToolSource};
use super::template::Vars;
use crate::policy::error::PolicyError;
use crate::policy::model::*;
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{OsStr, OsString};
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};

/// What a build is for: the forge, the repository, the credential, the output folder.
#[derive(Debug, Clone)]
pub struct BuildInputs {
    /// Base URL of the forge, `http://` or `https://`.
    pub host: String,
    /// `OWNER/NAME`.
    pub repo: String,
    pub token: String,
    /// Absolute output folder; all paths in the policy are under it.
    pub out_dir: PathBuf,
    /// Where programs are looked up; `None`: the ambient `PATH`.
    pub search_path: Option<OsString>,
}

/// Where things live inside the output folder. Fixed, so that the policy
/// can name them before they exist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub out: PathBuf,
    pub bin: PathBuf,
    pub helpers: PathBuf,
    pub work: PathBuf,
    pub tmp: PathBuf,
    /// The commands' HOME: the arm's own, empty and not writable, so no
    /// operator dotfile (`.curlrc`, `.gitconfig`) is read and none can be
    /// planted.
    pub home: PathBuf,
    /// The harness's HOME and config folder (`CLAUDE_CONFIG_DIR`,
    /// `CODEX_HOME`): made empty by every build, so no settings, hooks,
    /// skills or memory of the operator or of an earlier trial reach the
    /// harness; not writable by commands, so the agent can plant none and
    /// cannot rewrite the harness's own transcript.
    pub harness_home: PathBuf,
    pub audit_dir: PathBuf,
    pub audit_log: PathBuf,
    pub policy: PathBuf,
    pub definition: PathBuf,
    /// Runtime configs and the system prompt file.
    pub runtimes: PathBuf,
    /// Holds `guard-sh` under a path containing `bash` when needed.
    pub bash_dir: PathBuf,
}

impl Layout {
    pub fn new(out: &Path) -> Self {
        Layout {
            out: out.to_path_buf(),
            bin: out.join("bin"),
            helpers: out.join("helpers"),
            work: out.join("work"),
            tmp: out.join("tmp"),
            home: out.join("home"),
            harness_home: out.join("harness-home"),
            audit_dir: out.join("audit"),
            audit_log: out.join("audit").join("audit.jsonl"),
            policy: out.join("policy.json"),
            definition: out.join("arm.json"),
            runtimes: out.join("runtimes"),
            bash_dir: out.join("bash"),
        }
    }
}

/// A symbolic link the build must create: `at` → `target`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    pub at: PathBuf,
    pub target: PathBuf,
}

/// The MCP server of an MCP arm, with its program resolved and env filled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedMcp {
    pub server: String,
    pub command: PathBuf,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
}

/// Everything compiling an arm yields: the policy plus what arm-build needs
/// to lay out the folder and write the runtime configs.
#[derive(Debug, Clone)]
pub struct CompiledArm {
    pub policy: Policy,
    pub arm: ArmFile,
    /// The arm's TOML file.
    pub arm_path: PathBuf,
    pub layout: Layout,
    /// Placeholder values (for the base prompt and bootstrap).
    pub vars: Vars,
    /// Bin-folder and helper-folder links.
    pub links: Vec<Link>,
    /// Arm-private files: absolute path → content.
    pub files: Vec<(PathBuf, String)>,
    pub mcp: Option<ResolvedMcp>,
    /// The tool's real executable (shell arms).
    pub tool_path: Option<PathBuf>,
    /// The tool's credential variables the agent's shell also gets.
    pub shell_env: BTreeMap<String, String>,
    /// The bootstrap text with placeholders filled (skill body not included).
    pub bootstrap_text: String,
}

/// Compile arm `arm` from `arms_dir` into the policy guard-sh loads.
pub fn compile(arms_dir: &Path, arm: &str, inputs: &BuildInputs) -> Result<Policy, PolicyError> {
    compile_arm(arms_dir, arm, inputs).map(|c| c.policy)
}

/// Compile arm `arm` from `arms_dir`, keeping everything arm-build needs.
pub fn compile_arm(
    arms_dir: &Path,
    arm: &str,
    inputs: &BuildInputs,
) -> Result<CompiledArm, PolicyError> {
    let harmless_path = arms_dir.join(source::HARMLESS_FILE);
    let harmless: HarmlessFile = source::read_toml(&harmless_path)?;
    let (arm_path, arm_file) = source::read_arm(arms_dir, arm)?;
    Compiler::new(inputs, &arm_path)?.run(&harmless_path, harmless, arm_path.clone(), arm_file)
}

struct Compiler {
    layout: Layout,
    vars: Vars,
    host_port: u16,
    host_name: String,
    search: OsString,
    token: String,
}

impl Compiler {
    fn new(inputs: &BuildInputs, arm_path: &Path) -> Result<Self, PolicyError> {
        if !inputs.out_dir.is_absolute() {
            return Err(PolicyError::invalid(
                &inputs.out_dir,
                "out",
                "the output folder must be an absolute path",
            ));
        }
        let input_err =
            |field: &str, message: String| PolicyError::invalid(arm_path, field, message);
        let host = parse_host(&inputs.host).map_err(|m| input_err("--host", m))?;
        let (owner, repo_name) = parse_repo(&inputs.repo).map_err(|m| input_err("--repo", m))?;
        // Tokens go into YAML, TOML and JSON files and the prompt; a plain
        // alphabet keeps every one of them unambiguous without quoting rules.
        let plain = |b: u8| b.is_ascii_alphanumeric() || b"._~+/=-".contains(&b);
        if inputs.token.is_empty() || !inputs.token.bytes().all(plain) {
            return Err(input_err(
                "--token",
                "the token must be non-empty and use only letters, digits and . _ ~ + / = -".into(),
            ));
        }
        let out = path_text(&inputs.out_dir, arm_path)?;
        let mut vars = Vars::new();
        vars.set("host", host.base.clone());
        vars.set("host_name", host.name.clone());
        vars.set("host_port", host.port.to_string());
        vars.set("repo", format!("{owner}/{repo_name}"));
        vars.set("owner", owner);
        vars.set("repo_name", repo_name);
        vars.set("token", inputs.token.clone());
        vars.set("out", out);
        let search = match &inputs.search_path {
            Some(p) => p.clone(),
            None => std::env::var_os("PATH").unwrap_or_default(),
        };
        Ok(Compiler {
            layout: Layout::new(&inputs.out_dir),
            vars,
            host_port: host.port,
            host_name: host.name.clone(),
            search,
            token: inputs.token.clone(),
        })
    }

    fn run(
        self,
        harmless_path: &Path,
        harmless: HarmlessFile,
        arm_path: PathBuf,
        arm: ArmFile,
    ) -> Result<CompiledArm, PolicyError> {
        let mut commands = BTreeMap::new();
        let mut links = Vec::new();
        let mut tool_path = None;
        let mut shell_env = BTreeMap::new();
        if let Some(tool) = arm.tool.as_ref().filter(|_| arm.shell) {
            let rule = self.tool_rule(&arm_path, tool, &mut links)?;
            shell_env = shell_env_of(&arm_path, tool, &rule.env)?;
            tool_path = Some(rule.path.clone());
            commands.insert(tool.name.clone(), rule);
        }
        if arm.shell {
            self.utility_rules(
                harmless_path,
                &harmless,
                &arm_path,
                &mut commands,
                &mut links,
            )?;
        } else {
            // Still check the shared rules, so a broken harmless set fails every build.
            for (name, utility) in &harmless.utilities {
                let field = format!("utilities.{name}.deny");
                self.rules(harmless_path, &field, name, &utility.deny)?;
            }
        }
        let mcp = match arm.mcp.as_ref().filter(|_| !arm.shell) {
            Some(m) => Some(self.mcp_server(&arm_path, m)?),
            None => None,
        };
        let mut files = Vec::new();
        for (i, f) in arm.files.iter().enumerate() {
            let field = format!("files[{i}]");
            let rel = self.fill(&arm_path, &format!("{field}.path"), &f.path)?;
            let at = self.inside_out(&arm_path, &format!("{field}.path"), &rel)?;
            let content = self.fill(&arm_path, &format!("{field}.content"), &f.content)?;
            files.push((at, content));
        }
        let bootstrap_text = self.fill(&arm_path, "bootstrap.text", &arm.bootstrap.text)?;
        let policy = self.policy(harmless_path, &harmless, &arm, commands)?;
        check_env_patterns(harmless_path, &policy.env)?;
        Ok(CompiledArm {
            policy,
            arm,
            arm_path,
            layout: self.layout,
            vars: self.vars,
            links,
            files,
            mcp,
            tool_path,
            shell_env,
            bootstrap_text,
        })
    }

    /// The arm's tool: its program, rules, helpers, environment, network
    /// endpoints and writable folders; its link in `bin/` goes to `links`.
    fn tool_rule(
        &self,
        arm_path: &Path,
        tool: &ToolSource,
        links: &mut Vec<Link>,
    ) -> Result<CommandRule, PolicyError> {
        let binary = tool.binary.as_deref().unwrap_or(&tool.name);
        check_command_name(arm_path, "tool.name", &tool.name)?;
        let path = self.resolve(arm_path, "tool.binary", binary)?;
        let deny = self.rules(arm_path, "tool.deny", &tool.name, &tool.deny)?;
        let (mut exec_allow, path_env) =
            self.helpers(arm_path, "tool", &tool.name, &tool.helpers, links)?;
        for (i, extra) in tool.exec_allow.iter().enumerate() {
            let field = format!("tool.exec_allow[{i}]");
            let p = PathBuf::from(self.fill(arm_path, &field, extra)?);
            if !p.is_absolute() {
                return Err(PolicyError::invalid(
                    arm_path,
                    field,
                    "must be an absolute path",
                ));
            }
            if let Ok(real) = std::fs::canonicalize(&p) {
                exec_allow.push(real);
            }
        }
        let mut env = BTreeMap::new();
        for (name, value) in &tool.env {
            let filled = self.fill(arm_path, &format!("tool.env.{name}"), value)?;
            env.insert(name.clone(), filled);
        }
        let (connect_ports, connect_hosts) = self.endpoints(tool);
        let mut writable = Vec::new();
        for (i, w) in tool.writable.iter().enumerate() {
            let f = format!("tool.writable[{i}]");
            writable.push(self.inside_out(arm_path, &f, &self.fill(arm_path, &f, w)?)?);
        }
        links.push(Link {
            at: self.layout.bin.join(&tool.name),
            target: path.clone(),
        });
        Ok(CommandRule {
            kind: CommandKind::Tool,
            path,
            deny,
            exec_allow,
            path_env,
            env,
            connect_ports,
            connect_hosts,
            writable,
        })
    }

    /// The ports and `host:port` endpoints the tool may connect to: the
    /// forge (and DNS, when its name is looked up through a resolver) if
    /// it connects to the host, and its own extra ports.
    fn endpoints(&self, tool: &ToolSource) -> (Vec<u16>, Vec<String>) {
        let mut ports = BTreeSet::new();
        let mut connect_hosts = Vec::new();
        if tool.connect_host {
            ports.insert(self.host_port);
            let resolv_conf = std::fs::read_to_string("/etc/resolv.conf").unwrap_or_default();
            connect_hosts = crate::policy::endpoint::forge_endpoints(
                &self.host_name,
                self.host_port,
                crate::policy::endpoint::system_dns,
                &resolv_conf,
            );
            if connect_hosts.iter().any(|e| e.ends_with(":53")) {
                ports.insert(53);
            }
        }
        ports.extend(tool.connect_ports.iter().copied());
        (ports.into_iter().collect(), connect_hosts)
    }

    /// The harmless utilities found on this machine, each with its rules,
    /// helpers and link; a utility bash also has as a builtin may be
    /// missing.
    fn utility_rules(
        &self,
        harmless_path: &Path,
        harmless: &HarmlessFile,
        arm_path: &Path,
        commands: &mut BTreeMap<String, CommandRule>,
        links: &mut Vec<Link>,
    ) -> Result<(), PolicyError> {
        for (name, utility) in &harmless.utilities {
            let field = format!("utilities.{name}");
            check_command_name(harmless_path, &field, name)?;
            if commands.contains_key(name) {
                return Err(PolicyError::invalid(
                    arm_path,
                    "tool.name",
                    format!("{name} is also a harmless utility"),
                ));
            }
            let binary = utility.binary.as_deref().unwrap_or(name);
            let path = match self.resolve(harmless_path, &format!("{field}.binary"), binary) {
                Ok(p) => p,
                Err(PolicyError::MissingBinary { .. }) if utility.builtin => continue,
                Err(e) => return Err(e),
            };
            let deny = self.rules(harmless_path, &format!("{field}.deny"), name, &utility.deny)?;
            let (exec_allow, path_env) =
                self.helpers(harmless_path, &field, name, &utility.helpers, links)?;
            links.push(Link {
                at: self.layout.bin.join(name),
                target: path.clone(),
            });
            commands.insert(
                name.clone(),
                CommandRule {
                    kind: CommandKind::Utility,
                    path,
                    deny,
                    exec_allow,
                    path_env,
                    env: BTreeMap::new(),
                    connect_ports: Vec::new(),
                    connect_hosts: Vec::new(),
                    writable: Vec::new(),
                },
            );
        }
        Ok(())
    }

    /// The MCP server of an arm without a shell, its program resolved and
    /// its arguments and environment filled in.
    fn mcp_server(&self, arm_path: &Path, m: &McpSource) -> Result<ResolvedMcp, PolicyError> {
        let plain = |b: u8| b.is_ascii_alphanumeric() || b == b'-' || b == b'_';
        if m.server.is_empty() || !m.server.bytes().all(plain) {
            return Err(PolicyError::invalid(
                arm_path,
                "mcp.server",
                "use letters, digits, `-` and `_` only",
            ));
        }
        let command = self.resolve(arm_path, "mcp.command", &m.command)?;
        let mut args = Vec::new();
        for (i, a) in m.args.iter().enumerate() {
            args.push(self.fill(arm_path, &format!("mcp.args[{i}]"), a)?);
        }
        let mut env = BTreeMap::new();
        for (name, value) in &m.env {
            env.insert(
                name.clone(),
                self.fill(arm_path, &format!("mcp.env.{name}"), value)?,
            );
        }
        Ok(ResolvedMcp {
            server: m.server.clone(),
            command,
            args,
            env,
        })
    }

    /// The policy: the commands, the environment rules, the writable and
    /// protected folders of this layout, and the audit log with the token
    /// to redact.
    fn policy(
        &self,
        harmless_path: &Path,
        harmless: &HarmlessFile,
        arm: &ArmFile,
        commands: BTreeMap<String, CommandRule>,
    ) -> Result<Policy, PolicyError> {
        let layout = &self.layout;
        let mut env_set =
            BTreeMap::from([("TMPDIR".to_string(), path_text(&layout.tmp, harmless_path)?)]);
        for (name, value) in &harmless.env.set {
            let filled = self.fill(harmless_path, &format!("env.set.{name}"), value)?;
            env_set.insert(name.clone(), filled);
        }
        Ok(Policy {
            format: POLICY_FORMAT,
            arm: arm.name.clone(),
            shell: arm.shell,
            tool: arm
                .tool
                .as_ref()
                .filter(|_| arm.shell)
                .map(|t| t.name.clone()),
            bin_dir: layout.bin.clone(),
            commands,
            env: EnvPolicy {
                pass: harmless.env.pass.clone(),
                set: env_set,
                deny: harmless
                    .env
                    .deny
                    .iter()
                    .map(|d| EnvDeny {
                        pattern: d.pattern.clone(),
                        reason: d.reason.clone(),
                    })
                    .collect(),
            },
            sandbox: SandboxPolicy {
                mode: arm.sandbox,
                // `/dev/null`: guard-sh's own `2>/dev/null` must keep working
                // once it confines itself to the writable roots.
                writable: vec![
                    layout.work.clone(),
                    layout.tmp.clone(),
                    PathBuf::from("/dev/null"),
                ],
                protected: vec![
                    layout.policy.clone(),
                    layout.definition.clone(),
                    layout.bin.clone(),
                    layout.helpers.clone(),
                    layout.audit_dir.clone(),
                    layout.runtimes.clone(),
                    layout.bash_dir.clone(),
                    layout.home.clone(),
                    layout.harness_home.clone(),
                ],
                // What the agent has no reason to read and the harness's
                // login, which it must not: held by each command's domain.
                // `home` stays readable (tools look for dotfiles there).
                unreadable: vec![
                    layout.policy.clone(),
                    layout.definition.clone(),
                    layout.audit_dir.clone(),
                    layout.runtimes.clone(),
                    layout.harness_home.clone(),
                ],
                // Filled by `build` once the arm's links exist.
                execute: None,
            },
            audit: AuditPolicy {
                path: Some(layout.audit_log.clone()),
                // `LEN:HEX`, so the guard-sh writer finds the token wherever it sits.
                redact_sha256: vec![crate::audit::redact::hashed_entry(self.token.as_bytes())],
                redact: Vec::new(),
            },
            bounds: arm.bounds,
        })
    }

    fn fill(&self, path: &Path, field: &str, text: &str) -> Result<String, PolicyError> {
        self.vars
            .fill(text)
            .map_err(|m| PolicyError::invalid(path, field, m))
    }

    /// `rel` (relative, no `..`) joined to the output folder.
    fn inside_out(&self, path: &Path, field: &str, rel: &str) -> Result<PathBuf, PolicyError> {
        let p = Path::new(rel);
        // A filled `{out}/x` is accepted too.
        let p = p.strip_prefix(&self.layout.out).unwrap_or(p);
        let plain = p.components().all(|c| matches!(c, Component::Normal(_)));
        if !plain || p.as_os_str().is_empty() {
            return Err(PolicyError::invalid(
                path,
                field,
                format!("{rel:?} must be a relative path inside the output folder"),
            ));
        }
        let top = p
            .components()
            .next()
            .map(|c| c.as_os_str().to_os_string())
            .unwrap_or_default();
        let reserved = [
            "bin",
            "helpers",
            "work",
            "tmp",
            "audit",
            "policy.json",
            "arm.json",
            "bash",
            "runtimes",
        ];
        if reserved.iter().any(|r| OsStr::new(r) == top) {
            return Err(PolicyError::invalid(
                path,
                field,
                format!("{rel:?} is inside a folder arm-build manages"),
            ));
        }
        Ok(self.layout.out.join(p))
    }

    fn rules(
        &self,
        path: &Path,
        field: &str,
        name: &str,
        sources: &[RuleSource],
    ) -> Result<Vec<ArgRule>, PolicyError> {
        let rules = sources
            .iter()
            .enumerate()
            .map(|(i, s)| s.to_arg_rule(path, &format!("{field}[{i}]")))
            .collect::<Result<Vec<_>, _>>()?;
        check_examples(path, field, name, sources, &rules)?;
        Ok(rules)
    }

    /// Resolve `helpers`, add their links under `helpers/NAME/`, and return
    /// (`exec_allow`, `path_env`).
    fn helpers(
        &self,
        path: &Path,
        field: &str,
        name: &str,
        helpers: &[String],
        links: &mut Vec<Link>,
    ) -> Result<(Vec<PathBuf>, Vec<PathBuf>), PolicyError> {
        if helpers.is_empty() {
            return Ok((Vec::new(), Vec::new()));
        }
        let folder = self.layout.helpers.join(name);
        let mut exec_allow = Vec::new();
        for (i, helper) in helpers.iter().enumerate() {
            let f = format!("{field}.helpers[{i}]");
            check_command_name(path, &f, helper)?;
            let real = self.resolve(path, &f, helper)?;
            links.push(Link {
                at: folder.join(helper),
                target: real.clone(),
            });
            if !exec_allow.contains(&real) {
                exec_allow.push(real);
            }
        }
        Ok((exec_allow, vec![folder]))
    }

    /// The canonical path of the first executable `name` on the search path.
    fn resolve(&self, path: &Path, field: &str, name: &str) -> Result<PathBuf, PolicyError> {
        check_command_name(path, field, name)?;
        find_program(name, &self.search).ok_or_else(|| PolicyError::MissingBinary {
            path: path.to_path_buf(),
            field: field.to_string(),
            binary: name.to_string(),
            search: format!("PATH={}", self.search.to_string_lossy()),
        })
    }
}

/// The canonical path of the first executable regular file `name` in the
/// absolute folders of `search` (a `PATH` value). Relative entries are skipped.
pub fn find_program(name: &str, search: &OsStr) -> Option<PathBuf> {
    std::env::split_paths(search)
        .filter(|d| d.is_absolute())
        .find_map(|dir| {
            let candidate = dir.join(name);
            let meta = std::fs::metadata(&candidate).ok()?;
            if meta.is_file() && meta.permissions().mode() & 0o111 != 0 {
                std::fs::canonicalize(&candidate).ok()
            } else {
                None
            }
        })
}

fn check_command_name(path: &Path, field: &str, name: &str) -> Result<(), PolicyError> {
    if name.is_empty() || name.contains('/') || name == "." || name == ".." || name.contains('\0') {
        return Err(PolicyError::invalid(
            path,
            field,
            format!("{name:?} is not a plain command name"),
        ));
    }
    Ok(())
}

fn check_env_patterns(path: &Path, env: &EnvPolicy) -> Result<(), PolicyError> {
    let patterns = env
        .pass
        .iter()
        .map(String::as_str)
        .chain(env.deny.iter().map(|d| d.pattern.as_str()));
    for p in patterns {
        let core = p
            .strip_suffix('*')
            .or_else(|| p.strip_prefix('*'))
            .unwrap_or(p);
        let ok = !core.is_empty() && core.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !ok {
            return Err(PolicyError::invalid(
                path,
                "env",
                format!("{p:?} is not a variable name, NAME_PREFIX* or *_SUFFIX"),
            ));
        }
    }
    Ok(())
}

fn path_text(p: &Path, source: &Path) -> Result<String, PolicyError> {
    p.to_str().map(str::to_string).ok_or_else(|| {
        PolicyError::invalid(source, "out", format!("{} is not valid UTF-8", p.display()))
    })
}

/// A forge base URL taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Host {
    /// The URL without trailing `/`.
    pub base: String,
    pub name: String,
    pub port: u16,
}

/// Parse `http[s]://HOST[:PORT][/PATH]`; user info in the URL is refused.
pub fn parse_host(url: &str) -> Result<Host, String> {
    if url.contains('@') {
        return Err("put the token in --token/--token-env, not in the URL".into());
    }
    let (rest, default_port) = if let Some(r) = url.strip_prefix("http://") {
        (r, 80)
    } else if let Some(r) = url.strip_prefix("https://") {
        (r, 443)
    } else {
        return Err(format!("{url:?} must start with http:// or https://"));
    };
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!("{url:?} contains whitespace"));
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let (name, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (inner, after) = v6
            .split_once(']')
            .ok_or_else(|| format!("{url:?}: unclosed `[`"))?;
        (format!("[{inner}]"), after.strip_prefix(':'))
    } else {
        match authority.rsplit_once(':') {
            Some((n, p)) => (n.to_string(), Some(p)),
            None => (authority.to_string(), None),
        }
    };
    if name.is_empty() || name == "[]" {
        return Err(format!("{url:?} has no host name"));
    }
    let port = match port {
        Some(p) => p
            .parse::<u16>()
            .ok()
            .filter(|&p| p != 0)
            .ok_or_else(|| format!("{url:?}: bad port {p:?}"))?,
        None => default_port,
    };
    Ok(Host {
        base: url.trim_end_matches('/').to_string(),
        name,
        port,
    })
}

/// Split `OWNER/NAME`.
pub fn parse_repo(repo: &str) -> Result<(String, String), String> {
    let ok_part = |s: &str| {
        !s.is_empty()
            && s != "."
            && s != ".."
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
    };
    match repo.split_once('/') {
        Some((o, n)) if ok_part(o) && ok_part(n) => Ok((o.to_string(), n.to_string())),
        _ => Err(format!(
            "{repo:?} must be OWNER/NAME (letters, digits, `-`, `_`, `.`)"
        )),
    }
}

/// The tool's `shell_env`: the entries of its `[tool.env]` the runtime
/// also hands to the agent's shell; each must be a key there.
fn shell_env_of(
    arm_path: &Path,
    tool: &ToolSource,
    env: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, String>, PolicyError> {
    let mut shell_env = BTreeMap::new();
    for name in &tool.shell_env {
        let value = env.get(name).ok_or_else(|| {
            PolicyError::invalid(
                arm_path,
                "tool.shell_env",
                format!("{name} is not a key of [tool.env]"),
            )
        })?;
        shell_env.insert(name.clone(), value.clone());
    }
    Ok(shell_env)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_port_defaults_from_scheme() {
        assert_eq!(parse_host("http://127.0.0.1/").map(|h| h.port), Ok(80));
        assert_eq!(parse_host("https://forge.example").map(|h| h.port), Ok(443));
    }

    #[test]
    fn host_explicit_port_and_trailing_slash() {
        let h = parse_host("http://127.0.0.1:3000/");
        assert_eq!(
            h,
            Ok(Host {
                base: "http://127.0.0.1:3000".into(),
                name: "127.0.0.1".into(),
                port: 3000
            })
        );
    }

    #[test]
    fn host_ipv6_with_port() {
        assert_eq!(
            parse_host("http://[::1]:3000").map(|h| (h.name, h.port)),
            Ok(("[::1]".into(), 3000))
        );
    }

    #[test]
    fn host_with_credentials_or_bad_scheme_is_refused() {
        assert!(parse_host("http://u:p@h:3000").is_err());
        assert!(parse_host("ftp://h").is_err());
        assert!(parse_host("h:3000").is_err());
        assert!(parse_host("http://h:99999").is_err());
        assert!(parse_host("http://:80").is_err());
    }

    #[test]
    fn repo_must_be_owner_slash_name() {
        assert_eq!(parse_repo("o/r"), Ok(("o".into(), "r".into())));
        assert!(parse_repo("o").is_err());
        assert!(parse_repo("o/r/x").is_err());
        assert!(parse_repo("../r").is_err());
        assert!(parse_repo("o/ r").is_err());
    }

    #[test]
    fn find_program_skips_non_executables_and_relative_dirs()
    -> Result<(), Box<dyn std::error::Error>> {
        let a = tempfile::tempdir()?;
        let b = tempfile::tempdir()?;
        std::fs::write(a.path().join("x"), "data")?;
        std::fs::write(b.path().join("x"), "#!/bin/sh\n")?;
        std::fs::set_permissions(b.path().join("x"), std::fs::Permissions::from_mode(0o755))?;
        let search = std::env::join_paths([
            "rel",
            a.path().to_str().unwrap_or(""),
            b.path().to_str().unwrap_or(""),
        ])?;
        assert_eq!(
            find_program("x", &search),
            Some(std::fs::canonicalize(b.path().join("x"))?)
        );
        assert_eq!(find_program("y", &search), None);
        Ok(())
    }
}
