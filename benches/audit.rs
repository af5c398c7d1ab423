//! Cost of recording one event with the real writer: serialize, redact,
//! `fstat` + `stat` the log, one `write(2)`, hash the line for the chain.
//! Three redactors: none, the token in clear, and the `LEN:HEX` entry
//! arm-build writes (every window of the token's length is hashed). Events:
//! a typical line, its verdict, a spawn and an exit.

#![allow(missing_docs)] // criterion_group! makes an undocumented public function
#![allow(clippy::expect_used)] // test code reports failures by panicking

use criterion::{Criterion, criterion_group, criterion_main};
use guard_sh::audit::redact::hashed_entry;
use guard_sh::audit::{AuditSink, Event, FileSink, Redactor};
use std::collections::BTreeMap;

const TOKEN: &str = "5b1f0c9e8d7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c";

fn session() -> Event {
    Event::Session {
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
        supervised: false,
        trial: None,
        client: None,
        line_seconds: 900,
    }
}

fn line() -> Event {
    Event::Line {
        text: "tea issues list --repo owner/name --state open".into(),
        origin: "stdin".into(),
    }
}

/// The verdict guard-sh writes for [`line`].
fn verdict() -> Event {
    Event::Verdict {
        allowed: true,
        commands: serde_json::json!([{
            "allowed": true, "at": "1:1", "kind": "tool", "name": "tea",
            "reason": "the arm's tool", "rule": "tool"
        }]),
    }
}

fn spawn() -> Event {
    Event::Spawn {
        pid: 4242,
        path: "/srv/trials/arm-tea/bin/tea".into(),
        argv: [
            "tea",
            "issues",
            "list",
            "--repo",
            "owner/name",
            "--state",
            "open",
        ]
        .map(String::from)
        .to_vec(),
        env_added: vec!["GITEA_SERVER_URL".into(), "TEA_CONFIG".into()],
    }
}

fn exit() -> Event {
    Event::Exit {
        pid: 4242,
        status: Some(0),
        signal: None,
        duration_ms: 12,
    }
}

fn bench_records(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let redactors = [
        ("no redaction", Redactor::none()),
        (
            "token in clear",
            Redactor::new(&[TOKEN.to_string()], &[]).expect("redactor"),
        ),
        (
            "token as LEN:HEX",
            Redactor::new(&[], &[hashed_entry(TOKEN.as_bytes())]).expect("redactor"),
        ),
    ];
    let events = [
        ("line", line()),
        ("verdict", verdict()),
        ("spawn", spawn()),
        ("exit", exit()),
    ];
    for (i, (redaction, redactor)) in redactors.into_iter().enumerate() {
        let log = dir.path().join(format!("bench-{i}.jsonl"));
        let mut sink = FileSink::open(&log, redactor).expect("open");
        sink.record(session()).expect("session");
        for (kind, event) in &events {
            c.bench_function(&format!("record one {kind} event, {redaction}"), |b| {
                b.iter(|| sink.record(event.clone()).expect("record"))
            });
        }
    }
}

criterion_group!(benches, bench_records);
criterion_main!(benches);
