//! The guard at run time, as a table on the simulated system: each line
//! runs in a fresh shell whose one program is `tool`; what the fake saw
//! spawned, the status and the error are compared with the row. Copies of
//! the shell (pipeline members, substitutions that run, subshells) run in
//! the test's process on the fake. `guard.rs` keeps a witness row of each
//! kind end to end, where a stub's marker file is the oracle.

#![allow(clippy::expect_used)] // test code reports failures by panicking

use crate::common;

use guard_sh::audit::MemorySink;
use guard_sh::interp::{Outcome, Shell};
use guard_sh::policy::Policy;
use guard_sh::system::FileKind;
use guard_sh::system::fake::FakeSystem;
use std::rc::Rc;

/// What a line must do: its status, the argv of each program the fake
/// spawned, and a piece of its error output (empty: anything).
struct Row {
    line: &'static str,
    status: i32,
    spawned: &'static [&'static [&'static str]],
    error: &'static str,
}

/// A line refused with 126 before anything of it ran, naming `evil`.
const fn refused(line: &'static str) -> Row {
    Row {
        line,
        status: 126,
        spawned: &[],
        error: "denied: \"evil\"",
    }
}

/// Run every row; report all the rows that differ at once.
fn check(rows: &[Row]) {
    let stub = common::system_program("true").expect("true");
    let arm = common::test_arm(&[("tool", stub)], Some("tool"));
    let policy = Rc::new(Policy::load(&arm.policy).expect("policy"));
    let mut failures = Vec::new();
    for row in rows {
        let mut sys = FakeSystem::new();
        sys.add_file(arm.bin.join("tool"), FileKind::File, 0o755);
        let mut audit = MemorySink::default();
        let status = {
            let mut sh = Shell::new(policy.clone(), &mut sys, &mut audit, Vec::new());
            match sh.run_text(row.line.as_bytes(), "command") {
                Outcome::Continue(s) | Outcome::Exit(s) => s,
            }
        };
        let spawned: Vec<Vec<String>> = sys.spawns.iter().map(|s| s.argv.clone()).collect();
        let err = sys.output("stderr");
        if status != row.status || spawned != row.spawned || !err.contains(row.error) {
            failures.push(format!(
                "{}\n  status {status} (want {}), spawned {spawned:?} (want {:?}), stderr {err:?}",
                row.line, row.status, row.spawned
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `(( ))`, `for (( ))` and `let` run no command themselves, but the
/// substitutions in their text do: a foreign name there refuses the whole
/// line, and a variable's value is evaluated as arithmetic, never run.
#[test]
fn arithmetic_text_is_checked_with_the_line() {
    check(&[
        refused("tool first; (( x = `evil` ))"),
        refused("tool first; for (( i = $(evil); i < 1; i++ )); do :; done"),
        refused("tool first; for (( i = 0; i < $(evil); i++ )); do :; done"),
        refused("tool first; for (( i = 0; i < 1; i += $(evil) )); do :; done"),
        refused("tool first; let x=$(evil)"),
        Row {
            line: "v='$(evil)'; (( v )); s=$?; let v; tool \"$s\" $?",
            status: 0,
            spawned: &[&["tool", "1", "1"]],
            error: "",
        },
    ]);
}

/// `[[ ]]` runs no command itself; the substitutions in its words do, on
/// either side of every operator.
#[test]
fn conditional_text_is_checked_with_the_line() {
    check(&[
        refused("tool first; [[ -f `evil` ]]"),
        refused("tool first; [[ x == $(evil) ]]"),
        refused("tool first; [[ $(evil) < b ]]"),
        refused("tool first; [[ x =~ ^($(evil))$ ]]"),
        refused("tool first; [[ a == a && ( -n $(evil) ) ]]"),
        Row {
            line: "[[ -n x ]] && tool allowed",
            status: 0,
            spawned: &[&["tool", "allowed"]],
            error: "",
        },
    ]);
}

/// Arrays, indirection and `$[ ]` open new places for text; a command name
/// read from an element, an indirect name or `BASH_REMATCH` is checked at
/// run time like any other.
#[test]
fn arrays_and_indirection_are_checked_with_the_line_and_at_run_time() {
    check(&[
        refused("tool first; a+=(`evil`)"),
        refused("tool first; a[$(evil)]=1"),
        refused("tool first; a=([$(evil)]=1)"),
        refused("tool first; declare -a a=($(evil))"),
        refused("tool first; f() { local -a x=($(evil)); }; f"),
        refused("tool first; echo ${a[$(evil)]}"),
        refused("tool first; echo ${a[@]/x/$(evil)}"),
        refused("tool first; echo ${!x:-$(evil)}"),
        refused("tool first; mapfile -t a < <(evil)"),
        refused("tool first; read -ra a <<< \"$(evil)\""),
        // `$[ ]` takes no substitution at all: a syntax error, status 2.
        Row {
            line: "tool first; echo $[ $(evil) ]",
            status: 2,
            spawned: &[],
            error: "",
        },
        refused("a=(evil x); \"${a[@]}\"; tool after"),
        refused("a=(x evil); \"${a[@]:1}\"; tool after"),
        refused("declare -A m=([c]=evil); ${m[c]}; tool after"),
        refused("x=evil; r=x; ${!r}; tool after"),
        refused("a=(evil); r='a[0]'; ${!r}; tool after"),
        refused("[[ evil-1 =~ ([a-z]+)- ]]; ${BASH_REMATCH[1]}; tool after"),
        Row {
            line: "a=(tool evil); for c in \"${a[@]}\"; do $c; done; tool after",
            status: 126,
            spawned: &[&["tool"]],
            error: "denied: \"evil\"",
        },
    ]);
}

/// A subscript met again in text built at run time (a value evaluated as
/// arithmetic, `unset`, `test -v`, `printf -v`, `${!ref}`) never runs the
/// substitutions it holds.
#[test]
fn a_subscript_built_at_run_time_never_runs_a_substitution() {
    let denied = |line| Row {
        line,
        status: 126,
        spawned: &[],
        error: "refused by guard-sh",
    };
    check(&[
        denied("x='a[`evil`]'; (( x )); tool after"),
        denied("i='$(evil)'; a=(1); echo $(( a[$i] )); tool after"),
        denied("i='$(evil)'; a=(1 2); unset \"a[$i]\"; tool after"),
        denied("r='a[$(evil)]'; a=(1); test -v \"$r\"; tool after"),
        denied("r='a[$(evil)]'; a=(1); [[ -v $r ]]; tool after"),
        denied("r='a[$(evil)]'; printf -v \"$r\" x; tool after"),
        denied("r='a[$(evil)]'; a=(1); echo ${!r}; tool after"),
    ]);
}

/// The policy's protected variables (`PATH`, `LD_*`) cannot be reached
/// through an element, `declare -a`, `printf -v`, arithmetic or `${!x:=…}`.
#[test]
fn protected_variables_cannot_be_set_through_arrays_or_indirection() {
    let denied = |line| Row {
        line,
        status: 126,
        spawned: &[],
        error: "denied: ",
    };
    check(&[
        denied("PATH=(/tmp); tool after"),
        denied("PATH+=(/tmp); tool after"),
        denied("declare -a PATH=(/tmp); tool after"),
        denied("printf -v 'PATH[0]' /tmp; tool after"),
        denied("(( LD_X[0] = 1 )); tool after"),
        denied("r=LD_PRELOAD; : ${!r:=/tmp/x.so}; tool after"),
        denied("declare 'LD_PRELOAD[0]=/tmp/x.so'; tool after"),
    ]);
}

/// A name met at run time inside a copy of the shell (a pipeline member, a
/// substitution, a subshell, text read from a here-string, a background
/// job or process substitution the line then waits for or reads) is denied
/// there, and the denial ends the whole line: nothing after it runs.
#[test]
fn a_name_met_inside_a_copy_is_denied_and_ends_the_line() {
    check(&[
        refused("X=evil; echo a | $X; tool after"),
        Row {
            line: "X=evil; tool before | $X; tool after",
            status: 126,
            spawned: &[&["tool", "before"]],
            error: "denied: \"evil\"",
        },
        refused("X=evil; echo \"$($X)\"; tool after; echo after"),
        refused("X=evil; ( $X ); tool after"),
        refused("X=evil; y=$( ( $X ) ); tool after"),
        refused("X=evil; ( ( $X ) ); tool after"),
        refused("X=evil; echo $( echo $( $X ) ); tool after"),
        refused("X=ev; X=${X}il; (( $($X) )); tool after"),
        refused("X=ev; X=${X}il; [[ $($X) ]]; tool after"),
        refused("mapfile -t c <<< evil; ${c[0]}; tool after"),
        refused("read -ra c <<< 'evil x'; \"${c[@]}\"; tool after"),
        refused("c=$(echo evil); $c; tool after"),
        refused("X=evil; ( $X ) & wait; tool after"),
        refused("X=evil; $X & wait $!; tool after"),
        refused("X=evil; read v < <( ( $X ) ); tool after"),
        refused("X=evil; mapfile -t a < <( $X ); tool after"),
        refused("tool first; time evil | cat"),
        Row {
            line: "for c in tool evil; do echo $c; done | while read c; do $c; done; tool after",
            status: 126,
            spawned: &[&["tool"]],
            error: "denied: \"evil\"",
        },
        Row {
            line: "c=$(echo tool); $c from-subst | (tool in-subshell); tool after",
            status: 0,
            spawned: &[
                &["tool", "from-subst"],
                &["tool", "in-subshell"],
                &["tool", "after"],
            ],
            error: "",
        },
    ]);
}

/// The protected variables cannot be set from text a here-string feeds to
/// `read -a` or `mapfile`.
#[test]
fn protected_variables_cannot_be_read_into() {
    check(&[
        Row {
            line: "read -ra PATH <<< /tmp; tool after",
            status: 126,
            spawned: &[],
            error: "denied: ",
        },
        Row {
            line: "mapfile -t PATH <<< /tmp; tool after",
            status: 126,
            spawned: &[],
            error: "denied: ",
        },
    ]);
}

/// A name that is no program anywhere (the simulated system has no
/// `typo`): bash's `command not found`, 127 for that command only, the
/// rest of the line runs; typed or assembled at run time, and inside a
/// copy of the shell. A name the system has (`evil`) still stops the line.
#[test]
fn a_name_found_nowhere_fails_its_command_only() {
    let stub = common::system_program("true").expect("true");
    let arm = common::test_arm(&[("tool", stub)], Some("tool"));
    let policy = Rc::new(Policy::load(&arm.policy).expect("policy"));
    let rows: [(&str, i32, &[&[&str]], &str); 4] = [
        (
            "typo; tool after $?",
            0,
            &[&["tool", "after", "127"]],
            "typo: command not found",
        ),
        (
            "X=typo; $X; tool after",
            0,
            &[&["tool", "after"]],
            "typo: command not found",
        ),
        (
            "(typo); tool after $?",
            0,
            &[&["tool", "after", "127"]],
            "typo: command not found",
        ),
        ("typo; evil; tool after", 126, &[], "denied: \"evil\""),
    ];
    for (line, want, want_spawned, error) in rows {
        let mut sys = FakeSystem::new();
        sys.nowhere.insert("typo".into());
        sys.add_file(arm.bin.join("tool"), FileKind::File, 0o755);
        let mut audit = MemorySink::default();
        let status = {
            let mut sh = Shell::new(policy.clone(), &mut sys, &mut audit, Vec::new());
            match sh.run_text(line.as_bytes(), "command") {
                Outcome::Continue(s) | Outcome::Exit(s) => s,
            }
        };
        let spawned: Vec<Vec<String>> = sys.spawns.iter().map(|s| s.argv.clone()).collect();
        let err = sys.output("stderr");
        assert_eq!(
            (status, spawned.clone()),
            (
                want,
                want_spawned
                    .iter()
                    .map(|a| a.iter().map(|s| s.to_string()).collect())
                    .collect::<Vec<Vec<String>>>()
            ),
            "{line}: {err}"
        );
        assert!(err.contains(error), "{line}: {err}");
    }
}
