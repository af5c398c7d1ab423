//! Copies of the shell on the simulated system: subshells, pipeline
//! members and command substitutions run in the test's process on a copy
//! of the shell's state, joined by the fake's pipes. Each test fails if a
//! copy's changes leak into its parent, if its output does not reach the
//! pipe it was given, or if nothing was forked at all.

#![allow(clippy::expect_used)] // test code reports failures by panicking

use crate::common;

use guard_sh::audit::MemorySink;
use guard_sh::interp::{Outcome, Shell};
use guard_sh::policy::Policy;
use guard_sh::system::FileKind;
use guard_sh::system::fake::FakeSystem;
use std::rc::Rc;

/// A fake system whose one program is the arm's `tool`, and the policy.
fn setup() -> (common::TestArm, Rc<Policy>, FakeSystem) {
    let stub = common::system_program("true").expect("true");
    let arm = common::test_arm(&[("tool", stub)], Some("tool"));
    let policy = Rc::new(Policy::load(&arm.policy).expect("policy"));
    let mut sys = FakeSystem::new();
    sys.add_file(arm.bin.join("tool"), FileKind::File, 0o755);
    sys.add_file("/tmp", FileKind::Dir, 0o755);
    (arm, policy, sys)
}

/// Run `line` in a fresh shell on `sys`: its status, stdout and stderr.
fn run(sys: &mut FakeSystem, policy: Rc<Policy>, line: &str) -> (i32, String, String) {
    let mut audit = MemorySink::default();
    let status = {
        let mut sh = Shell::new(policy, sys, &mut audit, Vec::new());
        match sh.run_text(line.as_bytes(), "command") {
            Outcome::Continue(s) | Outcome::Exit(s) => s,
        }
    };
    (status, sys.output("stdout"), sys.output("stderr"))
}

#[test]
fn a_subshell_changes_only_its_own_copy() {
    let (_arm, policy, mut sys) = setup();
    let (status, out, err) = run(
        &mut sys,
        policy,
        "x=1; (x=2; cd /tmp; umask 077; f() { :; }; echo in $x $PWD; exit 3); \
         echo out $? $x $PWD; umask; type f",
    );
    assert_eq!(status, 1, "{err}");
    assert_eq!(out, "in 2 /tmp\nout 3 1 /\n0022\n", "{err}");
    assert!(err.contains("f: not found"), "{err}");
    assert_eq!(sys.copies.len(), 1);
    assert_eq!(sys.cwd, std::path::Path::new("/"));
}

#[test]
fn a_command_substitution_reads_what_its_copy_wrote() {
    let (arm, policy, mut sys) = setup();
    sys.outputs.insert("tool".into(), b"from tool\n".to_vec());
    let (status, out, err) = run(
        &mut sys,
        policy,
        "x=$(echo hi; tool a); echo \"[$x]\"; y=`echo b`$(echo c); echo $y",
    );
    assert_eq!(
        (status, out.as_str()),
        (0, "[hi\nfrom tool]\nbc\n"),
        "{err}"
    );
    assert_eq!(sys.copies.len(), 3);
    let tool = &sys.spawns[0];
    assert_eq!(tool.path, arm.bin.join("tool"));
    let stdout = tool.fds.get(&1).expect("stdout");
    assert!(
        stdout.starts_with("pipe:") && stdout.ends_with(":w"),
        "{stdout}"
    );
}

#[test]
fn pipeline_members_are_copies_joined_by_pipes() {
    let (_arm, policy, mut sys) = setup();
    let (status, out, err) = run(
        &mut sys,
        policy,
        "echo 'a b' | { read x y; echo \"$y$x\"; }; echo \"[$x]\"; echo hi | tool in",
    );
    assert_eq!((status, out.as_str()), (0, "ba\n[]\n"), "{err}");
    let tool = sys.spawns.last().expect("tool spawned");
    assert_eq!(tool.argv, ["tool", "in"]);
    let stdin = tool.fds.get(&0).expect("stdin");
    assert!(
        stdin.starts_with("pipe:") && stdin.ends_with(":r"),
        "{stdin}"
    );
    let stdout = tool.fds.get(&1).map(String::as_str);
    assert_eq!(stdout, Some("stdout"));
}

#[test]
fn a_denial_inside_a_copy_aborts_the_whole_line() {
    let (_arm, policy, mut sys) = setup();
    let (status, out, err) = run(
        &mut sys,
        policy,
        "X=evil; (echo in; $X; echo not-here); echo after; tool after",
    );
    assert_eq!(status, 126, "{err}");
    assert_eq!(out, "in\n");
    assert!(err.contains("denied: \"evil\""), "{err}");
    assert!(sys.spawns.is_empty(), "{:?}", sys.spawns);
}

#[test]
fn a_copy_runs_its_own_exit_trap_and_not_its_parents() {
    let (_arm, policy, mut sys) = setup();
    let (status, out, err) = run(
        &mut sys,
        policy,
        "trap 'echo parent-exit' EXIT; (trap 'echo copy-exit' EXIT; echo in); echo out; trap -p EXIT",
    );
    assert_eq!(status, 0, "{err}");
    let want = "in\ncopy-exit\nout\ntrap -- 'echo parent-exit' EXIT\n";
    assert_eq!(out, want, "{err}");
}

#[test]
fn a_process_substitution_is_a_copy_read_through_dev_fd() {
    let (_arm, policy, mut sys) = setup();
    let (status, out, err) = run(
        &mut sys,
        policy,
        "read a b < <(echo one two); echo \"$b $a\"; mapfile -t l < <(echo x; echo y); echo ${#l[@]}",
    );
    assert_eq!((status, out.as_str()), (0, "two one\n2\n"), "{err}");
    assert_eq!(sys.copies.len(), 2);
}
