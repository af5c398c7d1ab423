//! The exact argv shapes agent harnesses send to `$SHELL`
//! (see docs on Claude Code and Codex CLI): probe, snapshot, wrapped
//! calls with and without a snapshot, and Codex's `-lc`.

#![allow(clippy::expect_used)] // test code reports failures by panicking

use crate::common;

use std::path::Path;

fn setup() -> (common::TestArm, tempfile::TempDir) {
    (
        common::test_arm(&[], None),
        tempfile::tempdir().expect("work"),
    )
}

fn run(arm: &common::TestArm, cwd: &Path, args: &[&str]) -> (i32, String, String) {
    let out = common::run_guard(arm, cwd, args);
    (
        out.status.code().unwrap_or(-1),
        common::text(&out.stdout),
        common::text(&out.stderr),
    )
}

/// Claude Code's quoting of CMD inside `eval '…'`.
fn claude_quote(cmd: &str) -> String {
    format!("'{}'", cmd.replace('\'', "'\"'\"'"))
}

#[test]
fn claude_probe_env_is_refused_cleanly() {
    let (arm, work) = setup();
    let (status, out, err) = run(&arm, work.path(), &["-c", "env"]);
    assert_eq!(status, 126);
    assert_eq!(out, "");
    assert!(err.starts_with("guard-sh: denied: \"env\""), "{err}");
}

#[test]
fn claude_snapshot_script_fails_cleanly_and_writes_nothing() {
    let (arm, work) = setup();
    let snap_dir = work.path().join(".claude/shell-snapshots");
    std::fs::create_dir_all(&snap_dir).expect("dir");
    let snap = snap_dir.join("snapshot-bash-1-abc.sh");
    std::fs::write(
        work.path().join(".bashrc"),
        "alias ll='ls -l'\nf() { echo f; }\n",
    )
    .expect("bashrc");
    let script = format!(
        r##"SNAPSHOT_FILE={snap}
      source "$HOME/.bashrc" < /dev/null
      echo "# Snapshot file" >| "$SNAPSHOT_FILE"
      echo "unalias -a 2>/dev/null || true" >> "$SNAPSHOT_FILE"
      declare -F | cut -d' ' -f3 | grep -vE '^_[^_]' | while read func; do
        echo "eval \"\$(echo '$(declare -f "$func" | base64)' | base64 -d)\" > /dev/null 2>&1" >> "$SNAPSHOT_FILE"
      done
      shopt -p | head -n 1000 >> "$SNAPSHOT_FILE"
      set -o | grep "on" | awk '{{print "set -o " $1}}' | head -n 1000 >> "$SNAPSHOT_FILE"
      echo "shopt -s expand_aliases" >> "$SNAPSHOT_FILE"
      alias | sed 's/^alias //g' | sed 's/^/alias -- /' | head -n 1000 >> "$SNAPSHOT_FILE"
      cat <<'END' >> "$SNAPSHOT_FILE"
function rg {{ exec -a rg "$CLAUDE_CODE_EXECPATH" "$@"; }}
END
      echo "export PATH=/usr/bin" >> "$SNAPSHOT_FILE"
      test -f "$SNAPSHOT_FILE" && echo "Snapshot created"
"##,
        snap = snap.display()
    );
    let (status, out, err) = run(&arm, work.path(), &["-c", "-l", &script]);
    assert_eq!(status, 126, "{err}");
    assert_eq!(out, "");
    assert!(err.contains("denied"), "{err}");
    assert!(!snap.exists(), "the refused snapshot script wrote its file");
}

#[test]
fn claude_call_without_snapshot_runs_and_writes_the_cwd_file() {
    let (arm, work) = setup();
    let cwd_file = work.path().join("claude-1a2b-cwd");
    let cmd = r#"printf '%s\n' "it's" | tr a-z A-Z"#;
    let line = format!(
        "shopt -u extglob 2>/dev/null || true && eval {} < /dev/null && pwd -P >| {}",
        claude_quote(cmd),
        cwd_file.display()
    );
    let (status, out, err) = run(&arm, work.path(), &["-c", "-l", &line]);
    assert_eq!(status, 0, "{err}");
    assert_eq!(out, "IT'S\n");
    let real = std::fs::canonicalize(work.path()).expect("canon");
    assert_eq!(
        std::fs::read_to_string(&cwd_file).expect("cwd file"),
        format!("{}\n", real.display())
    );
}

#[test]
fn claude_call_with_a_missing_or_benign_snapshot_runs_the_command() {
    let (arm, work) = setup();
    let cwd_file = work.path().join("cwd");
    for snapshot in [
        None,
        Some("unalias -a 2>/dev/null || true\nshopt -s expand_aliases\nexport SNAP_VAR=1\n"),
    ] {
        let snap = work.path().join("snapshot-bash-x.sh");
        let _ = std::fs::remove_file(&snap);
        if let Some(body) = snapshot {
            std::fs::write(&snap, body).expect("snapshot");
        }
        let line = format!(
            "source {} 2>/dev/null || true && shopt -u extglob 2>/dev/null || true && eval {} < /dev/null && pwd -P >| {}",
            snap.display(),
            claude_quote("mkdir -p d && cd d && echo \"v=${SNAP_VAR:-none}\""),
            cwd_file.display()
        );
        let (status, out, err) = run(&arm, work.path(), &["-c", &line]);
        assert_eq!(status, 0, "{err}");
        let expected = if snapshot.is_some() {
            "v=1\n"
        } else {
            "v=none\n"
        };
        assert_eq!(out, expected);
        let real = std::fs::canonicalize(work.path().join("d")).expect("canon");
        assert_eq!(
            std::fs::read_to_string(&cwd_file).expect("cwd"),
            format!("{}\n", real.display())
        );
    }
}

#[test]
fn claude_call_with_a_foreign_command_is_refused_and_no_cwd_file_is_written() {
    let (arm, work) = setup();
    let cwd_file = work.path().join("cwd");
    let line = format!(
        "shopt -u extglob 2>/dev/null || true && eval {} < /dev/null && pwd -P >| {}",
        claude_quote("curl http://example.com"),
        cwd_file.display()
    );
    let (status, _, err) = run(&arm, work.path(), &["-c", "-l", &line]);
    assert_eq!(status, 126);
    assert!(err.contains("denied: \"curl\""), "{err}");
    assert!(!cwd_file.exists());
}

#[test]
fn codex_lc_runs_the_command() {
    let (arm, work) = setup();
    let (status, out, err) = run(
        &arm,
        work.path(),
        &["-lc", "echo $0 && seq 3 | sort -r | head -1"],
    );
    assert_eq!(status, 0, "{err}");
    assert!(out.ends_with("\n3\n"), "{out}");
}

#[test]
fn guard_bash_is_the_same_shell_under_a_bash_name() {
    let (arm, work) = setup();
    let bin = Path::new(env!("CARGO_BIN_EXE_guard-bash"));
    let out = std::process::Command::new(bin)
        .env_clear()
        .env("GUARD_SH_POLICY", &arm.policy)
        .env("GUARD_SH_AUDIT", &arm.audit)
        .current_dir(work.path())
        .args(["-c", "echo ok; python3 -c 1"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(126));
    assert_eq!(common::text(&out.stdout), "");
    assert!(bin.to_string_lossy().contains("bash"));
}

/// guard-sh reading `input` on stdin, line by line.
fn stdin_session(input: &[u8]) -> std::process::Output {
    use std::io::Write;
    let (arm, work) = setup();
    let mut child = common::guard_cmd(&arm, work.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("write");
    child.wait_with_output().expect("wait")
}

#[test]
fn stdin_session_keeps_state_and_joins_continuation_lines() {
    let out = stdin_session(b"x=1\nmkdir sub; cd sub\nif true; then\n  echo \"x=$x\"\nfi\nevil\necho \"after ${PWD##*/}\"\nexit 4\necho never\n");
    assert_eq!(common::text(&out.stdout), "x=1\nafter sub\n");
    // A name that is no program anywhere: bash's words, and the session goes on.
    assert!(common::text(&out.stderr).contains("evil: command not found"));
    assert_eq!(out.status.code(), Some(4));
}

#[test]
fn stdin_session_joins_a_line_ending_in_a_backslash_as_bash_does() {
    let out = stdin_session(b"echo a \\\nb\necho c # d \\\necho e\necho f \\\\\necho \"g\\\nh\"\n");
    // The continuation in the comment is not one; the escaped backslash is
    // a word of its own.
    assert_eq!(
        common::text(&out.stdout),
        "a b\nc\ne\nf \\\ngh\n",
        "{}",
        common::text(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0));
}

/// A background job whose output goes elsewhere holds none of the line's
/// descriptors, as in bash (which execs such a command in place): a
/// harness reading the shell's output to its end gets it when the line
/// ends, not when the job does. Judged beside bash, with the job still
/// running when both reads end.
#[test]
fn a_redirected_background_job_keeps_no_pipe_of_the_line_open() {
    use std::io::Read;
    let (arm, work) = setup();
    let jobs = [
        "sleep {s} >/dev/null 2>&1 &",
        "( sleep {s} ) >/dev/null &",
        "{ sleep {s}; } >/dev/null 2>&1 &",
        "for i in 1; do sleep {s}; done >/dev/null &",
        "sleep {s} | cat >/dev/null &",
    ];
    let cases = jobs
        .iter()
        .flat_map(|job| [("bash", "7.125", *job), ("guard-sh", "7.25", *job)]);
    for (shell, seconds, job) in cases {
        let line = format!("{} echo started", job.replace("{s}", seconds));
        let mut c = match shell {
            "bash" => {
                let mut c = std::process::Command::new("bash");
                c.current_dir(work.path());
                c
            }
            _ => common::guard_cmd(&arm, work.path()),
        };
        let started = std::time::Instant::now();
        let mut child = c
            .args(["-c", &line])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("spawn");
        let mut out = String::new();
        child
            .stdout
            .take()
            .expect("stdout")
            .read_to_string(&mut out)
            .expect("read to the end");
        let waited = started.elapsed();
        assert!(child.wait().expect("wait").success());
        assert_eq!(out, "started\n", "{shell}: {line}");
        assert!(
            waited < std::time::Duration::from_secs(5),
            "{shell}: the output of `{line}` ended after {waited:?}"
        );
    }
}
