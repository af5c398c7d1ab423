//! The `guard-sh` command line, parsed by hand the way bash parses its own
//! (`-lc`, `-c -l`, `-o OPTION`, `NAME` and `ARG…` after a `-c` string), and
//! the session driver: load and pin the policy, open the audit log, then run
//! the `-c` string, a script, or stdin line by line (interactive with a
//! prompt on a terminal). Exit statuses: denied 126, not found 127, syntax
//! error 2, a signal 128+N, otherwise the last command's.

use crate::audit::{self, AuditSink, Event, FileSink, Redactor};
use crate::cli::Exit;
use crate::interp::{AuditReopen, Shell, Startup};
use crate::os::signals;
use crate::policy::pin;
use crate::policy::{Policy, SandboxMode};
use crate::sandbox::landlock;
use crate::sandbox::supervisor::Supervisor;
use crate::syntax;
use crate::system::real::RealSystem;
use crate::system::{Supervision, Terminal};
use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;
use std::rc::Rc;

/// What the command line asked for.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Invocation {
    /// `-c` was given; the string is `command`.
    pub dash_c: bool,
    /// The `-c` string.
    pub command: Option<Vec<u8>>,
    /// `$0` (NAME after a `-c` string, or the script path).
    pub name: Option<Vec<u8>>,
    /// A script to run (no `-c`).
    pub script: Option<Vec<u8>>,
    /// The positional parameters (`$1`…).
    pub args: Vec<Vec<u8>>,
    /// `-l`/`--login`.
    pub login: bool,
    /// `-i`: interactive even without a terminal.
    pub interactive: bool,
    /// `-s`: commands from standard input, the operands are arguments.
    pub read_stdin: bool,
    /// `-e`, `+x`, …: (letter, on).
    pub letters: Vec<(char, bool)>,
    /// `-o NAME` / `+o NAME`.
    pub options: Vec<(String, bool)>,
    /// `--policy FILE`.
    pub policy: Option<PathBuf>,
    /// `--arm NAME` (refused: arms are compiled by arm-build).
    pub arm: Option<String>,
    /// `--audit FILE`.
    pub audit: Option<PathBuf>,
    /// `--explain`: print the verdict, run nothing.
    pub explain: bool,
    /// `--version`.
    pub version: bool,
    /// `--help`.
    pub help: bool,
    /// `--serve`: serve lines to `guard-sh-client` (see `cli::serve`).
    pub serve: bool,
}

/// Parse guard-sh's arguments (without `argv[0]`).
pub fn parse_args(args: &[OsString]) -> Result<Invocation, String> {
    let mut inv = Invocation::default();
    let mut i = 0;
    let mut operands: Vec<Vec<u8>> = Vec::new();
    let value = |i: &mut usize, flag: &str| -> Result<OsString, String> {
        *i += 1;
        args.get(*i)
            .cloned()
            .ok_or_else(|| format!("{flag}: option requires an argument"))
    };
    while i < args.len() {
        let a = args[i].as_bytes();
        if !operands.is_empty() {
            operands.push(a.to_vec());
            i += 1;
            continue;
        }
        if let Some(long) = a.strip_prefix(b"--") {
            let text = String::from_utf8_lossy(long).into_owned();
            let (key, inline) = match text.split_once('=') {
                Some((k, v)) => (k.to_string(), Some(OsString::from(v))),
                None => (text.clone(), None),
            };
            let take = |i: &mut usize| match &inline {
                Some(v) => Ok(v.clone()),
                None => value(i, &format!("--{key}")),
            };
            match key.as_str() {
                "" => {
                    i += 1;
                    operands.extend(args[i..].iter().map(|a| a.as_bytes().to_vec()));
                    break;
                }
                "policy" => inv.policy = Some(PathBuf::from(take(&mut i)?)),
                "arm" => inv.arm = Some(take(&mut i)?.to_string_lossy().into_owned()),
                "audit" => inv.audit = Some(PathBuf::from(take(&mut i)?)),
                "explain" => inv.explain = true,
                "login" => inv.login = true,
                "norc" | "noprofile" | "posix" | "noediting" | "restricted" => {}
                "version" => inv.version = true,
                "help" => inv.help = true,
                "serve" => inv.serve = true,
                other => return Err(format!("--{other}: invalid option")),
            }
            i += 1;
            continue;
        }
        let sign = a.first().copied();
        if (sign == Some(b'-') || sign == Some(b'+')) && a.len() > 1 {
            let on = sign == Some(b'-');
            for &c in &a[1..] {
                match c {
                    b'c' if on => inv.dash_c = true,
                    b'l' if on => inv.login = true,
                    b'i' if on => inv.interactive = true,
                    b's' if on => inv.read_stdin = true,
                    b'o' => {
                        let name = value(&mut i, "-o")?;
                        inv.options.push((name.to_string_lossy().into_owned(), on));
                    }
                    b'e' | b'u' | b'x' | b'f' | b'C' | b'v' | b'a' | b'h' | b'B' | b'm' => {
                        inv.letters.push((c as char, on))
                    }
                    other => {
                        return Err(format!(
                            "{}{}: invalid option",
                            sign.map_or('-', char::from),
                            other as char
                        ));
                    }
                }
            }
            i += 1;
            continue;
        }
        operands.push(a.to_vec());
        i += 1;
    }
    let mut operands = operands.into_iter();
    if inv.dash_c {
        inv.command = operands.next();
        if inv.command.is_none() {
            return Err("-c: option requires an argument".into());
        }
        inv.name = operands.next();
    } else if !inv.read_stdin && !inv.explain {
        inv.script = operands.next();
        inv.name = inv.script.clone();
    }
    inv.args = operands.collect();
    Ok(inv)
}

const USAGE: &str = "usage: guard-sh [--policy FILE] [--audit FILE] [-c COMMAND [NAME [ARG...]]] [-l] [-i] [-s] [-e] [-u] [-x] [-o OPTION] [SCRIPT [ARG...]]
       guard-sh --explain [-c COMMAND]    print the guard's verdict as JSON, run nothing
The policy comes from --policy FILE or GUARD_SH_POLICY; the audit log from
--audit FILE, GUARD_SH_AUDIT, the policy, or ~/.local/state/guard-sh/audit.jsonl.
";

fn say(message: &str) {
    eprintln!("guard-sh: {message}");
}

/// Run guard-sh with the process's arguments.
pub fn run(argv: Vec<OsString>) -> Result<Ran, Exit> {
    run_shell(argv, None)
}

/// How a run of guard-sh ended: its status, or a request to become the
/// line server (`--serve`), which `cli::guard_sh` carries out (the server
/// is built on this module, so this module does not call it).
pub enum Ran {
    /// The shell ran; its exit status.
    Status(u8),
    /// `--serve`: the policy loaded and pinned, its hash, and the options.
    Serve {
        /// The arm's policy.
        policy: Rc<Policy>,
        /// Its SHA-256, as the session records it.
        policy_sha256: String,
        /// The rest of the command line.
        invocation: Box<Invocation>,
    },
}

/// What a server loaded for the worker it forked (see `cli::serve`): the
/// policy, pinned and hashed, and its own session on the audit log, which
/// the worker's session copies. guard-sh's own domain is the server's.
pub(crate) struct Served<'a> {
    pub policy: Rc<Policy>,
    pub policy_sha256: String,
    pub sink: &'a FileSink,
    /// The client's pid, for the session record.
    pub client: Option<u32>,
    /// The server's trial: a served line belongs to it (and is sealed
    /// with its key), whatever the client's environment says.
    pub trial: Option<String>,
}

/// Run guard-sh with `argv` in a worker of a server, which checked that
/// `argv` and the environment ask for the policy and log it loaded.
pub(crate) fn run_served(argv: Vec<OsString>, served: &Served<'_>) -> Result<u8, Exit> {
    match run_shell(argv, Some(served))? {
        Ran::Status(status) => Ok(status),
        Ran::Serve { .. } => Err(Exit::new(2, "--serve: a served line cannot serve")),
    }
}

fn run_shell(argv: Vec<OsString>, served: Option<&Served<'_>>) -> Result<Ran, Exit> {
    // Writing to a closed pipe ends guard-sh as it ends bash.
    // SAFETY: restoring the default disposition of SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // Help names the program as it was called (`guard-bash`, a `bash` link).
    let program = argv
        .first()
        .and_then(|a| std::path::Path::new(a).file_name())
        .map_or("guard-sh".into(), |n| n.to_string_lossy().into_owned());
    let usage = USAGE
        .replace("usage: guard-sh", &format!("usage: {program}"))
        .replace(
            "       guard-sh --explain",
            &format!("       {program} --explain"),
        );
    let inv = parse_args(argv.get(1..).unwrap_or(&[])).map_err(|e| {
        say(&e);
        eprint!("{usage}");
        Exit::silent(2)
    })?;
    if inv.help {
        print!("{usage}");
        return Ok(Ran::Status(0));
    }
    if inv.version {
        match program.as_str() {
            "guard-sh" => println!("guard-sh {}", env!("CARGO_PKG_VERSION")),
            other => println!("{other} (guard-sh {})", env!("CARGO_PKG_VERSION")),
        }
        return Ok(Ran::Status(0));
    }
    if let Some(arm) = &inv.arm {
        return Err(Exit::new(
            2,
            format!(
                "--arm {arm}: not available in this build; compile the arm with `arm-build {arm} --host URL --repo OWNER/NAME --token-env VAR --out DIR` and pass --policy DIR/policy.json"
            ),
        ));
    }
    let (policy, policy_sha256) = match served {
        Some(served) => (Rc::clone(&served.policy), served.policy_sha256.clone()),
        None => load_policy(&inv)?,
    };
    if inv.serve {
        if served.is_some() {
            return Err(Exit::new(2, "--serve: a served line cannot serve"));
        }
        return Ok(Ran::Serve {
            policy,
            policy_sha256,
            invocation: Box::new(inv),
        });
    }
    if inv.explain {
        return Ok(Ran::Status(exit_code(explain(&policy, &inv))));
    }
    let enforcement = enforcement(&policy)?;
    let mut sys = RealSystem::new();
    let interactive = inv.interactive
        || (inv.command.is_none() && inv.script.is_none() && sys.isatty(0) && sys.isatty(2));
    let facts = SessionFacts {
        policy: policy.clone(),
        policy_sha256,
        enforcement,
        argv: argv
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
        cwd: std::env::current_dir()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        trial: None,
        supervise: policy.shell && Supervisor::wanted(),
    };
    let OpenAudit {
        mut sink,
        fork_base,
        redactor,
        facts,
    } = open_audit(&inv, facts, interactive, served)?;
    if served.is_none() {
        confine_self(&policy, &facts.enforcement, &mut sink)?;
    }
    // The harness's environment, less what is not the agent's to see.
    let environ: Vec<(Vec<u8>, Vec<u8>)> = std::env::vars_os()
        .filter(|(k, _)| {
            k.to_str()
                .is_some_and(|name| crate::sandbox::env::visible_to_line(&policy, name))
        })
        .map(|(k, v)| (k.into_vec(), v.into_vec()))
        .collect();
    if facts.supervise {
        supervise(&mut sys, &fork_base, &redactor, &facts);
    }
    let mut shell = Shell::new(policy.clone(), &mut sys, &mut sink, environ);
    let audit_reopen = audit_reopen(fork_base, redactor, &facts);
    configure(&mut shell, &inv, &argv, interactive, audit_reopen)?;
    crate::os::stdio::close_placeholders();
    let status = run_input(&mut shell, &inv, interactive);
    let status = shell.finish(status);
    drop(shell);
    // What a command left running is supervised after the shell is gone.
    sys.hand_over_served();
    Ok(Ran::Status(exit_code(status)))
}

/// A shell status as the process's exit code: its low eight bits, as the
/// kernel would keep them.
fn exit_code(status: i32) -> u8 {
    (status & 0xff) as u8
}

/// Load the policy named by `--policy` or `GUARD_SH_POLICY` and check it
/// against its pin; with the SHA-256 of its bytes. Every failure is
/// status 2.
fn load_policy(inv: &Invocation) -> Result<(Rc<Policy>, String), Exit> {
    let policy_path = policy_path(inv)?;
    let bytes = std::fs::read(&policy_path)
        .map_err(|e| Exit::new(2, format!("policy {}: {e}", policy_path.display())))?;
    let pin_value = std::env::var(pin::POLICY_PIN_ENV).ok();
    let sha256 = pin::verify_policy_pin(&bytes, pin_value.as_deref())
        .map_err(|e| Exit::new(2, e.to_string()))?;
    let policy =
        Policy::from_json(&policy_path, &bytes).map_err(|e| Exit::new(2, e.to_string()))?;
    Ok((Rc::new(policy), sha256))
}

/// What the session records say the kernel enforces: `landlock-abi-N` or
/// `none` (status 126 when the policy requires what the kernel lacks).
pub(crate) fn enforcement(policy: &Policy) -> Result<String, Exit> {
    match landlock::effective_abi(policy.sandbox.mode) {
        Ok(Some(abi)) => Ok(format!("landlock-abi-{abi}")),
        Ok(None) => Ok("none".to_string()),
        Err(e) => Err(Exit::new(126, format!("sandbox: {e}"))),
    }
}

/// Where a session's records go, ready to be opened: the log's path
/// (whether it is the default one), the redactor, and the trial's id and
/// key taken out of the environment.
pub(crate) struct LogStart {
    pub path: PathBuf,
    pub is_default: bool,
    pub redactor: Redactor,
    pub trial: Option<(String, audit::trial::TrialKey)>,
}

/// The [`LogStart`] of `--audit` (or the environment, the policy, the
/// default). The process stops being dumpable first: other processes of
/// the user (a command's children included) may not open
/// `/proc/<guard-sh>/fd`, `environ` or `mem`, so the descriptors and
/// memory guard-sh keeps for itself stay its own (root keeps the access,
/// CAP_SYS_PTRACE; against root, Landlock's scoping of each command's
/// domain is what holds); and the trial's key leaves the environment (and
/// its bytes in `/proc/self/environ`) before any line could read it. Every
/// failure is status 126.
pub(crate) fn log_start(
    audit_flag: Option<&std::path::Path>,
    policy: &Policy,
) -> Result<LogStart, Exit> {
    let (path, is_default) =
        audit::resolve_audit_path_from_env(audit_flag, policy).map_err(|e| unavailable(&e))?;
    let redactor = Redactor::from_policy(&policy.audit).map_err(|e| unavailable(&e))?;
    // SAFETY: prctl with integer arguments only.
    unsafe {
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
    let trial = audit::trial::take_from_env();
    Ok(LogStart {
        path,
        is_default,
        redactor,
        trial,
    })
}

/// Status 126: nothing may run unrecorded.
pub(crate) fn unavailable(e: &dyn std::fmt::Display) -> Exit {
    Exit::new(126, format!("audit log unavailable: {e}"))
}

/// The policy file `--policy` or `GUARD_SH_POLICY` names (status 2 when
/// neither does).
pub(crate) fn policy_path(inv: &Invocation) -> Result<PathBuf, Exit> {
    inv.policy
        .clone()
        .or_else(|| {
            std::env::var_os("GUARD_SH_POLICY")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        })
        .ok_or_else(|| Exit::new(2, "no policy: set GUARD_SH_POLICY or pass --policy FILE (guard-sh --help shows the usage)"))
}

/// What every session record of this process says about it.
struct SessionFacts {
    policy: Rc<Policy>,
    /// The SHA-256 of the policy file's bytes, hashed once (for the pin)
    /// for every session record.
    policy_sha256: String,
    enforcement: String,
    argv: Vec<String>,
    cwd: String,
    trial: Option<String>,
    /// Whether commands run under the exec supervisor: read once, so the
    /// session record says what the shell then does.
    supervise: bool,
}

impl SessionFacts {
    /// The session record of a process of this run in `mode`; a forked
    /// copy's commands are supervised as the shell's are.
    fn event(&self, mode: &str) -> Event {
        let mut session = audit::session_event(
            &self.policy,
            &self.policy_sha256,
            &self.enforcement,
            &self.argv,
            mode,
            &self.cwd,
            self.trial.as_deref(),
        );
        if let Event::Session { supervised, .. } = &mut session {
            *supervised = self.supervise;
        }
        session
    }
}

/// The audit log, open with the session recorded.
struct OpenAudit {
    /// The shell's own session.
    sink: FileSink,
    /// The descriptor forked copies and the supervisor record through.
    fork_base: Rc<FileSink>,
    redactor: Redactor,
    /// The facts, with the trial's id.
    facts: Rc<SessionFacts>,
}

/// Open the audit log and record the session; a served line records
/// through a copy of its server's descriptor (`served`), as a forked shell
/// does. Every failure is status 126: nothing may run unrecorded.
fn open_audit(
    inv: &Invocation,
    mut facts: SessionFacts,
    interactive: bool,
    served: Option<&Served<'_>>,
) -> Result<OpenAudit, Exit> {
    let policy = Rc::clone(&facts.policy);
    let LogStart {
        path: log_path,
        is_default,
        redactor,
        trial,
    } = log_start(inv.audit.as_deref(), &policy)?;
    // A served line redacts as its server does (the same policy's
    // secrets), with what the server's records taught it.
    let redactor = served.map_or(redactor, |s| s.sink.redactor().clone());
    let existed = log_path.exists();
    // The log's descriptor is claimed among guard-sh's private ones (256
    // and up), out of the way of the agent's `exec 3>file`.
    let mut sink = match served {
        Some(served) => served.sink.fork_session(redactor.clone()),
        None => FileSink::open(&log_path, redactor.clone()),
    }
    .map_err(|e| unavailable(&e))?;
    if is_default && !existed && served.is_none() {
        say(&format!("audit log: {}", log_path.display()));
    }
    match served {
        // The served sink is sealed as the server's is.
        Some(served) => facts.trial = served.trial.clone(),
        None => {
            facts.trial = trial.as_ref().map(|(id, _)| id.clone());
            if let Some((_, key)) = trial {
                sink.seal_with(key);
            }
        }
    }
    let mode = if inv.command.is_some() {
        "command"
    } else if inv.script.is_some() {
        "script"
    } else if interactive {
        "interactive"
    } else {
        "stdin"
    };
    let mut session = facts.event(mode);
    if let Event::Session { client, .. } = &mut session {
        *client = served.and_then(|s| s.client);
    }
    sink.record(session).map_err(|e| unavailable(&e))?;
    // Forked copies of the shell record through duplicates of this
    // descriptor: after guard-sh confines itself the log's path may not be
    // opened for writing again.
    let fork_base = sink
        .fork_session(redactor.clone())
        .map_err(|e| unavailable(&e))?;
    Ok(OpenAudit {
        sink,
        fork_base: Rc::new(fork_base),
        redactor,
        facts: Rc::new(facts),
    })
}

/// Supervise every command's execs and network calls: the shell answers
/// them while it waits for the command, recorded in its own session; a
/// tree that outlives the wait goes to a supervisor process, forked then,
/// which records in a session of its own through a copy of `fork_base`.
fn supervise(
    sys: &mut RealSystem,
    fork_base: &Rc<FileSink>,
    redactor: &Redactor,
    facts: &Rc<SessionFacts>,
) {
    let (sink, redactor, facts) = (Rc::clone(fork_base), redactor.clone(), Rc::clone(facts));
    sys.serve_execs(Box::new(move || {
        let own = sink
            .fork_session(redactor.clone())
            .map_err(|e| e.to_string())?;
        Supervisor::start(own, facts.event("supervisor")).map_err(|e| e.to_string())
    }));
}

/// The way the shell records from a forked copy: each opens a session of
/// its own through a copy of `fork_base`, so the parent's hash chain is
/// never interleaved.
fn audit_reopen<'a>(
    fork_base: Rc<FileSink>,
    redactor: Redactor,
    facts: &Rc<SessionFacts>,
) -> AuditReopen<'a> {
    let facts = Rc::clone(facts);
    Box::new(move || {
        let mut child = fork_base
            .fork_session(redactor.clone())
            .map_err(|e| e.to_string())?;
        child.record(facts.event("subshell"))?;
        Ok(Box::new(child) as Box<dyn AuditSink>)
    })
}

/// Options, `$0`, the positional parameters, signals and the terminal, as
/// the command line asked. An unknown `-o` name is status 2 (its error
/// already printed).
fn configure<'a>(
    shell: &mut Shell<'a>,
    inv: &Invocation,
    argv: &[OsString],
    interactive: bool,
    audit_reopen: AuditReopen<'a>,
) -> Result<(), Exit> {
    let arg0 = match (&inv.name, argv.first()) {
        (Some(name), _) => name.clone(),
        (None, Some(a0)) => a0.as_bytes().to_vec(),
        (None, None) => b"guard-sh".to_vec(),
    };
    shell
        .start(Startup {
            interactive,
            command_mode: inv.command.is_some(),
            login_shell: inv.login,
            arg0,
            positional: inv.args.clone(),
            audit_reopen,
        })
        .map_err(|why| Exit::new(126, why))?;
    for (letter, on) in &inv.letters {
        shell.set_letter(*letter, *on);
    }
    for (name, on) in &inv.options {
        let args = vec![
            if *on { b"-o".to_vec() } else { b"+o".to_vec() },
            name.as_bytes().to_vec(),
        ];
        if shell.run_set(&args) != 0 {
            return Err(Exit::silent(2));
        }
    }
    signals::install(interactive);
    shell.note_signals_ignored_at_entry();
    if interactive {
        shell.take_terminal_at_start();
    }
    Ok(())
}

/// Run the `-c` string, the script, or standard input; the last status.
fn run_input(shell: &mut Shell<'_>, inv: &Invocation, interactive: bool) -> i32 {
    if let Some(command) = &inv.command {
        return shell.run_text(command, "command").status();
    }
    let Some(script) = &inv.script else {
        return shell.run_lines(if interactive { "interactive" } else { "stdin" });
    };
    let path = std::path::Path::new(std::ffi::OsStr::from_bytes(script));
    match shell.open_script(path) {
        Ok(input) => shell.run_input(input, "script"),
        Err(e) => {
            shell.error(&format!("{}: {e}", path.display()));
            let _ = shell.sink().record(Event::Error {
                message: format!("{}: {e}", path.display()),
            });
            127
        }
    }
}

/// Enter guard-sh's own Landlock domain (see
/// [`landlock::restrict_guard_sh`]) once the policy is loaded and the audit
/// session has started, so that its own redirections are held to the
/// writable roots. `enforcement` is what the session record said. Under
/// `sandbox = "required"` a failure ends guard-sh (`Err(126)`); under best
/// effort it, or a machine without Landlock, is one warning on stderr.
pub(crate) fn confine_self(
    policy: &Policy,
    enforcement: &str,
    sink: &mut FileSink,
) -> Result<(), Exit> {
    if policy.sandbox.mode == SandboxMode::Off {
        return Ok(());
    }
    if enforcement == "none" {
        say(&format!(
            "warning: Landlock is not available ({}); commands run without kernel confinement",
            if landlock::disabled_by_env() {
                format!("{}=off", landlock::LANDLOCK_ENV)
            } else {
                "this kernel does not offer it".to_string()
            }
        ));
        return Ok(());
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let Err(e) = landlock::restrict_guard_sh(policy, &cwd) else {
        return Ok(());
    };
    let message = format!("sandbox: cannot confine guard-sh itself: {e}");
    // The record is best effort: the outcome below does not depend on it.
    let _ = sink.record(Event::Error {
        message: message.clone(),
    });
    if policy.sandbox.mode == SandboxMode::Required {
        return Err(Exit::new(126, message));
    }
    say(&format!(
        "warning: {message}; its own redirections are not confined"
    ));
    Ok(())
}

/// `--explain`: the static verdict as JSON; nothing runs. The input is
/// checked one complete command at a time, as a script runs (a function
/// defined by one is known to the next), so memory follows the longest
/// command and the output, not the input.
fn explain(policy: &Policy, inv: &Invocation) -> i32 {
    // The input a line at a time: the `-c` text, or standard input as it
    // comes.
    let mut next_line: Box<dyn FnMut() -> std::io::Result<Option<Vec<u8>>>> = match &inv.command {
        Some(c) => {
            let mut lines = c
                .split_inclusive(|&b| b == b'\n')
                .map(<[u8]>::to_vec)
                .collect::<Vec<_>>()
                .into_iter();
            Box::new(move || Ok(lines.next()))
        }
        None => {
            let mut stdin = std::io::BufReader::new(std::io::stdin());
            Box::new(move || {
                let mut line = Vec::new();
                let n = std::io::BufRead::read_until(&mut stdin, b'\n', &mut line)?;
                Ok((n > 0).then_some(line))
            })
        }
    };
    let mut allowed = true;
    let mut first = true;
    let mut commands = Spill::default();
    let mut functions: Vec<Vec<u8>> = Vec::new();
    let mut chunker = syntax::Chunker::batch();
    let protected = std::rc::Rc::new(crate::guard::ProtectedPaths::new(policy));
    loop {
        let line = match next_line() {
            Ok(line) => line,
            Err(e) => {
                say(&format!("stdin: {e}"));
                return 2;
            }
        };
        let chunk = match &line {
            Some(line) => chunker.push_line(line),
            None => chunker.finish(),
        };
        if let Some(mut chunk) = chunk {
            let parsed = match chunk.list.take() {
                Some(list) => Ok((list, Vec::new())),
                None => syntax::parse_complete(&chunk.text),
            };
            let (list, closed) = match parsed {
                Ok(parsed) => parsed,
                Err(e) => {
                    let at = e.render_after(&chunk.text, chunk.lines_before);
                    say(&format!("syntax error at {at}"));
                    return 2;
                }
            };
            for doc in closed {
                say(&doc.warning());
            }
            let verdict = crate::guard::check_list_in(
                policy,
                &list,
                functions.iter().cloned(),
                &protected,
                &|name| crate::system::real::RealSystem::program_anywhere(name),
            );
            allowed &= verdict.allowed;
            let mut entries = Vec::new();
            verdict.write_commands_json(&chunk.text, chunk.lines_before, &mut first, &mut entries);
            if let Err(e) = commands.push(&entries) {
                say(&format!("keeping the verdict: {e}"));
                return 2;
            }
            functions.extend(crate::guard::functions_defined(&list));
        }
        if line.is_none() {
            break;
        }
    }
    let head = format!("{{\"allowed\":{allowed},\"commands\":[");
    let mut stdout = std::io::stdout().lock();
    let written = std::io::Write::write_all(&mut stdout, head.as_bytes())
        .and_then(|()| commands.copy_to(&mut stdout))
        .and_then(|()| std::io::Write::write_all(&mut stdout, b"]}\n"));
    if let Err(e) = written {
        say(&format!("stdout: {e}"));
        return 2;
    }
    if allowed { 0 } else { 1 }
}

/// `--explain`'s entries until the verdict is complete (a syntax error
/// anywhere prints none): in memory up to 1 MiB, then in an unnamed
/// temporary file, so a long script's verdict does not stay in memory.
#[derive(Default)]
struct Spill {
    memory: Vec<u8>,
    file: Option<std::fs::File>,
}

impl Spill {
    const LIMIT: usize = 1 << 20;

    fn push(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.memory.extend_from_slice(bytes);
        if self.memory.len() < Self::LIMIT {
            return Ok(());
        }
        if self.file.is_none() {
            use std::os::unix::fs::OpenOptionsExt;
            self.file = Some(
                std::fs::OpenOptions::new()
                    .read(true)
                    .write(true)
                    .mode(0o600)
                    .custom_flags(libc::O_TMPFILE)
                    .open(std::env::temp_dir())?,
            );
        }
        if let Some(file) = &mut self.file {
            std::io::Write::write_all(file, &self.memory)?;
            self.memory.clear();
        }
        Ok(())
    }

    fn copy_to(mut self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        if let Some(mut file) = self.file.take() {
            std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(0))?;
            std::io::copy(&mut file, out)?;
        }
        out.write_all(&self.memory)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<Invocation, String> {
        let v: Vec<OsString> = args.iter().map(OsString::from).collect();
        parse_args(&v)
    }

    #[test]
    fn combined_lc_takes_the_next_word_as_the_command() -> Result<(), String> {
        let inv = p(&["-lc", "echo hi"])?;
        assert!(inv.login && inv.dash_c);
        assert_eq!(inv.command.as_deref(), Some(&b"echo hi"[..]));
        Ok(())
    }

    #[test]
    fn dash_c_then_dash_l_still_reads_the_command_after_options() -> Result<(), String> {
        let inv = p(&["-c", "-l", "SCRIPT"])?;
        assert!(inv.login);
        assert_eq!(inv.command.as_deref(), Some(&b"SCRIPT"[..]));
        Ok(())
    }

    #[test]
    fn name_and_args_follow_the_command_string() -> Result<(), String> {
        let inv = p(&[
            "--policy",
            "/p.json",
            "-xc",
            "echo $0 $1",
            "me",
            "one",
            "-two",
        ])?;
        assert_eq!(inv.policy, Some(PathBuf::from("/p.json")));
        assert_eq!(inv.name.as_deref(), Some(&b"me"[..]));
        assert_eq!(inv.args, vec![b"one".to_vec(), b"-two".to_vec()]);
        assert_eq!(inv.letters, vec![('x', true)]);
        Ok(())
    }

    #[test]
    fn script_operand_and_option_o_are_read() -> Result<(), String> {
        let inv = p(&["-o", "pipefail", "+e", "run.sh", "a"])?;
        assert_eq!(inv.script.as_deref(), Some(&b"run.sh"[..]));
        assert_eq!(inv.args, vec![b"a".to_vec()]);
        assert_eq!(inv.options, vec![("pipefail".to_string(), true)]);
        assert_eq!(inv.letters, vec![('e', false)]);
        Ok(())
    }

    #[test]
    fn missing_command_string_is_an_error() {
        assert!(p(&["-c"]).is_err());
        assert!(p(&["--bogus"]).is_err());
    }
}
