//! Kernel confinement of the agent harness itself (Claude Code, Codex, …):
//! the process that starts guard-sh may execute only what guard-sh and its
//! commands may, plus the harness's own programs.
//!
//! Why: the configured shell is a request, not a guarantee. Codex lets its
//! model name another shell in `exec_command` (`"shell": "sh"`), and every
//! harness can start programs of its own. A Landlock domain entered before
//! the harness starts is inherited by everything it launches, so such a
//! program fails at `execve` with `EACCES` instead of running past
//! guard-sh, unlogged.
//!
//! Guarantee: [`plan`] grants execute on exactly (a) the start-up chain of
//! the harness program and of each `--allow-exec` entry (a folder: all of
//! it), (b) the chain of each arm shell (guard-sh), (c) everything any
//! command of the policy may execute, and (d) the arm's MCP server, minus
//! every *code interpreter* (see [`is_code_interpreter`]) reached only
//! through (c): a harness that may run `sh` or `python3` could be told to
//! run `sh -c TEXT` itself. Commands that need such an interpreter (Debian's
//! `egrep` is a `#!/bin/sh` script) then fail under the harness, and the plan
//! names them. An interpreter listed explicitly with `--allow-exec` stays.
//!
//! Domains stack, so guard-sh's own domain and each command's domain still
//! apply beneath this one; this domain only handles the execute right
//! (writes, sockets and signals are left to those narrower domains).

use super::exec_chain::Resolver;
use super::landlock::{Confinement, SandboxError, helper_execute_set};
use crate::policy::Policy;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Programs that run text given as `-c TEXT` (or `-lc TEXT`), matched on the
/// canonical file name: shells, and Python (whose `-c` runs code).
const SHELL_NAMES: [&str; 22] = [
    "sh", "dash", "bash", "rbash", "zsh", "ksh", "ksh93", "mksh", "lksh", "pdksh", "oksh", "posh",
    "yash", "fish", "tcsh", "csh", "busybox", "toybox", "pwsh", "nu", "elvish", "xonsh",
];
const INTERPRETER_PREFIXES: [&str; 2] = ["python", "pypy"];

/// Whether `file` (a canonical path) is a program that would run arbitrary
/// text handed to it as `-c TEXT`: a shell or Python.
pub fn is_code_interpreter(file: &Path) -> bool {
    let Some(name) = file.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    SHELL_NAMES.contains(&name) || INTERPRETER_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// What the harness's domain allows, and what it leaves out on purpose.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct HarnessPlan {
    /// Files, or folders (everything beneath), the harness may execute.
    pub execute: BTreeSet<PathBuf>,
    /// Code interpreters the arm's commands would need, each with the
    /// command names that need it: left out, so those commands fail.
    pub left_out: BTreeMap<PathBuf, BTreeSet<String>>,
}

/// What the harness runs, besides the arm.
#[derive(Debug, Clone)]
pub struct HarnessSpec<'a> {
    /// The harness program as it will be `execve`d (resolved path).
    pub program: &'a Path,
    /// Files or folders the harness starts itself (e.g. the native binary a
    /// Node launcher runs); each file with its start-up chain.
    pub allow_exec: &'a [PathBuf],
    /// The arm's shell paths (guard-sh under its names) and MCP server.
    pub arm_programs: &'a [PathBuf],
    /// The `PATH` the harness gets (for `#!/usr/bin/env NAME`).
    pub search_path: &'a [PathBuf],
    /// Resolves relative paths.
    pub cwd: &'a Path,
}

/// The execute set of the harness's domain (see the module docs). Errors
/// when the harness program or an arm program cannot be read: a harness that
/// could not start, or an arm whose shell is missing, is refused up front.
pub fn plan(policy: &Policy, spec: &HarnessSpec) -> Result<HarnessPlan, SandboxError> {
    let mut plan = HarnessPlan::default();
    let mut explicit: BTreeSet<PathBuf> = BTreeSet::new();
    // One resolver for everything: the harness, guard-sh and the tools
    // share their loader, and each distinct file is read once.
    let mut resolver = Resolver::new();
    let programs =
        std::iter::once(spec.program).chain(spec.arm_programs.iter().map(PathBuf::as_path));
    for program in programs {
        let chain = resolver
            .resolve(program, spec.cwd, spec.search_path)
            .map_err(|source| SandboxError::Open {
                path: program.to_path_buf(),
                source,
            })?;
        explicit.extend(chain);
    }
    for entry in spec.allow_exec {
        let entry = spec.cwd.join(entry);
        match resolver.resolve(&entry, spec.cwd, spec.search_path) {
            Ok(chain) => explicit.extend(chain),
            Err(_) if entry.is_dir() => {
                explicit.insert(std::fs::canonicalize(&entry).unwrap_or(entry));
            }
            Err(source) => {
                return Err(SandboxError::Open {
                    path: entry,
                    source,
                });
            }
        }
    }
    for (name, rule) in &policy.commands {
        // A command whose file is missing grants nothing (its spawn fails
        // on its own).
        let mut reached = resolver
            .resolve(&spec.cwd.join(&rule.path), spec.cwd, &rule.path_env)
            .unwrap_or_default();
        reached.extend(helper_execute_set(rule, spec.cwd, &mut resolver));
        for file in reached {
            if is_code_interpreter(&file) && !explicit.contains(&file) {
                plan.left_out.entry(file).or_default().insert(name.clone());
            } else {
                plan.execute.insert(file);
            }
        }
    }
    plan.execute.extend(explicit);
    Ok(plan)
}

/// The prepared domain for `plan` at Landlock ABI `abi`.
pub fn prepare(abi: u32, plan: &HarnessPlan) -> Result<Confinement, SandboxError> {
    Confinement::execute_only(abi, &plan.execute)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shells_and_python_are_code_interpreters_but_tools_are_not() {
        for name in [
            "/usr/bin/dash",
            "/usr/bin/bash",
            "/usr/bin/python3.13",
            "/bin/busybox",
        ] {
            assert!(is_code_interpreter(Path::new(name)), "{name}");
        }
        for name in [
            "/usr/bin/node",
            "/usr/bin/grep",
            "/usr/bin/jq",
            "/usr/bin/shasum",
        ] {
            assert!(!is_code_interpreter(Path::new(name)), "{name}");
        }
    }
}
