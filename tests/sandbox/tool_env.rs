//! Each arm's tool gets exactly the environment the arm defines: its own
//! variables (credentials, git hardening, its config home) win over the
//! deny patterns and over the agent's assignments, and HOME and the XDG
//! folders are the arm's own, never the operator's. The oracle is the
//! environment `strace -v` shows in the tool's `execve`.

#![allow(clippy::panic, clippy::unwrap_used)] // test code reports failures by panicking

use crate::common;
use crate::sandbox_support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const STRACE: &str = "/usr/bin/strace";

/// `arm-build ARM` with compiled stand-ins (copies of `true`) for the tools.
fn build(arm: &str, root: &Path) -> PathBuf {
    common::true_stubs(root, &["tea", "gitea-axi", "curl", "git"]);
    common::build_arm(arm, "http://127.0.0.1:3999", root)
}

/// Run `line` in the arm's guard-sh under `strace -f -v`; the environment
/// of the `execve` of `bin/TOOL`.
fn tool_env(arm: &Path, tool: &str, line: &str) -> BTreeMap<String, String> {
    let trace = arm.join("trace.out");
    let o = Command::new(STRACE)
        .args(["-f", "-qq", "-v", "-s", "4096", "-e", "trace=execve", "-o"])
        .arg(&trace)
        .arg(common::guard_sh())
        .args(["-c", line])
        .env_clear()
        .env("HOME", "/root")
        .env("XDG_CONFIG_HOME", "/root/.config")
        .env("TMPDIR", "/tmp")
        .env("LANG", "C.UTF-8")
        .env("GUARD_SH_POLICY", arm.join("policy.json"))
        .current_dir(arm.join("work"))
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{line}: {}",
        common::text(&o.stderr)
    );
    let text = sandbox_support::join_resumed(&std::fs::read_to_string(&trace).unwrap());
    let target = format!("execve(\"{}\"", arm.join("bin").join(tool).display());
    let call = text
        .lines()
        .find(|l| l.contains(&target))
        .unwrap_or_else(|| panic!("no execve of {tool} in:\n{text}"));
    // `execve("path", ["argv"...], ["K=V", ...]) = 0`: the last array.
    let envp = call.rsplit_once(", [").unwrap().1;
    let envp = envp.rsplit_once("])").unwrap().0;
    envp.split("\", \"")
        .map(|kv| kv.trim_matches('"'))
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn assert_private_home(env: &BTreeMap<String, String>, arm: &Path) {
    let home = arm.join("home").display().to_string();
    assert_eq!(env.get("HOME"), Some(&home), "{env:?}");
    assert_eq!(
        env.get("TMPDIR"),
        Some(&arm.join("tmp").display().to_string())
    );
    for (k, v) in env {
        assert!(
            !v.starts_with("/root"),
            "{k}={v} is the operator's: {env:?}"
        );
    }
}

#[test]
fn the_tea_tool_gets_its_login_home_and_git_hardening_whatever_the_agent_exports() {
    let root = tempfile::tempdir().unwrap();
    let arm = build("tea", root.path());
    let env = tool_env(&arm, "tea", "TMPDIR=/tmp tea --version");
    assert_private_home(&env, &arm);
    assert_eq!(
        env.get("XDG_CONFIG_HOME"),
        Some(&arm.join("tea-config").display().to_string()),
        "tea finds its arm-private login"
    );
    assert_eq!(
        env.get("GIT_CONFIG_NOSYSTEM").map(String::as_str),
        Some("1")
    );
    assert_eq!(
        env.get("GIT_CONFIG_GLOBAL").map(String::as_str),
        Some("/dev/null")
    );
    let count: usize = env["GIT_CONFIG_COUNT"].parse().unwrap();
    assert!(count >= 4);
    let pinned: Vec<(&str, &str)> = (0..count)
        .map(|i| {
            (
                env[&format!("GIT_CONFIG_KEY_{i}")].as_str(),
                env[&format!("GIT_CONFIG_VALUE_{i}")].as_str(),
            )
        })
        .collect();
    assert!(
        pinned.contains(&("protocol.ext.allow", "never")),
        "{pinned:?}"
    );
}

#[test]
fn the_gitea_axi_tool_keeps_its_forge_url_when_the_agent_names_another() {
    let root = tempfile::tempdir().unwrap();
    let arm = build("gitea-axi", root.path());
    let env = tool_env(
        &arm,
        "gitea-axi",
        "export GITEA_AXI_API_URL=http://127.0.0.2:3999; GITEA_AXI_TOKEN=x gitea-axi --version",
    );
    assert_private_home(&env, &arm);
    assert_eq!(
        env.get("GITEA_AXI_API_URL").map(String::as_str),
        Some("http://127.0.0.1:3999")
    );
    assert_eq!(
        env.get("GITEA_AXI_TOKEN").map(String::as_str),
        Some("test-arm-token-0123")
    );
}

#[test]
fn the_raw_api_tool_reads_no_operator_dotfile() {
    let root = tempfile::tempdir().unwrap();
    let arm = build("raw-api", root.path());
    let env = tool_env(&arm, "curl", "export TMPDIR=/tmp; curl --version");
    assert_private_home(&env, &arm);
    assert_eq!(
        env.get("XDG_CONFIG_HOME"),
        Some(&arm.join("home/.config").display().to_string())
    );
    // The home is the arm's, and guard-sh refuses to plant a dotfile there.
    let o = Command::new(common::guard_sh())
        .args(["-c", "echo '-x http://127.0.0.2:3999' > \"$HOME/.curlrc\""])
        .env_clear()
        .env("HOME", arm.join("home"))
        .env("GUARD_SH_POLICY", arm.join("policy.json"))
        .env("GUARD_SH_LANDLOCK", "off")
        .current_dir(arm.join("work"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(126), "{}", common::text(&o.stderr));
    assert!(!arm.join("home/.curlrc").exists());
}
