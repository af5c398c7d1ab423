//! The confinement of a real built arm (`arm-build raw-api`): every command
//! of the compiled policy can be prepared (no protected path overlaps a
//! writable root), the harmless utilities reach no port and cannot write the
//! guard's files, the tool reaches only its port, and the policy pin holds.

#![allow(clippy::expect_used)] // test code reports failures by panicking

use crate::sandbox_support;

use guard_sh::policy::Policy;
use guard_sh::policy::pin::verify_policy_pin;
use guard_sh::sandbox::landlock::{Confinement, Enforcement, prepare_guard_sh};
use sandbox_support::*;
use std::net::TcpListener;
use std::path::PathBuf;

struct Built {
    _dir: tempfile::TempDir,
    out: PathBuf,
    policy: Policy,
}

/// Build the raw-api arm against a loopback host on `port`.
fn build_raw_api(port: u16) -> Built {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("arm");
    crate::common::ArmBuild::new("raw-api", &format!("http://127.0.0.1:{port}"), &out)
        .shipped_arms()
        .run();
    let policy = Policy::load(&out.join("policy.json")).expect("load policy");
    Built {
        _dir: dir,
        out,
        policy,
    }
}

fn run_named(built: &Built, name: &str, args: &[&str]) -> std::process::Output {
    let rule = &built.policy.commands[name];
    let exe = built.policy.bin_dir.join(name);
    let cwd = built.out.join("work");
    let confinement = Confinement::for_command(&built.policy, rule, &exe, &cwd).expect("prepare");
    assert!(matches!(
        confinement.enforcement(),
        Enforcement::Landlock { .. }
    ));
    run_confined(&confinement, &cwd, &exe, args)
}

#[test]
fn every_command_of_a_built_arm_can_be_confined() {
    let built = build_raw_api(3000);
    let cwd = built.out.join("work");
    for (name, rule) in &built.policy.commands {
        let exe = built.policy.bin_dir.join(name);
        let confinement = Confinement::for_command(&built.policy, rule, &exe, &cwd);
        assert!(confinement.is_ok(), "{name}: {:?}", confinement.err());
    }
    assert!(prepare_guard_sh(&built.policy, &cwd).is_ok());
}

#[test]
fn tee_and_mkdir_of_a_built_arm_cannot_write_its_policy_bin_folder_or_audit_log() {
    let built = build_raw_api(3000);
    let policy_file = built.out.join("policy.json");
    let original = std::fs::read(&policy_file).expect("policy bytes");
    let pin = guard_sh::policy::sha256_hex(&original);

    let tee = run_named(&built, "tee", &[policy_file.to_str().expect("utf-8 path")]);
    assert_eq!(tee.status.code(), Some(1), "{}", stderr(&tee));
    assert!(
        stderr(&tee).contains("Permission denied"),
        "{}",
        stderr(&tee)
    );
    let bin_sub = built.out.join("bin/curl2");
    let mkdir = run_named(&built, "mkdir", &[bin_sub.to_str().expect("utf-8 path")]);
    assert_eq!(mkdir.status.code(), Some(1), "{}", stderr(&mkdir));
    let audit_new = built.out.join("audit/x.jsonl");
    let tee_audit = run_named(&built, "tee", &[audit_new.to_str().expect("utf-8 path")]);
    assert_eq!(tee_audit.status.code(), Some(1), "{}", stderr(&tee_audit));
    let tee_work = run_named(&built, "tee", &["notes.txt"]);
    assert_eq!(tee_work.status.code(), Some(0), "{}", stderr(&tee_work));

    assert!(!bin_sub.exists() && !audit_new.exists());
    let after = std::fs::read(&policy_file).expect("policy bytes");
    assert!(
        verify_policy_pin(&after, Some(&pin)).is_ok(),
        "the next session still loads the original policy"
    );
    assert!(verify_policy_pin(b"{}", Some(&pin)).is_err());
}

#[test]
fn curl_of_the_raw_api_arm_reaches_its_host_port_only() {
    let host = TcpListener::bind("127.0.0.1:0").expect("bind");
    let other = TcpListener::bind("127.0.0.1:0").expect("bind");
    let (host_port, other_port) = (
        host.local_addr().expect("addr").port(),
        other.local_addr().expect("addr").port(),
    );
    other.set_nonblocking(true).expect("nonblocking");
    let built = build_raw_api(host_port);
    assert_eq!(built.policy.commands["curl"].connect_ports, vec![host_port]);

    // The host: answer one request with an empty 200.
    let server = std::thread::spawn(move || {
        use std::io::{Read, Write};
        let (mut s, _) = host.accept().expect("accept");
        let mut buf = [0u8; 1024];
        let _ = s.read(&mut buf);
        s.write_all(b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok")
            .expect("reply");
    });
    let ok = run_named(
        &built,
        "curl",
        &["-sS", &format!("http://127.0.0.1:{host_port}/")],
    );
    assert_eq!(stdout(&ok), "ok", "{}", stderr(&ok));
    server.join().expect("server");

    let refused = run_named(
        &built,
        "curl",
        &["-sS", &format!("http://127.0.0.1:{other_port}/")],
    );
    assert_eq!(
        refused.status.code(),
        Some(7),
        "curl: couldn't connect; {}",
        stderr(&refused)
    );
    assert!(other.accept().is_err(), "the other port saw no connection");
}
