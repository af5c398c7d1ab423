//! arm-build: one arm's TOML → a ready folder (policy, bin links, prompt, runtime configs).
//!
//! Guarantee: the folder holds exactly what the arm's data says (the tool
//! and the harmless utilities in `bin/`, the tool's helpers in a private
//! folder, the credentials where the arm puts them) and nothing from an
//! earlier build; the token is written only into the files that need it
//! and is never printed on stderr.

pub mod builtin;
pub mod compile;
pub mod emit;
pub mod error;
pub mod examples;
pub mod layout;
pub mod prompt;
pub mod source;
pub mod template;

pub use compile::{BuildInputs, CompiledArm, Layout, compile, compile_arm};
pub use error::BuildError;

use crate::policy::Policy;
use serde_json::{Value, json};
use source::ArmFile;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What one build needs.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    pub arm: String,
    pub host: String,
    pub repo: String,
    pub token: String,
    pub out: PathBuf,
    /// `--skill`: the Agent Skill file to use instead of the looked-up one.
    pub skill: Option<PathBuf>,
    /// `--arms`: the arms folder; default [`installed_arms_dir`], else the
    /// arms compiled into arm-build ([`builtin`]).
    pub arms_dir: Option<PathBuf>,
    /// `--guard-sh`: the guard-sh executable; default next to this program.
    pub guard_sh: Option<PathBuf>,
    /// `--keep-work`: keep what an earlier trial left in `work/` when
    /// rebuilding in place (by default it is removed, and said so).
    pub keep_work: bool,
    /// `--max-…`: what overrides the arm file's `[bounds]`.
    pub bounds: BoundOverrides,
}

/// The trial bounds given on the command line, each overriding the arm
/// file's of the same name.
#[derive(Debug, Clone, Copy, Default)]
pub struct BoundOverrides {
    pub processes: Option<u64>,
    pub memory_mib: Option<u64>,
    pub file_mib: Option<u64>,
    pub disk_mib: Option<u64>,
    pub cpu_seconds: Option<u64>,
    pub line_seconds: Option<u64>,
}

impl BoundOverrides {
    fn apply(&self, bounds: &mut crate::policy::model::Bounds) {
        let pairs = [
            (self.processes, &mut bounds.processes),
            (self.memory_mib, &mut bounds.memory_mib),
            (self.file_mib, &mut bounds.file_mib),
            (self.disk_mib, &mut bounds.disk_mib),
            (self.cpu_seconds, &mut bounds.cpu_seconds),
            (self.line_seconds, &mut bounds.line_seconds),
        ];
        for (given, bound) in pairs {
            if let Some(given) = given {
                *bound = given;
            }
        }
    }
}

/// `<exe dir>/../share/guard-sh/arms`, if an install put arms there.
pub fn installed_arms_dir() -> Option<PathBuf> {
    exe_dir()
        .map(|d| d.join("../share/guard-sh/arms"))
        .filter(|d| d.is_dir())
}

/// The arms folder of a build: `--arms`, else the installed one, else the
/// arms compiled in, unpacked for this build (kept alive by the second
/// value).
pub fn arms_dir(
    explicit: Option<&Path>,
) -> Result<(PathBuf, Option<builtin::Unpacked>), BuildError> {
    if let Some(dir) = explicit {
        return Ok((absolute(dir)?, None));
    }
    if let Some(dir) = installed_arms_dir() {
        return Ok((dir, None));
    }
    let unpacked = builtin::Unpacked::new().map_err(|e| BuildError::io(std::env::temp_dir(), e))?;
    Ok((unpacked.arms(), Some(unpacked)))
}

fn exe_dir() -> Option<PathBuf> {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
}

fn absolute(p: &Path) -> Result<PathBuf, BuildError> {
    if p.is_absolute() {
        return Ok(p.to_path_buf());
    }
    let cwd = std::env::current_dir().map_err(|e| BuildError::io(".", e))?;
    Ok(cwd.join(p))
}

/// The guard-sh to run as `SHELL`: `--guard-sh`, else `guard-bash` or
/// `guard-sh` next to this program. Absolute, links not resolved (the name
/// matters: see [`shell_path`]).
fn choose_guard(explicit: Option<&Path>) -> Result<PathBuf, BuildError> {
    let chosen = match explicit {
        Some(p) => absolute(p)?,
        None => {
            let dir = exe_dir().ok_or_else(|| {
                BuildError::Usage(
                    "cannot locate arm-build's own folder; pass --guard-sh PATH".into(),
                )
            })?;
            let bash = dir.join("guard-bash");
            if bash.exists() {
                bash
            } else {
                dir.join("guard-sh")
            }
        }
    };
    if !chosen.is_file() {
        return Err(BuildError::Usage(format!(
            "guard-sh executable {} not found; pass --guard-sh PATH",
            chosen.display()
        )));
    }
    Ok(chosen)
}

/// `guard-sh-client` in the folder `guard` (as named) lies in, when the
/// `guard-sh` it falls back to lies there too.
fn client_beside(guard: &Path) -> Option<PathBuf> {
    let dir = guard.parent()?;
    let client = dir.join("guard-sh-client");
    (client.is_file() && dir.join("guard-sh").is_file()).then_some(client)
}

/// Claude Code ignores a `SHELL` whose path does not contain `bash` or
/// `zsh` and silently runs the real bash instead; so a guard path without
/// `bash` is reached through `OUT/bash/guard-sh`.
fn shell_path(
    guard: &Path,
    bash_dir: &Path,
) -> Result<(PathBuf, Option<crate::armbuild::compile::Link>), BuildError> {
    if guard.to_string_lossy().contains("bash") {
        return Ok((guard.to_path_buf(), None));
    }
    let at = bash_dir.join("guard-sh");
    Ok((
        at.clone(),
        Some(crate::armbuild::compile::Link {
            at,
            target: guard.to_path_buf(),
        }),
    ))
}

/// Build `opts.arm` into `opts.out`; returns the definition (`arm.json`).
pub fn build(opts: &BuildOptions) -> Result<Value, BuildError> {
    let (arms_dir, unpacked) = arms_dir(opts.arms_dir.as_deref())?;
    let out = absolute(&opts.out)?;
    let existed = out.exists();
    let built = build_into(opts, &arms_dir, unpacked.as_ref(), &out);
    if built.is_err() && !existed {
        // A failed build leaves no folder it made behind.
        let _ = std::fs::remove_dir_all(&out);
    }
    built.map_err(|e| match &unpacked {
        Some(unpacked) => BuildError::BuiltIn(
            e.to_string()
                .replace(&unpacked.root().display().to_string(), "(built-in)"),
        ),
        None => e,
    })
}

/// [`build`] with its arms folder chosen, into `out`.
fn build_into(
    opts: &BuildOptions,
    arms_dir: &Path,
    unpacked: Option<&builtin::Unpacked>,
    out: &Path,
) -> Result<Value, BuildError> {
    let arms_dir = arms_dir.to_path_buf();
    let out = layout::open(out)?;
    let inputs = BuildInputs {
        host: opts.host.clone(),
        repo: opts.repo.clone(),
        token: opts.token.clone(),
        out_dir: out.clone(),
        search_path: None,
    };
    let mut compiled = compile_arm(&arms_dir, &opts.arm, &inputs)?;
    opts.bounds.apply(&mut compiled.policy.bounds);
    let l = compiled.layout.clone();
    let guard = if compiled.arm.shell {
        Some(choose_guard(opts.guard_sh.as_deref())?)
    } else {
        None
    };
    let base = prompt::base_prompt(&arms_dir, &compiled.vars)?;
    let (bootstrap, skill_path) = bootstrap(opts, &arms_dir, unpacked, &compiled)?;
    let system_prompt = prompt::system_prompt(&base, &bootstrap);

    let mut links = compiled.links.clone();
    let (shell, codex_shell) = match &guard {
        Some(g) => {
            let (shell, codex_shell) = shell_links(g, &l, &mut links)?;
            (Some((g.clone(), shell)), Some(codex_shell))
        }
        None => (None, None),
    };
    let writable: Vec<PathBuf> = compiled
        .policy
        .commands
        .values()
        .flat_map(|c| c.writable.iter().cloned())
        .collect();
    lay_out(&out, &compiled, &links, &writable, opts.keep_work)?;
    let policy_sha = write_policy(&mut compiled.policy, &l)?;
    let path_text = |p: &Path| p.to_string_lossy().into_owned();
    let shell_env: Option<BTreeMap<String, String>> = shell.as_ref().map(|(_, path)| {
        let mut env = compiled.shell_env.clone();
        env.insert("SHELL".into(), path_text(path));
        env.insert("GUARD_SH_POLICY".into(), path_text(&l.policy));
        env.insert("GUARD_SH_POLICY_SHA256".into(), policy_sha.clone());
        env.insert("GUARD_SH_AUDIT".into(), path_text(&l.audit_log));
        env
    });
    // Codex's own `-s workspace-write` sandbox: never the audit folder or
    // a tool's login, which Codex's in-process patch tool could then
    // rewrite. guard-sh under that sandbox refuses every command for want
    // of its log (fail closed); run Codex under guard-sh-launch instead.
    let writable_roots = vec![l.work.clone(), l.tmp.clone()];
    let prompt_file = l.runtimes.join("system-prompt.txt");
    let files = write_runtimes(
        &l.runtimes,
        &emit::RuntimeInputs {
            system_prompt: &system_prompt,
            system_prompt_file: &prompt_file,
            work_dir: &l.work,
            tmp_dir: &l.tmp,
            harness_home: &l.harness_home,
            shell_env: shell_env.as_ref(),
            codex_shell: codex_shell.as_deref(),
            writable_roots: &writable_roots,
            mcp: compiled.mcp.as_ref(),
        },
    )?;

    let shell_json = match (&shell, &shell_env) {
        (Some((guard, path)), Some(env)) => {
            let mut env = env.clone();
            env.insert("PATH".into(), path_text(&l.bin));
            json!({
                "path": path,
                "guardSh": guard,
                "binDir": l.bin,
                "workDir": l.work,
                "codexLoginShell": codex_shell,
                "env": env,
            })
        }
        _ => Value::Null,
    };
    let mcp_json = match &compiled.mcp {
        Some(m) => {
            json!({ "server": m.server, "command": m.command, "args": m.args, "env": m.env })
        }
        None => Value::Null,
    };
    let definition = json!({
        "arm": compiled.arm.name,
        "description": compiled.arm.description,
        "systemPrompt": system_prompt,
        "basePrompt": base,
        "bootstrap": bootstrap,
        "skill": skill_path,
        "policy": l.policy,
        "policySha256": policy_sha,
        "auditLog": l.audit_log,
        "shell": shell_json,
        "mcp": mcp_json,
        "runtimes": files.to_json(),
    });
    let text = serde_json::to_string_pretty(&definition).map_err(|e| BuildError::Serialize {
        what: "arm definition",
        message: e.to_string(),
    })?;
    layout::write_file(&l.definition, &(text + "\n"), 0o600)?;
    Ok(definition)
}

/// Store the execute set in `policy` (resolved now that the helpers'
/// links exist, from the folder the agent starts in), write it, and return
/// the written file's SHA-256, the pin.
fn write_policy(policy: &mut Policy, l: &Layout) -> Result<String, BuildError> {
    policy.sandbox.execute = Some(
        crate::sandbox::landlock::guard_sh_execute_set(policy, &l.work)
            .into_iter()
            .collect(),
    );
    let policy_json = policy.to_json().map_err(|e| BuildError::Serialize {
        what: "policy",
        message: e.to_string(),
    })?;
    layout::write_file(&l.policy, &policy_json, 0o600)?;
    Ok(Policy::sha256_of_file(&l.policy)?)
}

/// The path the harnesses run as `SHELL` for `guard` (see [`shell_path`])
/// and Codex's login shell, with the links each needs added to `links`.
fn shell_links(
    guard: &Path,
    l: &Layout,
    links: &mut Vec<crate::armbuild::compile::Link>,
) -> Result<(PathBuf, PathBuf), BuildError> {
    // With `guard-sh-client` beside it, the harness runs the client, which
    // hands each line to the trial's server (`guard-sh-launch` starts one)
    // or becomes that guard-sh.
    let (shell, entry) = match client_beside(guard) {
        Some(client) => {
            let at = l.bash_dir.join("guard-sh");
            links.push(crate::armbuild::compile::Link {
                at: at.clone(),
                target: client.clone(),
            });
            (at, client)
        }
        None => {
            let (shell, link) = shell_path(guard, &l.bash_dir)?;
            links.extend(link);
            (shell, guard.to_path_buf())
        }
    };
    // Codex takes its shell from the user's passwd entry and only when the
    // file is named `bash` (or `zsh`); this link is that login shell.
    let codex_shell = l.runtimes.join("codex").join("bash");
    links.push(crate::armbuild::compile::Link {
        at: codex_shell.clone(),
        target: entry,
    });
    Ok((shell, codex_shell))
}

/// The arm's bootstrap text, with the skill's body appended when it has
/// one, and where that skill came from (`builtin:…` for one compiled into
/// arm-build, whose unpacked copy is gone when the build ends).
fn bootstrap(
    opts: &BuildOptions,
    arms_dir: &Path,
    unpacked: Option<&builtin::Unpacked>,
    compiled: &CompiledArm,
) -> Result<(String, Option<String>), BuildError> {
    let text = compiled.bootstrap_text.trim_end().to_string();
    let Some(skill) = &compiled.arm.bootstrap.skill else {
        if opts.skill.is_some() {
            return Err(BuildError::Usage(format!(
                "--skill: arm {} has no skill in its bootstrap",
                opts.arm
            )));
        }
        return Ok((text, None));
    };
    let mut roots: Vec<PathBuf> = arms_dir
        .parent()
        .map(Path::to_path_buf)
        .into_iter()
        .collect();
    roots.extend(exe_dir().map(|d| d.join("../share/guard-sh")));
    let path = prompt::find_skill(
        skill,
        opts.skill.as_deref(),
        compiled.tool_path.as_deref(),
        &roots,
    )?;
    let path = std::fs::canonicalize(&path).map_err(|e| BuildError::io(&path, e))?;
    let text = format!("{text}\n\n{}", prompt::skill_body(&path)?);
    let unpacked_root = unpacked.and_then(|u| std::fs::canonicalize(u.root()).ok());
    let source =
        match unpacked_root.and_then(|root| path.strip_prefix(&root).ok().map(Path::to_path_buf)) {
            Some(inside) => format!("builtin:{}", inside.display()),
            None => path.display().to_string(),
        };
    Ok((text, Some(source)))
}

/// Lay the folder out anew: folders, the empty audit log, links, the
/// arm's files and the tool's writable folders. The marker lists what this
/// build will make before anything is made, so even a build that fails
/// halfway leaves a folder the next build cleans completely.
fn lay_out(
    out: &Path,
    compiled: &CompiledArm,
    links: &[crate::armbuild::compile::Link],
    writable: &[PathBuf],
    keep_work: bool,
) -> Result<(), BuildError> {
    let l = &compiled.layout;
    let mut made = vec![
        l.bin.clone(),
        l.helpers.clone(),
        l.policy.clone(),
        l.definition.clone(),
        l.runtimes.clone(),
        l.home.clone(),
        l.harness_home.clone(),
    ];
    made.extend(links.iter().map(|k| k.at.clone()));
    made.extend(compiled.files.iter().map(|(p, _)| p.clone()));
    made.extend(writable.iter().cloned());
    layout::clean(out)?;
    if !keep_work {
        let removed = layout::empty_dir(&l.work)?;
        if removed > 0 {
            eprintln!(
                "arm-build: removed {removed} entries an earlier trial left in {} (--keep-work keeps them)",
                l.work.display()
            );
        }
    }
    layout::write_marker(out, &made)?;
    for dir in [
        &l.bin,
        &l.work,
        &l.tmp,
        &l.home,
        &l.harness_home,
        &l.audit_dir,
        &l.runtimes,
    ] {
        layout::make_dir(dir)?;
    }
    // The log exists from the start, empty: a trial in which no shell ran
    // (the MCP arm) leaves it so, and `guard-sh-audit` refuses a path that
    // names no file (a typo is no clean trial).
    if !l.audit_log.exists() {
        layout::write_file(&l.audit_log, "", 0o600)?;
    }
    layout::make_links(links)?;
    for (path, content) in &compiled.files {
        layout::write_file(path, content, 0o600)?;
    }
    for w in writable {
        layout::make_dir(w)?;
    }
    Ok(())
}

/// Write the system prompt and each harness's configuration under
/// `runtimes`; returns where they are.
fn write_runtimes(
    runtimes: &Path,
    inputs: &emit::RuntimeInputs<'_>,
) -> Result<emit::RuntimeFiles, BuildError> {
    layout::write_file(inputs.system_prompt_file, inputs.system_prompt, 0o600)?;
    let files = emit::RuntimeFiles::new(runtimes);
    let written = [
        (&files.claude_agent_sdk, emit::claude_agent_sdk(inputs)?),
        (&files.claude_code_mcp, emit::claude_code_mcp(inputs)?),
        (
            &files.claude_code_settings,
            emit::claude_code_settings(inputs)?,
        ),
        (
            &files.claude_code_flags,
            emit::claude_code_flags(inputs, &files)?,
        ),
        (&files.codex_config, emit::codex_config(inputs)?),
    ];
    for (path, text) in written {
        layout::write_file(path, &text, 0o600)?;
    }
    Ok(files)
}

/// One line of `arm-build --list`.
#[derive(Debug, Clone)]
pub struct ArmListing {
    pub name: String,
    /// The arm's description, or why its file does not load.
    pub description: Result<String, String>,
}

/// `arm-build --list`: each arm's name and description.
pub fn list(arms_dir: &Path) -> Result<Vec<ArmListing>, BuildError> {
    let names = source::list_arms(arms_dir)?;
    Ok(names
        .into_iter()
        .map(|name| {
            let description = source::read_arm(arms_dir, &name)
                .map(|(_, a): (_, ArmFile)| a.description)
                .map_err(|e| e.to_string());
            ArmListing { name, description }
        })
        .collect())
}
