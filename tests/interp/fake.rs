//! Interpreter tests on the simulated process layer: nothing is started;
//! the recorded argv, environment, working folder and descriptors of each
//! spawn are asserted, and so are the audit events.

#![allow(clippy::expect_used)] // test code reports failures by panicking

use crate::common;

use guard_sh::audit::{Event, MemorySink};
use guard_sh::interp::{Outcome, Shell};
use guard_sh::policy::Policy;
use guard_sh::system::FileKind;
use guard_sh::system::fake::FakeSystem;
use std::path::Path;
use std::rc::Rc;

fn policy_with_tool() -> (common::TestArm, Rc<Policy>) {
    let stub = common::system_program("true").expect("true");
    let arm = common::test_arm(&[("tool", stub)], Some("tool"));
    let policy = Policy::load(&arm.policy).expect("policy");
    (arm, Rc::new(policy))
}

/// A fake system whose file table holds the arm's tool, executable.
fn fake_with_tool(arm: &common::TestArm) -> FakeSystem {
    let mut sys = FakeSystem::new();
    sys.add_file(arm.bin.join("tool"), FileKind::File, 0o755);
    sys
}

fn env(pairs: &[(&str, &str)]) -> Vec<(Vec<u8>, Vec<u8>)> {
    pairs
        .iter()
        .map(|(k, v)| (k.as_bytes().to_vec(), v.as_bytes().to_vec()))
        .collect()
}

#[test]
fn spawn_records_final_argv_cwd_and_redirected_stdout() {
    let (arm, policy) = policy_with_tool();
    let mut sys = fake_with_tool(&arm);
    // The shell starts in the system's working folder.
    sys.cwd = arm.dir.path().join("work");
    let mut audit = MemorySink::default();
    let out_file = arm.dir.path().join("out.txt");
    {
        let mut sh = Shell::new(
            policy.clone(),
            &mut sys,
            &mut audit,
            env(&[("HOME", "/home/a")]),
        );
        let line = format!("x='b c'; tool a \"$x\" {{1,2}} > {}", out_file.display());
        assert_eq!(
            sh.run_text(line.as_bytes(), "command"),
            Outcome::Continue(0)
        );
    }
    assert_eq!(sys.spawns.len(), 1);
    let spawn = &sys.spawns[0];
    assert_eq!(spawn.argv, ["tool", "a", "b c", "1", "2"]);
    assert_eq!(spawn.path, arm.bin.join("tool"));
    assert_eq!(
        spawn.fds.get(&1).map(String::as_str),
        Some(format!("file:{}", out_file.display()).as_str())
    );
    assert_eq!(spawn.fds.get(&0).map(String::as_str), Some("stdin"));
    assert_eq!(spawn.fds.get(&2).map(String::as_str), Some("stderr"));
    assert_eq!(spawn.cwd, arm.dir.path().join("work"));
    assert_eq!(spawn.env("HOME"), Some("/home/a"));
    // After the command the shell's own stdout is back.
    let kinds: Vec<&str> = audit.events.iter().map(Event::kind).collect();
    assert_eq!(kinds, ["line", "verdict", "spawn", "exit"]);
}

#[test]
fn loader_variables_from_the_environment_never_reach_a_child() {
    let (arm, policy) = policy_with_tool();
    let mut sys = fake_with_tool(&arm);
    let mut audit = MemorySink::default();
    {
        let inherited = env(&[
            ("LD_PRELOAD", "/evil.so"),
            ("HOME", "/h"),
            ("SECRET", "s"),
            ("PATH", "/usr/bin"),
        ]);
        let mut sh = Shell::new(policy.clone(), &mut sys, &mut audit, inherited);
        assert_eq!(
            sh.run_text(b"export MINE=1; tool", "command"),
            Outcome::Continue(0)
        );
    }
    let spawn = &sys.spawns[0];
    assert_eq!(spawn.env("LD_PRELOAD"), None);
    assert_eq!(spawn.env("SECRET"), None);
    assert_eq!(spawn.env("PATH"), None);
    assert_eq!(spawn.env("HOME"), Some("/h"));
    assert_eq!(spawn.env("MINE"), Some("1"));
}

#[test]
fn exporting_node_options_is_refused_and_nothing_spawns() {
    let (arm, policy) = policy_with_tool();
    let mut sys = fake_with_tool(&arm);
    let mut audit = MemorySink::default();
    {
        let mut sh = Shell::new(policy.clone(), &mut sys, &mut audit, vec![]);
        assert_eq!(
            sh.run_text(b"tool first; export NODE_OPTIONS=x", "command"),
            Outcome::Continue(126)
        );
        // Assembled at run time, the name is caught by the dynamic check.
        assert_eq!(
            sh.run_text(
                b"n=NODE_OPTIONS; export $n=--require=x; tool after",
                "command"
            ),
            Outcome::Continue(126)
        );
    }
    assert!(sys.spawns.is_empty(), "{:?}", sys.spawns);
    assert!(
        sys.output("stderr")
            .contains("denied: assigning NODE_OPTIONS is not permitted")
    );
}

#[test]
fn prefix_assignment_reaches_only_that_child() {
    let (arm, policy) = policy_with_tool();
    let mut sys = fake_with_tool(&arm);
    let mut audit = MemorySink::default();
    {
        let mut sh = Shell::new(policy.clone(), &mut sys, &mut audit, vec![]);
        sh.run_text(b"V=1 tool; tool", "command");
    }
    assert_eq!(sys.spawns[0].env("V"), Some("1"));
    assert_eq!(sys.spawns[1].env("V"), None);
}

#[test]
fn a_run_time_foreign_name_is_denied_with_126_and_recorded() {
    let (arm, policy) = policy_with_tool();
    let mut sys = fake_with_tool(&arm);
    let mut audit = MemorySink::default();
    {
        let mut sh = Shell::new(policy.clone(), &mut sys, &mut audit, vec![]);
        assert_eq!(
            sh.run_text(b"X=python3; $X -c 1; tool never", "command"),
            Outcome::Continue(126)
        );
    }
    assert!(sys.spawns.is_empty());
    assert!(
        audit
            .events
            .iter()
            .any(|e| matches!(e, Event::Denied { argv, .. } if argv[0] == "python3"))
    );
}

#[test]
fn a_failing_audit_record_stops_the_spawn() {
    struct Failing;
    impl guard_sh::audit::AuditSink for Failing {
        fn record(&mut self, event: Event) -> Result<(), String> {
            match event {
                Event::Spawn { .. } => Err("disk full".into()),
                _ => Ok(()),
            }
        }
    }
    let (arm, policy) = policy_with_tool();
    let mut sys = fake_with_tool(&arm);
    let mut audit = Failing;
    {
        let mut sh = Shell::new(policy.clone(), &mut sys, &mut audit, vec![]);
        assert_eq!(
            sh.run_text(b"tool; tool", "command"),
            Outcome::Continue(126)
        );
    }
    assert!(sys.spawns.is_empty());
    assert!(
        sys.output("stderr")
            .contains("audit log unavailable: disk full")
    );
    let _ = Path::new("/");
}

#[test]
fn a_tool_absent_from_the_file_system_is_not_spawned() {
    let (_arm, policy) = policy_with_tool();
    let mut sys = FakeSystem::new();
    let mut audit = MemorySink::default();
    {
        let mut sh = Shell::new(policy.clone(), &mut sys, &mut audit, Vec::new());
        assert_eq!(sh.run_text(b"tool a", "command"), Outcome::Continue(127));
    }
    assert!(sys.spawns.is_empty(), "{:?}", sys.spawns);
}

/// Run `lines`, one after another, in a shell on `sys`; returns what it
/// wrote to stdout and stderr.
fn run_on(sys: &mut FakeSystem, policy: Rc<Policy>, lines: &[&str]) -> (String, String) {
    let mut audit = MemorySink::default();
    {
        let mut sh = Shell::new(policy, sys, &mut audit, env(&[]));
        for line in lines {
            sh.run_text(line.as_bytes(), "command");
        }
    }
    (sys.output("stdout"), sys.output("stderr"))
}

#[test]
fn source_reads_its_file_through_the_system() {
    let (arm, policy) = policy_with_tool();
    let mut sys = fake_with_tool(&arm);
    sys.cwd = "/w".into();
    sys.add_text("/w/lib.sh", b"x=from-lib\ngreet() { echo \"hi $1\"; }\n");
    // A function the file defines is known to the guard from the next line on.
    let (out, err) = run_on(
        &mut sys,
        policy,
        &["source lib.sh; echo $x", "greet you; . ./none.sh"],
    );
    assert_eq!(out, "from-lib\nhi you\n", "{err}");
    assert!(err.contains("none.sh: No such file or directory"), "{err}");
}

#[test]
fn a_users_home_and_the_process_ids_come_from_the_system() {
    let (arm, policy) = policy_with_tool();
    let mut sys = fake_with_tool(&arm);
    sys.add_text(
        "/etc/passwd",
        b"root:x:0:0:root:/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\n",
    );
    (sys.ppid, sys.uid, sys.ids) = (4242, 1000, (0, 0));
    let (out, err) = run_on(
        &mut sys,
        policy,
        &["echo ~alice ~root ~nobody; unset HOME; echo ~; echo $PPID $UID $EUID"],
    );
    assert_eq!(
        out, "/home/alice /root ~nobody\n/home/alice\n4242 1000 0\n",
        "{err}"
    );
}

#[test]
fn random_and_time_take_their_numbers_from_the_system() {
    let (arm, policy) = policy_with_tool();
    let mut sys = fake_with_tool(&arm);
    sys.cpu_per_call = (1.5, 0.25);
    // The fake's bytes count up from 0: 0x0100 and 0x0302, native order.
    let first = u16::from_ne_bytes([0, 1]) & 0x7fff;
    let second = u16::from_ne_bytes([2, 3]) & 0x7fff;
    let (out, err) = run_on(
        &mut sys,
        policy,
        &["echo $RANDOM $RANDOM; TIMEFORMAT='%U %S'; time :"],
    );
    assert_eq!(out, format!("{first} {second}\n"), "{err}");
    // The fake's count moves by (1.5, 0.25) between `time`'s two looks.
    assert_eq!(err, "1.500 0.250\n");
}

#[test]
fn a_script_and_the_files_it_reads_come_through_the_system() {
    let (arm, policy) = policy_with_tool();
    let mut sys = fake_with_tool(&arm);
    sys.cwd = "/w".into();
    sys.add_text(
        "/w/s.sh",
        b"echo first\nwhile read -r l; do echo \"got $l\"; done < s.sh\necho last",
    );
    let mut audit = MemorySink::default();
    let status = {
        let mut sh = Shell::new(policy, &mut sys, &mut audit, env(&[]));
        let input = sh.open_script(Path::new("s.sh")).expect("open the script");
        sh.run_input(input, "script")
    };
    assert_eq!(status, 0, "{}", sys.output("stderr"));
    assert_eq!(
        sys.output("stdout"),
        // `read` fails on the last line, which has no newline (as in
        // bash); the script still runs it.
        "first\ngot echo first\ngot while read -r l; do echo \"got $l\"; done < s.sh\nlast\n"
    );
    let lines: Vec<&Event> = audit
        .events
        .iter()
        .filter(|e| matches!(e, Event::Line { .. }))
        .collect();
    assert_eq!(lines.len(), 3, "one line record per command of the script");
}

#[test]
fn read_with_a_timeout_asks_the_system_whether_input_waits() {
    let (arm, policy) = policy_with_tool();
    let mut sys = fake_with_tool(&arm);
    sys.add_text("/in.txt", b"line\n");
    sys.add_text("/empty.txt", b"");
    let (out, err) = run_on(
        &mut sys,
        policy,
        &[
            "read -t 0 < /in.txt; a=$?; read -t 5 l < /empty.txt; b=$?; read -t 5 l < /in.txt; echo $a $b $? $l",
        ],
    );
    // Input waiting: 0; none within the time: 142 (bash's 128 + SIGALRM).
    assert_eq!(out, "0 142 0 line\n", "{err}");
}

#[test]
fn printf_s_time_conversion_takes_now_from_the_system() {
    let (arm, policy) = policy_with_tool();
    let mut sys = fake_with_tool(&arm);
    sys.now = 1_234_567_890;
    let (out, err) = run_on(
        &mut sys,
        policy,
        &["printf '%(%s)T %(%s)T %(%s)T\\n' -1 '' 42"],
    );
    assert_eq!(out, "1234567890 1234567890 42\n", "{err}");
}

#[test]
fn the_host_name_and_the_limits_come_from_the_system() {
    let (arm, policy) = policy_with_tool();
    let mut sys = fake_with_tool(&arm);
    sys.host = Some(b"box-7".to_vec());
    sys.limits = (321, 654);
    let (out, err) = run_on(&mut sys, policy, &["echo $HOSTNAME; ulimit -n; ulimit -Hn"]);
    assert_eq!(out, "box-7\n321\n654\n", "{err}");
}

/// A file the shell writes is in the fake's table afterwards: read back by
/// a later redirection (in the shell or a copy of it), seen by `test`,
/// refused by `noclobber`; a missing one cannot be read.
#[test]
fn files_the_shell_writes_are_read_back_from_the_table() {
    let (arm, policy) = policy_with_tool();
    let mut sys = fake_with_tool(&arm);
    sys.add_file("/w", FileKind::Dir, 0o755);
    sys.cwd = "/w".into();
    let (out, err) = run_on(
        &mut sys,
        policy,
        &[
            "echo one > f; echo two >> f; while read l; do echo \"<$l>\"; done < f",
            "set -o noclobber; echo x > f; echo \"st $?\"; [ -s f ] && echo nonempty",
            "(echo in-copy > g); read z < g; echo $z; read y < missing; echo \"st $?\"",
        ],
    );
    assert_eq!(
        out, "<one>\n<two>\nst 1\nnonempty\nin-copy\nst 1\n",
        "{err}"
    );
    assert!(err.contains("f: cannot overwrite existing file"), "{err}");
    assert!(err.contains("missing: No such file or directory"), "{err}");
    assert_eq!(
        sys.contents.get(Path::new("/w/f")).map(Vec::as_slice),
        Some(&b"one\ntwo\n"[..])
    );
}

/// `trap` sets dispositions through the system, a signal the system says
/// arrived runs its action at the next safe point, an untrapped SIGTERM
/// ends the shell after the EXIT trap and it dies by it; a copy's trap
/// stays in the copy.
#[test]
fn traps_and_arriving_signals_go_through_the_system() {
    use guard_sh::system::Disposition;
    let (arm, policy) = policy_with_tool();
    let mut sys = fake_with_tool(&arm);
    sys.ignored_at_start.insert(libc::SIGQUIT);
    let mut audit = MemorySink::default();
    let exit_status = {
        let mut sh = Shell::new(policy, &mut sys, &mut audit, env(&[]));
        let lines = [
            "trap 'echo got-usr1' USR1; trap '' INT; trap - HUP; trap 'echo q' QUIT",
            "kill -USR1 $$; echo after",
            "(trap 'echo in' USR2; kill -USR2 $BASHPID; echo copy); echo parent",
            "trap 'echo bye' EXIT; kill -TERM $$; echo not-reached",
        ];
        let outcomes: Vec<Outcome> = lines
            .iter()
            .map(|l| sh.run_text(l.as_bytes(), "command"))
            .collect();
        assert_eq!(outcomes.last(), Some(&Outcome::Exit(143)), "{outcomes:?}");
        sh.run_exit_trap()
    };
    assert_eq!(exit_status, 143);
    assert_eq!(sys.died_by, Some(libc::SIGTERM));
    let err = sys.output("stderr");
    assert_eq!(
        sys.output("stdout"),
        "got-usr1\nafter\nin\ncopy\nparent\nbye\n",
        "{err}"
    );
    let want = [
        (libc::SIGHUP, Disposition::Default),
        (libc::SIGINT, Disposition::Ignore),
        (libc::SIGUSR1, Disposition::Catch),
    ];
    assert_eq!(
        sys.dispositions,
        want.into_iter().collect(),
        "QUIT was ignored at entry; USR2 is the copy's"
    );
    let copy = sys.copies[0];
    assert_eq!(
        sys.kills,
        [
            (999, libc::SIGUSR1),
            (copy, libc::SIGUSR2),
            (999, libc::SIGTERM)
        ]
    );
}

/// `hash -p FILE NAME` would make NAME run any file: refused with status 2
/// and the name still runs the arm's program.
#[test]
fn hash_cannot_bind_a_name_to_a_file() {
    let (arm, policy) = policy_with_tool();
    let mut sys = fake_with_tool(&arm);
    let (out, err) = run_on(
        &mut sys,
        policy,
        &["hash -p /tmp/evil tool; echo \"st $?\"; tool x"],
    );
    assert_eq!(out, "st 2\n", "{err}");
    assert!(
        err.contains("hash: -p: binding a name to a file is not supported"),
        "{err}"
    );
    let paths: Vec<_> = sys.spawns.iter().map(|s| s.path.clone()).collect();
    assert_eq!(paths, [arm.bin.join("tool")]);
}
