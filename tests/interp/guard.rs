//! End to end: guard-sh with stub tools on a curated bin folder. The stubs
//! write a marker file when they run; a refused line must leave none.

#![allow(clippy::expect_used)] // test code reports failures by panicking

use crate::common;

use std::path::{Path, PathBuf};

/// A stub program that appends its name and arguments to `log`.
fn stub(dir: &Path, name: &str, log: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(format!("stub-{name}"));
    let sh = common::system_program("sh").expect("sh");
    let script = format!(
        "#!{}\nprintf '%s' '{name}' >> '{}'\nfor a in \"$@\"; do printf '|%s' \"$a\" >> '{}'; done\nprintf '\\n' >> '{}'\n",
        sh.display(),
        log.display(),
        log.display(),
        log.display()
    );
    std::fs::write(&path, script).expect("stub");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

struct Setup {
    arm: common::TestArm,
    /// The folder `evil` is in, on the `PATH` guard-sh starts with: a
    /// program of this machine, so refused (126) rather than not found.
    stubs: PathBuf,
    log: PathBuf,
    work: tempfile::TempDir,
}

fn setup() -> Setup {
    let stubs = tempfile::tempdir().expect("stubs").keep();
    let log = stubs.join("ran.log");
    let tool = stub(&stubs, "tool", &log);
    let arm = common::test_arm(&[("tool", tool)], Some("tool"));
    // `evil` exists on the machine (on the PATH guard-sh starts with) but
    // is not in the policy.
    let evil = stub(&stubs, "evil", &log);
    std::fs::rename(&evil, stubs.join("evil")).expect("name the stub evil");
    Setup {
        arm,
        stubs,
        log,
        work: tempfile::tempdir().expect("work"),
    }
}

fn ran(s: &Setup) -> String {
    std::fs::read_to_string(&s.log).unwrap_or_default()
}

/// guard-sh for the arm, in the work folder, with the stubs on `PATH`.
fn guard(s: &Setup) -> std::process::Command {
    let mut c = common::guard_cmd(&s.arm, s.work.path());
    c.env("PATH", &s.stubs);
    c
}

fn guard_output(s: &Setup, args: &[&str]) -> std::process::Output {
    guard(s).args(args).output().expect("run guard-sh")
}

fn run(s: &Setup, line: &str) -> (i32, String, String) {
    let out = guard_output(s, &["-c", line]);
    (
        out.status.code().unwrap_or(-1),
        common::text(&out.stdout),
        common::text(&out.stderr),
    )
}

#[test]
fn allowed_tool_runs_with_the_expanded_argv() {
    let s = setup();
    let (status, _, err) = run(&s, "x='two words'; tool one \"$x\" $x | cat");
    assert_eq!(status, 0, "{err}");
    assert_eq!(ran(&s), "tool|one|two words|two|words\n");
}

#[test]
fn foreign_name_after_a_pipe_refuses_the_whole_line() {
    let s = setup();
    let (status, _, err) = run(&s, "tool first; tool x | python3 -c 1");
    assert_eq!(status, 126);
    assert!(err.starts_with("guard-sh: denied: \"python3\""), "{err}");
    assert_eq!(ran(&s), "");
}

#[test]
fn foreign_name_in_command_substitution_refuses_the_line() {
    let s = setup();
    let (status, _, _) = run(&s, "tool first; echo $(evil)");
    assert_eq!(status, 126);
    assert_eq!(ran(&s), "");
    let (status, _, _) = run(&s, "tool first; echo `node -e 1`");
    assert_eq!(status, 126);
    assert_eq!(ran(&s), "");
    // A locale string `$"…"` is a double-quoted word: its substitutions
    // are checked like any other, in an operand too.
    for line in [
        "tool first; echo $\"$(evil)\"",
        "tool first; echo \"${x:-$\"`evil`\"}\"",
    ] {
        let (status, _, err) = run(&s, line);
        assert_eq!(status, 126, "{line}: {err}");
        assert_eq!(ran(&s), "", "{line}");
    }
}

#[test]
fn foreign_name_assembled_in_a_variable_is_denied_at_run_time() {
    let s = setup();
    let (status, out, err) = run(&s, "X=ev; X=${X}il; $X; tool after; echo after");
    assert_eq!(status, 126);
    assert!(err.contains("denied: \"evil\""), "{err}");
    assert_eq!(out, "");
    assert_eq!(ran(&s), "");
}

/// An extended glob group can pick a command's name at run time (from the
/// files in the folder, or by cutting a value): the name it yields is
/// judged as it runs, and a line that names a foreign program through a
/// group is refused before anything of it runs.
#[test]
fn a_name_picked_by_an_extended_glob_is_denied() {
    let s = setup();
    std::fs::write(s.work.path().join("evil"), "").expect("plant a file named evil");
    let lines = [
        "shopt -s extglob; @(evil|nothing-else); tool after",
        "shopt -s extglob; +(e)vil; tool after",
        "shopt -s extglob; x=evXil; ${x//@(X|Y)/}; tool after",
        "shopt -s extglob; x=evil.sh; ${x%.@(sh|py)}; tool after",
        // A command substitution inside a group is found before the line runs.
        "tool before; [[ x == @(a|$(evil)) ]]; tool after",
    ];
    for line in lines {
        let (status, out, err) = run(&s, line);
        assert_eq!(status, 126, "{line}: {err}");
        assert!(err.contains("denied: \"evil\""), "{line}: {err}");
        assert_eq!(out, "", "{line}");
        assert_eq!(ran(&s), "", "{line}");
    }
    // The group reaches the run: allowed when what it picks is the tool.
    let (status, _, err) = run(&s, "shopt -s extglob; x=toolXX; ${x%%+(X)} picked");
    assert_eq!(status, 0, "{err}");
    assert_eq!(ran(&s), "tool|picked\n");
}

/// `wait -p NAME` assigns a variable: a name the policy forbids is
/// refused like any assignment, whether written or assembled, and the line
/// ends before the tool runs.
#[test]
fn wait_reports_into_no_forbidden_variable() {
    let s = setup();
    for line in [
        "sleep 0.01 & wait -n -p NODE_OPTIONS; tool after",
        "sleep 0.01 & n=NODE_OPTIONS; wait -p $n $!; tool after",
    ] {
        let (status, out, err) = run(&s, line);
        assert_eq!(status, 126, "{line}: {err}");
        assert!(
            err.contains("assigning NODE_OPTIONS is not permitted"),
            "{line}: {err}"
        );
        assert_eq!(out, "", "{line}");
        assert_eq!(ran(&s), "", "{line}");
    }
    let (status, out, err) = run(&s, "sleep 0.01 & wait -n -p v; echo \"$? ${v:+set}\"");
    assert_eq!((status, out.as_str()), (0, "0 set\n"), "{err}");
}

#[test]
fn foreign_name_in_a_pipeline_member_assembled_at_run_time_is_denied() {
    let s = setup();
    let (status, _, _) = run(&s, "X=evil; echo a | $X; tool after");
    assert_eq!(status, 126);
    assert!(
        !ran(&s).contains("evil") && !ran(&s).contains("tool"),
        "{}",
        ran(&s)
    );
}

/// A denial in a copy of a copy (a subshell inside a substitution) ends
/// the top-level line too: the middle copy passes the report on (the
/// other nestings: `guard_table.rs`).
#[test]
fn a_denial_two_copies_deep_still_ends_the_line() {
    let s = setup();
    let (status, out, err) = run(&s, "X=evil; y=$( ( $X ) ); tool after; echo after");
    assert_eq!(status, 126, "{err}");
    assert!(err.contains("denied: \"evil\""), "{err}");
    assert_eq!(out, "");
    assert_eq!(ran(&s), "");
}

/// A copy that runs on its own (a background job, a process
/// substitution) reports its denial too: the line ends at the first
/// command boundary after it, here once `wait` or `read` has seen the copy
/// end.
#[test]
fn a_denial_in_a_job_the_line_waits_for_ends_the_line() {
    let s = setup();
    for line in [
        "X=evil; ( $X ) & wait; tool after; echo after",
        "X=evil; read v < <( ( $X ) ); tool after; echo after",
    ] {
        let (status, out, err) = run(&s, line);
        assert_eq!(status, 126, "{line}: {err}");
        assert_eq!(out, "", "{line}");
        assert_eq!(ran(&s), "", "{line}");
    }
}

#[test]
fn foreign_name_in_a_command_substitution_at_run_time_aborts_the_line() {
    let s = setup();
    let (status, out, _) = run(&s, "X=evil; echo \"$($X)\"; tool after; echo after");
    assert_eq!(status, 126);
    assert_eq!(out, "");
    assert_eq!(ran(&s), "");
}

#[test]
fn eval_text_is_guarded_like_a_line() {
    let s = setup();
    let (status, _, _) = run(&s, "tool before; eval 'evil'");
    assert_eq!(status, 126);
    assert_eq!(ran(&s), "");
    let (status, _, _) = run(&s, "c='tool inside; evil'; eval \"$c\"; tool after");
    assert_eq!(status, 126);
    assert_eq!(ran(&s), "");
}

/// `eval` or `trap` text that does not parse is no refusal (bash reports
/// a syntax error, status 2, and goes on), but none of it runs: not the
/// forbidden program before the error, not the tool, as the stubs' log
/// shows; the line goes on after it.
#[test]
fn eval_and_trap_text_that_does_not_parse_runs_none_of_it() {
    let s = setup();
    let (status, out, err) = run(
        &s,
        "eval 'evil; tool inside; echo >'; echo \"eval: $?\"; trap 'evil; echo >' EXIT; tool after",
    );
    assert_eq!((status, out.as_str()), (0, "eval: 2\n"), "{err}");
    assert!(err.contains("syntax error"), "{err}");
    assert_eq!(ran(&s), "tool|after\n");
    let (status, _, err) = run(&s, "eval \"evil; $(echo '[[ a b ]]')\"");
    assert_eq!(status, 2, "{err}");
    assert_eq!(ran(&s), "tool|after\n");
}

/// A `${…}` bash cannot expand is an error when expanded, before anything
/// inside it: the substitution in it never runs, whatever it names.
#[test]
fn a_bad_substitution_runs_nothing_inside_it() {
    let s = setup();
    let (status, out, err) = run(
        &s,
        "f() { echo ${#x-$(evil)}; }; f; echo same\necho ${a[0][0]`tool inside`}\ntool after",
    );
    assert_eq!((status, out.as_str()), (0, ""), "{err}");
    assert!(err.contains("bad substitution"), "{err}");
    assert_eq!(ran(&s), "tool|after\n");
}

#[test]
fn sourced_file_is_checked_before_any_of_it_runs() {
    let s = setup();
    let file = s.work.path().join("snap.sh");
    std::fs::write(&file, "tool inside\nevil\n").expect("write");
    let (status, _, err) = run(&s, "source ./snap.sh; tool after");
    assert_eq!(status, 126, "{err}");
    assert_eq!(ran(&s), "");
}

#[test]
fn path_qualified_names_are_refused_even_for_the_tool() {
    let s = setup();
    let bin_tool = s.arm.bin.join("tool");
    let (status, _, _) = run(&s, &format!("{}", bin_tool.display()));
    assert_eq!(status, 126);
    let (status, _, _) = run(&s, "p=/usr/bin/cat; $p /etc/hostname");
    assert_eq!(status, 126);
    assert_eq!(ran(&s), "");
}

#[test]
fn writing_into_the_bin_folder_is_refused() {
    let s = setup();
    let target = s.arm.bin.join("new");
    let (status, _, err) = run(&s, &format!("echo x > {}", target.display()));
    assert_eq!(status, 126, "{err}");
    assert!(!target.exists());
}

#[test]
fn unwritable_audit_log_means_nothing_runs() {
    let s = setup();
    let out = guard(&s)
        .env("GUARD_SH_AUDIT", "/dev/full")
        .args(["-c", "tool x"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(126));
    assert!(common::text(&out.stderr).contains("audit log unavailable"));
    assert_eq!(ran(&s), "");
}

#[test]
fn spawns_are_audited_with_path_and_argv() {
    let s = setup();
    let (status, _, _) = run(&s, "tool a b");
    assert_eq!(status, 0);
    let log = std::fs::read_to_string(&s.arm.audit).expect("audit");
    let spawn = log
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("json"))
        .find(|v| v["type"] == "spawn")
        .expect("spawn record");
    assert_eq!(spawn["argv"], serde_json::json!(["tool", "a", "b"]));
    assert_eq!(spawn["path"], serde_json::json!(s.arm.bin.join("tool")));
    let verify = Path::new(env!("CARGO_BIN_EXE_guard-sh-audit"));
    let report = std::process::Command::new(verify)
        .arg(&s.arm.audit)
        .output()
        .expect("verify");
    assert_eq!(
        report.status.code(),
        Some(0),
        "{}",
        common::text(&report.stdout)
    );
}

#[test]
fn subshell_spawns_keep_the_audit_chain_valid() {
    let s = setup();
    let (status, out, _) = run(
        &s,
        "echo \"$(tool in-subst; echo ok)\"; (tool in-subshell) | cat",
    );
    assert_eq!(status, 0);
    assert_eq!(out, "ok\n");
    let verify = Path::new(env!("CARGO_BIN_EXE_guard-sh-audit"));
    let report = std::process::Command::new(verify)
        .arg(&s.arm.audit)
        .output()
        .expect("verify");
    assert_eq!(
        report.status.code(),
        Some(0),
        "{}",
        common::text(&report.stdout)
    );
}

#[test]
fn name_in_policy_but_missing_from_bin_folder_is_not_found() {
    let s = setup();
    std::fs::remove_file(s.arm.bin.join("tool")).expect("rm");
    let (status, _, err) = run(&s, "tool x");
    assert_eq!(status, 127);
    assert!(err.contains("tool: command not found"), "{err}");
}

#[test]
fn explain_prints_the_verdict_and_runs_nothing() {
    let s = setup();
    let out = guard_output(&s, &["--explain", "-c", "tool a | evil"]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["allowed"], false);
    let out = guard_output(&s, &["--explain", "-c", "tool a | cat"]);
    assert_eq!(out.status.code(), Some(0));
    let out = guard_output(&s, &["--explain", "-c", "if"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(ran(&s), "");
}

#[test]
fn no_policy_is_a_clear_error() {
    let s = setup();
    let out = guard(&s)
        .env_remove("GUARD_SH_POLICY")
        .args(["-c", "true"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        common::text(&out.stderr),
        "guard-sh: no policy: set GUARD_SH_POLICY or pass --policy FILE (guard-sh --help shows the usage)\n"
    );
}

#[test]
fn syntax_error_reports_line_and_column_with_status_2() {
    let s = setup();
    let (status, _, err) = run(&s, "echo ok\nif then");
    assert_eq!(status, 2);
    assert!(err.starts_with("guard-sh: syntax error at 2:"), "{err}");
}

#[test]
fn a_later_function_called_from_a_body_is_checked_and_a_foreign_one_refused() {
    let s = setup();
    let (status, out, err) = run(&s, "f() { g; }; g() { tool in-g; }; f");
    assert_eq!(status, 0, "{err}");
    assert_eq!(out, "");
    assert_eq!(ran(&s), "tool|in-g\n");
    std::fs::remove_file(&s.log).expect("rm log");
    let (status, _, err) = run(&s, "tool first; f() { g; }; g() { evil; }; f");
    assert_eq!(status, 126);
    assert!(err.contains("denied: \"evil\""), "{err}");
    assert_eq!(ran(&s), "");
}

#[test]
fn a_top_level_call_before_the_definition_is_not_a_function_call() {
    let s = setup();
    let (status, _, err) = run(&s, "tool first; evil; evil() { :; }");
    assert_eq!(status, 126);
    assert!(err.contains("denied: \"evil\""), "{err}");
    assert_eq!(ran(&s), "");
    // A name no program has is not found at that call, as in bash.
    let (status, out, err) = run(&s, "g; echo \"status $?\"; g() { :; }; g");
    assert_eq!((status, out.as_str()), (0, "status 127\n"), "{err}");
    assert!(err.contains("g: command not found"), "{err}");
}

#[test]
fn trap_reset_form_is_not_shell_text_but_a_trap_action_is_checked() {
    let s = setup();
    let (status, out, err) = run(&s, "trap 'echo x' INT; trap - INT; trap -p");
    assert_eq!(status, 0, "{err}");
    // The action is gone; what `trap -p` may still list are signals this
    // test process was started with ignored (under `nohup`, or `&` in a
    // script), which a non-interactive shell keeps ignored, as bash does.
    assert!(
        out.lines().all(|l| l.starts_with("trap -- '' SIG")),
        "{out}"
    );
    let (status, _, _) = run(&s, "tool first; trap -- 'evil' EXIT");
    assert_eq!(status, 126);
    assert_eq!(ran(&s), "");
}

#[test]
fn kill_reaches_only_this_shell_and_its_jobs() {
    let s = setup();
    let (status, out, err) = run(&s, "kill -0 $PPID; echo \"st $?\"");
    assert_eq!(status, 0);
    assert_eq!(out, "st 1\n");
    assert!(err.contains("not a job of this shell"), "{err}");
    let (status, out, _) = run(&s, "sleep 5 & kill $!; wait $!; echo \"st $?\"");
    assert_eq!(status, 0);
    assert_eq!(out, "st 143\n");
}

#[test]
fn exec_with_options_is_refused_with_status_2_and_runs_nothing() {
    let s = setup();
    for line in ["exec -a name tool x", "exec -c tool x", "exec -l tool x"] {
        let (code, _, err) = run(&s, line);
        assert_eq!(code, 2, "{line}: {err}");
        assert!(
            err.contains("options are not supported by guard-sh"),
            "{line}: {err}"
        );
    }
    assert_eq!(ran(&s), "", "a tool ran");
    let (code, _, err) = run(&s, "exec -- tool x");
    assert_eq!(code, 0, "{err}");
    assert_eq!(ran(&s), "tool|x\n");
}

/// `(( ))` runs no command itself, but the substitutions in its text do:
/// a foreign name there refuses the whole line before anything runs (one
/// assembled at run time, and the other forms, as a table on the
/// simulated system: `guard_table.rs`).
#[test]
fn arithmetic_commands_are_guarded_like_any_other_text() {
    let s = setup();
    let (status, _, err) = run(&s, "tool first; (( $(evil) ))");
    assert_eq!(status, 126, "{err}");
    assert!(err.contains("denied: \"evil\""), "{err}");
    assert_eq!(ran(&s), "");
}

/// `[[ ]]` runs no command itself; the substitutions in its words do, and
/// are guarded like any other (the other operators: `guard_table.rs`).
#[test]
fn conditional_expressions_are_guarded_like_any_other_text() {
    let s = setup();
    let (status, _, err) = run(&s, "tool first; [[ $(evil) ]]");
    assert_eq!(status, 126, "{err}");
    assert!(err.contains("denied: \"evil\""), "{err}");
    assert_eq!(ran(&s), "");
    let (status, out, _) = run(&s, "[[ -n x ]] && tool allowed; echo $?");
    assert_eq!(status, 0);
    assert_eq!(out, "0\n");
    assert_eq!(ran(&s), "tool|allowed\n");
}

/// `time PIPELINE` times what the pipeline runs; the pipeline is guarded
/// like any other (`time evil | cat`: `guard_table.rs`).
#[test]
fn timed_pipelines_are_guarded_like_any_other() {
    let s = setup();
    let (status, _, err) = run(&s, "TIMEFORMAT=t; time tool timed");
    assert_eq!(status, 0, "{err}");
    assert_eq!(err, "t\n");
    assert_eq!(ran(&s), "tool|timed\n");
}

/// Arrays, indirection and `$[ ]` open new places for text: the elements
/// and keys of `a=(…)`, subscripts, `mapfile`'s input, operands. Every
/// substitution there is part of the line the guard checks first; a
/// command name read from an element, an indirect name or `BASH_REMATCH`
/// is checked at run time like any other.
#[test]
fn arrays_and_indirection_are_guarded_like_any_other_text() {
    let s = setup();
    let (status, _, err) = run(&s, "tool first; a=($(evil))");
    assert_eq!(status, 126, "{err}");
    assert!(err.contains("denied: \"evil\""), "{err}");
    assert_eq!(ran(&s), "");
    // The rest of the forms that need no process: `guard_table.rs`.
    for line in [
        "a=(ev il); ${a[0]}${a[1]}; tool after",
        "mapfile -t c <<< evil; ${c[0]}; tool after",
    ] {
        let (status, _, err) = run(&s, line);
        assert_eq!(status, 126, "{line}: {err}");
        assert!(err.contains("denied: \"evil\""), "{line}: {err}");
        assert!(!ran(&s).contains("evil"), "{line}");
        assert!(!ran(&s).contains("after"), "{line}");
        let _ = std::fs::remove_file(&s.log);
    }
}

/// bash expands a subscript a second time when it meets it in text built
/// at run time (a value evaluated as arithmetic, `unset`, `test -v`,
/// `printf -v`, `${!ref}`) and runs the command substitutions it holds;
/// guard-sh refuses them there, and `declare` does not parse an array's
/// value given as text.
#[test]
fn a_subscript_built_at_run_time_never_runs_a_substitution() {
    let s = setup();
    // The other places such a subscript is met: `guard_table.rs`.
    let (status, _, err) = run(&s, "x='a[$(evil)]'; echo $(( x )); tool after");
    assert_eq!(status, 126, "{err}");
    assert!(
        !ran(&s).contains("evil") && !ran(&s).contains("after"),
        "{err}"
    );
    assert!(
        err.contains("denied: ") && err.contains("refused by guard-sh"),
        "{err}"
    );
    // The same subscripts holding only `$name` work as in bash.
    let (status, out, err) = run(
        &s,
        "a=(p q r); i=1; unset 'a[$i]'; echo ${!a[@]}; r='a[$i+1]'; echo ${!r}; test -v 'a[$i]' || echo gone",
    );
    assert_eq!((status, out.as_str()), (0, "0 2\nr\ngone\n"), "{err}");
    let (status, _, err) = run(&s, "v='(`evil`)'; declare -a a; declare a=\"$v\"; echo $?");
    assert_eq!(status, 0, "{err}");
    assert!(err.contains("not parsed by guard-sh"), "{err}");
    assert_eq!(ran(&s), "");
}

/// An array assignment is an assignment to its name: the policy's
/// protected variables (here `PATH` and `LD_*`) cannot be reached through
/// an element, `declare -a`, `read -a`, `mapfile`, `printf -v`, arithmetic
/// or an indirect `${!x:=…}`.
#[test]
fn protected_variables_cannot_be_set_through_arrays_or_indirection() {
    let s = setup();
    // The other forms: `guard_table.rs`.
    for line in [
        "PATH[0]=/tmp; tool after",
        "read -ra PATH <<< /tmp; tool after",
    ] {
        let (status, _, err) = run(&s, line);
        assert_eq!(status, 126, "{line}: {err}");
        assert!(err.contains("denied: "), "{line}: {err}");
        assert_eq!(ran(&s), "", "{line}");
    }
}

/// A function body is judged where the function is called. A script may
/// define `main` above the helpers it calls (it runs one command at a
/// time, as bash does); a foreign name in a body is refused on the line
/// that calls it, or, called from a later line, where it would spawn.
#[test]
fn a_function_body_is_judged_where_it_is_called() {
    let s = setup();
    let script = s.work.path().join("main-first.sh");
    std::fs::write(
        &script,
        "main() { helper one; }\nhelper() { tool \"$1\"; }\nmain\n",
    )
    .expect("script");
    let out = guard_output(&s, &[script.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(0), "{}", common::text(&out.stderr));
    assert_eq!(ran(&s), "tool|one\n");
    let _ = std::fs::remove_file(&s.log);

    let (status, _, err) = run(&s, "tool first; f() { evil x; }; f");
    assert_eq!(status, 126, "{err}");
    assert_eq!(ran(&s), "", "refused before anything ran");

    let mut child = guard(&s)
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    std::io::Write::write_all(
        child.stdin.as_mut().expect("stdin"),
        b"f() { evil x; }\ntool second\nf\ntool after\n",
    )
    .expect("feed");
    drop(child.stdin.take());
    let out = child.wait_with_output().expect("wait");
    let err = common::text(&out.stderr);
    assert!(err.contains("denied: \"evil\""), "{err}");
    assert_eq!(ran(&s), "tool|second\ntool|after\n", "evil never ran");
}

/// A redirection belongs to its command: when the run-time check refuses
/// the command, the shell has not created, truncated or appended to the
/// file. Judged by the file itself, with Landlock off too (the guard
/// alone holds this) and on.
#[test]
fn a_refused_command_gets_no_file_opened_for_it() {
    let s = setup();
    let target = s.work.path().join("made");
    std::fs::write(s.work.path().join("kept"), "before\n").expect("write");
    for line in [
        "X=evil; $X > made",
        "X=evil; $X >> kept",
        "X=evil; $X > kept",
        "X=evil; exec $X > made",
        "X=evil; command -- $X > made",
        "X=evil; { $X; } > made",
        "X=evil; $X 2> made",
    ] {
        for landlock in ["on", "off"] {
            let out = guard(&s)
                .args(["-c", line])
                .env("GUARD_SH_LANDLOCK", landlock)
                .output()
                .expect("run guard-sh");
            let err = common::text(&out.stderr);
            assert_eq!(out.status.code(), Some(126), "{line}: {err}");
            assert!(err.contains("denied: \"evil\""), "{line}: {err}");
            if !line.contains("{ $X; }") {
                assert!(
                    !target.exists(),
                    "{line} (landlock {landlock}) created the file"
                );
            }
            let _ = std::fs::remove_file(&target);
            assert_eq!(
                std::fs::read_to_string(s.work.path().join("kept")).expect("kept"),
                "before\n",
                "{line} (landlock {landlock})"
            );
        }
    }
    assert_eq!(ran(&s), "");
    // An allowed command still gets its file.
    let (status, _, err) = run(&s, "X=tool; $X > made");
    assert_eq!(status, 0, "{err}");
    assert!(target.exists());
}

/// `bash`/`sh` on a line start a new shell inside guard-sh's interpreter
/// (a forked copy, never another program): its `-c` text, script or
/// standard input is checked like any line, the text written out before
/// the line runs, the rest when the new shell reads it; it inherits no
/// function, so a function named like a refused program is no way round.
#[test]
fn a_new_shell_is_guarded_like_any_other_text() {
    let s = setup();
    let script = s.work.path().join("s.sh");
    std::fs::write(&script, "tool from-script\nevil\n").expect("script");
    // Written out: refused before anything of the line runs.
    for line in [
        "tool first; bash -c evil",
        "tool first; sh -c 'evil'",
        "tool first; bash -ec evil",
        "tool first; bash -o pipefail -c 'tool x | evil'",
        "tool first; bash -c 'bash -c evil'",
        "tool first; command bash -c evil",
        "tool first; exec bash -c evil",
        // An option the new shell refuses does not hide the text.
        "tool first; bash -r -c evil",
        "tool first; bash -i -c evil",
    ] {
        let (status, _, err) = run(&s, line);
        assert_eq!(status, 126, "{line}: {err}");
        assert!(err.contains("denied: \"evil\""), "{line}: {err}");
        assert_eq!(ran(&s), "", "{line}");
    }
    // Known when the new shell reads it: refused then, before it runs.
    for line in [
        "x=evil; tool first; bash -c \"$x\"",
        "tool first; echo evil | bash",
        "tool first; bash -s <<< evil",
        "tool first; bash -- s.sh",
        "evil() { tool from-function; }; tool first; bash -c evil",
    ] {
        std::fs::remove_file(&s.log).ok();
        let (status, _, err) = run(&s, line);
        assert_eq!(status, 126, "{line}: {err}");
        assert!(err.contains("denied: \"evil\""), "{line}: {err}");
        let log = ran(&s);
        assert!(log.starts_with("tool|first\n"), "{line}: {log}");
        assert!(
            !log.contains("evil") && !log.contains("from-function"),
            "{line}: {log}"
        );
    }
    // A script the shell may not read for a line (the guard's bin folder,
    // another process's environment) is refused as `source` would be.
    for script in [
        s.arm.bin.join("cat").display().to_string(),
        "/proc/self/environ".into(),
    ] {
        let line = format!("bash '{script}'; tool after");
        let (status, _, err) = run(&s, &line);
        assert_eq!(status, 126, "{line}: {err}");
        assert!(err.contains("denied"), "{line}: {err}");
    }
    std::fs::remove_file(&s.log).ok();
    let (status, out, err) = run(
        &s,
        "bash -c 'tool nested \"$0\" $1; exit 3' zero one; echo $?",
    );
    assert_eq!((status, out.as_str()), (0, "3\n"), "{err}");
    assert_eq!(ran(&s), "tool|nested|zero|one\n");
}
