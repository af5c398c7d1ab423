//! Cost of recording one event with the real writer (redaction on).

use criterion::{Criterion, criterion_group, criterion_main};
use guard_sh::audit::AuditSink;
use guard_sh::audit::{Event, FileSink, Redactor};
use std::collections::BTreeMap;

fn record_one_line(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let token = "5b1f0c9e8d7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c".to_string();
    let redactor = Redactor::new(&[token], &[]).expect("redactor");
    let mut sink = FileSink::open(&dir.path().join("bench.jsonl"), redactor).expect("open");
    let session = Event::Session {
        arm: "tea".into(),
        policy_sha256: "0".repeat(64),
        enforcement: "none".into(),
        version: "0".into(),
        cwd: "/w".into(),
        argv: vec![],
        mode: "stdin".into(),
        pid: 1,
        shell: true,
        tool: Some("tea".into()),
        bin_dir: "/b".into(),
        commands: BTreeMap::new(),
        helpers: vec![],
        sandbox: "off".into(),
    };
    sink.record(session).expect("session");
    c.bench_function("record one line event", |b| {
        b.iter(|| {
            sink.record(Event::Line {
                text: "tea issues list --repo owner/name --state open".into(),
                origin: "stdin".into(),
            })
            .expect("record")
        })
    });
}

criterion_group!(benches, record_one_line);
criterion_main!(benches);
