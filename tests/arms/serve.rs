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
use std::os::fd::AsRawFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

struct Fixture {
    root: tempfile::TempDir,
    definition: Value,
    /// Variables every program of the fixture gets beside the arm's.
    extra_env: Vec<(&'static str, &'static str)>,
}

impl Fixture {
    /// `arm-build tea`, `tea` a copy of `echo`.
    fn new() -> Fixture {
        Fixture::with_env(&[])
    }

    /// [`Fixture::new`], its server and clients also given `extra_env`.
    fn with_env(extra_env: &[(&'static str, &'static str)]) -> Fixture {
        let root = tempfile::tempdir().expect("tempdir");
        let definition = crate::built_tea_arm(root.path());
        Fixture {
            root,
            definition,
            extra_env: extra_env.to_vec(),
        }
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
        c.envs(self.extra_env.iter().copied());
        c
    }

    /// Start `guard-sh --serve` with the arm's variables.
    fn serve(&self) -> Server {
        self.serve_with(&mut self.command(env!("CARGO_BIN_EXE_guard-sh")))
    }

    /// Start `server` (guard-sh, set up as the caller likes) as `--serve`.
    fn serve_with(&self, server: &mut Command) -> Server {
        let mut child = server
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
        use std::os::unix::process::CommandExt;
        let mut c = self.command(self.shell());
        c.args(["-c", line]);
        // The keyboard's signals as a terminal leaves them, whatever this
        // test was started with (a script started in the background
        // ignores SIGINT, and a shell keeps what it started ignored).
        // SAFETY: only signal() between fork and exec.
        unsafe {
            c.pre_exec(|| {
                libc::signal(libc::SIGINT, libc::SIG_DFL);
                libc::signal(libc::SIGQUIT, libc::SIG_DFL);
                Ok(())
            });
        }
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
    // The client opens a marker's descriptor 3 before it connects (it
    // would run guard-sh itself without): a process that holds one.
    let mut holder = Command::new("/bin/sleep");
    holder.arg("60");
    // SAFETY: dup2 of an open descriptor between fork and exec.
    unsafe {
        holder.pre_exec(|| {
            if libc::dup2(0, 3) != 3 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut holder = holder.stdin(Stdio::null()).spawn().expect("sleep");
    let marker = holder.id();
    for address in [
        format!("{name} 1 100 {marker}"),
        format!("{name} {squatter} 100 {marker}"),
    ] {
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
    let _ = holder.kill();
    let _ = holder.wait();
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

/// The caller's confinement, set up between fork and exec of the client.
type Setup = fn() -> std::io::Result<()>;

/// Run `line` through the client under `setup`, told the server's
/// `address` and not told it (the client then runs guard-sh itself, as
/// with `guard-sh-launch --no-server`): both outputs, and whether the
/// first was served.
fn with_and_without_server(
    f: &Fixture,
    address: &str,
    line: &str,
    setup: Setup,
) -> (Output, Output, bool) {
    let run_under = |address: Option<&str>| {
        let mut c = f.client(address, line);
        // SAFETY: `setup` makes only system calls on plain data.
        unsafe { c.pre_exec(setup) };
        run(&mut c)
    };
    let (served, pid) = run_under(Some(address));
    let was_served = f.served(line, pid);
    let (direct, _) = run_under(None);
    (served, direct, was_served)
}

fn assert_same(line: &str, served: &Output, direct: &Output) {
    assert_eq!(text(&served.stdout), text(&direct.stdout), "{line}: stdout");
    assert_eq!(text(&served.stderr), text(&direct.stderr), "{line}: stderr");
    assert_eq!(status(served), status(direct), "{line}: status");
}

fn is_root() -> bool {
    // SAFETY: geteuid takes nothing.
    unsafe { libc::geteuid() == 0 }
}

/// Descriptors the server's starter left open reach no served line: a
/// line sees only its client's (here none past 2), as guard-sh run by the
/// client would. Judged by the files themselves: the one open for
/// appending is unchanged, the one open for reading is not printed.
#[test]
fn a_served_line_gets_no_descriptor_its_client_lacks() {
    let f = Fixture::new();
    let appended = f.root.path().join("operator-log.txt");
    let secret = f.root.path().join("operator-secret.txt");
    std::fs::write(&appended, "before\n").expect("write");
    std::fs::write(&secret, "the operator's secret\n").expect("write");
    let write = std::fs::OpenOptions::new()
        .append(true)
        .open(&appended)
        .expect("open for appending");
    let read = std::fs::File::open(&secret).expect("open for reading");
    let (write, read) = (write.as_raw_fd(), read.as_raw_fd());
    let mut server = f.command(env!("CARGO_BIN_EXE_guard-sh"));
    // SAFETY: dup2 of descriptors this process holds, between fork and exec.
    unsafe {
        server.pre_exec(move || {
            for (from, to) in [(write, 100), (read, 101), (read, 250)] {
                if libc::dup2(from, to) != to {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    let server = f.serve_with(&mut server);
    let line = "echo pwned >&100; cat <&101; cat <&250; echo done";
    let (served, direct, was_served) =
        with_and_without_server(&f, &server.address, line, || Ok(()));
    assert!(was_served, "{:?}", f.sessions(line));
    assert_same(line, &served, &direct);
    assert_eq!(
        std::fs::read_to_string(&appended).expect("read"),
        "before\n"
    );
    assert!(!text(&served.stdout).contains("secret"));
    assert!(
        text(&served.stderr).contains("100"),
        "{}",
        text(&served.stderr)
    );
}

/// The client's resource limits hold in its served line: with a 64 KiB
/// file size limit, a command writing 200,000 bytes stops at 65,536, as
/// in guard-sh run by the client.
#[test]
fn a_served_line_keeps_its_clients_resource_limits() {
    let f = Fixture::new();
    let server = f.serve();
    let line = "head -c 200000 /dev/zero > big.bin; echo status $?; wc -c < big.bin";
    let (served, direct, was_served) = with_and_without_server(&f, &server.address, line, || {
        let limit = libc::rlimit {
            rlim_cur: 65536,
            rlim_max: 65536,
        };
        // SAFETY: setrlimit with a valid rlimit; SIGXFSZ ignored so
        // the write fails with EFBIG instead of ending the writer.
        unsafe {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    });
    assert!(was_served, "{:?}", f.sessions(line));
    assert_same(line, &served, &direct);
    assert!(
        text(&served.stdout).ends_with("65536\n"),
        "{}",
        text(&served.stdout)
    );
    let size = std::fs::metadata(f.work().join("big.bin"))
        .expect("big.bin")
        .len();
    assert_eq!(size, 65536);
}

/// A Landlock domain of the caller's own that forbids making regular
/// files anywhere. As root no `no_new_privs` is needed (nor set), so the
/// domain is all that differs from the server's start.
fn forbid_making_files() -> std::io::Result<()> {
    #[repr(C)]
    struct RulesetAttr {
        handled_access_fs: u64,
    }
    const MAKE_REG: u64 = 1 << 8;
    let attr = RulesetAttr {
        handled_access_fs: MAKE_REG,
    };
    // SAFETY: Landlock's system calls with a valid attribute and its size.
    unsafe {
        if libc::geteuid() != 0 {
            libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
        }
        let fd = libc::syscall(
            libc::SYS_landlock_create_ruleset,
            &attr as *const RulesetAttr,
            std::mem::size_of::<RulesetAttr>(),
            0,
        );
        if fd < 0 || libc::syscall(libc::SYS_landlock_restrict_self, fd, 0) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// A caller that confines its own shell call with Landlock gets no line
/// run outside that domain: the line runs in the caller (not served), and
/// the file it tries to create is not created, as with no server.
#[test]
fn a_caller_in_a_landlock_domain_of_its_own_is_not_served() {
    // guard-sh's own Landlock layers on and off: the check is the server's,
    // whatever guard-sh enforces.
    for extra_env in [&[][..], &[("GUARD_SH_LANDLOCK", "off")][..]] {
        let f = Fixture::with_env(extra_env);
        let server = f.serve();
        let line = "echo x > made.txt; echo status $?";
        let (served, direct, was_served) =
            with_and_without_server(&f, &server.address, line, forbid_making_files);
        assert!(!was_served, "{extra_env:?}: {:?}", f.sessions(line));
        assert_same(line, &served, &direct);
        assert!(
            !f.work().join("made.txt").exists(),
            "{extra_env:?}: the file was made"
        );
        assert!(
            text(&served.stdout).contains("status 1"),
            "{extra_env:?}: {}",
            text(&served.stdout)
        );
        // The same line from a caller without a domain of its own is
        // served and makes the file: the check tells the two apart.
        let (_, plain) = run(&mut f.client(Some(&server.address), line));
        assert!(
            f.served(line, plain),
            "{extra_env:?}: {:?}",
            f.sessions(line)
        );
        assert!(f.work().join("made.txt").exists(), "{extra_env:?}");
    }
}

/// A caller in another mount namespace (here a tmpfs over `work/sub`)
/// gets its line run in that namespace: the file lands in its tmpfs, not
/// in the folder the server sees.
#[test]
fn a_caller_in_another_mount_namespace_is_not_served() {
    if !is_root() {
        crate::audit_support::skipped(
            "a_caller_in_another_mount_namespace_is_not_served",
            "making a mount namespace needs root",
        );
        return;
    }
    let f = Fixture::new();
    std::fs::create_dir(f.work().join("sub")).expect("mkdir sub");
    let server = f.serve();
    let line = "echo x > sub/f.txt; cat sub/f.txt";
    fn own_tmpfs_over_sub() -> std::io::Result<()> {
        // SAFETY: unshare and mount with NUL-terminated strings, in the
        // child only (its cwd is work/).
        unsafe {
            if libc::unshare(libc::CLONE_NEWNS) != 0
                || libc::mount(
                    std::ptr::null(),
                    c"/".as_ptr(),
                    std::ptr::null(),
                    libc::MS_REC | libc::MS_PRIVATE,
                    std::ptr::null(),
                ) != 0
                || libc::mount(
                    c"tmpfs".as_ptr(),
                    c"sub".as_ptr(),
                    c"tmpfs".as_ptr(),
                    0,
                    std::ptr::null(),
                ) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    }
    let (served, direct, was_served) =
        with_and_without_server(&f, &server.address, line, own_tmpfs_over_sub);
    assert!(!was_served, "{:?}", f.sessions(line));
    assert_same(line, &served, &direct);
    assert_eq!(text(&served.stdout), "x\n", "{}", text(&served.stderr));
    assert!(
        !f.work().join("sub/f.txt").exists(),
        "written in the server's namespace"
    );
}

/// A caller with `no_new_privs`, or with a seccomp filter of its own, is
/// confined beyond what the server reproduces: it is not served.
#[test]
fn a_caller_with_no_new_privs_or_a_seccomp_filter_is_not_served() {
    let f = Fixture::new();
    let server = f.serve();
    fn no_new_privs() -> std::io::Result<()> {
        // SAFETY: prctl with integer arguments.
        if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }
    fn allow_all_filter() -> std::io::Result<()> {
        // One instruction: return SECCOMP_RET_ALLOW.
        let mut allow = [libc::sock_filter {
            code: 0x06,
            jt: 0,
            jf: 0,
            k: 0x7fff_0000,
        }];
        let program = libc::sock_fprog {
            len: 1,
            filter: allow.as_mut_ptr(),
        };
        // SAFETY: prctl with a valid filter program.
        unsafe {
            if libc::geteuid() != 0 {
                libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
            }
            if libc::prctl(
                libc::PR_SET_SECCOMP,
                libc::SECCOMP_MODE_FILTER,
                &program as *const libc::sock_fprog,
            ) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    }
    let cases: [(&str, Setup); 3] = [
        ("tea nnp", no_new_privs),
        ("tea seccomp", allow_all_filter),
        ("tea plain", || Ok(())),
    ];
    for (line, setup) in cases {
        let (served, direct, was_served) =
            with_and_without_server(&f, &server.address, line, setup);
        assert_eq!(
            was_served,
            line == "tea plain",
            "{line}: {:?}",
            f.sessions(line)
        );
        assert_same(line, &served, &direct);
    }
}

/// The server's marker ends with the server (a parent-death signal could
/// not reach it from inside the server's Landlock domain).
#[test]
fn the_marker_ends_with_its_server() {
    let f = Fixture::new();
    let mut server = f.serve();
    let marker = server
        .address
        .split(' ')
        .nth(3)
        .expect("the marker's pid")
        .to_string();
    let alive = || {
        std::fs::read_to_string(format!("/proc/{marker}/stat"))
            .is_ok_and(|stat| !stat.rsplit(')').next().unwrap_or("").starts_with(" Z"))
    };
    assert!(alive(), "the marker runs");
    server.child.kill().expect("kill the server");
    let _ = server.child.wait();
    assert!(wait_until(|| !alive()), "the marker outlived its server");
}
