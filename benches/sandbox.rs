//! Per-spawn cost of the Landlock confinement: fork + exec + wait of
//! `/bin/true`: unconfined (posix_spawn, and fork with an empty hook), with a domain prepared once and entered per
//! spawn, and with the domain prepared per spawn (what the interpreter does).
//! Then the same through the guard-sh binary: one command line per spawn
//! in a persistent session (parse, guard, audit, prepare, fork, enforce,
//! exec, wait), and one `guard-sh -c` per spawn (start-up, guard-sh's own
//! domain included), each with Landlock and with `GUARD_SH_LANDLOCK=off`;
//! and a session with the exec supervisor against one without, per spawn
//! and per connection.
//!
//! `cargo bench --bench sandbox -- NOMATCH` prints the interleaved figures
//! and skips the criterion groups.

#![allow(missing_docs)] // criterion_group! makes an undocumented public function
#![allow(clippy::expect_used)] // test code reports failures by panicking

use criterion::{Criterion, SamplingMode, criterion_group};
use guard_sh::policy::{CommandKind, CommandRule, EnvPolicy, Policy, SandboxMode, SandboxPolicy};
use guard_sh::sandbox::landlock::Confinement;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

const TRUE: &str = "/bin/true";

fn fixture(work: &Path) -> (Policy, CommandRule) {
    let rule = CommandRule {
        kind: CommandKind::Utility,
        path: PathBuf::from(TRUE),
        deny: vec![],
        exec_allow: vec![],
        path_env: vec![],
        env: BTreeMap::new(),
        connect_ports: vec![],
        connect_hosts: vec![],
        writable: vec![],
    };
    let policy = Policy {
        format: guard_sh::policy::model::POLICY_FORMAT,
        arm: "bench".into(),
        shell: true,
        tool: None,
        bin_dir: work.join("bin"),
        commands: BTreeMap::from([("true".to_string(), rule.clone())]),
        env: EnvPolicy {
            pass: vec![],
            set: BTreeMap::new(),
            deny: vec![],
        },
        sandbox: SandboxPolicy {
            mode: SandboxMode::Required,
            writable: vec![work.to_path_buf()],
            protected: vec![],
            unreadable: vec![],
            execute: None,
        },
        audit: Default::default(),
        bounds: Default::default(),
    };
    (policy, rule)
}

/// `Some`: fork with a `pre_exec` hook entering the domain (a hook makes std
/// use `fork` rather than `posix_spawn`); `None`: no hook at all.
fn spawn(confinement: Option<&Confinement>) {
    let mut cmd = Command::new(TRUE);
    if let Some(c) = confinement {
        let c = c.clone();
        // SAFETY: `enforce` makes only system calls.
        unsafe {
            cmd.pre_exec(move || c.enforce().map_err(|e| e.into_io()));
        }
    }
    let status = cmd.status().expect("spawn /bin/true");
    assert!(status.success());
}

fn spawn_true(c: &mut Criterion) {
    let work = std::env::temp_dir();
    let (policy, rule) = fixture(&work);
    let prepared =
        Confinement::for_command(&policy, &rule, Path::new(TRUE), &work).expect("prepare");
    let mut group = c.benchmark_group("spawn_true");
    group
        .sample_size(1000)
        .sampling_mode(SamplingMode::Flat)
        .measurement_time(Duration::from_secs(8));
    // Baselines: posix_spawn, and fork with an empty hook (the fair one).
    group.bench_function("unconfined_posix_spawn", |b| b.iter(|| spawn(None)));
    group.bench_function("unconfined_fork", |b| {
        b.iter(|| spawn(Some(&Confinement::none())))
    });
    group.bench_function("enforce_prepared", |b| b.iter(|| spawn(Some(&prepared))));
    group.bench_function("for_command_and_enforce", |b| {
        b.iter(|| {
            let confinement =
                Confinement::for_command(&policy, &rule, Path::new(TRUE), &work).expect("prepare");
            spawn(Some(&confinement));
        })
    });
    group.bench_function("for_command_only", |b| {
        b.iter(|| {
            Confinement::for_command(&policy, &rule, Path::new(TRUE), &work).expect("prepare")
        })
    });
    group.finish();
}

/// The machine's load varies, so also time the variants interleaved (one
/// spawn of each per round) and print each median and the median of the
/// per-round differences: noise hits both halves of a round alike.
fn interleaved(rounds: usize) {
    let work = std::env::temp_dir();
    let (policy, rule) = fixture(&work);
    let time = |f: &dyn Fn()| {
        let start = Instant::now();
        f();
        start.elapsed().as_secs_f64() * 1e6
    };
    let mut plain = Vec::with_capacity(rounds);
    let mut confined = Vec::with_capacity(rounds);
    let mut extra = Vec::with_capacity(rounds);
    let mut enter_only = Vec::with_capacity(rounds);
    let prepared =
        Confinement::for_command(&policy, &rule, Path::new(TRUE), &work).expect("prepare");
    for _ in 0..rounds {
        let p0 = time(&|| spawn(Some(&Confinement::none())));
        let e = time(&|| spawn(Some(&prepared)));
        enter_only.push(e - p0);
        let p = time(&|| spawn(Some(&Confinement::none())));
        let c = time(&|| {
            let confinement =
                Confinement::for_command(&policy, &rule, Path::new(TRUE), &work).expect("prepare");
            spawn(Some(&confinement));
        });
        plain.push(p);
        confined.push(c);
        extra.push(c - p);
    }
    println!(
        "interleaved, {rounds} rounds: fork+exec /bin/true median {:.0} µs; with for_command+enforce {:.0} µs; \
         per-round overhead median {:.0} µs (entering a prepared domain only: {:.0} µs)",
        median(&mut plain),
        median(&mut confined),
        median(&mut extra),
        median(&mut enter_only)
    );
}

/// A throw-away arm for the guard-sh binary: `t` runs `/bin/true`;
/// `work/` is writable; the policy, bin folder and audit log are protected.
struct GuardArm {
    dir: tempfile::TempDir,
}

impl GuardArm {
    fn new() -> GuardArm {
        GuardArm::with_command("t", Path::new(TRUE), None)
    }

    /// The arm with `name` running `program`, which may connect to
    /// `127.0.0.1:PORT` when `forge` names a port.
    fn with_command(name: &str, program: &Path, forge: Option<u16>) -> GuardArm {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        for sub in ["work", "bin", "audit"] {
            std::fs::create_dir_all(root.join(sub)).expect("layout");
        }
        let (mut policy, mut rule) = fixture(&root.join("work"));
        rule.path = program.to_path_buf();
        if let Some(port) = forge {
            rule.connect_ports = vec![port];
            rule.connect_hosts = vec![format!("127.0.0.1:{port}")];
        }
        policy.bin_dir = root.join("bin");
        policy.commands = BTreeMap::from([(name.to_string(), rule)]);
        policy.sandbox.mode = SandboxMode::BestEffort;
        policy.sandbox.protected = vec![
            root.join("policy.json"),
            root.join("bin"),
            root.join("audit"),
        ];
        std::os::unix::fs::symlink(program, root.join("bin").join(name)).expect("bin link");
        let json = serde_json::to_vec(&policy).expect("policy json");
        std::fs::write(root.join("policy.json"), json).expect("write policy");
        GuardArm { dir }
    }

    fn command(&self, landlock: bool, log: &str) -> Command {
        self.command_supervised(landlock, false, log)
    }

    /// With the exec supervisor on or off (`GUARD_SH_SUPERVISOR`).
    fn command_supervised(&self, landlock: bool, supervised: bool, log: &str) -> Command {
        let root = self.dir.path();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_guard-sh"));
        cmd.env_clear()
            .env("GUARD_SH_POLICY", root.join("policy.json"))
            .env("GUARD_SH_AUDIT", root.join("audit").join(log))
            .current_dir(root.join("work"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if !landlock {
            cmd.env("GUARD_SH_LANDLOCK", "off");
        }
        if !supervised {
            cmd.env("GUARD_SH_SUPERVISOR", "off");
        }
        cmd
    }
}

/// A persistent guard-sh session fed one line at a time.
struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Session {
    fn start(arm: &GuardArm, landlock: bool) -> Session {
        Session::start_supervised(arm, landlock, false)
    }

    fn start_supervised(arm: &GuardArm, landlock: bool, supervised: bool) -> Session {
        let log = match (landlock, supervised) {
            (true, false) => "on.jsonl",
            (false, _) => "off.jsonl",
            (true, true) => "supervised.jsonl",
        };
        let mut child = arm
            .command_supervised(landlock, supervised, log)
            .spawn()
            .expect("start guard-sh");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Session {
            child,
            stdin,
            stdout,
        }
    }

    /// Time one line that spawns `t`, until its `echo` comes back (µs).
    fn spawn_once(&mut self) -> f64 {
        let mut reply = String::new();
        let start = Instant::now();
        self.stdin.write_all(b"t; echo $?\n").expect("send line");
        self.stdin.flush().expect("flush");
        self.stdout.read_line(&mut reply).expect("read reply");
        let us = start.elapsed().as_secs_f64() * 1e6;
        assert_eq!(reply, "0\n", "the spawn succeeded");
        us
    }

    fn finish(mut self) {
        drop(self.stdin);
        let status = self.child.wait().expect("wait guard-sh");
        assert!(status.success());
    }
}

/// The per-spawn cost through guard-sh, with and without Landlock, the two
/// sessions interleaved one line each per round.
fn through_guard_sh(rounds: usize) {
    let arm = GuardArm::new();
    let mut on = Session::start(&arm, true);
    let mut off = Session::start(&arm, false);
    // Warm up both (page cache, first allocations).
    for _ in 0..20 {
        on.spawn_once();
        off.spawn_once();
    }
    let m = interleave(rounds, || off.spawn_once(), || on.spawn_once());
    on.finish();
    off.finish();
    println!(
        "guard-sh session, {rounds} lines each (`t; echo $?`, t = /bin/true): median {:.0} µs without Landlock, \
         {:.0} µs with; per-round overhead median {:.0} µs",
        m.without, m.with, m.extra
    );
    let enforcement = std::fs::read_to_string(arm.dir.path().join("audit/on.jsonl"))
        .expect("audit log")
        .contains("\"enforcement\":\"landlock-abi-");
    assert!(
        enforcement,
        "the confined session really ran under Landlock"
    );

    // One guard-sh process per spawn, as `$SHELL -c CMD` harnesses run it.
    let once = |landlock: bool| {
        let start = Instant::now();
        let out = arm
            .command(landlock, "invocations.jsonl")
            .args(["-c", "t"])
            .stdin(Stdio::null())
            .output()
            .expect("guard-sh -c");
        assert!(out.status.success());
        start.elapsed().as_secs_f64() * 1e6
    };
    let m = interleave(rounds, || once(false), || once(true));
    println!(
        "guard-sh -c t, {rounds} invocations each: median {:.0} µs without Landlock, {:.0} µs with \
         (guard-sh's own domain included); per-round overhead median {:.0} µs",
        m.without, m.with, m.extra
    );
}

/// The per-spawn cost of the exec supervisor (seccomp notification, one
/// round trip per `execve`), Landlock on in both sessions.
fn supervision(rounds: usize) {
    let arm = GuardArm::new();
    let mut plain = Session::start_supervised(&arm, true, false);
    let mut supervised = Session::start_supervised(&arm, true, true);
    for _ in 0..20 {
        plain.spawn_once();
        supervised.spawn_once();
    }
    let m = interleave(rounds, || plain.spawn_once(), || supervised.spawn_once());
    plain.finish();
    supervised.finish();
    println!(
        "guard-sh session with Landlock, {rounds} lines each: median {:.0} µs without the exec supervisor, \
         {:.0} µs with; per-spawn overhead median {:.0} µs",
        m.without, m.with, m.extra
    );
    let execs = std::fs::read_to_string(arm.dir.path().join("audit/supervised.jsonl"))
        .expect("audit log")
        .matches("\"type\":\"exec\"")
        .count();
    assert!(execs >= rounds, "the supervised session recorded its execs");
}

/// The cost of one supervised connection: `c` (Debian's Python) opens and
/// closes `CONNECTS` connections to a loopback listener and times its own
/// loop, in `guard-sh -c` with the supervisor and without (Landlock on in
/// both), interleaved.
fn per_connection(rounds: usize) {
    const CONNECTS: usize = 200;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("listener");
    let port = listener.local_addr().expect("port").port();
    std::thread::spawn(move || for _ in listener.incoming() {});
    let arm = GuardArm::with_command("c", Path::new("/usr/bin/python3"), Some(port));
    let line = format!(
        "c -c 'import socket, time\nt = time.perf_counter()\nfor _ in range({CONNECTS}):\n    \
         s = socket.create_connection((\"127.0.0.1\", {port})); s.close()\n\
         print((time.perf_counter() - t) / {CONNECTS} * 1e6)'"
    );
    let once = |supervised: bool| -> f64 {
        let out = arm
            .command_supervised(true, supervised, "connect.jsonl")
            .args(["-c", &line])
            .stdin(Stdio::null())
            .output()
            .expect("guard-sh -c");
        assert!(out.status.success(), "the connecting command ran");
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .expect("microseconds per connection")
    };
    let m = interleave(rounds, || once(false), || once(true));
    println!(
        "{CONNECTS} loopback connections per command, {rounds} commands each: median {:.1} µs per \
         connection without the supervisor, {:.1} µs with; per-connection overhead median {:.1} µs",
        m.without, m.with, m.extra
    );
    let connects = std::fs::read_to_string(arm.dir.path().join("audit/connect.jsonl"))
        .expect("audit log")
        .matches("\"type\":\"connect\"")
        .count();
    assert!(
        connects >= rounds * CONNECTS,
        "the supervised commands recorded their connections"
    );
}

/// Medians of an interleaved comparison (µs or whatever the samples are).
struct Medians {
    without: f64,
    with: f64,
    /// Of the per-round differences, `with - without`.
    extra: f64,
}

/// `rounds` rounds of one `without` sample then one `with` sample, so that
/// noise hits both halves of a round alike.
fn interleave(
    rounds: usize,
    mut without: impl FnMut() -> f64,
    mut with: impl FnMut() -> f64,
) -> Medians {
    let (mut a, mut b, mut extra) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        let x = without();
        let y = with();
        a.push(x);
        b.push(y);
        extra.push(y - x);
    }
    Medians {
        without: median(&mut a),
        with: median(&mut b),
        extra: median(&mut extra),
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

criterion_group!(benches, spawn_true);

fn main() {
    interleaved(2000);
    through_guard_sh(1000);
    supervision(1000);
    per_connection(30);
    benches();
    Criterion::default().configure_from_args().final_summary();
}
