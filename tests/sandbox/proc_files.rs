//! Of `/proc`, a line reads only its own process's folder and the
//! system-wide figures: never the harness's `environ`, `cmdline` or
//! `mem` (its model key, the trial's seal). A command is held by its
//! Landlock domain; the files the shell opens itself (redirections,
//! `source`) by guard-sh's check after each open, which holds with
//! Landlock off too. The oracle is the key itself, held by guard-sh's
//! parent and looked for in everything the run printed or wrote; the same
//! lines under bash print it (so the oracle can fail).

#![allow(clippy::panic, clippy::unwrap_used)] // test code reports failures by panicking

use crate::common;
use crate::sandbox_support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// What guard-sh's parent holds in its environment and command line.
const KEY: &str = "harness-key-0123";

fn build(root: &Path) -> PathBuf {
    // No request reaches the forge in these tests.
    common::build_arm("raw-api", "http://127.0.0.1:9", root)
}

/// `shell -c LINE` started by a `/bin/sh` that stays its parent and holds
/// [`KEY`] in its environment (not passed on) and its command line (a
/// second command after the shell, so `/bin/sh` does not exec it in place).
fn run_under_keyholder(shell: &Path, arm: &Path, line: &str, landlock: bool) -> Output {
    let script = format!(": {KEY}; env -u HARNESS_KEY \"$SHELL_UNDER_TEST\" -c \"$LINE\"; exit $?");
    let mut c = Command::new("/bin/sh");
    c.args(["-c", &script])
        .env_clear()
        .env("HARNESS_KEY", KEY)
        .env("SHELL_UNDER_TEST", shell)
        .env("LINE", line)
        .env("GUARD_SH_POLICY", arm.join("policy.json"))
        .current_dir(arm.join("work"));
    if !landlock {
        c.env("GUARD_SH_LANDLOCK", "off");
    }
    c.output().unwrap()
}

/// The harness's secrets: `/proc/PID/environ`, `cmdline` and `mem` of a
/// process outside the trial (here guard-sh's parent, holding a key it did
/// not pass on) are closed to a command by its Landlock domain, which
/// grants reading everywhere but in other processes' `/proc` folders; its
/// own `/proc/self` and `/proc/cpuinfo` stay readable. Without Landlock
/// the same line prints the key (so the test can fail).
#[test]
fn a_command_cannot_read_the_harness_environment_or_memory() {
    let root = tempfile::tempdir().unwrap();
    let arm = build(root.path());
    let line = "cat /proc/$PPID/environ; echo \"environ=$?\"; \
                cat /proc/$PPID/cmdline; echo \"cmdline=$?\"; \
                head -c 1 /proc/$PPID/mem; echo \"mem=$?\"; \
                head -n 1 /proc/self/status; head -c 9 /proc/cpuinfo; echo";
    for landlock in [true, false] {
        let o = run_under_keyholder(&common::guard_sh(), &arm, line, landlock);
        let stdout = common::text(&o.stdout);
        let stderr = common::text(&o.stderr);
        if landlock {
            assert_eq!(
                stdout, "environ=1\ncmdline=1\nmem=1\nName:\thead\nprocessor\n",
                "{stderr}"
            );
            assert_eq!(stderr.matches("Permission denied").count(), 3, "{stderr}");
        } else {
            assert!(stdout.contains(KEY), "{stdout} {stderr}");
        }
    }
}

/// Of `/proc`, a command reads the system-wide figures programs ask for
/// (`meminfo`, `stat`, the tunables under `sys`) and nothing else of the
/// kernel's: `locks` (other processes' numbers) and `kallsyms` are closed
/// by its Landlock domain. Without Landlock both open (so the test can fail).
#[test]
fn of_proc_a_command_reads_only_the_listed_figures() {
    let root = tempfile::tempdir().unwrap();
    let arm = build(root.path());
    let line = "head -c 1 /proc/locks >/dev/null; echo \"locks=$?\"; \
                head -c 1 /proc/kallsyms >/dev/null; echo \"kallsyms=$?\"; \
                head -n 1 /proc/meminfo | cut -c 1-9; head -c 3 /proc/stat; echo; \
                head -c 5 /proc/sys/kernel/ostype; echo";
    for landlock in [true, false] {
        let o = sandbox_support::run_in_built_arm(&arm, line, landlock);
        let stdout = common::text(&o.stdout);
        let stderr = common::text(&o.stderr);
        let closed = if landlock { 1 } else { 0 };
        assert_eq!(
            stdout,
            format!("locks={closed}\nkallsyms={closed}\nMemTotal:\ncpu\nLinux\n"),
            "landlock {landlock}: {stderr}"
        );
    }
}

/// The files the shell opens for a line (a redirection in every form, a
/// descriptor a command inherits already open, `source`) are held to the
/// same rule as a command's own opens: another process's `/proc` file is
/// refused after the open, by the file it turned out to be (through a
/// link, `..`, a `task` folder, a changed folder), with status 126 and a
/// `denied` record of rule `other-process`. Landlock cannot hold it here
/// (guard-sh's own domain does not handle reads), so each line runs with
/// Landlock on and off; bash prints the key for every line but the two
/// `source`s, which guard-sh must refuse all the same.
#[test]
fn the_shell_opens_no_other_process_proc_file_for_a_line() {
    let root = tempfile::tempdir().unwrap();
    let arm = build(root.path());
    let work = arm.join("work");
    // A link the line can name, to a process outside the trial.
    std::os::unix::fs::symlink("/proc/1/cmdline", work.join("init-cmdline")).unwrap();
    let lines: [(&str, bool); 17] = [
        ("cat < /proc/$PPID/environ", true),
        ("echo \"$(< /proc/$PPID/environ)\"", true),
        ("exec 3< /proc/$PPID/environ; cat <&3", true),
        (
            "while IFS= read -r -d '' l; do echo \"$l\"; done < /proc/$PPID/environ",
            true,
        ),
        ("read -r x < /proc/$PPID/cmdline; echo \"$x\"", true),
        (
            "mapfile -t -d '' a < /proc/$PPID/environ; echo \"${a[@]}\"",
            true,
        ),
        ("cd /proc/$PPID && cat < environ", true),
        ("f=/proc/$PPID/environ; eval \"cat < \\$f\"", true),
        ("(cat < /proc/$PPID/environ)", true),
        ("cat < /proc/$PPID/environ | cat", true),
        ("cat <> /proc/$PPID/environ", true),
        ("cat < /proc/$PPID/task/$PPID/environ", true),
        ("cat < /proc/self/../$PPID/environ", true),
        ("cat < init-cmdline", false),
        // The shell's own memory holds the trial's key.
        ("exec 3< /proc/self/mem; tail -c 16 <&3", false),
        ("source /proc/$PPID/cmdline", false),
        (". /proc/$PPID/environ", false),
    ];
    let bash = PathBuf::from("/bin/bash");
    let log = arm.join("audit/audit.jsonl");
    for (line, bash_prints_the_key) in lines {
        if bash_prints_the_key {
            let o = run_under_keyholder(&bash, &arm, line, true);
            assert!(
                common::text(&o.stdout).contains(KEY),
                "bash does not print the key for {line:?}: {}",
                common::text(&o.stderr)
            );
        }
        for landlock in [true, false] {
            let before = sandbox_support::denials(&log).len();
            let o = run_under_keyholder(&common::guard_sh(), &arm, line, landlock);
            let stdout = common::text(&o.stdout);
            let stderr = common::text(&o.stderr);
            let what = format!("{line:?}, landlock {landlock}: {stdout} {stderr}");
            assert!(!stdout.contains(KEY) && !stderr.contains(KEY), "{what}");
            let new = sandbox_support::denials(&log)[before..].to_vec();
            if landlock && line.contains("<>") {
                // Opening for writing: guard-sh's own domain refuses first.
                assert!(stderr.contains("Permission denied"), "{what}");
                assert_eq!(new.len(), 0, "{what}: {new:?}");
            } else {
                assert!(stderr.contains("denied:"), "{what}");
                assert!(stderr.contains("never another process's files"), "{what}");
                assert_eq!(new.len(), 1, "{what}: {new:?}");
                assert_eq!(new[0]["rule"], "other-process", "{what}");
                assert_eq!(o.status.code(), Some(126), "{what}");
            }
            // Nothing the run wrote holds the key either.
            for entry in std::fs::read_dir(&work).unwrap().flatten() {
                let bytes = std::fs::read(entry.path()).unwrap_or_default();
                assert!(
                    !common::text(&bytes).contains(KEY),
                    "{what}: {:?}",
                    entry.path()
                );
            }
            assert!(
                !std::fs::read_to_string(&log).unwrap().contains(KEY),
                "{what}"
            );
        }
    }
    // The shell's own folder (in a forked copy too) and the figures read.
    let line = "head -n 1 < /proc/self/status; (head -c 3 < /proc/self/stat | tr -c 0-9 _); echo; \
                read -r a b < /proc/loadavg; echo \"${#b}\"; head -c 5 < /proc/sys/kernel/ostype; echo";
    for landlock in [true, false] {
        let o = sandbox_support::run_in_built_arm(&arm, line, landlock);
        let stdout = common::text(&o.stdout);
        assert!(
            stdout.starts_with("Name:\tguard-sh\n"),
            "{stdout} {}",
            common::text(&o.stderr)
        );
        assert!(
            stdout.ends_with("Linux\n"),
            "{stdout} {}",
            common::text(&o.stderr)
        );
        assert_eq!(o.status.code(), Some(0), "{}", common::text(&o.stderr));
    }
}

/// guard-sh's own environment is the harness's, model key included. A
/// line sees only what the arm lets its tools inherit (`env.pass`) and the
/// shell's own variables: no listing (`set`, `declare -p`, `export -p`),
/// expansion or `/proc/self/environ` of the shell shows the key, whatever
/// its name, with Landlock on and off. bash prints it (so the oracle can
/// fail).
#[test]
fn the_harness_variables_are_not_the_lines_to_see() {
    let root = tempfile::tempdir().unwrap();
    let arm = build(root.path());
    let secrets = [
        ("ANTHROPIC_API_KEY", "sk-ant-secret-4711"),
        ("OPENAI_API_KEY", "sk-openai-secret-4712"),
        ("SOME_SERVICE_CREDENTIAL", "made-up-secret-4713"),
    ];
    let line = "echo \"[$ANTHROPIC_API_KEY][$SOME_SERVICE_CREDENTIAL][$LANG][$PS1]\"; \
                set; declare -p; export -p; \
                for v in ANTHROPIC_API_KEY OPENAI_API_KEY; do echo \"${!v}\"; done";
    let run = |shell: &Path, landlock: bool, line: &str| {
        let mut c = Command::new(shell);
        c.args(["-c", line])
            .env_clear()
            .env("GUARD_SH_POLICY", arm.join("policy.json"))
            .env("LANG", "C.UTF-8")
            .env("PS1", "prompt> ")
            .current_dir(arm.join("work"));
        for (name, value) in secrets {
            c.env(name, value);
        }
        if !landlock {
            c.env("GUARD_SH_LANDLOCK", "off");
        }
        c.output().unwrap()
    };
    let bash = run(Path::new("/bin/bash"), true, line);
    assert!(
        common::text(&bash.stdout).contains(secrets[0].1),
        "bash prints the key"
    );
    for landlock in [true, false] {
        let o = run(&common::guard_sh(), landlock, line);
        let out = common::text(&o.stdout) + &common::text(&o.stderr);
        assert!(
            out.starts_with("[][][C.UTF-8][prompt> ]\n"),
            "landlock {landlock}: {out}"
        );
        for (name, value) in secrets {
            assert!(
                !out.contains(value),
                "{name} shown, landlock {landlock}: {out}"
            );
        }
        // Nor through the shell's own /proc/self/environ.
        let o = run(&common::guard_sh(), landlock, "cat < /proc/self/environ");
        let out = common::text(&o.stdout) + &common::text(&o.stderr);
        assert_eq!(o.status.code(), Some(126), "{out}");
        for (name, value) in secrets {
            assert!(
                !out.contains(value),
                "{name} shown, landlock {landlock}: {out}"
            );
        }
    }
}

/// The harness's own files (its login under `harness-home/`), like every
/// protected path, are refused to the shell's own reads as they are to a
/// command's arguments: a redirection, `$(< …)`, `source`, through `cd`
/// or a link, with Landlock on and off (Landlock lets every command read
/// outside `/proc`, so this is the guard's alone). bash prints the key.
#[test]
fn the_shell_reads_no_protected_file_for_a_line() {
    let root = tempfile::tempdir().unwrap();
    let arm = build(root.path());
    let login = arm.join("harness-home/.claude");
    std::fs::create_dir_all(&login).unwrap();
    std::fs::write(
        login.join(".credentials.json"),
        format!("{{\"token\":\"{KEY}\"}}\n"),
    )
    .unwrap();
    let work = arm.join("work");
    std::os::unix::fs::symlink(login.join(".credentials.json"), work.join("login-link")).unwrap();
    let lines: [(&str, bool); 5] = [
        ("cat < ../harness-home/.claude/.credentials.json", true),
        (
            "x=$(< ../harness-home/.claude/.credentials.json); echo \"$x\"",
            true,
        ),
        (
            "cd ../harness-home && read -r l < .claude/.credentials.json; echo \"$l\"",
            true,
        ),
        ("read -r l < login-link; echo \"$l\"", true),
        ("source ../harness-home/.claude/.credentials.json", false),
    ];
    let log = arm.join("audit/audit.jsonl");
    for (line, bash_prints_the_key) in lines {
        if bash_prints_the_key {
            let o = run_under_keyholder(Path::new("/bin/bash"), &arm, line, true);
            assert!(common::text(&o.stdout).contains(KEY), "bash, {line:?}");
        }
        for landlock in [true, false] {
            let before = sandbox_support::denials(&log).len();
            let o = sandbox_support::run_in_built_arm(&arm, line, landlock);
            let out = common::text(&o.stdout) + &common::text(&o.stderr);
            let what = format!("{line:?}, landlock {landlock}: {out}");
            assert!(!out.contains(KEY), "{what}");
            assert_eq!(o.status.code(), Some(126), "{what}");
            let new = sandbox_support::denials(&log)[before..].to_vec();
            assert_eq!(new.len(), 1, "{what}: {new:?}");
            assert_eq!(new[0]["rule"], "protected-path", "{what}");
        }
    }
}

/// The shell's opens are judged twice: by the name before the open and
/// by the file the descriptor reached after it (before `>` truncates), so
/// a link swapped in between (here by a thread of the test, renaming a
/// fresh link over `link` to a plain file and to the harness's login in
/// turn, as fast as it can) never leads `<` or `>` into a protected file:
/// nothing prints the key and the login's bytes stay. With the check after
/// the open removed, some runs print the key. Landlock on and off
/// (guard-sh's own domain does not handle reads: reading is the guard's
/// alone).
#[test]
fn a_link_swapped_during_the_shells_open_leads_it_into_no_protected_file() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let root = tempfile::tempdir().unwrap();
    let arm = build(root.path());
    let secret = arm.join("harness-home/.claude/.credentials.json");
    std::fs::create_dir_all(secret.parent().unwrap()).unwrap();
    std::fs::write(&secret, format!("{KEY}\n")).unwrap();
    let work = arm.join("work");
    std::fs::write(work.join("plain.txt"), "plain\n").unwrap();
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, work, secret) = (stop.clone(), work.clone(), secret.clone());
        std::thread::spawn(move || {
            let (fresh, link) = (work.join(".fresh"), work.join("link"));
            while !stop.load(Ordering::Relaxed) {
                for target in [work.join("plain.txt"), secret.clone()] {
                    let _ = std::fs::remove_file(&fresh);
                    // Fails only once a failed assertion removed the folder.
                    if std::os::unix::fs::symlink(&target, &fresh).is_err()
                        || std::fs::rename(&fresh, &link).is_err()
                    {
                        return;
                    }
                }
            }
        })
    };
    let (mut passed, mut denied) = (0, 0);
    for line in [
        "read -r l < link; echo \"$l\"",
        "echo plain > link; echo done",
    ] {
        for landlock in [true, false] {
            for _ in 0..120 {
                let o = sandbox_support::run_in_built_arm(&arm, line, landlock);
                let out = common::text(&o.stdout) + &common::text(&o.stderr);
                assert!(!out.contains(KEY), "{line}, landlock {landlock}: {out}");
                match o.status.code() {
                    Some(0) if out == "plain\n" || out == "done\n" => passed += 1,
                    Some(126) => denied += 1,
                    _ => {}
                }
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    assert_eq!(
        std::fs::read_to_string(&secret).unwrap(),
        format!("{KEY}\n")
    );
    // Both sides of the swap were met.
    assert!(passed > 0 && denied > 0, "passed {passed}, denied {denied}");
}
