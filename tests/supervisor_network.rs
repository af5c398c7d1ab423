//! Each command reaches only the forge: the exec supervisor checks the
//! destination of every `connect` and addressed `send*` of the command's
//! tree against the forge's address and port, whatever port Landlock
//! allows. Real curl in the raw-api arm; the oracle is loopback listeners
//! the test owns (another address on the forge's port, another port), which
//! must see nothing, Landlock on and off.

#![allow(clippy::panic, clippy::unwrap_used)] // test code reports failures by panicking

mod common;

use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

fn build(root: &Path, forge_port: u16) -> PathBuf {
    common::build_arm("raw-api", &format!("http://127.0.0.1:{forge_port}"), root)
}

/// A loopback listener that answers every connection with `200 ok` and
/// counts them.
fn serve(address: &str) -> (u16, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    let listener = TcpListener::bind(address).unwrap();
    let port = listener.local_addr().unwrap().port();
    let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = count.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let mut s = stream;
            let mut req = [0u8; 2048];
            let _ = s.read(&mut req);
            let _ =
                s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
        }
    });
    (port, count)
}

fn run(arm: &Path, line: &str, landlock: bool) -> std::process::Output {
    let mut c = Command::new(common::guard_sh());
    c.args(["-c", line])
        .env_clear()
        .env("GUARD_SH_POLICY", arm.join("policy.json"))
        .current_dir(arm.join("work"));
    if !landlock {
        c.env("GUARD_SH_LANDLOCK", "off");
    }
    c.output().unwrap()
}

fn connect_records(arm: &Path) -> Vec<Value> {
    std::fs::read_to_string(arm.join("audit/audit.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["type"] == "connect")
        .collect()
}

#[test]
fn curl_reaches_the_forge_and_no_other_address_or_port() {
    let root = tempfile::tempdir().unwrap();
    let (forge_port, forge_seen) = serve("127.0.0.1:0");
    let (other_port, other_port_seen) = serve("127.0.0.1:0");
    // Another loopback address on the forge's own port.
    let (_, other_host_seen) = serve(&format!("127.0.0.2:{forge_port}"));
    let arm = build(root.path(), forge_port);
    for landlock in [true, false] {
        let forge = run(
            &arm,
            &format!("curl -s -m 5 http://127.0.0.1:{forge_port}/api/v1/user"),
            landlock,
        );
        assert_eq!(
            common::text(&forge.stdout),
            "ok",
            "{}",
            common::text(&forge.stderr)
        );
        for url in [
            format!("http://127.0.0.2:{forge_port}/api/v1/user"),
            format!("http://127.0.0.1:{other_port}/api/v1/user"),
            format!("http://[::ffff:127.0.0.2]:{forge_port}/"),
        ] {
            let o = run(
                &arm,
                &format!("curl -s -m 5 {url}; echo \"curl=$?\""),
                landlock,
            );
            let stdout = common::text(&o.stdout);
            assert!(
                stdout.starts_with("curl=") && stdout != "curl=0\n",
                "{url} (landlock {landlock}): {stdout}"
            );
        }
    }
    assert!(forge_seen.load(std::sync::atomic::Ordering::SeqCst) >= 2);
    assert_eq!(other_host_seen.load(std::sync::atomic::Ordering::SeqCst), 0);
    assert_eq!(other_port_seen.load(std::sync::atomic::Ordering::SeqCst), 0);
    let records = connect_records(&arm);
    let refused: Vec<&str> = records
        .iter()
        .filter(|r| r["allowed"] == false)
        .filter_map(|r| r["address"].as_str())
        .collect();
    assert!(
        refused.contains(&format!("127.0.0.2:{forge_port}").as_str()),
        "{records:?}"
    );
    assert!(
        refused.contains(&format!("127.0.0.1:{other_port}").as_str()),
        "{records:?}"
    );
    assert!(
        records
            .iter()
            .any(|r| r["allowed"] == true && r["address"] == format!("127.0.0.1:{forge_port}")),
        "{records:?}"
    );
}

#[test]
fn a_harmless_utility_has_no_network_and_no_local_socket() {
    let root = tempfile::tempdir().unwrap();
    let (forge_port, forge_seen) = serve("127.0.0.1:0");
    let arm = build(root.path(), forge_port);
    // `ls -l` looks users up; with no local socket it falls back to files.
    let o = run(&arm, "ls -ld . > /dev/null; echo \"ls=$?\"", false);
    assert_eq!(
        common::text(&o.stdout),
        "ls=0\n",
        "{}",
        common::text(&o.stderr)
    );
    assert_eq!(forge_seen.load(std::sync::atomic::Ordering::SeqCst), 0);
}
