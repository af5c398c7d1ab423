//! The line server's socket is out of every command's reach: a command
//! runs in a Landlock domain nested in the server's, whose abstract-socket
//! scope refuses a connection to a socket made outside it. Judged by a
//! command that tries (Python's `connect` on the server's name), served by
//! the server it tries to reach, with Landlock on and off (the exec
//! supervisor off in both, so the kernel's answer is the only one).

use crate::sandbox_support::{Arm, commands, install, rule, stdout};
use std::io::BufRead;
use std::process::{Command, Stdio};

const CONNECT: &str = concat!(
    "#!/usr/bin/python3\n",
    "import socket, sys\n",
    "s = socket.socket(socket.AF_UNIX)\n",
    "try:\n",
    "    s.connect('\\0' + sys.argv[1])\n",
    "    print('connected')\n",
    "except OSError as e:\n",
    "    print('refused', e.errno)\n",
);

/// The server's address and the client's output for `tool NAME`, with
/// Landlock on or off, and whether a worker (not the client) ran it.
fn try_to_connect(landlock: bool) -> (String, bool) {
    let arm = Arm::new();
    let stub = arm.stub("tool", CONNECT);
    let mut policy = arm.policy(commands(&rule(&stub, &[], &[], &[])));
    // The arm's tool: an idle worker builds its ruleset ahead, so the
    // domain judged here is the one made before the line came.
    policy.tool = Some("tool".into());
    policy.audit.path = Some(arm.path("arm/audit.log"));
    install(&arm, &policy);
    let with_env = |c: &mut Command| {
        c.env_clear()
            .env("GUARD_SH_POLICY", arm.path("arm/policy.json"))
            .env("GUARD_SH_AUDIT", arm.path("arm/audit.log"))
            .env("GUARD_SH_SUPERVISOR", "off")
            .current_dir(arm.path("work"));
        if !landlock {
            c.env("GUARD_SH_LANDLOCK", "off");
        }
    };
    let mut server = Command::new(env!("CARGO_BIN_EXE_guard-sh"));
    with_env(&mut server);
    let mut server = server
        .arg("--serve")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the server");
    let mut address = String::new();
    std::io::BufReader::new(server.stdout.take().expect("stdout"))
        .read_line(&mut address)
        .expect("the server's address");
    let address = address.trim_end().to_string();
    let name = address.split(' ').next().expect("a name").to_string();
    let mut client = Command::new(env!("CARGO_BIN_EXE_guard-sh-client"));
    with_env(&mut client);
    let child = client
        .args(["-c", &format!("tool {name}")])
        .env("GUARD_SH_SERVER", &address)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the client");
    let pid = child.id();
    let out = child.wait_with_output().expect("wait");
    let _ = server.kill();
    let _ = server.wait();
    let log = std::fs::read_to_string(arm.path("arm/audit.log")).expect("the log");
    let served = log.contains(&format!("\"client\":{pid}"));
    (stdout(&out), served)
}

#[test]
fn a_command_cannot_connect_to_the_line_server() {
    let (out, served) = try_to_connect(true);
    assert!(served, "the line was not served");
    assert_eq!(out, format!("refused {}\n", libc::EPERM));
}

/// The same command reaches the socket when no Landlock domain holds it:
/// what stops it above is the kernel's scope, not the guard.
#[test]
fn without_landlock_the_same_command_connects() {
    let (out, served) = try_to_connect(false);
    assert!(served, "the line was not served");
    assert_eq!(out, "connected\n");
}
