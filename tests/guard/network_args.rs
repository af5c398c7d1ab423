//! The raw-api arm's guard alone (Landlock and the exec supervisor off)
//! refuses the curl spellings and variables that reach something other
//! than the forge: proxies and SOCKS relays in every option and variable,
//! `--connect-to`/`--resolve`, and URL schemes other than http(s) (tftp
//! reaches a UDP listener). The oracle is loopback listeners the test owns:
//! none may see a connection or a datagram. Real curl (Debian's).

#![allow(clippy::panic, clippy::unwrap_used)] // test code reports failures by panicking

use crate::common;

use std::net::{TcpListener, UdpSocket};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn build(root: &Path, forge_port: u16) -> PathBuf {
    common::build_arm("raw-api", &format!("http://127.0.0.1:{forge_port}"), root)
}

#[test]
fn curl_reaches_no_proxy_relay_or_datagram_listener_by_the_guard_alone() {
    let root = tempfile::tempdir().unwrap();
    let forge = TcpListener::bind("127.0.0.1:0").unwrap();
    let forge_port = forge.local_addr().unwrap().port();
    let other = TcpListener::bind("127.0.0.1:0").unwrap();
    let other_port = other.local_addr().unwrap().port();
    other.set_nonblocking(true).unwrap();
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    let udp_port = udp.local_addr().unwrap().port();
    udp.set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();
    let arm = build(root.path(), forge_port);
    let forge_url = format!("http://127.0.0.1:{forge_port}/api/v1/user");
    let relay = format!("127.0.0.1:{other_port}");
    let lines = [
        format!("curl -s -m 3 --proxy http://{relay} {forge_url}"),
        format!("curl -s -m 3 -x {relay} {forge_url}"),
        format!("curl -s -m 3 --proxy1.0 {relay} {forge_url}"),
        format!("curl -s -m 3 --preproxy socks5://{relay} {forge_url}"),
        format!("curl -s -m 3 --socks5 {relay} {forge_url}"),
        format!("curl -s -m 3 --socks5-hostname {relay} {forge_url}"),
        format!("curl -s -m 3 --socks4 {relay} {forge_url}"),
        format!("curl -s -m 3 --socks4a {relay} {forge_url}"),
        format!("curl -s -m 3 --connect-to ::127.0.0.1:{other_port} {forge_url}"),
        format!("curl -s -m 3 --resolve 127.0.0.1:{forge_port}:127.0.0.2 {forge_url}"),
        format!("http_proxy=http://{relay} curl -s -m 3 {forge_url}"),
        format!("export ALL_PROXY=socks5h://{relay}; curl -s -m 3 {forge_url}"),
        format!("gopher_proxy=http://{relay} curl -s gopher://127.0.0.1:{forge_port}/"),
        format!("curl -s -m 3 tftp://127.0.0.1:{udp_port}/token"),
        format!("echo net-token-0123 > t; curl -s -m 3 -T t tftp://127.0.0.1:{udp_port}/up"),
        format!("curl -s -m 3 dict://127.0.0.1:{other_port}/x"),
    ];
    for line in &lines {
        let o = common::run_guard_alone(&arm, line);
        let stderr = common::text(&o.stderr);
        assert_eq!(o.status.code(), Some(126), "{line}: {stderr}");
        assert!(stderr.contains("denied:"), "{line}: {stderr}");
        assert!(
            other.accept().is_err(),
            "{line}: the relay saw a connection"
        );
        let mut buf = [0u8; 512];
        assert!(
            udp.recv_from(&mut buf).is_err(),
            "{line}: the UDP listener got a datagram"
        );
    }
    // The forge itself is still reached.
    forge.set_nonblocking(false).unwrap();
    let server = std::thread::spawn(move || {
        use std::io::{Read, Write};
        let (mut s, _) = forge.accept().unwrap();
        let mut req = [0u8; 1024];
        let _ = s.read(&mut req).unwrap();
        s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
            .unwrap();
    });
    let o = Command::new(common::guard_sh())
        .args(["-c", &format!("curl -s -m 3 {forge_url}")])
        .env_clear()
        .env("GUARD_SH_POLICY", arm.join("policy.json"))
        .current_dir(arm.join("work"))
        .output()
        .unwrap();
    server.join().unwrap();
    assert_eq!(common::text(&o.stdout), "ok", "{}", common::text(&o.stderr));
}
