//! Parse and guard cost on a realistic corpus of agent command lines (the
//! guard corpus), plus the large inputs that must stay linear: a 1 MB line
//! and a 10 000-command script.

#![allow(missing_docs)] // criterion_group! makes an undocumented public function
#![allow(clippy::expect_used)] // test code reports failures by panicking

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use guard_sh::{guard, policy, syntax};
use std::hint::black_box;
use std::path::Path;

#[path = "../tests/common/mod.rs"]
mod common;

/// Every input of the guard corpus (the lines agents write, and evasions).
fn corpus_lines() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/guard");
    let mut lines = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("corpus")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    for file in files {
        let value: serde_yaml_ng::Value =
            serde_yaml_ng::from_str(&std::fs::read_to_string(file).expect("read")).expect("yaml");
        for case in value["cases"].as_sequence().expect("cases") {
            for input in case["inputs"].as_sequence().expect("inputs") {
                lines.push(input.as_str().expect("string").to_string());
            }
        }
    }
    lines
}

/// The real tea arm, compiled with stub tools standing in for the programs.
fn tea_policy() -> policy::Policy {
    let dir = tempfile::tempdir().expect("temp dir");
    common::compile_with_stubs("tea", dir.path())
}

fn benches(c: &mut Criterion) {
    let policy = tea_policy();
    let lines = corpus_lines();
    let bytes: usize = lines.iter().map(String::len).sum();

    let mut group = c.benchmark_group("corpus");
    group.throughput(Throughput::Elements(lines.len() as u64));
    group.bench_function("parse", |b| {
        b.iter(|| {
            for line in &lines {
                let _ = black_box(syntax::parse(line.as_bytes()));
            }
        })
    });
    let parsed: Vec<_> = lines
        .iter()
        .filter_map(|l| syntax::parse(l.as_bytes()).ok())
        .collect();
    group.bench_function("guard", |b| {
        b.iter(|| {
            for list in &parsed {
                black_box(guard::check_list(&policy, list));
            }
        })
    });
    group.bench_function("parse+guard", |b| {
        b.iter(|| {
            for line in &lines {
                let _ = black_box(guard::check_source(&policy, line.as_bytes()));
            }
        })
    });
    group.finish();
    eprintln!("corpus: {} lines, {bytes} bytes", lines.len());

    agent_line_latency(&policy);

    let mut large = c.benchmark_group("large");
    large.sample_size(10);
    let words = "tea issues list --repo o/r ".repeat((1 << 20) / 27);
    let one_mb_line = format!("echo {words}");
    large.throughput(Throughput::Bytes(one_mb_line.len() as u64));
    large.bench_function("1MB line parse+guard", |b| {
        b.iter(|| black_box(guard::check_source(&policy, one_mb_line.as_bytes())))
    });
    let script: String = (0..10_000)
        .map(|i| format!("tea issues view {i} | head -5 | grep -c open\n"))
        .collect();
    large.throughput(Throughput::Bytes(script.len() as u64));
    large.bench_function("10000-command script parse+guard", |b| {
        b.iter(|| black_box(guard::check_source(&policy, script.as_bytes())))
    });
    large.finish();
}

/// Parse + guard of one 200-byte agent line, as a session checks it (the
/// protected paths resolved once, the working folder once per line): the
/// median and 99th percentile of 20,000 runs, printed beside the target
/// (p99 < 20 µs).
fn agent_line_latency(policy: &policy::Policy) {
    let line = "cat notes.txt | grep -v '^#' | head -n $((n+10)) | sort -u | cut -d, -f1-3 > out.txt && tea issues list --repo o/r --state open --limit 5 | tail -3 | grep -c open; echo \"exit=$?\" \"${PIPESTATUS[*]}\"";
    assert!((190..=210).contains(&line.len()), "{} bytes", line.len());
    let protected = std::rc::Rc::new(guard::ProtectedPaths::new(policy));
    let mut times: Vec<std::time::Duration> = (0..20_000)
        .map(|_| {
            let t0 = std::time::Instant::now();
            let list = syntax::parse(line.as_bytes()).expect("parses");
            black_box(guard::check_list_in(
                policy,
                &list,
                [],
                &protected,
                &guard_sh::system::real::RealSystem::program_anywhere,
            ));
            t0.elapsed()
        })
        .collect();
    times.sort();
    let at = |q: f64| times[((times.len() as f64 - 1.0) * q) as usize];
    eprintln!(
        "agent line ({} bytes) parse+guard: p50 {:.1} µs, p99 {:.1} µs (target p99 < 20 µs)",
        line.len(),
        at(0.5).as_secs_f64() * 1e6,
        at(0.99).as_secs_f64() * 1e6
    );
}

criterion_group!(parse_guard, benches);
criterion_main!(parse_guard);
