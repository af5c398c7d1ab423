//! Stage 2: AST × policy → verdict, before anything runs.
//!
//! The static check ([`check_list`]) visits every command the line can reach
//! and refuses the whole line if any is foreign. The dynamic checks
//! ([`check_argv`], [`check_assignment`], [`check_write_target`]) are called
//! by the interpreter at run time on final, expanded values; they are
//! authoritative, so a name the static walk could not know (`$X`, a glob, a
//! `source`d file) is still refused before it runs.

pub mod builtins;
mod reasons;
pub mod verdict;
mod walk;
pub mod words;

pub use verdict::{Deny, Reached, ReachedKind, Verdict};
pub use walk::writes_file;

use crate::policy::{CommandRule, Policy};
use crate::syntax::{self, SyntaxError, ast::List};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Static check of a parsed line. `known_functions` are the functions the
/// session has defined before this line (their bodies were checked then).
pub fn check_list_with(
    policy: &Policy,
    list: &List,
    known_functions: impl IntoIterator<Item = Vec<u8>>,
) -> Verdict {
    let mut walker = walk::Walker::new(policy, known_functions);
    walker.line(list);
    walker.finish()
}

/// Static check of a parsed line in a session with no functions defined.
pub fn check_list(policy: &Policy, list: &List) -> Verdict {
    check_list_with(policy, list, [])
}

/// Parse and statically check `source` (what `--explain` does).
pub fn check_source(policy: &Policy, source: &[u8]) -> Result<Verdict, SyntaxError> {
    syntax::parse(source).map(|list| check_list(policy, &list))
}

/// Dynamic check of a final argv before an external command is spawned.
/// Builtins and functions never come here. Returns the command's rule.
pub fn check_argv<'p>(policy: &'p Policy, argv: &[Vec<u8>]) -> Result<&'p CommandRule, Deny> {
    let Some(name) = argv.first() else {
        return Err(Deny::new("empty-command", "the command name is empty"));
    };
    let text = String::from_utf8_lossy(name);
    if !policy.shell {
        return Err(Deny::new("shell-disabled", reasons::shell_disabled(policy)));
    }
    if name.contains(&b'/') {
        return Err(Deny::new("path-qualified", reasons::path_qualified(&text)));
    }
    let Some(rule) = policy.commands.get(text.as_ref()) else {
        return Err(Deny::new(
            "foreign-command",
            reasons::foreign_command(policy, &text),
        ));
    };
    let args: Vec<&[u8]> = argv[1..].iter().map(Vec::as_slice).collect();
    check_arguments(rule, &args)?;
    check_path_arguments(policy, &args)?;
    Ok(rule)
}

/// The command's argument rules over `args` (`argv[1..]`).
pub fn check_arguments(rule: &CommandRule, args: &[&[u8]]) -> Result<(), Deny> {
    match rule.deny.iter().find(|r| r.matches(args)) {
        Some(matched) => Err(Deny::new("argument-rule", matched.reason())),
        None => Ok(()),
    }
}

/// No argument of a command may name the guard's own files (policy, bin
/// folder, audit log): `tee`, `mkdir`, `sort -o` and a tool's output flags
/// write their operands. Reads are refused too; there is nothing an agent
/// needs there. Checked on plain operands, `--opt=VALUE` values and the
/// value glued to a short option (`-oFILE`).
pub fn check_path_arguments(policy: &Policy, args: &[&[u8]]) -> Result<(), Deny> {
    if policy.sandbox.protected.is_empty() {
        return Ok(());
    }
    // Resolved once for all the arguments (and only when one may be a
    // path), not once per argument.
    let mut protected = None;
    let cwd = std::env::current_dir();
    for arg in args {
        let candidates: [Option<&[u8]>; 2] = if arg.starts_with(b"--") {
            [
                arg.iter().position(|&b| b == b'=').map(|eq| &arg[eq + 1..]),
                None,
            ]
        } else if arg.starts_with(b"-") {
            [arg.get(2..).filter(|v| !v.is_empty()), None]
        } else {
            [Some(arg), None]
        };
        for candidate in candidates.into_iter().flatten() {
            let path = Path::new(std::ffi::OsStr::from_bytes(candidate));
            let absolute = match &cwd {
                Ok(cwd) if path.is_relative() => cwd.join(path),
                _ => path.to_path_buf(),
            };
            let protected = protected.get_or_insert_with(|| protected_reals(policy));
            if protected_root_among(protected, &absolute).is_some() {
                return Err(Deny::new(
                    "protected-path",
                    format!(
                        "argument \"{}\" names part of the guard (policy, bin folder or audit log)",
                        String::from_utf8_lossy(arg)
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Dynamic check of an assignment or `export` of `name`.
pub fn check_assignment(policy: &Policy, name: &str) -> Result<(), Deny> {
    match policy
        .env
        .deny
        .iter()
        .find(|d| env_pattern_matches(&d.pattern, name))
    {
        Some(denied) => Err(Deny::new(
            "environment",
            format!("assigning {name} is not permitted: {}", denied.reason),
        )),
        None => Ok(()),
    }
}

/// `NAME` matches exactly; `PREFIX*` matches every name starting with PREFIX.
pub fn env_pattern_matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

/// Dynamic check of a file guard-sh itself is about to open for writing
/// (`path` absolute). Symlinks and `/proc/self/fd` links are resolved first,
/// so no spelling of a protected path gets through.
pub fn check_write_target(policy: &Policy, path: &Path) -> Result<(), Deny> {
    match protected_root(policy, path) {
        Some(_) => Err(Deny::new(
            "protected-path",
            format!(
                "writing {} is not permitted: it is part of the guard (policy, bin folder or audit log)",
                path.display()
            ),
        )),
        None => Ok(()),
    }
}

/// The protected path (policy, bin folder, audit log) that `path` (absolute)
/// lies in, after symlinks and `/proc/self/fd` links are resolved.
fn protected_root<'p>(policy: &'p Policy, path: &Path) -> Option<&'p Path> {
    protected_root_among(&protected_reals(policy), path)
}

/// Each protected path with its real path (itself when it does not exist).
fn protected_reals(policy: &Policy) -> Vec<(&Path, PathBuf)> {
    policy
        .sandbox
        .protected
        .iter()
        .map(|protected| {
            let real = std::fs::canonicalize(protected).unwrap_or_else(|_| protected.clone());
            (protected.as_path(), real)
        })
        .collect()
}

/// [`protected_root`] against protected paths already resolved.
fn protected_root_among<'p>(protected: &[(&'p Path, PathBuf)], path: &Path) -> Option<&'p Path> {
    let target = resolve_for_write(path);
    protected
        .iter()
        .find(|(_, real)| target.starts_with(real))
        .map(|(protected, _)| *protected)
}

/// The real file a write to `path` would reach: the canonical path if it
/// exists, else the canonical parent joined with the last component.
fn resolve_for_write(path: &Path) -> PathBuf {
    if let Ok(real) = std::fs::canonicalize(path) {
        return real;
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(file)) => match std::fs::canonicalize(parent) {
            Ok(real_parent) => real_parent.join(file),
            Err(_) => path.to_path_buf(),
        },
        _ => path.to_path_buf(),
    }
}
