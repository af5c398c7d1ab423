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

/// What one traced run of guard-sh left: its status, its stderr, and the
/// `execve` calls of its whole process tree (`strace -f -v`).
struct Traced {
    status: Option<i32>,
    stderr: String,
    execs: String,
}

/// Run `line` in the arm's guard-sh under `strace -f -v`, started with the
/// operator's HOME and XDG folder, with Landlock on or off.
fn traced(arm: &Path, line: &str, landlock: bool) -> Traced {
    let trace = arm.join("trace.out");
    let mut command = Command::new(STRACE);
    command
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
        .current_dir(arm.join("work"));
    if !landlock {
        command.env("GUARD_SH_LANDLOCK", "off");
    }
    let o = command.output().unwrap();
    Traced {
        status: o.status.code(),
        stderr: common::text(&o.stderr),
        execs: sandbox_support::join_resumed(&std::fs::read_to_string(&trace).unwrap()),
    }
}

/// The `execve` of `bin/TOOL` in a trace, if there is one.
fn exec_of<'t>(arm: &Path, tool: &str, execs: &'t str) -> Option<&'t str> {
    let target = format!("execve(\"{}\"", arm.join("bin").join(tool).display());
    execs.lines().find(|l| l.contains(&target))
}

/// Run `line` (which must succeed) in the arm's guard-sh under
/// `strace -f -v`; the environment of the `execve` of `bin/TOOL`.
fn tool_env(arm: &Path, tool: &str, line: &str) -> BTreeMap<String, String> {
    let run = traced(arm, line, true);
    assert_eq!(run.status, Some(0), "{line}: {}", run.stderr);
    let call = exec_of(arm, tool, &run.execs)
        .unwrap_or_else(|| panic!("no execve of {tool} in:\n{}", run.execs));
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

/// `HOME` and the XDG folders are the arm's for every command, so the
/// agent may give the shell its own (`~` and `cd` follow it, as in bash),
/// but a command bash would have given that value to is refused, not run
/// with the arm's silently; judged by the trace of every `execve`, with
/// Landlock on and off (the shell's check and its environment builder are
/// what stop it, not the kernel).
#[test]
fn a_home_the_line_sets_moves_the_shell_but_reaches_no_command() {
    let root = tempfile::tempdir().unwrap();
    let arm = build("tea", root.path());
    let work = arm.join("work").display().to_string();
    for landlock in [true, false] {
        let own = traced(
            &arm,
            "HOME=/elsewhere; echo ~/x; HOME=$PWD; cd; pwd",
            landlock,
        );
        assert_eq!(own.status, Some(0), "{}", own.stderr);
        for line in [
            "HOME=/x tea --version",
            "HOME=$PWD; tea --version",
            "HOME=$PWD tea --version",
            "export XDG_CONFIG_HOME=$PWD; tea --version",
            "unset HOME; tea --version",
            "declare +x HOME; tea --version",
            "f() { local HOME=$PWD; tea --version; }; f",
            "HOME=$PWD; (tea --version)",
            "CURL_HOME=$PWD; export CURL_HOME; tea --version | cat",
        ] {
            let run = traced(&arm, line, landlock);
            assert_eq!(run.status, Some(126), "{line}: {}", run.stderr);
            assert!(
                run.stderr.contains("every command gets the arm's"),
                "{line}: {}",
                run.stderr
            );
            assert!(
                exec_of(&arm, "tea", &run.execs).is_none(),
                "{line} ran tea:\n{}",
                run.execs
            );
        }
        // Changed back, or set to the arm's own value: bash would pass the
        // same as guard-sh does, so the command runs.
        let arms_home = arm.join("home").display().to_string();
        for line in [
            "HOME=/x; HOME=/root; tea --version".to_string(),
            format!("HOME={arms_home} tea --version"),
        ] {
            let run = traced(&arm, &line, landlock);
            assert_eq!(run.status, Some(0), "{line}: {}", run.stderr);
            let call = exec_of(&arm, "tea", &run.execs).unwrap_or_else(|| panic!("{line}"));
            assert!(call.contains(&format!("\"HOME={arms_home}\"")), "{call}");
            assert!(!call.contains(&format!("HOME={work}")), "{call}");
        }
    }
    // The static check names a fixed value given to a command; one known
    // only at run time is left to the run-time check above.
    let explain = |line: &str| {
        let o = Command::new(common::guard_sh())
            .args(["--explain", "-c", line])
            .env_clear()
            .env("GUARD_SH_POLICY", arm.join("policy.json"))
            .current_dir(arm.join("work"))
            .output()
            .unwrap();
        (o.status.code(), common::text(&o.stdout))
    };
    let (status, verdict) = explain("HOME=/x tea --version");
    assert_eq!(status, Some(1), "{verdict}");
    assert!(verdict.contains(r#""rule":"environment""#), "{verdict}");
    assert_eq!(explain("HOME=$PWD tea --version").0, Some(0));
    assert_eq!(explain("HOME=/x; echo ~").0, Some(0));
    let out = Command::new(common::guard_sh())
        .args(["-c", "HOME=/elsewhere; echo ~/x; HOME=$PWD; cd; pwd"])
        .env_clear()
        .env("HOME", "/root")
        .env("GUARD_SH_POLICY", arm.join("policy.json"))
        .current_dir(arm.join("work"))
        .output()
        .unwrap();
    assert_eq!(common::text(&out.stdout), format!("/elsewhere/x\n{work}\n"));
}

/// `bash`/`sh` on a line is a new shell of guard-sh's own interpreter: no
/// shell program is ever executed (every `execve` of the run, `strace -f`),
/// the commands it runs are the arm's tool, with the arm's environment,
/// and a refused one inside it is not executed. Landlock on and off.
#[test]
fn a_new_shell_executes_no_shell_program() {
    let root = tempfile::tempdir().unwrap();
    let arm = build("tea", root.path());
    std::fs::write(arm.join("work/s.sh"), "tea from-script\n").unwrap();
    for landlock in [true, false] {
        let t = traced(
            &arm,
            "bash -c 'tea from-c'; echo 'tea from-stdin' | sh; bash s.sh; HOME=/x bash -c 'tea moved'",
            landlock,
        );
        let shells: Vec<&str> = t
            .execs
            .lines()
            .filter(|l| {
                ["sh", "bash", "dash"]
                    .iter()
                    .any(|s| l.contains(&format!("/{s}\", [")))
            })
            .collect();
        assert!(shells.is_empty(), "landlock {landlock}: {shells:?}");
        let teas: Vec<&str> = t
            .execs
            .lines()
            .filter(|l| l.contains(&format!("execve(\"{}\"", arm.join("bin/tea").display())))
            .collect();
        for (arg, line) in ["from-c", "from-stdin", "from-script"].iter().zip(&teas) {
            assert!(
                line.contains(&format!("\"{arg}\"")),
                "landlock {landlock}: {teas:?}"
            );
            assert!(
                line.contains(&format!("\"HOME={}\"", arm.join("home").display())),
                "landlock {landlock}: the arm's HOME: {line}"
            );
        }
        assert_eq!(teas.len(), 3, "landlock {landlock}: {teas:?}\n{}", t.stderr);
        // The moved HOME would reach tea in bash: refused at its spawn.
        assert_eq!(t.status, Some(126), "landlock {landlock}: {}", t.stderr);
    }
}
