//! The session record: what a verifier needs to judge a session without the
//! policy file.

use super::Event;
use crate::policy::model::{Policy, SandboxMode};
use std::collections::{BTreeMap, BTreeSet};

/// The first event of a session.
///
/// `policy_sha256` is the SHA-256 of the policy file's bytes (computed
/// once by the caller, with the pin: every process of a run, the
/// supervisor and each forked copy, records a session), `enforcement`
/// the level actually in force (`landlock-abi-N` or `none`), `mode` how guard-sh was started
/// (`command`, `script`, `stdin`, `interactive`).
pub fn session_event(
    policy: &Policy,
    policy_sha256: &str,
    enforcement: &str,
    argv: &[String],
    mode: &str,
    cwd: &str,
    trial: Option<&str>,
) -> Event {
    let commands: BTreeMap<String, String> = policy
        .commands
        .iter()
        .map(|(name, rule)| (name.clone(), rule.path.to_string_lossy().into_owned()))
        .collect();
    let helpers: BTreeSet<String> = policy
        .commands
        .values()
        .flat_map(|rule| rule.exec_allow.iter())
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    Event::Session {
        arm: policy.arm.clone(),
        policy_sha256: policy_sha256.to_string(),
        enforcement: enforcement.to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        cwd: cwd.to_string(),
        argv: argv.to_vec(),
        mode: mode.to_string(),
        pid: std::process::id(),
        shell: policy.shell,
        tool: policy.tool.clone(),
        bin_dir: policy.bin_dir.to_string_lossy().into_owned(),
        commands,
        helpers: helpers.into_iter().collect(),
        sandbox: sandbox_mode_name(policy.sandbox.mode).to_string(),
        supervised: false,
        trial: trial.map(str::to_string),
        client: None,
        line_seconds: policy.bounds.line_seconds,
    }
}

/// The policy spelling of a sandbox mode.
pub fn sandbox_mode_name(mode: SandboxMode) -> &'static str {
    match mode {
        SandboxMode::BestEffort => "best-effort",
        SandboxMode::Required => "required",
        SandboxMode::Off => "off",
    }
}
