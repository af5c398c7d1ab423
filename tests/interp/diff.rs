//! Differential suite: every script in `tests/diff/cases/` runs under
//! `bash --norc --noprofile` and under guard-sh (permissive test policy,
//! sandbox off), each in a fresh folder; stdout, exit status and stderr
//! (with the shell-name prefix normalized) must agree. A case may declare
//! an intended difference with a first line `# differs_from_bash: stderr …`
//! (stderr not compared). bash missing is a failure.

#![allow(clippy::expect_used)] // test code reports failures by panicking

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};

fn normalize_stderr(s: &str, script: &Path) -> String {
    let script = script.display().to_string();
    s.lines()
        .map(|l| {
            let l = l
                .strip_prefix(&format!("{script}: "))
                .or_else(|| l.strip_prefix("guard-sh: "))
                .or_else(|| l.strip_prefix("bash: "))
                .unwrap_or(l);
            // bash adds `line N: `.
            let l = match l.strip_prefix("line ") {
                Some(rest) => match rest.split_once(": ") {
                    Some((n, rest)) if n.chars().all(|c| c.is_ascii_digit()) => rest,
                    _ => l,
                },
                None => l,
            };
            format!("SH: {l}\n")
        })
        .collect()
}

struct Run {
    stdout: String,
    stderr: String,
    status: Option<i32>,
}

fn run(mut cmd: Command) -> Run {
    let out = cmd.stdin(Stdio::null()).output().expect("run shell");
    Run {
        stdout: common::text(&out.stdout),
        stderr: common::text(&out.stderr),
        status: out.status.code(),
    }
}

#[test]
fn guard_sh_agrees_with_bash_on_every_differential_case() {
    let bash = common::system_program("bash").expect("bash is required for the differential suite");
    let arm = common::test_arm(&[], None);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/diff/cases");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("cases folder")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "sh"))
        .collect();
    names.sort();
    assert!(names.len() >= 200, "only {} cases", names.len());
    let only = std::env::var("DIFF_CASE").ok();
    let mut failures = Vec::new();
    let mut compared = 0;
    for case in &names {
        let stem = case
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if only.as_deref().is_some_and(|o| o != stem) {
            continue;
        }
        let body = std::fs::read_to_string(case).expect("case");
        let skip_stderr = body
            .lines()
            .next()
            .is_some_and(|l| l.starts_with("# differs_from_bash: stderr"));
        let tmp = tempfile::tempdir().expect("tmp");
        let script_dir = tmp.path().join("script");
        std::fs::create_dir(&script_dir).expect("script dir");
        let script = script_dir.join("case.sh");
        std::fs::write(&script, &body).expect("write");
        let mut results = Vec::new();
        for shell in ["bash", "guard-sh"] {
            let work = tmp.path().join(format!("work-{shell}"));
            std::fs::create_dir(&work).expect("work");
            let mut cmd = if shell == "bash" {
                let mut c = Command::new(&bash);
                c.arg("--norc").arg("--noprofile").arg(&script);
                c.env_clear()
                    .env("PATH", "/usr/bin:/bin")
                    .env("HOME", &work)
                    .env("LC_ALL", "C");
                c.current_dir(&work);
                c
            } else {
                let mut c = common::guard_cmd(&arm, &work);
                c.arg(&script);
                c
            };
            cmd.env("HOME", &work);
            results.push(run(cmd));
        }
        let (b, g) = (&results[0], &results[1]);
        let (be, ge) = (
            normalize_stderr(&b.stderr, &script),
            normalize_stderr(&g.stderr, &script),
        );
        let stderr_ok = skip_stderr || be == ge;
        compared += 1;
        if b.stdout != g.stdout || b.status != g.status || !stderr_ok {
            failures.push(format!(
                "--- {stem}\nbash:     status {:?} stdout {:?} stderr {:?}\nguard-sh: status {:?} stdout {:?} stderr {:?}",
                b.status, b.stdout, be, g.status, g.stdout, ge
            ));
        }
    }
    assert!(compared > 0);
    assert!(
        failures.is_empty(),
        "{} of {compared} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Scripts read from standard input run chunk by chunk (one complete
/// command at a time); what depends on the chunks (`$LINENO` across them,
/// a function defined in one and called in another, a here-document the
/// end of input closes) must still agree with `bash < script`.
/// bash (no start-up files) or guard-sh (the test arm) reading commands
/// from standard input in `work`.
fn shell_on_stdin(shell: &str, bash: &Path, arm: &common::TestArm, work: &Path) -> Command {
    if shell == "bash" {
        let mut c = Command::new(bash);
        c.args(["--norc", "--noprofile"])
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("LC_ALL", "C")
            .current_dir(work);
        c
    } else {
        common::guard_cmd(arm, work)
    }
}

#[test]
fn scripts_on_standard_input_agree_with_bash() {
    use std::io::Write;
    let bash = common::system_program("bash").expect("bash is required");
    let arm = common::test_arm(&[], None);
    let scripts = [
        "echo $LINENO\n\necho $LINENO\nf() {\n  echo \"f $LINENO\"\n}\nf\nif true; then\n  echo $LINENO\nfi\necho a; echo $LINENO\n",
        "g() { echo \"g $LINENO\"; }\n\n\ng\necho end $LINENO\n",
        "echo before\ncat <<EOF\nbody $LINENO\n",
        "echo \"$-\"\nset -x 2>/dev/null; echo \"$-\"\n",
    ];
    for script in scripts {
        let work = tempfile::tempdir().expect("work");
        let mut outputs = Vec::new();
        for shell in ["bash", "guard-sh"] {
            let mut cmd = shell_on_stdin(shell, &bash, &arm, work.path());
            let mut child = cmd
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .expect("start shell");
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(script.as_bytes())
                .expect("write script");
            let out = child.wait_with_output().expect("wait");
            outputs.push((common::text(&out.stdout), out.status.code()));
        }
        assert_eq!(outputs[0], outputs[1], "script:\n{script}");
    }
}

/// `-c` text runs one line at a time, as bash reads it: an error that ends
/// a command (a bad substitution, an arithmetic error) skips the rest of
/// its line only, the next line runs (a line continuation, or a
/// here-document's body, is part of its line).
#[test]
fn command_text_goes_on_with_the_next_line_after_an_error() {
    let bash = common::system_program("bash").expect("bash is required");
    let arm = common::test_arm(&[], None);
    let texts = [
        "echo ${#x-d}; echo same\necho next $?; x=${a[0][0]}; echo after $?\nf() { echo ${#x-$(false)}; }; echo defined",
        "echo $((1/0)); echo same\necho next; cat <<EOF; echo $((2/0))\nbody\nEOF\necho last",
        "echo a; \\\necho $((1/0)); echo b\necho c",
        "v=abcdef; echo ${#v:1:3}\nexit 3\necho not reached",
    ];
    for text in texts {
        let work = tempfile::tempdir().expect("work");
        let mut outputs = Vec::new();
        for shell in ["bash", "guard-sh"] {
            let mut cmd = if shell == "bash" {
                let mut c = Command::new(&bash);
                c.env_clear().env("LC_ALL", "C").current_dir(work.path());
                c
            } else {
                common::guard_cmd(&arm, work.path())
            };
            let out = cmd.args(["-c", text]).output().expect("run");
            outputs.push((common::text(&out.stdout), out.status.code()));
        }
        assert_eq!(outputs[0], outputs[1], "text:\n{text}");
    }
}

/// A script on standard input as a regular file (`guard-sh < script`):
/// the shell reads it in blocks and gives back what it read ahead before
/// each command, so a command that reads standard input gets the lines
/// after its own, as under bash (which reads such a file in blocks too).
#[test]
fn a_script_file_on_standard_input_leaves_its_later_lines_to_the_commands() {
    let bash = common::system_program("bash").expect("bash is required");
    let arm = common::test_arm(&[], None);
    let body: String = (0..3000).map(|n| format!("body line {n}\n")).collect();
    let scripts = [
        "read x\nfirst data line\necho \"read: $x\"\nhead -n 2\nsecond\nthird\necho after\ncat\nrest one\nrest two\n".to_string(),
        format!("cat > big.txt <<'EOF'\n{body}EOF\nwc -l < big.txt\nread y\nafter the document\necho \"$y\"\n"),
        format!("echo start\n{body}"),
    ];
    for script in scripts {
        let work = tempfile::tempdir().expect("work");
        let file = work.path().join("script.sh");
        std::fs::write(&file, &script).expect("write script");
        let mut outputs = Vec::new();
        for shell in ["bash", "guard-sh"] {
            let mut cmd = shell_on_stdin(shell, &bash, &arm, work.path());
            let out = cmd
                .stdin(std::fs::File::open(&file).expect("open script"))
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .output()
                .expect("run shell");
            outputs.push((common::text(&out.stdout), out.status.code()));
        }
        assert_eq!(
            outputs[0],
            outputs[1],
            "script:\n{}",
            &script[..script.len().min(300)]
        );
    }
}
