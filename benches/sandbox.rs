//! Per-spawn cost of the Landlock confinement: fork + exec + wait of
//! `/bin/true`: unconfined (posix_spawn, and fork with an empty hook), with a domain prepared once and entered per
//! spawn, and with the domain prepared per spawn (what the interpreter does).

use criterion::{Criterion, SamplingMode, criterion_group};
use guard_sh::policy::{CommandKind, CommandRule, EnvPolicy, Policy, SandboxMode, SandboxPolicy};
use guard_sh::sandbox::landlock::Confinement;
use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
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
        },
        audit: Default::default(),
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

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

criterion_group!(benches, spawn_true);

fn main() {
    interleaved(2000);
    benches();
    Criterion::default().configure_from_args().final_summary();
}
