//! Landlock TCP confinement (ABI >= 4) against loopback listeners the tests
//! own: the listener is the oracle of whether a connection was made.

#![allow(clippy::expect_used)] // test code reports failures by panicking

use crate::sandbox_support;

use sandbox_support::*;
use std::net::TcpListener;
use std::time::{Duration, Instant};

fn listener() -> (TcpListener, u16) {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    l.set_nonblocking(true).expect("nonblocking");
    let port = l.local_addr().expect("addr").port();
    (l, port)
}

/// Whether `l` has a connection waiting (checked for up to 200 ms, after
/// the client has already exited, so a refused connect shows as none).
fn saw_connection(l: &TcpListener) -> bool {
    let deadline = Instant::now() + Duration::from_millis(200);
    while Instant::now() < deadline {
        if l.accept().is_ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

/// A bash stub that opens a TCP connection to 127.0.0.1:PORT (bash's
/// `/dev/tcp`, so no extra program is needed).
fn connect_stub(arm: &Arm) -> std::path::PathBuf {
    arm.stub("tool", "#!/bin/bash\nif exec 3<>/dev/tcp/127.0.0.1/$1; then echo connected; else echo refused; fi\n")
}

#[test]
fn landlock_blocks_tcp_connect_to_a_loopback_port_not_in_the_rule() {
    let arm = Arm::new();
    let (allowed, allowed_port) = listener();
    let (forbidden, forbidden_port) = listener();
    let stub = connect_stub(&arm);
    let r = rule(&stub, &[STRACE], &[allowed_port], &[]);
    let policy = arm.policy(commands(&r));
    let confinement = confine(&arm, &policy, &r, &stub);
    let (out, trace) = run_traced(
        &confinement,
        &arm.path("work"),
        &stub,
        &[&forbidden_port.to_string()],
    );

    assert_eq!(stdout(&out), "refused\n", "stderr: {}", stderr(&out));
    assert!(
        stderr(&out).contains("Permission denied"),
        "{}",
        stderr(&out)
    );
    let connect = format!("sin_port=htons({forbidden_port})");
    assert!(
        trace
            .lines()
            .any(|l| l.contains("connect(") && l.contains(&connect) && l.contains("= -1 EACCES")),
        "{trace}"
    );
    assert!(
        !saw_connection(&forbidden),
        "the forbidden listener must see no connection"
    );
    assert!(
        !saw_connection(&allowed),
        "nothing connected to the allowed port either"
    );
}

#[test]
fn tcp_connect_to_an_allowed_loopback_port_works() {
    let arm = Arm::new();
    let (allowed, allowed_port) = listener();
    let stub = connect_stub(&arm);
    let r = rule(&stub, &[], &[allowed_port], &[]);
    let policy = arm.policy(commands(&r));
    let out = run_confined(
        &confine(&arm, &policy, &r, &stub),
        &arm.path("work"),
        &stub,
        &[&allowed_port.to_string()],
    );

    assert_eq!(stdout(&out), "connected\n", "stderr: {}", stderr(&out));
    assert!(saw_connection(&allowed));
}

#[test]
fn harmless_utility_rule_without_ports_reaches_no_port() {
    let arm = Arm::new();
    let (l, port) = listener();
    let stub = connect_stub(&arm);
    let r = rule(&stub, &[], &[], &[]);
    let policy = arm.policy(commands(&r));
    let out = run_confined(
        &confine(&arm, &policy, &r, &stub),
        &arm.path("work"),
        &stub,
        &[&port.to_string()],
    );

    assert_eq!(stdout(&out), "refused\n", "stderr: {}", stderr(&out));
    assert!(!saw_connection(&l));
}

#[test]
fn landlock_blocks_tcp_bind_even_for_a_tool_with_connect_ports() {
    let arm = Arm::new();
    let (_l, port) = listener();
    let stub = arm.stub(
        "tool",
        "#!/usr/bin/env node\n\
         const s = require('net').createServer();\n\
         s.on('error', e => { console.log(e.code); process.exit(0); });\n\
         s.listen(0, '127.0.0.1', () => { console.log('listening'); s.close(); });\n",
    );
    let r = rule(&stub, &[], &[port], &[]);
    let policy = arm.policy(commands(&r));
    let out = run_confined(
        &confine(&arm, &policy, &r, &stub),
        &arm.path("work"),
        &stub,
        &[],
    );

    assert_eq!(stdout(&out), "EACCES\n", "stderr: {}", stderr(&out));
}
