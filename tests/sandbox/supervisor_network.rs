//! Each command reaches only the forge: the exec supervisor checks the
//! destination of every `connect` and addressed `send*` of the command's
//! tree against the forge's address and port, whatever port Landlock
//! allows, and no command may make a local socket. Real curl in the raw-api
//! arm, real git behind the tea arm's tool; the oracles are loopback
//! listeners the test owns (another address on the forge's port, another
//! port, a UDP listener, a SOCKS relay's UNIX socket), which must see
//! nothing, and `strace -f` of the whole run, in which every call that
//! named an address and succeeded must name the forge. Each technique runs
//! with every layer, with the supervisor alone (a policy stripped of the
//! guard's argument and variable rules, Landlock off), and with no layer,
//! where the listeners must be reached (so the oracle can fail).

#![allow(clippy::panic, clippy::unwrap_used)] // test code reports failures by panicking

use crate::common;
use crate::sandbox_support;

use serde_json::Value;
use std::io::{Read, Write};
use std::net::{TcpListener, UdpSocket};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

const STRACE: &str = "/usr/bin/strace";

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
        let forge = sandbox_support::run_in_built_arm(
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
            let o = sandbox_support::run_in_built_arm(
                &arm,
                &format!("curl -s -m 5 {url}; echo \"curl=$?\""),
                landlock,
            );
            let stdout = common::text(&o.stdout);
            assert!(
                stdout.starts_with("curl=") && stdout != "curl=0\n",
                "{url} (landlock {landlock}): {stdout}"
            );
            // The refusal is said where the agent reads curl's error, not
            // left to look like a network fault.
            let stderr = common::text(&o.stderr);
            assert!(
                stderr.contains("guard-sh: denied: curl: connecting to ")
                    && stderr.contains("is not permitted (not the forge's address and port)"),
                "{url} (landlock {landlock}): {stderr}"
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
    let o = sandbox_support::run_in_built_arm(&arm, "ls -ld . > /dev/null; echo \"ls=$?\"", false);
    assert_eq!(
        common::text(&o.stdout),
        "ls=0\n",
        "{}",
        common::text(&o.stderr)
    );
    assert_eq!(forge_seen.load(std::sync::atomic::Ordering::SeqCst), 0);
}

/// The listeners a technique may try to reach besides the forge, each
/// counting what reached it.
struct Elsewhere {
    other_port: u16,
    other_port_seen: Arc<AtomicUsize>,
    other_host_seen: Arc<AtomicUsize>,
    udp_port: u16,
    udp_seen: Arc<AtomicUsize>,
    relay: PathBuf,
    relay_seen: Arc<AtomicUsize>,
}

impl Elsewhere {
    fn open(root: &Path, forge_port: u16) -> Elsewhere {
        let (other_port, other_port_seen) = serve("127.0.0.1:0");
        let (_, other_host_seen) = serve(&format!("127.0.0.2:{forge_port}"));
        let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
        let udp_port = udp.local_addr().unwrap().port();
        let udp_seen = Arc::new(AtomicUsize::new(0));
        let seen = udp_seen.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 2048];
            while udp.recv_from(&mut buf).is_ok() {
                seen.fetch_add(1, Ordering::SeqCst);
            }
        });
        // A SOCKS relay's socket file: counting connections is enough (a
        // relay that answered would forward them anywhere).
        let relay = root.join("relay.sock");
        let unix = UnixListener::bind(&relay).unwrap();
        let relay_seen = Arc::new(AtomicUsize::new(0));
        let seen = relay_seen.clone();
        std::thread::spawn(move || {
            for stream in unix.incoming().flatten() {
                seen.fetch_add(1, Ordering::SeqCst);
                drop(stream);
            }
        });
        Elsewhere {
            other_port,
            other_port_seen,
            other_host_seen,
            udp_port,
            udp_seen,
            relay,
            relay_seen,
        }
    }

    /// What reached each listener so far, by name.
    fn reached(&self) -> Vec<(&'static str, usize)> {
        [
            ("another port", &self.other_port_seen),
            ("another address", &self.other_host_seen),
            ("the UDP listener", &self.udp_seen),
            ("the UNIX relay", &self.relay_seen),
        ]
        .into_iter()
        .map(|(name, n)| (name, n.load(Ordering::SeqCst)))
        .filter(|(_, n)| *n > 0)
        .collect()
    }
}

/// The ways around the forge an agent has with curl, each as a line and
/// the listener it aims at.
fn curl_techniques(forge_port: u16, e: &Elsewhere) -> Vec<(String, &'static str)> {
    let sock = e.relay.display();
    let elsewhere = format!("http://127.0.0.1:{}/api/v1/user", e.other_port);
    let forge = format!("http://127.0.0.1:{forge_port}/api/v1/user");
    let udp = e.udp_port;
    let c = "curl -s -m 3";
    vec![
        (
            format!("{c} --socks5-hostname localhost{sock} {elsewhere}"),
            "the UNIX relay",
        ),
        (
            format!("{c} --socks5 localhost{sock} {elsewhere}"),
            "the UNIX relay",
        ),
        (
            format!("{c} --socks4 localhost{sock} {elsewhere}"),
            "the UNIX relay",
        ),
        (
            format!("{c} --socks4a localhost{sock} {elsewhere}"),
            "the UNIX relay",
        ),
        (
            format!("{c} --proxy socks5h://localhost{sock} {elsewhere}"),
            "the UNIX relay",
        ),
        (
            format!("ALL_PROXY=socks5h://localhost{sock} {c} {elsewhere}"),
            "the UNIX relay",
        ),
        (
            format!("export http_proxy=socks5h://localhost{sock}; {c} {elsewhere}"),
            "the UNIX relay",
        ),
        (
            format!("{c} tftp://127.0.0.1:{udp}/token"),
            "the UDP listener",
        ),
        (
            format!("echo net-token-0123 > t; {c} -T t tftp://127.0.0.1:{udp}/up"),
            "the UDP listener",
        ),
        (
            format!("{c} http://127.0.0.2:{forge_port}/api/v1/user"),
            "another address",
        ),
        (
            format!("{c} --connect-to ::127.0.0.2: {forge}"),
            "another address",
        ),
        (
            format!(
                "{c} --resolve forge.test:{forge_port}:127.0.0.2 http://forge.test:{forge_port}/"
            ),
            "another address",
        ),
        (format!("{c} {elsewhere}"), "another port"),
        (
            format!("{c} dict://127.0.0.1:{}/x", e.other_port),
            "another port",
        ),
    ]
}

/// How a run is layered.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Layers {
    /// The arm's own policy, Landlock and the supervisor on.
    All,
    /// The guard's argument and variable rules stripped, Landlock off.
    SupervisorAlone,
    /// Stripped rules, Landlock and the supervisor off.
    None,
}

/// The arm's policy without the guard's network rules: the tool's
/// argument rules and the proxy-variable patterns.
fn strip_network_rules(arm: &Path, tool: &str) -> PathBuf {
    let mut policy: Value =
        serde_json::from_str(&std::fs::read_to_string(arm.join("policy.json")).unwrap()).unwrap();
    policy["commands"][tool]["deny"] = Value::Array(Vec::new());
    let deny = policy["env"]["deny"].as_array_mut().unwrap();
    deny.retain(|d| {
        !d["pattern"].as_str().unwrap().ends_with("_proxy")
            && !d["pattern"].as_str().unwrap().ends_with("_PROXY")
    });
    let stripped = arm.join("stripped-policy.json");
    std::fs::write(&stripped, policy.to_string()).unwrap();
    stripped
}

/// `line` in the arm's work folder under `strace -f` of the whole run;
/// the output and the trace's network calls.
fn run_traced(arm: &Path, line: &str, layers: Layers, policy: &Path) -> (Output, String) {
    let trace = arm.join("net-trace.out");
    let mut c = Command::new(STRACE);
    c.args([
        "-f",
        "-qq",
        "-e",
        "trace=socket,connect,sendto,sendmsg,sendmmsg",
        "-o",
    ])
    .arg(&trace)
    .arg(common::guard_sh())
    .args(["-c", line])
    .env_clear()
    .env("LANG", "C.UTF-8")
    .env("GUARD_SH_POLICY", policy)
    .current_dir(arm.join("work"));
    if layers != Layers::All {
        c.env("GUARD_SH_LANDLOCK", "off");
    }
    if layers == Layers::None {
        c.env("GUARD_SH_SUPERVISOR", "off");
    }
    let out = c.output().unwrap();
    let text = sandbox_support::join_resumed(&std::fs::read_to_string(&trace).unwrap());
    (out, text)
}

/// The calls in `trace` that named an address and went through (`= 0`, a
/// byte count, or a connection under way), other than to the forge and
/// other than dissolving a connection.
fn reached_elsewhere(trace: &str, forge_port: u16) -> Vec<String> {
    let forge = format!("htons({forge_port})");
    trace
        .lines()
        .filter(|l| l.contains("sa_family=") && !l.contains("sa_family=AF_UNSPEC"))
        .filter(|l| {
            let result = l.rsplit_once(") = ").map_or("", |(_, r)| r);
            result.contains("EINPROGRESS") || !result.starts_with('-')
        })
        .filter(|l| !(l.contains(&forge) && l.contains("\"127.0.0.1\"")))
        .map(str::to_string)
        .collect()
}

/// The audit records written since `from` records.
fn records_since(arm: &Path, from: usize) -> Vec<Value> {
    std::fs::read_to_string(arm.join("audit/audit.jsonl"))
        .unwrap_or_default()
        .lines()
        .skip(from)
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .collect()
}

fn record_count(arm: &Path) -> usize {
    std::fs::read_to_string(arm.join("audit/audit.jsonl")).map_or(0, |t| t.lines().count())
}

/// Each technique in `cases` under `layers`: with a layer on, no listener
/// but the forge is reached, strace shows no call through to anywhere else,
/// and the audit records the refusal (the line's verdict, or a refused
/// `connect`; a local socket fails when made, in the kernel's filter,
/// before any address exists to record). With no layer, the listener each
/// technique aims at is reached.
fn check_techniques(
    arm: &Path,
    policy: &Path,
    forge_port: u16,
    elsewhere: &Elsewhere,
    cases: &[(String, &'static str)],
    layers: Layers,
) {
    for (line, target) in cases {
        let before = record_count(arm);
        let (out, trace) = run_traced(arm, line, layers, policy);
        let case = format!("{layers:?}: {line}\nstderr: {}", common::text(&out.stderr));
        // Each listener keeps counting; wait for a late datagram or accept.
        std::thread::sleep(std::time::Duration::from_millis(50));
        let reached = elsewhere.reached();
        if layers == Layers::None {
            assert!(
                reached.iter().any(|(name, _)| name == target),
                "{case}\nwith no layer the technique should reach {target}: {reached:?}"
            );
            for n in [
                &elsewhere.other_port_seen,
                &elsewhere.other_host_seen,
                &elsewhere.udp_seen,
                &elsewhere.relay_seen,
            ] {
                n.store(0, Ordering::SeqCst);
            }
            continue;
        }
        assert!(reached.is_empty(), "{case}\nreached {reached:?}");
        let through = reached_elsewhere(&trace, forge_port);
        assert!(through.is_empty(), "{case}\nstrace: {through:?}");
        let records = records_since(arm, before);
        let refused = records
            .iter()
            .any(|r| (r["type"] == "verdict" || r["type"] == "connect") && r["allowed"] == false);
        let local_socket_failed = trace
            .lines()
            .any(|l| l.contains("socket(AF_UNIX") && l.contains("EACCES"));
        assert!(
            refused || (*target == "the UNIX relay" && local_socket_failed),
            "{case}\nno refusal recorded: {records:?}"
        );
    }
}

#[test]
fn no_way_around_the_forge_with_curl_reaches_a_listener() {
    let root = tempfile::tempdir().unwrap();
    let (forge_port, _forge_seen) = serve("127.0.0.1:0");
    let elsewhere = Elsewhere::open(root.path(), forge_port);
    let arm = build(root.path(), forge_port);
    let cases = curl_techniques(forge_port, &elsewhere);
    let own = arm.join("policy.json");
    let stripped = strip_network_rules(&arm, "curl");
    check_techniques(&arm, &own, forge_port, &elsewhere, &cases, Layers::All);
    check_techniques(
        &arm,
        &stripped,
        forge_port,
        &elsewhere,
        &cases,
        Layers::SupervisorAlone,
    );
    check_techniques(
        &arm,
        &stripped,
        forge_port,
        &elsewhere,
        &cases,
        Layers::None,
    );
}

#[test]
fn no_way_around_the_forge_with_the_tools_git_reaches_a_listener() {
    let root = tempfile::tempdir().unwrap();
    let (forge_port, _forge_seen) = serve("127.0.0.1:0");
    let elsewhere = Elsewhere::open(root.path(), forge_port);
    // The tea arm with a tool that runs what it is told (as tea runs git)
    // and Debian's git as its helper.
    let stubs = root.path().join("stubs");
    std::fs::create_dir(&stubs).unwrap();
    std::fs::copy("/usr/bin/env", stubs.join("tea")).unwrap();
    std::os::unix::fs::symlink("/usr/bin/git", stubs.join("git")).unwrap();
    let arm = common::build_arm(
        "tea",
        &format!("http://127.0.0.1:{forge_port}"),
        root.path(),
    );
    let other = elsewhere.other_port;
    let forge = format!("http://127.0.0.1:{forge_port}/o/r.git");
    let git = "tea git -c http.lowSpeedTime=3 -c http.lowSpeedLimit=1";
    let cases = vec![
        // Debian's git 2.39 takes no socket file as its proxy (later ones
        // do); the filter that refuses curl's local sockets holds for it.
        (
            format!("{git} -c http.proxy=socks5h://127.0.0.1:{other} ls-remote {forge}"),
            "another port",
        ),
        (
            format!("{git} -c http.proxy=http://127.0.0.1:{other} ls-remote {forge}"),
            "another port",
        ),
        (
            format!(
                "{git} -c url.http://127.0.0.2:{forge_port}/.insteadOf=http://127.0.0.1:{forge_port}/ ls-remote {forge}"
            ),
            "another address",
        ),
        (
            format!("{git} ls-remote http://127.0.0.1:{other}/o/r.git"),
            "another port",
        ),
    ];
    let own = arm.join("policy.json");
    check_techniques(&arm, &own, forge_port, &elsewhere, &cases, Layers::All);
    check_techniques(
        &arm,
        &own,
        forge_port,
        &elsewhere,
        &cases,
        Layers::SupervisorAlone,
    );
    check_techniques(&arm, &own, forge_port, &elsewhere, &cases, Layers::None);
}

/// An io_uring submits `connect` (and `openat`) without a system call the
/// filter sees, so a command may not make one. The probe is Python's
/// `ctypes` calling `io_uring_setup(1, params)` directly; without the
/// supervisor the same probe gets a ring (so the test can fail).
#[test]
fn a_command_cannot_make_an_io_uring() {
    // Debian's (tests/run.sh installs it), not a version manager's shim.
    let arm = common::test_arm(&[("python3", PathBuf::from("/usr/bin/python3"))], None);
    let probe = "python3 -c 'import ctypes; l = ctypes.CDLL(None, use_errno=True); \
                 r = l.syscall(425, 1, ctypes.create_string_buffer(120)); \
                 print(\"ring\" if r >= 0 else \"errno %d\" % ctypes.get_errno())'";
    let work = tempfile::tempdir().unwrap();
    let supervised = common::run_guard(&arm, work.path(), &["-c", probe]);
    assert_eq!(
        common::text(&supervised.stdout),
        format!("errno {}\n", libc::ENOSYS),
        "{}",
        common::text(&supervised.stderr)
    );
    let unsupervised = common::guard_cmd(&arm, work.path())
        .env("GUARD_SH_SUPERVISOR", "off")
        .args(["-c", probe])
        .output()
        .unwrap();
    assert_eq!(
        common::text(&unsupervised.stdout),
        "ring\n",
        "{}",
        common::text(&unsupervised.stderr)
    );
}

/// bash opens a socket for a redirection to `/dev/tcp/HOST/PORT` or
/// `/dev/udp/HOST/PORT`; guard-sh refuses it (126, a `denied` record of
/// rule `network-redirection`) before anything is opened, with Landlock on
/// and off. The oracle is a TCP and a UDP listener the test owns, which
/// bash reaches with the same lines (so the oracle can fail).
#[test]
fn a_network_redirection_reaches_no_listener() {
    let root = tempfile::tempdir().unwrap();
    let (forge_port, forge_seen) = serve("127.0.0.1:0");
    let arm = build(root.path(), forge_port);
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_read_timeout(Some(std::time::Duration::from_millis(300)))
        .unwrap();
    let udp_port = udp.local_addr().unwrap().port();
    let lines = [
        format!("echo probe > /dev/tcp/127.0.0.1/{forge_port}"),
        format!("p={forge_port}; exec 3<>/dev/tcp/127.0.0.1/$p; echo probe >&3"),
        format!("echo probe > /dev/udp/127.0.0.1/{udp_port}"),
    ];
    let received = |udp: &UdpSocket| {
        let mut buf = [0u8; 64];
        udp.recv(&mut buf).is_ok()
    };
    // bash reaches both listeners with the same lines.
    for line in &lines {
        let o = Command::new("/bin/bash")
            .args(["-c", line])
            .output()
            .unwrap();
        assert!(o.status.success(), "{line}: {}", common::text(&o.stderr));
    }
    // The listener's thread counts each connection once it accepts it.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while forge_seen.load(Ordering::SeqCst) < 2 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(forge_seen.load(Ordering::SeqCst), 2, "bash's connections");
    assert!(received(&udp), "bash's datagram");
    for landlock in [true, false] {
        for line in &lines {
            let before = forge_seen.load(Ordering::SeqCst);
            let o = sandbox_support::run_in_built_arm(&arm, line, landlock);
            let stderr = common::text(&o.stderr);
            assert_eq!(
                o.status.code(),
                Some(126),
                "{line}, landlock {landlock}: {stderr}"
            );
            assert!(
                stderr.contains("network redirections are not supported"),
                "{stderr}"
            );
            assert_eq!(
                forge_seen.load(Ordering::SeqCst),
                before,
                "{line}: a connection"
            );
            assert!(!received(&udp), "{line}: a datagram");
        }
    }
    let denied: Vec<Value> = std::fs::read_to_string(arm.join("audit/audit.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["type"] == "denied")
        .collect();
    assert_eq!(denied.len(), 6, "{denied:?}");
    assert!(
        denied.iter().all(|r| r["rule"] == "network-redirection"),
        "{denied:?}"
    );
}

/// A datagram sent elsewhere (curl's TFTP, with the guard's argument
/// rules stripped so that only the supervisor stands in the way) is
/// refused, never reaches the listener, and the refusal is said on the
/// line's stderr once, in guard-sh's words; with Landlock on and off.
#[test]
fn a_refused_datagram_is_said_on_the_lines_stderr() {
    let root = tempfile::tempdir().unwrap();
    let (forge_port, _forge_seen) = serve("127.0.0.1:0");
    let elsewhere = Elsewhere::open(root.path(), forge_port);
    let arm = build(root.path(), forge_port);
    let stripped = strip_network_rules(&arm, "curl");
    let udp = elsewhere.udp_port;
    let line = format!("curl -s -m 3 tftp://127.0.0.1:{udp}/token; echo \"curl=$?\"");
    for layers in [Layers::All, Layers::SupervisorAlone] {
        let (out, _) = run_traced(&arm, &line, layers, &stripped);
        std::thread::sleep(std::time::Duration::from_millis(50));
        let stderr = common::text(&out.stderr);
        assert_eq!(
            elsewhere.udp_seen.load(Ordering::SeqCst),
            0,
            "{layers:?}: {stderr}"
        );
        assert_ne!(common::text(&out.stdout), "curl=0\n", "{layers:?}");
        assert!(
            stderr.contains(&format!(
                "guard-sh: denied: curl: sending to 127.0.0.1:{udp} is not permitted"
            )),
            "{layers:?}: {stderr}"
        );
        // Once per attempt: curl's TFTP sends again after a timeout.
        let said: std::collections::BTreeSet<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("guard-sh: denied:"))
            .collect();
        assert_eq!(said.len(), 1, "{layers:?}: {stderr}");
    }
}
