//! guard-sh as an interactive shell in a terminal (as persistent-session
//! harnesses and Codex's unified exec run it): prompt, state kept between
//! lines, Ctrl-C interrupts the foreground job and not the shell, EOF exits;
//! line editing and history; Ctrl-C on a half-typed line and at a
//! continuation prompt; `PS1` expanded as bash does (an OpenHands-style
//! JSON prompt with `$?` and `$(pwd)`).

#![allow(clippy::expect_used)] // test code reports failures by panicking

use crate::common;

use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use std::io::{Read, Write};
use std::sync::mpsc;
use std::time::{Duration, Instant};

struct Term {
    rx: mpsc::Receiver<Vec<u8>>,
    seen: String,
    /// The output the last match consumed.
    last_match: String,
}

impl Term {
    /// Wait until the output (since the last match) contains `needle`.
    fn expect(&mut self, needle: &str, secs: u64) -> bool {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            if let Some(at) = self.seen.find(needle) {
                self.last_match = self.seen.drain(..at + needle.len()).collect();
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
    let mut s = Session::start("PROMPT> ");
    s.expect("PROMPT> ");
    s.send(b"x=41; mkdir sub; cd sub\n");
    s.expect("PROMPT> ");
    s.send(b"echo v=$((x+1)) ${PWD##*/}\n");
    s.expect("v=42 sub");
    s.expect("PROMPT> ");
    s.send(b"sleep 100\n");
    std::thread::sleep(Duration::from_millis(500));
    let started = Instant::now();
    s.send(b"\x03");
    s.expect("PROMPT> ");
    assert!(started.elapsed() < Duration::from_secs(10));
    s.send(b"echo status=$?\n");
    s.expect("status=130");
    s.expect("PROMPT> ");
    s.send(b"\x04");
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = s.child.try_wait().expect("try_wait") {
            break Some(status);
        }
        if Instant::now() > deadline {
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let status = status.expect("guard-sh did not exit on EOF");
    // The last command (`echo`) succeeded.
    assert_eq!(status.exit_code(), 0);
}

/// guard-sh on a new terminal, with `PS1` set to `ps1`.
struct Session {
    term: Term,
    writer: Box<dyn Write + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
    work: tempfile::TempDir,
    _arm: common::TestArm,
}

impl Session {
    fn start(ps1: &str) -> Session {
        Session::start_with(ps1, &[])
    }

    /// [`Session::start`] with more variables in guard-sh's environment.
    fn start_with(ps1: &str, env: &[(&str, &str)]) -> Session {
        let arm = common::test_arm(&[], None);
        let work = tempfile::tempdir().expect("work");
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: 24,
                cols: 200,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("pty");
        let mut cmd = CommandBuilder::new(common::guard_sh());
        cmd.env_clear();
        cmd.env("GUARD_SH_POLICY", &arm.policy);
        cmd.env("GUARD_SH_AUDIT", &arm.audit);
        cmd.env("HOME", work.path());
        cmd.env("PS1", ps1);
        cmd.env("TERM", "dumb");
        for (name, value) in env {
            cmd.env(name, value);
        }
        cmd.cwd(work.path());
        let child = pair.slave.spawn_command(cmd).expect("spawn");
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().expect("reader");
        let writer = pair.master.take_writer().expect("writer");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Session {
            term: Term {
                rx,
                seen: String::new(),
                last_match: String::new(),
            },
            writer,
            child,
            work,
            _arm: arm,
        }
    }

    /// The digits just before the last match (`pid=123=` matched up to
    /// the second `=`): what the line printed there.
    fn last_number(&self) -> String {
        self.term
            .last_match
            .chars()
            .filter(char::is_ascii_digit)
            .collect()
    }

    fn send(&mut self, keys: &[u8]) {
        self.writer.write_all(keys).expect("write");
        self.writer.flush().expect("flush");
    }

    fn expect(&mut self, needle: &str) {
        assert!(
            self.term.expect(needle, 10),
            "no {needle:?} in {:?}",
            self.term.seen
        );
    }

    /// Everything shown until `needle` (which is consumed too).
    fn until(&mut self, needle: &str) -> String {
        let before = self.term.seen.clone();
        self.expect(needle);
        let whole = before + &self.term.seen;
        whole.split(needle).next().unwrap_or_default().to_string()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

#[test]
fn up_arrow_recalls_the_last_line_and_editing_keys_change_the_line() {
    let mut s = Session::start("P> ");
    s.expect("P> ");
    s.send(b"echo one-$((40+2))\r");
    s.expect("one-42");
    s.expect("P> ");
    // ↑ then Enter: the line runs again, not `^[[A` as a command.
    s.send(b"\x1b[A\r");
    s.expect("one-42");
    s.expect("P> ");
    // Type `echo wrld`, ← ← ←, `o`, End, `!x`, Backspace, Enter.
    s.send(b"echo wrld\x1b[D\x1b[D\x1b[Do\x1b[F!x\x7f\r");
    s.expect("world!");
    s.expect("P> ");
    // Ctrl-A, Ctrl-K clear the line; Ctrl-U and Ctrl-W kill too.
    s.send(b"rm -rf x\x01\x0becho killed-$((1+1)) extra\x17\r");
    s.expect("killed-2");
    s.expect("P> ");
    // Two lines back: the `echo wrld…` line as it was run.
    s.send(b"\x1b[A\x1b[A\r");
    s.expect("world!");
    s.expect("P> ");
    s.send(b"\x04");
    s.expect("exit");
}

#[test]
fn ctrl_c_drops_a_half_typed_line_and_a_pending_continuation() {
    let mut s = Session::start("P> ");
    s.expect("P> ");
    // Half a line, then Ctrl-C: nothing runs, a new prompt, `$?` is 130.
    s.send(b"touch half-typed");
    std::thread::sleep(Duration::from_millis(200));
    s.send(b"\x03");
    s.expect("^C");
    s.expect("P> ");
    s.send(b"echo st=$?\r");
    s.expect("st=130");
    s.expect("P> ");
    // A `for` waiting for its `done` at the continuation prompt, then
    // Ctrl-C: the pending loop is dropped, the next line is a new command.
    s.send(b"for i in 1 2; do touch loop-$i\r");
    s.expect("> ");
    s.send(b"\x03");
    s.expect("P> ");
    s.send(b"echo after=$?\r");
    s.expect("after=130");
    s.expect("P> ");
    s.send(b"\x04");
    s.expect("exit");
    assert!(!s.work.path().join("half-typed").exists());
    assert!(!s.work.path().join("loop-1").exists());
}

#[test]
fn an_openhands_style_prompt_reports_the_status_and_folder_of_each_command() {
    let ps1 = r#"\n###PS1JSON###\n{"exit_code": "$?", "username": "\u", "working_dir": "$(pwd)"}\n###PS1END###\n"#;
    let mut s = Session::start(ps1);
    let user = std::process::Command::new("id")
        .arg("-un")
        .output()
        .expect("id -un");
    let user = String::from_utf8_lossy(&user.stdout).trim().to_string();
    let prompt = |s: &mut Session| -> serde_json::Value {
        s.expect("###PS1JSON###");
        let json = s.until("###PS1END###");
        let parsed = serde_json::from_str(json.trim());
        assert!(parsed.is_ok(), "{json:?}: {parsed:?}");
        parsed.unwrap_or_default()
    };
    let first = prompt(&mut s);
    let work = s.work.path().canonicalize().expect("work");
    assert_eq!(first["exit_code"], "0");
    assert_eq!(first["username"], user.as_str());
    assert_eq!(first["working_dir"], work.to_str().expect("utf-8"));
    s.send(b"mkdir sub; cd sub; false\r");
    let after = prompt(&mut s);
    assert_eq!(after["exit_code"], "1");
    assert_eq!(
        after["working_dir"],
        work.join("sub").to_str().expect("utf-8")
    );
    s.send(b"(exit 7)\r");
    assert_eq!(prompt(&mut s)["exit_code"], "7");
    s.send(b"\x04");
    s.expect("exit");
    // Each expansion of the prompt (three were shown) is a line of the
    // audit log, checked as any other.
    let log = std::fs::read_to_string(&s._arm.audit).expect("audit log");
    let prompts = log
        .lines()
        .filter(|l| l.contains(r#""origin":"prompt""#))
        .count();
    assert_eq!(prompts, 3, "{log}");
    assert!(!log.contains(r#""allowed":false"#), "{log}");
    // The verifier holds prompt lines to a line's rules, and finds none broken.
    let verdict = std::process::Command::new(env!("CARGO_BIN_EXE_guard-sh-audit"))
        .arg(&s._arm.audit)
        .output()
        .expect("guard-sh-audit");
    let report = String::from_utf8_lossy(&verdict.stdout);
    assert_eq!(verdict.status.code(), Some(0), "{report}");
    assert!(report.starts_with("CLEAN"), "{report}");
}

#[test]
fn a_prompt_running_a_foreign_command_is_denied_and_shown_unexpanded() {
    let mut s = Session::start("[$(curl -s http://127.0.0.1:9/)]$ ");
    s.expect("denied");
    s.expect("[$(curl -s http://127.0.0.1:9/)]$ ");
    s.send(b"echo still-here\r");
    s.expect("still-here");
    s.expect("]$ ");
    s.send(b"\x04");
    s.expect("exit");
    let log = std::fs::read_to_string(&s._arm.audit).expect("audit log");
    assert!(log.contains(r#""allowed":false"#), "{log}");
}

#[test]
fn prompt_command_runs_before_each_prompt_keeps_the_status_and_is_checked() {
    // bash runs PROMPT_COMMAND before each primary prompt (each element of
    // an array in turn); `$?` stays the last line's. A denied one is
    // refused each time and the shell goes on.
    let mut s = Session::start_with(
        "[$?]> ",
        &[("PROMPT_COMMAND", r#"n=$((n+1)); echo "before-prompt-$n""#)],
    );
    s.expect("before-prompt-1");
    s.expect("[0]> ");
    s.send(b"false\r");
    s.expect("before-prompt-2");
    s.expect("[1]> ");
    s.send(b"PROMPT_COMMAND=('echo first-of-two' 'echo second-of-two')\r");
    s.expect("first-of-two");
    s.expect("second-of-two");
    s.expect("[0]> ");
    s.send(b"PROMPT_COMMAND='curl -s http://127.0.0.1:9/'\r");
    s.expect("denied");
    s.expect("]> ");
    s.send(b"echo still-here\r");
    s.expect("still-here");
    s.expect("]> ");
    s.send(b"\x04");
    s.expect("exit");
    let log = std::fs::read_to_string(&s._arm.audit).expect("audit log");
    let prompt_commands = log
        .lines()
        .filter(|l| l.contains(r#""origin":"prompt-command""#))
        .count();
    // Two runs of the first, one of each of the two; then, as in bash,
    // assigning the array's name sets its element 0 only: two runs of the
    // denied one with the second element after each.
    assert_eq!(prompt_commands, 8, "{log}");
    assert!(log.contains(r#""allowed":false"#), "{log}");
}

/// The state letter of process `pid` in `/proc/PID/stat` (`T`: stopped).
fn process_state(pid: &str) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(") ")?.1.chars().next()
}

/// Job control as bash has it: Ctrl-Z stops the foreground job and gives
/// the prompt back (`$?` 148), `jobs` lists it, `bg` continues it in the
/// background, `kill %1` ends it (and the next prompt says so), `fg`
/// brings a stopped job back to the foreground where Ctrl-C reaches it.
/// Judged on the screen and, for the stop itself, by `/proc`.
#[test]
fn ctrl_z_stops_the_job_and_jobs_fg_bg_and_kill_reach_it() {
    let mut s = Session::start("P> ");
    s.expect("P> ");
    s.send(b"sleep 31\r");
    std::thread::sleep(Duration::from_millis(300));
    s.send(b"\x1a");
    s.expect("[1]+  Stopped                 sleep 31");
    s.expect("P> ");
    s.send(b"echo status=$?; jobs -p\r");
    s.expect("status=148");
    s.send(b"jobs\r");
    s.expect("[1]+  Stopped                 sleep 31");
    s.expect("P> ");
    // The job's process, from outside: stopped.
    s.send(b"echo pid=$(jobs -p)=\r");
    s.expect("\npid=");
    s.expect("=");
    let pid = s.last_number();
    assert_eq!(process_state(&pid), Some('T'), "process {pid}");
    s.expect("P> ");
    s.send(b"bg\r");
    s.expect("[1]+ sleep 31 &");
    s.expect("P> ");
    s.send(b"jobs\r");
    s.expect("[1]+  Running                 sleep 31 &");
    s.expect("P> ");
    s.send(b"kill %1\r");
    std::thread::sleep(Duration::from_millis(300));
    // Said before a prompt once the job has ended.
    s.send(b"\r");
    s.expect("[1]+  Terminated              sleep 31");
    s.expect("P> ");
    s.send(b"fg\r");
    s.expect("fg: current: no such job");
    s.expect("P> ");
    // Stopped again, then back in the foreground: Ctrl-C reaches it there.
    s.send(b"sleep 32\r");
    std::thread::sleep(Duration::from_millis(300));
    s.send(b"\x1a");
    s.expect("[1]+  Stopped                 sleep 32");
    s.expect("P> ");
    s.send(b"fg %1\r");
    s.expect("sleep 32");
    std::thread::sleep(Duration::from_millis(300));
    s.send(b"\x03");
    s.expect("P> ");
    s.send(b"echo after=$?; jobs\r");
    s.expect("after=130");
    s.expect("P> ");
    s.send(b"\x04");
    s.expect("exit");
}

/// History expansion and `history` as bash has them in an interactive
/// shell: `!!` runs the last line again (echoed first), a quoted `!!`
/// stays, an event that names nothing is said and runs nothing, and a
/// line built from history is checked like any other: `echo python3`
/// then `!$ -c …` is refused, the interpreter never runs.
#[test]
fn history_expansion_reruns_lines_and_what_it_builds_is_checked() {
    let mut s = Session::start("P> ");
    s.expect("P> ");
    s.send(b"echo one-$((40+2))\r");
    s.expect("one-42");
    s.expect("P> ");
    s.send(b"!!\r");
    s.expect("echo one-$((40+2))");
    s.expect("one-42");
    s.expect("P> ");
    s.send(b"echo '!!'\r");
    s.expect("\n!!");
    s.expect("P> ");
    s.send(b"!nope\r");
    s.expect("!nope: event not found");
    s.expect("P> ");
    s.send(b"echo python3\r");
    s.expect("P> ");
    s.send(b"!$ -c 'print(6*7)'\r");
    s.expect("denied: \"python3\"");
    s.expect("P> ");
    s.send(b"history\r");
    s.expect("    1  echo one-$((40+2))");
    s.expect("    2  echo one-$((40+2))");
    s.expect("    5  python3 -c 'print(6*7)'");
    s.expect("P> ");
    assert!(!s.term.seen.contains("42\r\n"), "{}", s.term.seen);
    // `history -c` empties the one history: ↑ then finds nothing to
    // recall (the editor kept its own copy, and recalled `history -c`).
    s.send(b"history -c\r");
    s.expect("P> ");
    s.send(b"\x1b[Aecho after-clear\r");
    s.expect("after-clear\r\n");
    s.expect("P> ");
    s.send(b"history\r");
    s.expect("    1  echo after-clear");
    s.expect("P> ");
    s.send(b"\x04");
    s.expect("exit");
}

/// The line editor's Tab, Ctrl-R and Ctrl-L, judged on the screen: Tab
/// completes a file name and a command name, Ctrl-R finds an earlier line
/// as it is typed and Enter runs it, Ctrl-L clears the screen and shows
/// the prompt and the line again.
#[test]
fn tab_completes_ctrl_r_searches_and_ctrl_l_clears() {
    let mut s = Session::start("P> ");
    std::fs::write(s.work.path().join("notes-alpha.txt"), "alpha-body\n").expect("write");
    s.expect("P> ");
    s.send(b"cat notes-a\t");
    s.expect("lpha.txt ");
    s.send(b"\r");
    s.expect("alpha-body");
    s.expect("P> ");
    s.send(b"ech\t");
    s.expect("o ");
    s.send(b"from-tab\r");
    s.expect("from-tab\r\n");
    s.expect("P> ");
    s.send(b"\x12cat n");
    s.expect("(reverse-i-search)`cat n': cat notes-alpha.txt");
    s.send(b"\r");
    s.expect("alpha-body");
    s.expect("P> ");
    s.send(b"echo kept\x0c");
    s.expect("\x1b[H\x1b[2J\rP> echo kept");
    s.send(b"\r");
    s.expect("kept\r\n");
    s.expect("P> ");
    s.send(b"\x04");
    s.expect("exit");
}

/// `bash` alone at the terminal would be an interactive shell in bash,
/// reading the terminal; guard-sh's new shells never read it, so it says
/// so and the session goes on, while `bash -c` (and `bash -i -c`) runs.
#[test]
fn bash_alone_at_the_terminal_is_refused_with_a_message() {
    let mut s = Session::start("$ ");
    s.expect("$ ");
    s.send(b"bash; echo status=$?\r");
    s.expect("an interactive new shell is not supported");
    s.expect("status=2");
    s.send(b"bash -c 'echo nested-ran'\r");
    s.expect("nested-ran");
    s.expect("$ ");
    // `-i` with text to run reads nothing from the terminal: it runs.
    s.send(b"bash -i; echo status=$?\r");
    s.expect("an interactive new shell is not supported");
    s.expect("status=2");
    s.send(b"bash -i -c 'echo i-ran'\r");
    s.expect("i-ran");
    s.expect("$ ");
    s.send(b"\x04");
    s.expect("exit");
}
