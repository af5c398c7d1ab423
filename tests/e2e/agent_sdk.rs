//! The Claude Agent SDK, driven by the repository's example runner
//! (`examples/agent-sdk/run.ts`) exactly as a benchmark author would run
//! it: under guard-sh-launch, the arm's own options, a fake model on
//! loopback. The model asks for
//! every tool the arm does not offer, in bypass-permissions mode: only Bash
//! is offered and runs through guard-sh, nothing else happens, the
//! operator's HOME is never touched, and the transcript the runner saved
//! names each attempt.

#![allow(clippy::expect_used)] // test code reports failures by panicking

use crate::support::{Arm, Hostile, cache_dir};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// The pinned SDK release (examples/agent-sdk/package.json and its lock).
pub const VERSION: &str = "0.3.335";

static INSTALL: Mutex<()> = Mutex::new(());

/// The example runner with its locked dependencies installed (`npm ci`)
/// into the cache, once per lock file.
fn example() -> PathBuf {
    let _one = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/agent-sdk");
    let dir = cache_dir().join(format!("agent-sdk-example-{VERSION}"));
    std::fs::create_dir_all(&dir).expect("create the example's cache folder");
    for file in [
        "package.json",
        "package-lock.json",
        "tsconfig.json",
        "run.ts",
    ] {
        std::fs::copy(source.join(file), dir.join(file)).expect("copy the example");
    }
    let installed = dir.join("node_modules/.package-lock.json");
    let current = std::fs::read(dir.join("package-lock.json")).expect("lock");
    let stamp = dir.join(".installed-lock");
    if !installed.exists() || std::fs::read(&stamp).ok().as_deref() != Some(&current[..]) {
        let out = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&dir)
            .output()
            .unwrap_or_else(|e| panic!("e2e: cannot run npm ({e})"));
        assert!(
            out.status.success(),
            "e2e: `npm ci` for the Agent SDK example failed: is the npm registry reachable?\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::write(&stamp, &current).expect("stamp");
    }
    dir
}

/// The example type-checks against the pinned SDK's own declarations
/// (`npm run typecheck`: `tsc --noEmit`, strict), so an SDK release that
/// renames an option or a message field fails here, not in a trial.
#[test]
#[ignore = "e2e: installs the Claude Agent SDK from npm; run with `cargo test --test e2e -- --ignored`"]
fn agent_sdk_example_type_checks() {
    let example = example();
    let out = Command::new("npm")
        .args(["run", "--silent", "typecheck"])
        .current_dir(&example)
        .output()
        .expect("run npm");
    assert!(
        out.status.success(),
        "tsc --noEmit:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
#[ignore = "e2e: installs the Claude Agent SDK from npm; run with `cargo test --test e2e -- --ignored`"]
fn agent_sdk_example_offers_only_bash_and_nothing_else_it_asks_for_happens() {
    let example = example();
    let arm = Arm::build();
    let hostile = Hostile::plant_and_serve(&arm);
    let operator_home = arm.root.path().join("operator-home");
    std::fs::create_dir(&operator_home).expect("mkdir operator home");
    // Under the launcher the harness writes only the arm's work, temp and
    // harness-home folders: the transcript goes in the last, which no
    // command of the agent may write.
    let transcript = arm.out.join("harness-home/sdk-transcript.jsonl");
    let mut command = Command::new("timeout");
    command
        .arg("120")
        .arg(env!("CARGO_BIN_EXE_guard-sh-launch"))
        .arg("--arm")
        .arg(&arm.out)
        // tsx compiles run.ts with esbuild's native binary; the SDK runs
        // Claude Code's native binary.
        .arg("--allow-exec")
        .arg(example.join("node_modules/@esbuild"))
        .arg("--allow-exec")
        .arg(example.join("node_modules/@anthropic-ai/claude-agent-sdk-linux-x64"))
        .arg("--")
        .arg(example.join("node_modules/.bin/tsx"))
        .arg(example.join("run.ts"))
        .arg(&arm.out)
        .arg("use every tool")
        .arg("--transcript")
        .arg(&transcript)
        .arg("--bypass-permissions")
        .current_dir(arm.work_dir())
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", &operator_home)
        // Claude Code refuses bypass mode as root unless told it is sandboxed.
        .env("IS_SANDBOX", "1")
        .env("ANTHROPIC_BASE_URL", hostile.mock.url())
        .env("ANTHROPIC_API_KEY", "e2e-dummy-key");
    let (records, _) = arm.run_trial("agent-sdk example (hostile)", &mut command);
    hostile.assert_nothing_happened(&records);
    // A launched, sealed trial whose harness's execs were supervised.
    let harness = records
        .iter()
        .find(|r| r["type"] == "harness")
        .expect("the launcher's harness record");
    assert_eq!(harness["supervised"], true, "{harness}");
    assert!(
        records.iter().any(|r| r["type"] == "harness-end"),
        "{records:?}"
    );
    assert_eq!(
        std::fs::read_dir(&operator_home).expect("home").count(),
        0,
        "the harness wrote into the operator's HOME"
    );
    assert!(
        arm.out.join("harness-home/.claude").is_dir(),
        "the harness kept its config in the arm"
    );
    hostile.assert_the_transcript_names_each_attempt(&arm, &transcript);
}
