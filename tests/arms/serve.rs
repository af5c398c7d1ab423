//! The line server (`guard-sh --serve`) and its client (`guard-sh-client`,
//! the built arm's `bash/guard-sh`): a served line is the line guard-sh
//! runs, judged beside guard-sh run directly; the client's signals reach
//! the line's processes; and the client tells its line to no process but
//! the server (a process that took its name learns nothing). Whether a
//! line was served is read from the audit log: a served line's session is
//! recorded by a worker and names the client's pid (`client`); a client
//! that runs guard-sh itself keeps its pid through `execve`.

#![allow(clippy::expect_used)] // test code reports failures by panicking

use serde_json::Value;
use std::io::{BufRead, Read};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

struct Fixture {
    root: tempfile::TempDir,
    definition: Value,
}

impl Fixture {
    /// `arm-build tea`, `tea` a copy of `echo`.
    fn new() -> Fixture {
        let root = tempfile::tempdir().expect("tempdir");
        let definition = crate::built_tea_arm(root.path());
        Fixture { root, definition }
    }

    fn shell(&self) -> &str {
        self.definition["shell"]["path"]
            .as_str()
            .expect("shell.path")
    }

    fn work(&self) -> PathBuf {
        PathBuf::from(
            self.definition["shell"]["workDir"]
                .as_str()
                .expect("workDir"),
        )
    }

    fn audit_log(&self) -> PathBuf {
        PathBuf::from(self.definition["auditLog"].as_str().expect("auditLog"))
    }

    /// `program` with the arm's variables (PATH its bin folder), in `work/`.
    fn command(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env_clear().current_dir(self.work());
        for (k, v) in self.definition["shell"]["env"]
            .as_object()
            .expect("shell.env")
        {
            c.env(k, v.as_str().expect("string"));
        }
        c
    }

    /// Start `guard-sh --serve` with the arm's variables.
    fn serve(&self) -> Server {
        let mut child = self
            .command(env!("CARGO_BIN_EXE_guard-sh"))
            .arg("--serve")
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the server");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("the server's address");
        assert!(line.contains(' '), "address: {line:?}");
        Server {
            child,
            address: line.trim_end().to_string(),
        }
    }

    /// The shell (the client) running `-c line`, told `address`.
    fn client(&self, address: Option<&str>, line: &str) -> Command {
        let mut c = self.command(self.shell());
        c.args(["-c", line]);
        if let Some(address) = address {
            c.env("GUARD_SH_SERVER", address);
        }
        c
    }

    /// The command-mode sessions the log recorded for `line`: each one's
    /// pid and, for a served line, its client's.
    fn sessions(&self, line: &str) -> Vec<(u64, Option<u64>)> {
        let log = std::fs::read_to_string(self.audit_log()).unwrap_or_default();
        log.lines()
            .map(|l| serde_json::from_str::<Value>(l).expect("a JSON record"))
            .filter(|r| r["type"] == "session" && r["mode"] == "command")
            .filter(|r| r["argv"].as_array().and_then(|a| a.last()) == Some(&Value::from(line)))
            .filter_map(|r| Some((r["pid"].as_u64()?, r["client"].as_u64())))
            .collect()
    }

    /// Whether a worker ran `line` for the client `pid`.
    fn served(&self, line: &str, pid: u32) -> bool {
        self.sessions(line)
            .iter()
            .any(|&(worker, client)| client == Some(u64::from(pid)) && worker != u64::from(pid))
    }
}

struct Server {
    child: Child,
    address: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Run `c`, returning its output and its pid.
fn run(c: &mut Command) -> (Output, u32) {
    let child = c
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let pid = child.id();
    (child.wait_with_output().expect("wait"), pid)
}

fn status(o: &Output) -> (Option<i32>, Option<i32>) {
    (o.status.code(), o.status.signal())
}

#[test]
fn a_served_line_is_the_line_guard_sh_runs() {
    let f = Fixture::new();
    let server = f.serve();
    std::fs::write(f.work().join("in.txt"), "b\na\n").expect("write input");
    let lines = [
        "tea --version; echo \"$0\" \"$#\"",
        "echo out; echo err >&2; exit 3",
        "sort < in.txt | head -n 1; pwd",
        "umask; cd ..; pwd; echo $PWD",
        "python3 -c 'print(1)'",
        "cat ../harness-home/.claude.json",
        "kill -TERM $$; echo not reached",
        "echo $GUARD_SH_SERVER; printenv GUARD_SH_SERVER; echo status $?",
        "if then",
    ];
    for line in lines {
        let (served, pid) = run(&mut f.client(Some(&server.address), line));
        assert!(
            f.served(line, pid),
            "{line}: not served ({:?})",
            f.sessions(line)
        );
        let (direct, _) = run(f
            .command(env!("CARGO_BIN_EXE_guard-sh"))
            .arg0(f.shell())
            .args(["-c", line]));
        assert_eq!(text(&served.stdout), text(&direct.stdout), "{line}: stdout");
        assert_eq!(text(&served.stderr), text(&direct.stderr), "{line}: stderr");
        assert_eq!(status(&served), status(&direct), "{line}: status");
    }
    // The refused line was refused in the served run too (126), and the
    // signal ended the client as it ended guard-sh.
    let (o, _) = run(&mut f.client(Some(&server.address), "kill -TERM $$"));
    assert_eq!(o.status.signal(), Some(libc::SIGTERM));
    let (o, _) = run(&mut f.client(Some(&server.address), "python3 -c 'print(1)'"));
    assert_eq!(o.status.code(), Some(126), "{}", text(&o.stderr));
}

#[test]
fn the_client_hands_over_its_descriptors_folder_umask_and_ignored_signals() {
    let f = Fixture::new();
    let server = f.serve();
    std::fs::create_dir(f.work().join("sub")).expect("mkdir sub");
    let out3 = f.work().join("fd3.txt");
    let line = "echo three >&3; pwd; umask; trap -p; echo closed >&4";
    let run_with = |address: Option<&str>| {
        let c = f.client(address, line);
        // The program under test runs through a shell that sets its
        // state: fd 3 open on a file, fd 4 closed, umask 077, SIGINT
        // ignored, the folder work/sub.
        let shell = c.get_program().to_owned();
        let mut outer = Command::new("/bin/sh");
        outer
            .args([
                "-c",
                "trap '' INT; umask 077; cd sub && exec \"$0\" -c \"$1\" 3>\"$2\" 4>&-",
            ])
            .arg(shell)
            .arg(line)
            .arg(&out3)
            .env_clear()
            .envs(
                c.get_envs()
                    .filter_map(|(k, v)| Some((k.to_owned(), v?.to_owned()))),
            )
            .current_dir(f.work());
        let (o, pid) = run(&mut outer);
        let fd3 = std::fs::read_to_string(&out3).expect("fd 3's file");
        (o, pid, fd3)
    };
    let (served, pid, served_fd3) = run_with(Some(&server.address));
    assert!(f.served(line, pid), "{:?}", f.sessions(line));
    let (direct, _, direct_fd3) = run_with(None);
    assert_eq!(served_fd3, "three\n");
    assert_eq!(direct_fd3, "three\n");
    assert_eq!(text(&served.stdout), text(&direct.stdout));
    assert!(
        text(&served.stdout).contains("/work/sub\n0077\n"),
        "{}",
        text(&served.stdout)
    );
    assert!(
        text(&served.stdout).contains("SIGINT"),
        "{}",
        text(&served.stdout)
    );
    assert_eq!(text(&served.stderr), text(&direct.stderr));
    assert!(
        text(&served.stderr).contains("4"),
        "{}",
        text(&served.stderr)
    );
    assert_eq!(status(&served), status(&direct));
}

/// Whether a process with exactly this command line exists.
fn running(cmdline: &str) -> bool {
    std::fs::read_dir("/proc")
        .expect("/proc")
        .flatten()
        .any(|e| std::fs::read(e.path().join("cmdline")).is_ok_and(|c| text(&c) == cmdline))
}

fn wait_until(what: impl Fn() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if what() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// The harness ends a line by signalling the shell it started (the
/// client); the line's processes run in the server's worker, so the client
/// passes the signal on, or, killed outright, its closing end makes the
/// server kill the worker's process group.
#[test]
fn ending_the_client_ends_the_lines_processes() {
    let f = Fixture::new();
    let server = f.serve();
    for (signal, seconds) in [
        (libc::SIGTERM, "41.25"),
        (libc::SIGINT, "41.5"),
        (libc::SIGKILL, "41.75"),
    ] {
        let sleeper = format!("sleep\0{seconds}\0");
        let line = format!("sleep {seconds}; echo after");
        let mut child = f
            .client(Some(&server.address), &line)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn the client");
        assert!(
            wait_until(|| running(&sleeper)),
            "the line's sleep never ran"
        );
        // SAFETY: kill(2) of our own child.
        unsafe { libc::kill(child.id() as libc::pid_t, signal) };
        let status = child.wait().expect("wait");
        assert_eq!(status.signal(), Some(signal), "{status:?}");
        let mut out = String::new();
        child
            .stdout
            .take()
            .expect("stdout")
            .read_to_string(&mut out)
            .expect("read");
        assert!(!out.contains("after"), "{out}");
        assert!(
            wait_until(|| !running(&sleeper)),
            "signal {signal}: the line's sleep outlived its client"
        );
    }
}

/// A line that leaves a job running ends as bash's does: the client exits
/// with the line's status at once, and the job goes on (the server ends a
/// line's processes only when its client goes before the status).
#[test]
fn a_job_the_line_left_outlives_its_client() {
    let f = Fixture::new();
    let server = f.serve();
    let sleeper = "sleep\x0042.125\x00";
    let started = Instant::now();
    // Its output to a file: a pipe would stay open as long as the job
    // holds it (in bash too).
    let out = f.root.path().join("job.out");
    let status = f
        .client(Some(&server.address), "sleep 42.125 & echo started")
        .stdout(std::fs::File::create(&out).expect("create"))
        .status()
        .expect("run the client");
    assert_eq!(status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&out).expect("read"), "started\n");
    assert!(started.elapsed() < Duration::from_secs(5));
    std::thread::sleep(Duration::from_millis(300));
    assert!(running(sleeper), "the job ended with its client");
    // Not this test's to leave behind.
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        if std::fs::read(entry.path().join("cmdline")).is_ok_and(|c| text(&c) == sleeper)
            && let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|p| p.parse::<i32>().ok())
        {
            // SAFETY: kill(2) of the job this test's line started.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

/// A process that took the server's name (the server ended; another
/// bound the name) gets nothing: the client checks who listens (the pid
/// the kernel gives, and when that process started) before it sends a
/// byte or a descriptor, and runs guard-sh itself. Tried with a wrong pid,
/// and with the listener's own pid but another start time (a reused pid).
#[test]
fn a_process_that_took_the_name_gets_no_line() {
    let f = Fixture::new();
    let name = format!("guard-sh-test-{}", std::process::id());
    let fd = {
        let (address, len) = guard_sh::cli::serve::abstract_address(name.as_bytes());
        // SAFETY: socket, bind and listen on a fresh descriptor with a
        // valid address.
        unsafe {
            let fd = libc::socket(libc::AF_UNIX, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
            assert!(fd >= 0);
            assert_eq!(
                libc::bind(fd, (&address as *const libc::sockaddr_un).cast(), len),
                0
            );
            assert_eq!(libc::listen(fd, 4), 0);
            fd
        }
    };
    let squatter = std::process::id();
    for address in [format!("{name} 1 100"), format!("{name} {squatter} 100")] {
        let peer = std::thread::spawn(move || {
            // SAFETY: accept on the listening socket above; reading into a
            // live buffer, with any descriptors counted from the control
            // data, until the client's end closes.
            unsafe {
                let conn = libc::accept(fd, std::ptr::null_mut(), std::ptr::null_mut());
                assert!(conn >= 0);
                let mut buf = [0u8; 4096];
                let mut control = [0u64; 64];
                let mut iov = libc::iovec {
                    iov_base: buf.as_mut_ptr().cast(),
                    iov_len: buf.len(),
                };
                let mut msg: libc::msghdr = std::mem::zeroed();
                msg.msg_iov = &mut iov;
                msg.msg_iovlen = 1;
                msg.msg_control = control.as_mut_ptr().cast();
                msg.msg_controllen = std::mem::size_of_val(&control) as _;
                let n = libc::recvmsg(conn, &mut msg, 0);
                libc::close(conn);
                (n, msg.msg_controllen)
            }
        });
        let line = "tea hello";
        let (o, pid) = run(&mut f.client(Some(&address), line));
        let (received, control) = peer.join().expect("the peer");
        assert_eq!(
            received, 0,
            "{address}: the peer received bytes of the line"
        );
        assert_eq!(control, 0, "{address}: the peer received descriptors");
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        assert_eq!(text(&o.stdout), "hello\n");
        assert!(
            f.sessions(line).contains(&(u64::from(pid), None)),
            "guard-sh ran in the client's process: {:?}",
            f.sessions(line)
        );
    }
    // SAFETY: closing the listening socket this test opened.
    unsafe { libc::close(fd) };
}

/// A line the server cannot serve as asked (another audit log) runs in a
/// guard-sh of its own, with the same result.
#[test]
fn a_line_asking_for_another_log_runs_guard_sh_itself() {
    let f = Fixture::new();
    let server = f.serve();
    let other = f.root.path().join("other.jsonl");
    let line = "tea other-log";
    let (o, pid) = run(f
        .client(Some(&server.address), line)
        .env("GUARD_SH_AUDIT", &other));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let log = std::fs::read_to_string(&other).expect("the other log");
    assert!(log.contains(&format!("\"pid\":{pid},")), "{log}");
    assert!(f.sessions(line).is_empty());
}

/// The client takes the trial's key out of its environment block once its
/// request is sent, and puts it back when the line is sent back: the
/// guard-sh it then becomes seals every record with that key (with zeros
/// in its place, no record would verify).
#[test]
fn a_line_sent_back_runs_with_the_trial_key_put_back() {
    use guard_sh::audit::record::unseal;
    use guard_sh::audit::trial::TrialKey;
    let f = Fixture::new();
    let server = f.serve();
    let key = TrialKey::generate().expect("key");
    let other = f.root.path().join("sealed.jsonl");
    let line = "tea sealed";
    let (o, pid) = run(f
        .client(Some(&server.address), line)
        .env("GUARD_SH_AUDIT", &other)
        .env("GUARD_SH_TRIAL", "trial-1")
        .env("GUARD_SH_TRIAL_SEAL", key.to_hex()));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let log = std::fs::read_to_string(&other).expect("the other log");
    assert!(log.contains(&format!("\"pid\":{pid},")), "{log}");
    let records: Vec<&str> = log.lines().collect();
    assert!(records.len() >= 4, "{log}");
    for record in records {
        let (covered, mac) = unseal(record.as_bytes()).expect("a sealed record");
        assert!(
            key.verifies(&covered, &mac),
            "not sealed with the key: {record}"
        );
    }
}

/// The server names no relative path: it would hold for its own folder
/// only.
#[test]
fn a_server_refuses_a_policy_of_relative_paths() {
    let f = Fixture::new();
    let policy = Path::new(f.definition["policy"].as_str().expect("policy"));
    let mut json: Value =
        serde_json::from_slice(&std::fs::read(policy).expect("policy")).expect("JSON");
    json["sandbox"]["writable"] = serde_json::json!(["work"]);
    let relative = f.root.path().join("relative.json");
    std::fs::write(&relative, json.to_string()).expect("write");
    let o = f
        .command(env!("CARGO_BIN_EXE_guard-sh"))
        .args(["--serve", "--policy"])
        .arg(&relative)
        .env_remove("GUARD_SH_POLICY_SHA256")
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("relative"), "{}", text(&o.stderr));
}
