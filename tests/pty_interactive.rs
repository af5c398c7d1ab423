//! guard-sh as an interactive shell in a terminal (as persistent-session
//! harnesses and Codex's unified exec run it): prompt, state kept between
//! lines, Ctrl-C interrupts the foreground job and not the shell, EOF exits.

mod common;

use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use std::io::{Read, Write};
use std::sync::mpsc;
use std::time::{Duration, Instant};

struct Term {
    rx: mpsc::Receiver<Vec<u8>>,
    seen: String,
}

impl Term {
    /// Wait until the output (since the last match) contains `needle`.
    fn expect(&mut self, needle: &str, secs: u64) -> bool {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            if let Some(at) = self.seen.find(needle) {
                self.seen.drain(..at + needle.len());
                return true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            match self.rx.recv_timeout(left) {
                Ok(chunk) => self.seen.push_str(&String::from_utf8_lossy(&chunk)),
                Err(_) => return false,
            }
        }
    }
}

#[test]
fn interactive_session_keeps_state_survives_ctrl_c_and_exits_on_eof() {
    let arm = common::test_arm(&[], None);
    let work = tempfile::tempdir().expect("work");
    let pty = native_pty_system();
    let pair = pty
        .openpty(PtySize {
            rows: 24,
            cols: 120,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("pty");
    let mut cmd = CommandBuilder::new(common::guard_sh());
    cmd.env_clear();
    cmd.env("GUARD_SH_POLICY", &arm.policy);
    cmd.env("GUARD_SH_AUDIT", &arm.audit);
    cmd.env("HOME", work.path());
    cmd.env("PS1", "PROMPT> ");
    cmd.env("TERM", "dumb");
    cmd.cwd(work.path());
    let mut child = pair.slave.spawn_command(cmd).expect("spawn");
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().expect("reader");
    let mut writer = pair.master.take_writer().expect("writer");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let mut term = Term {
        rx,
        seen: String::new(),
    };
    assert!(
        term.expect("PROMPT> ", 10),
        "no first prompt: {:?}",
        term.seen
    );
    writer
        .write_all(b"x=41; mkdir sub; cd sub\n")
        .expect("write");
    assert!(term.expect("PROMPT> ", 10));
    writer
        .write_all(b"echo v=$((x+1)) ${PWD##*/}\n")
        .expect("write");
    assert!(term.expect("v=42 sub", 10), "state lost: {:?}", term.seen);
    assert!(term.expect("PROMPT> ", 10));
    writer.write_all(b"sleep 100\n").expect("write");
    std::thread::sleep(Duration::from_millis(500));
    let started = Instant::now();
    writer.write_all(b"\x03").expect("ctrl-c");
    assert!(
        term.expect("PROMPT> ", 10),
        "no prompt after Ctrl-C: {:?}",
        term.seen
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    writer.write_all(b"echo status=$?\n").expect("write");
    assert!(term.expect("status=130", 10), "{:?}", term.seen);
    assert!(term.expect("PROMPT> ", 10));
    writer.write_all(b"\x04").expect("eof");
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let status = status.expect("guard-sh did not exit on EOF");
    // The last command (`echo`) succeeded.
    assert_eq!(status.exit_code(), 0);
}
