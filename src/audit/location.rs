//! Where the audit log goes. First match wins:
//!
//! 1. `--audit FILE`
//! 2. `GUARD_SH_AUDIT=FILE` (an empty value counts as unset)
//! 3. the policy's `audit.path`
//! 4. the default `$XDG_STATE_HOME/guard-sh/audit.jsonl`, or
//!    `~/.local/state/guard-sh/audit.jsonl` when `XDG_STATE_HOME` is unset,
//!    empty or relative (as the XDG base-directory spec says). guard-sh
//!    announces a default location once on stderr, since nobody chose it.
//!
//! With none of these and no `HOME`, there is nowhere to log, and guard-sh
//! refuses to run.

use super::AuditError;
use crate::policy::model::Policy;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The log file, and whether it is the default (which the caller announces
/// once: `guard-sh: audit log: PATH`).
pub fn resolve_audit_path(
    cli: Option<&Path>,
    env: Option<&OsStr>,
    policy: &Policy,
    xdg_state_home: Option<&OsStr>,
    home: Option<&OsStr>,
) -> Result<(PathBuf, bool), AuditError> {
    if let Some(path) = cli {
        return Ok((path.to_path_buf(), false));
    }
    if let Some(path) = env.filter(|v| !v.is_empty()) {
        return Ok((PathBuf::from(path), false));
    }
    if let Some(path) = &policy.audit.path {
        return Ok((path.clone(), false));
    }
    let state = match xdg_state_home.map(Path::new).filter(|p| p.is_absolute()) {
        Some(dir) => dir.to_path_buf(),
        None => match home.filter(|h| !h.is_empty()) {
            Some(home) => Path::new(home).join(".local/state"),
            None => return Err(AuditError::NoLocation),
        },
    };
    Ok((state.join("guard-sh").join("audit.jsonl"), true))
}

/// [`resolve_audit_path`] reading `GUARD_SH_AUDIT`, `XDG_STATE_HOME` and
/// `HOME` from the process environment.
pub fn resolve_audit_path_from_env(
    cli: Option<&Path>,
    policy: &Policy,
) -> Result<(PathBuf, bool), AuditError> {
    let env = std::env::var_os("GUARD_SH_AUDIT");
    let xdg = std::env::var_os("XDG_STATE_HOME");
    let home = std::env::var_os("HOME");
    resolve_audit_path(cli, env.as_deref(), policy, xdg.as_deref(), home.as_deref())
}
