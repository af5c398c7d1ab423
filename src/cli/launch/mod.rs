//! `guard-sh-launch --arm DIR [--allow-exec PATH]... -- PROGRAM [ARG]...`:
//! run an agent harness (Claude Code, Codex, …) as one confined unit with
//! its trial: it can execute nothing but the arm's shell, the arm's
//! commands and its own programs (see `crate::sandbox::harness`), write
//! nothing but the arm's `work/`, `tmp/` and `harness-home/` (where every
//! home it reads lies, see [`homes`]), and read neither the audit log nor
//! the tools' logins. So neither a model that names another program nor
//! the harness's own in-process actions (a patch tool, a rewritten config
//! home) reach outside the arm.
//!
//! The launcher stays outside that domain, as PROGRAM's parent: it draws
//! the trial's key, records the `harness` record (sealed, committing to
//! the key), starts the line server with the key (the one process of the
//! trial that appends the harness's lines to the log; the harness itself
//! never holds the key or a way to write the log), and when PROGRAM ends
//! writes `harness-end`, which reveals the key and commits to every
//! session (see `crate::audit::trial`). With `--no-server` each line runs
//! a guard-sh of the harness's own, which must append to the log itself:
//! the harness then gets the key and the audit folder (weaker; see
//! docs/threat-model.md).
//!
//! Exit statuses: PROGRAM's own (128+N if a signal N ended it); 125 the arm
//! cannot be read, its policy does not match its pin, the domain cannot be
//! built or entered, the line server does not start, or the trial's start
//! or end cannot be recorded; 126 PROGRAM cannot be executed; 127 PROGRAM
//! not found; 2 usage error.

mod harness_process;
mod homes;
mod watch;

use crate::armbuild::compile::find_program;
use crate::audit::event::TrialBounds;
use crate::audit::trial::{self, TrialKey};
use crate::audit::{Event, FileSink, Redactor};
use crate::cli::Exit;
use crate::policy::Policy;
use crate::policy::pin;
use crate::sandbox::cgroup::TrialCgroup;
use crate::sandbox::harness::{self, HarnessPlan, HarnessSpec};
use crate::sandbox::landlock::{self, Confinement, Enforcement};
use crate::sandbox::supervisor::{ExecPlan, Supervisor};
use clap::Parser;
use serde_json::{Value, json};
use std::ffi::OsString;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicI32, Ordering};
use watch::TrialWatch;

/// Run an agent harness that can execute only the arm's shell and commands.
#[derive(Parser)]
#[command(name = "guard-sh-launch", version)]
struct Args {
    /// The arm folder written by `arm-build --out DIR` (holds arm.json).
    #[arg(long, value_name = "DIR")]
    arm: PathBuf,
    /// A file (with its start-up chain) or folder the harness itself must
    /// execute, e.g. the native binary behind an npm launcher. Repeatable.
    #[arg(long = "allow-exec", value_name = "PATH")]
    allow_exec: Vec<PathBuf>,
    /// Print the execute set as JSON and exit, running nothing.
    #[arg(long)]
    plan: bool,
    /// Start a fresh trial: empty the arm's `work/`, `tmp/` and
    /// `harness-home/` and move an earlier audit log aside (`audit.jsonl` →
    /// `audit.UNIXTIME.jsonl`), so nothing an earlier trial left (planted
    /// settings, hooks, sessions, records) reaches this one.
    #[arg(long)]
    fresh: bool,
    /// Copy this folder into the arm's `harness-home/` at the start of the
    /// trial (after `--fresh`): the harness's own configuration, e.g. a
    /// `.codex/config.toml` naming the model provider. Files the seed
    /// holds are not reported as planted.
    #[arg(long, value_name = "DIR")]
    seed_home: Option<PathBuf>,
    /// Run no line server: each line the harness sends to the arm's shell
    /// starts a guard-sh process of its own, so the harness must be able
    /// to append to the audit log and hold the trial's key (slower to
    /// start, and weaker: see docs/threat-model.md).
    #[arg(long)]
    no_server: bool,
    /// The harness and its arguments.
    #[arg(last = true, required = true, value_name = "PROGRAM")]
    command: Vec<OsString>,
}

/// Set to `off` to run the trial without a cgroup (as where none can be
/// made): its bounds then do not hold, and its records say so.
pub const CGROUP_ENV: &str = "GUARD_SH_CGROUP";

const STATUS_FAILED: u8 = 125;
const STATUS_CANNOT_EXECUTE: u8 = 126;
const STATUS_NOT_FOUND: u8 = 127;

/// Run `guard-sh-launch` with the process's arguments.
pub fn run() -> Result<ExitCode, Exit> {
    launch(&Args::parse())
}

/// A failure before or around the harness: status 125.
fn failed(message: impl Into<String>) -> Exit {
    Exit::new(STATUS_FAILED, message)
}

fn launch(args: &Args) -> Result<ExitCode, Exit> {
    let cwd = std::env::current_dir().map_err(|e| failed(format!("current folder: {e}")))?;
    let arm = read_arm(&args.arm)?;
    // Absolute: the homes the harness is told of must not depend on its folder.
    let arm_dir = std::fs::canonicalize(&args.arm)
        .map_err(|e| failed(format!("{}: {e}", args.arm.display())))?;
    let (program, plan) = harness_plan(args, &arm, &cwd)?;
    let abi =
        landlock::effective_abi(arm.policy.sandbox.mode).map_err(|e| failed(e.to_string()))?;
    let enforcement = abi.map_or(Enforcement::None, |abi| Enforcement::Landlock { abi });
    if args.plan {
        println!("{}", plan_json(&plan, enforcement));
        return Ok(ExitCode::SUCCESS);
    }
    // Before any Landlock domain: a process in one may not mount.
    let needed = plan.execute.iter().map(PathBuf::as_path);
    let tmp = homes::private_tmp(&arm_dir, needed.chain([cwd.as_path()]));
    enter_execute_domain(abi, &plan)?;
    if args.fresh {
        start_fresh(&arm_dir, &arm.audit_log)?;
    }
    let homes = homes::prepare(&arm_dir, args.seed_home.as_deref())?;
    let cgroup = trial_cgroup(&arm.policy.bounds);
    let key = TrialKey::generate().map_err(|e| failed(format!("getrandom: {e}")))?;
    limit_file_size(arm.policy.bounds.file_mib)?;
    let bounds = TrialBounds {
        processes: arm.policy.bounds.processes,
        memory_mib: arm.policy.bounds.memory_mib,
        file_mib: arm.policy.bounds.file_mib,
        cpu_seconds: arm.policy.bounds.cpu_seconds,
        disk_mib: arm.policy.bounds.disk_mib,
        line_seconds: arm.policy.bounds.line_seconds,
        enforced: match &cgroup {
            Ok(cgroup) => cgroup.how(),
            Err(why) => format!("none: {why}"),
        },
    };
    let launch = Launch {
        args,
        arm: &arm,
        program: &program,
        cwd: &cwd,
        enforcement,
        plan: &plan,
        tmp: &tmp,
        replaced_links: &homes.replaced_links,
    };
    let sink = record_harness(&launch, &key, bounds)?;
    let cgroup = cgroup.ok();
    let entries = match &cgroup {
        Some(cgroup) => cgroup
            .entry_files()
            .map_err(|e| failed(format!("the trial's cgroup: {e}")))?,
        None => Vec::new(),
    };
    let entry_fds: Vec<i32> = entries.iter().map(|f| f.as_raw_fd()).collect();
    let trial = sink.session_id().to_string();
    let supervisor = match (&arm.guard_sh, args.no_server) {
        (Some(_), false) => supervise_execs(&sink, &arm, &cwd, &trial, enforcement)?,
        _ => None,
    };
    let server = match (&arm.guard_sh, args.no_server) {
        (Some(guard_sh), false) => Some(LineServer::start(
            guard_sh,
            &arm,
            &trial,
            &key,
            supervisor.is_some(),
            &entry_fds,
        )?),
        _ => None,
    };
    let files = match abi {
        Some(abi) => harness_files(abi, &arm_dir, &arm, &plan, &cwd, server.is_some())?,
        None => Confinement::none(),
    };
    let command = harness_command(args, &program, homes.vars, &trial, &key, server.is_some());
    let marker = match &server {
        Some(server) => Some(server.marker()?),
        None => None,
    };
    let exec_plan = ExecPlan {
        allowed: plan.execute.clone(),
        ..ExecPlan::default()
    };
    let start = harness_process::HarnessStart {
        command,
        program: &program,
        files,
        execs: supervisor.as_ref().map(|s| s.attach_harness(&exec_plan)),
        marker,
        cgroup: entry_fds.clone(),
    };
    let watch = TrialWatch::new(
        cgroup.as_ref(),
        &arm.policy.bounds,
        vec![arm_dir.join("work"), arm_dir.join("tmp")],
    );
    let status = run_harness(start, &watch);
    drop(server);
    drop(entries);
    let watched = watch.outcome();
    record_the_end(sink, &arm, &trial, &key, status?, cgroup.as_ref(), watched)
}

/// The harness program, resolved as `execvp` would, and what the
/// harness's domain lets it execute.
fn harness_plan(args: &Args, arm: &ArmFolder, cwd: &Path) -> Result<(PathBuf, HarnessPlan), Exit> {
    let search = std::env::var_os("PATH").unwrap_or_default();
    let search_path: Vec<PathBuf> = std::env::split_paths(&search).collect();
    let program = resolve_program(&args.command[0], &search)?;
    let spec = HarnessSpec {
        program: &program,
        allow_exec: &args.allow_exec,
        arm_programs: &arm.programs,
        search_path: &search_path,
        cwd,
    };
    let plan = harness::plan(&arm.policy, &spec).map_err(|e| failed(e.to_string()))?;
    Ok((program, plan))
}

/// Enter the execute-only domain (the launcher, and so everything it
/// starts from here on), or warn that there is no Landlock.
fn enter_execute_domain(abi: Option<u32>, plan: &HarnessPlan) -> Result<(), Exit> {
    match abi {
        Some(abi) => {
            harness::prepare(abi, plan)
                .and_then(|domain| domain.enforce())
                .map_err(|e| failed(e.to_string()))?;
            say_left_out(plan);
        }
        None => eprintln!(
            "guard-sh-launch: warning: no Landlock on this system: the harness runs unconfined \
             and may start programs other than guard-sh"
        ),
    }
    Ok(())
}

/// The harness's command: its program and arguments, the homes of
/// [`homes::prepare`] and the trial's id; the trial's key only without a
/// server (with one, the key stays with it: no process the harness runs
/// can seal a record, and none can write the log).
fn harness_command(
    args: &Args,
    program: &Path,
    home_vars: Vec<(&'static str, OsString)>,
    trial: &str,
    key: &TrialKey,
    served: bool,
) -> std::process::Command {
    let mut command = std::process::Command::new(program);
    command
        .arg0(&args.command[0])
        .args(&args.command[1..])
        .envs(home_vars)
        .env(trial::TRIAL_ENV, trial);
    if !served {
        command.env(trial::SEAL_ENV, key.to_hex());
    }
    command
}

/// The harness has ended: end what the trial left running, then reveal
/// the key so every sealed record can be checked (without this record the
/// verifier cannot prove the trial), committing to every session of the
/// trial as the log holds it now (once the key is out, only this list
/// tells a session removed, cut or added later). The harness's status is
/// the launcher's.
fn record_the_end(
    mut sink: FileSink,
    arm: &ArmFolder,
    trial: &str,
    key: &TrialKey,
    status: std::process::ExitStatus,
    cgroup: Option<&TrialCgroup>,
    watched: (usize, Option<&'static str>),
) -> Result<ExitCode, Exit> {
    let (mut ended, mut bounds_hit) = match cgroup {
        Some(cgroup) => end_the_trial(cgroup, &arm.policy.bounds)?,
        None => (None, Vec::new()),
    };
    // What the watch ended, when the trial ran past its CPU time or disk.
    let (by_watch, passed) = watched;
    if by_watch > 0 {
        ended = Some(ended.unwrap_or(0) + by_watch);
    }
    bounds_hit.extend(passed.map(str::to_string));
    let log = std::fs::read(&arm.audit_log)
        .map_err(|e| failed(format!("audit log unreadable at the end of the trial: {e}")))?;
    sink.append(Event::HarnessEnd {
        status: status.code(),
        signal: status.signal(),
        key: key.to_hex(),
        sessions: Some(trial::commit_to_sessions(&log, trial)),
        ended,
        bounds_hit,
    })
    .map_err(|e| {
        failed(format!(
            "audit log unavailable at the end of the trial: {e}"
        ))
    })?;
    let code = match (status.code(), status.signal()) {
        (Some(code), _) => code,
        (None, Some(signal)) => 128 + signal,
        (None, None) => 1,
    };
    Ok(ExitCode::from(u8::try_from(code).unwrap_or(1)))
}

/// Bound every file a process of the trial writes to `mib` MiB: the
/// launcher's own `RLIMIT_FSIZE`, inherited by the line server, the
/// harness and all they start (a served line takes its client's). Only
/// ever lowered.
fn limit_file_size(mib: u64) -> Result<(), Exit> {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let wanted = mib.saturating_mul(1 << 20);
    let (soft, hard) =
        getrlimit(Resource::RLIMIT_FSIZE).map_err(|e| failed(format!("RLIMIT_FSIZE: {e}")))?;
    setrlimit(Resource::RLIMIT_FSIZE, soft.min(wanted), hard.min(wanted))
        .map_err(|e| failed(format!("RLIMIT_FSIZE: {e}")))
}

/// The trial's cgroup with the arm's bounds (see
/// `crate::sandbox::cgroup`), or why none can be had here (the trial then
/// runs without them, and its `harness` record says so).
fn trial_cgroup(bounds: &crate::policy::Bounds) -> Result<TrialCgroup, String> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let name = format!("{}-{nanos}", std::process::id());
    let cgroup = if std::env::var_os(CGROUP_ENV).is_some_and(|v| v == "off") {
        Err(format!("{CGROUP_ENV}=off"))
    } else {
        TrialCgroup::create(&name, bounds)
    };
    if let Err(why) = &cgroup {
        eprintln!(
            "guard-sh-launch: warning: no cgroup for the trial ({why}): its processes and memory are not bounded, and what it leaves running is not ended"
        );
    }
    cgroup
}

/// After the harness and the line server: give the server's own
/// processes (its marker, its spare worker) a moment to follow it, then
/// end whatever of the trial is still alive; how many, and the bounds the
/// trial ran into.
fn end_the_trial(
    cgroup: &TrialCgroup,
    bounds: &crate::policy::Bounds,
) -> Result<(Option<usize>, Vec<String>), Exit> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(300);
    while std::time::Instant::now() < deadline && cgroup.population().unwrap_or(0) > 0 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let ended = cgroup
        .end_all(std::time::Duration::from_secs(10))
        .map_err(|e| failed(format!("ending the trial's processes: {e}")))?;
    if ended > 0 {
        eprintln!("guard-sh-launch: ended {ended} processes the trial left running");
    }
    let hit = cgroup.bounds_hit();
    for bound in &hit {
        let limit = match bound.as_str() {
            "processes" => format!("{} processes", bounds.processes),
            _ => format!("{} MiB", bounds.memory_mib),
        };
        eprintln!(
            "guard-sh-launch: the trial ran into its {bound} bound ({limit}): a fork failed or a process was ended there"
        );
    }
    Ok((Some(ended), hit))
}

/// The exec supervisor of the harness's process and everything it starts
/// (the marker, the harness, its shell calls): only the programs of the
/// harness's execute set, never an ELF loader as a program, each exec
/// recorded before it runs in a `harness-exec` session of the trial.
/// Landlock holds the same set underneath; the supervisor adds the loader,
/// and the record. Only with a line server: a process's filters may hold
/// one listener, so guard-sh's own commands cannot be supervised beneath
/// this one, and with a server they run outside it. Off with
/// `GUARD_SH_SUPERVISOR=off`; a supervisor that cannot start fails the
/// trial (125).
fn supervise_execs(
    sink: &FileSink,
    arm: &ArmFolder,
    cwd: &Path,
    trial: &str,
    enforcement: Enforcement,
) -> Result<Option<Supervisor>, Exit> {
    if !Supervisor::wanted() {
        return Ok(None);
    }
    let error = |e: &dyn std::fmt::Display| failed(format!("the harness's exec supervisor: {e}"));
    let own = sink
        .fork_session(sink.redactor().clone())
        .map_err(|e| error(&e))?;
    let argv: Vec<String> = std::env::args().collect();
    let session = crate::audit::session_event(
        &arm.policy,
        &arm.policy_sha256,
        &enforcement.to_string(),
        &argv,
        "harness-exec",
        &cwd.to_string_lossy(),
        Some(trial),
    );
    Supervisor::start(own, session)
        .map(Some)
        .map_err(|e| error(&e))
}

/// The harness's files domain (see the module docs): it may write the
/// arm's `work/`, `tmp/` and `harness-home/` and the terminal devices, and
/// read all but the audit folder and the tools' own folders (their
/// logins). Without a line server the harness's own guard-sh appends to
/// the log and runs the tools, so the audit folder and the tools' folders
/// stay readable and writable.
fn harness_files(
    abi: u32,
    arm_dir: &Path,
    arm: &ArmFolder,
    plan: &HarnessPlan,
    cwd: &Path,
    served: bool,
) -> Result<Confinement, Exit> {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let mut write: std::collections::BTreeSet<PathBuf> = ["work", "tmp", "harness-home"]
        .iter()
        .map(|f| real(&arm_dir.join(f)))
        .collect();
    write.insert(PathBuf::from("/dev/ptmx"));
    let audit_dir = arm.audit_log.parent().map(real).unwrap_or_default();
    let tools: Vec<PathBuf> = arm
        .policy
        .commands
        .values()
        .flat_map(|rule| rule.writable.iter().map(|w| real(&cwd.join(w))))
        .collect();
    let mut unreadable = std::collections::BTreeSet::new();
    if served {
        unreadable.insert(audit_dir);
        unreadable.extend(tools);
    } else {
        write.insert(audit_dir);
        write.extend(tools);
    }
    let needed = plan
        .execute
        .iter()
        .cloned()
        .chain(write.iter().cloned())
        .chain([real(arm_dir), real(cwd)])
        .collect();
    Confinement::harness_files(abi, &write, unreadable, needed).map_err(|e| failed(e.to_string()))
}

/// Start the harness (see [`harness_process`]) and wait for it. The
/// launcher stays its parent (so it can write `harness-end` afterwards),
/// reaps orphans the harness leaves (it is their subreaper), ignores the
/// keyboard's SIGINT/SIGQUIT (the harness gets them from the terminal and
/// decides), and passes SIGTERM and SIGHUP on to the harness.
fn run_harness(
    start: harness_process::HarnessStart,
    watch: &TrialWatch,
) -> Result<std::process::ExitStatus, Exit> {
    // SAFETY: prctl with integer arguments only.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
    let pid = harness_process::start(start)?;
    HARNESS_PID.store(pid, Ordering::SeqCst);
    // SAFETY: installing handlers that only call kill(2) (async-signal-safe)
    // and ignoring two signals.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_IGN);
        libc::signal(libc::SIGQUIT, libc::SIG_IGN);
        let handler = forward_signal as extern "C" fn(libc::c_int);
        libc::signal(libc::SIGTERM, handler as libc::sighandler_t);
        libc::signal(libc::SIGHUP, handler as libc::sighandler_t);
    }
    // The watcher is the launcher's one other thread, started once the
    // harness's process is forked.
    std::thread::scope(|scope| {
        scope.spawn(|| watch.watch());
        let status = wait_for(pid);
        watch.stop();
        status
    })
}

/// Wait for the harness (`pid`), reaping the orphans the trial leaves.
fn wait_for(pid: libc::pid_t) -> Result<std::process::ExitStatus, Exit> {
    loop {
        let mut status = 0;
        // SAFETY: waitpid for any child with a valid status pointer.
        let reaped = unsafe { libc::waitpid(-1, &mut status, 0) };
        if reaped == pid {
            return Ok(std::process::ExitStatus::from_raw(status));
        }
        if reaped < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return Err(failed(format!(
                "waiting for the harness: {}",
                std::io::Error::last_os_error()
            )));
        }
    }
}

/// The harness's pid, for [`forward_signal`].
static HARNESS_PID: AtomicI32 = AtomicI32::new(0);

extern "C" fn forward_signal(signal: libc::c_int) {
    let pid = HARNESS_PID.load(Ordering::SeqCst);
    if pid > 0 {
        // SAFETY: kill is async-signal-safe.
        unsafe {
            libc::kill(pid, signal);
        }
    }
}

/// The trial's `guard-sh --serve` (see `crate::cli::serve`), ended when
/// dropped.
struct LineServer {
    child: std::process::Child,
    guard_sh: PathBuf,
    /// `NAME PID START`; the marker's pid completes it.
    address: String,
    /// The memfd the server knows as its marker's token.
    token: OwnedFd,
}

impl LineServer {
    /// Start the server in the launcher's environment (the harness's, so
    /// that its lines ask for the policy and log the server loaded) with
    /// the trial's key and a token for the marker the harness's process
    /// starts, and read its address. A server that does not start fails
    /// the trial: the harness could not append a line to the log itself.
    fn start(
        guard_sh: &Path,
        arm: &ArmFolder,
        trial: &str,
        key: &TrialKey,
        supervised: bool,
        cgroup: &[i32],
    ) -> Result<LineServer, Exit> {
        use std::io::BufRead;
        let token = crate::cli::serve::new_token()
            .map_err(|e| failed(format!("the line server's token: {e}")))?;
        let mut command = std::process::Command::new(guard_sh);
        command
            .arg("--serve")
            .env(trial::TRIAL_ENV, trial)
            .env(trial::SEAL_ENV, key.to_hex())
            .env(crate::cli::serve::TOKEN_ENV, TOKEN_AT.to_string())
            .env(
                crate::cli::serve::CALLER_FILTERS_ENV,
                if supervised { "1" } else { "0" },
            )
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped());
        if std::env::var_os("GUARD_SH_POLICY").is_none_or(|v| v.is_empty()) {
            command.env("GUARD_SH_POLICY", &arm.policy_path);
        }
        if std::env::var_os("GUARD_SH_AUDIT").is_none_or(|v| v.is_empty()) {
            command.env("GUARD_SH_AUDIT", &arm.audit_log);
        }
        if std::env::var_os(pin::POLICY_PIN_ENV).is_none() {
            command.env(pin::POLICY_PIN_ENV, &arm.policy_sha256);
        }
        let raw = token.as_raw_fd();
        let cgroup = cgroup.to_vec();
        // SAFETY: between fork and exec only write, dup2 and fcntl on
        // integers.
        unsafe {
            command.pre_exec(move || {
                // The server, and so every line it runs, in the trial's cgroup.
                crate::sandbox::cgroup::enter(&cgroup)
                    .map_err(std::io::Error::from_raw_os_error)?;
                // dup2 onto itself keeps close-on-exec: cleared by hand.
                if libc::dup2(raw, TOKEN_AT) != TOKEN_AT
                    || libc::fcntl(TOKEN_AT, libc::F_SETFD, 0) != 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let not_started = |why: &dyn std::fmt::Display| {
            failed(format!(
                "the line server did not start ({why}); run with --no-server to let the harness log its own lines"
            ))
        };
        let mut child = command.spawn().map_err(|e| not_started(&e))?;
        let mut line = String::new();
        let read = child
            .stdout
            .take()
            .map(|out| std::io::BufReader::new(out).read_line(&mut line));
        let address = line.trim_end().to_string();
        if !matches!(read, Some(Ok(n)) if n > 0) || address.split(' ').count() != 3 {
            let _ = child.kill();
            let _ = child.wait();
            return Err(not_started(&"it printed no address"));
        }
        Ok(LineServer {
            child,
            guard_sh: guard_sh.to_path_buf(),
            address,
            token,
        })
    }

    /// What the harness's process needs to start the marker.
    fn marker(&self) -> Result<harness_process::Marker, Exit> {
        let error = |e: std::io::Error| failed(format!("the line server's marker: {e}"));
        // This process's own child, not yet reaped: its pid names it.
        let server = crate::cli::serve::pidfd_open(self.child.id() as libc::pid_t)
            .ok_or_else(|| error(std::io::Error::last_os_error()))?;
        Ok(harness_process::Marker {
            guard_sh: self.guard_sh.clone(),
            token: self.token.try_clone().map_err(error)?,
            server,
            address: self.address.clone(),
        })
    }
}

/// The descriptor the server finds its marker's token at.
const TOKEN_AT: libc::c_int = 3;

impl Drop for LineServer {
    fn drop(&mut self) {
        // Not reaped yet (the harness's wait reaps any child): its pid is
        // still its own.
        if let Ok(None) = self.child.try_wait() {
            // SAFETY: kill(2) of our own child, not yet waited for.
            unsafe {
                libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
            }
            let _ = self.child.wait();
        }
    }
}

/// Name the interpreters the domain leaves out and who needed them.
fn say_left_out(plan: &HarnessPlan) {
    for (file, commands) in &plan.left_out {
        let names: Vec<&str> = commands.iter().map(String::as_str).collect();
        eprintln!(
            "guard-sh-launch: {} is left out of the harness's domain (it runs code given as -c TEXT); \
             {} will fail with Permission denied",
            file.display(),
            names.join(", ")
        );
    }
}

/// What the trial is started with, as the `harness` record states it.
struct Launch<'a> {
    args: &'a Args,
    arm: &'a ArmFolder,
    /// The harness program, resolved.
    program: &'a Path,
    cwd: &'a Path,
    enforcement: Enforcement,
    plan: &'a HarnessPlan,
    /// What `/tmp` is for the trial (see [`homes::private_tmp`]).
    tmp: &'a str,
    /// Links an earlier trial left where a home goes (see [`homes::prepare`]).
    replaced_links: &'a [String],
}

/// Write the `harness` record to the arm's audit log, so the verifier can
/// tell a launched trial from one that was not, sealed with the trial's
/// key (committed to in the record). Fail closed: a harness whose start
/// cannot be recorded does not start. Returns the sink for `harness-end`.
fn record_harness(launch: &Launch, key: &TrialKey, bounds: TrialBounds) -> Result<FileSink, Exit> {
    let Launch {
        args,
        arm,
        program,
        cwd,
        enforcement,
        plan,
        tmp,
        replaced_links,
    } = *launch;
    let redactor = Redactor::from_policy(&arm.policy.audit).map_err(|e| failed(e.to_string()))?;
    let mut sink = FileSink::open(&arm.audit_log, redactor)
        .map_err(|e| failed(format!("audit log unavailable: {e}")))?;
    sink.seal_with(key.clone());
    let lossy = |p: &Path| p.to_string_lossy().into_owned();
    let event = Event::Harness {
        arm: arm.policy.arm.clone(),
        policy_sha256: arm.policy_sha256.clone(),
        enforcement: enforcement.to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        cwd: lossy(cwd),
        program: lossy(program),
        argv: args
            .command
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
        pid: std::process::id(),
        execute: plan.execute.iter().map(|p| lossy(p)).collect(),
        left_out: plan
            .left_out
            .iter()
            .map(|(file, names)| (lossy(file), names.iter().cloned().collect()))
            .collect(),
        key_sha256: key.sha256_hex(),
        planted: replaced_links
            .iter()
            .cloned()
            .chain(homes::planted(&args.arm, args.seed_home.as_deref()))
            .collect(),
        supervised: Supervisor::wanted() && !args.no_server && arm.guard_sh.is_some(),
        shell: arm.policy.shell,
        bounds: Some(bounds),
        tmp: tmp.to_string(),
    };
    sink.append(event)
        .map_err(|e| failed(format!("audit log unavailable: {e}")))?;
    Ok(sink)
}

/// `--fresh`: empty `work/`, `tmp/` and `harness-home/`, move the audit
/// log aside.
/// Each step is said on stderr when it found something.
fn start_fresh(arm: &Path, audit_log: &Path) -> Result<(), Exit> {
    use crate::armbuild::layout::empty_dir;
    for folder in ["work", "tmp", "harness-home"] {
        let dir = arm.join(folder);
        let removed = empty_dir(&dir).map_err(|e| failed(e.to_string()))?;
        if removed > 0 {
            eprintln!(
                "guard-sh-launch: --fresh: removed {removed} entries an earlier trial left in {}",
                dir.display()
            );
        }
    }
    let used = std::fs::metadata(audit_log).is_ok_and(|m| m.len() > 0);
    if used {
        let seconds = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let aside = audit_log.with_extension(format!("{seconds}.jsonl"));
        if aside.exists() {
            return Err(failed(format!("--fresh: {} exists", aside.display())));
        }
        std::fs::rename(audit_log, &aside)
            .map_err(|e| failed(format!("--fresh: {}: {e}", audit_log.display())))?;
        eprintln!(
            "guard-sh-launch: --fresh: the earlier trial's audit log is now {}",
            aside.display()
        );
    }
    Ok(())
}

/// What the launcher needs from an arm folder.
struct ArmFolder {
    policy: Policy,
    /// Where the policy file is.
    policy_path: PathBuf,
    /// The guard-sh the arm names (`shell.guardSh`): the line server.
    guard_sh: Option<PathBuf>,
    /// The SHA-256 of the policy file's bytes (its pin when the arm has one).
    policy_sha256: String,
    /// guard-sh under each name the arm uses, and the MCP server.
    programs: Vec<PathBuf>,
    /// Where guard-sh records this arm's sessions (`auditLog`).
    audit_log: PathBuf,
}

fn read_arm(dir: &Path) -> Result<ArmFolder, Exit> {
    let path = dir.join("arm.json");
    let text = std::fs::read(&path).map_err(|e| failed(format!("{}: {e}", path.display())))?;
    let definition: Value = serde_json::from_slice(&text)
        .map_err(|e| failed(format!("{}: not an arm definition: {e}", path.display())))?;
    let policy_path = definition["policy"]
        .as_str()
        .map(PathBuf::from)
        .ok_or_else(|| failed(format!("{}: no `policy`", path.display())))?;
    let bytes = std::fs::read(&policy_path)
        .map_err(|e| failed(format!("{}: {e}", policy_path.display())))?;
    let policy_sha256 = pin::verify_policy_pin(&bytes, definition["policySha256"].as_str())
        .map_err(|e| failed(format!("{}: {e}", policy_path.display())))?;
    let policy = Policy::from_json(&policy_path, &bytes).map_err(|e| failed(e.to_string()))?;
    let shell = &definition["shell"];
    let mut programs: Vec<PathBuf> = [
        &shell["path"],
        &shell["guardSh"],
        &shell["codexLoginShell"],
        &definition["mcp"]["command"],
    ]
    .into_iter()
    .filter_map(Value::as_str)
    .map(PathBuf::from)
    .collect();
    // A shell that is `guard-sh-client` runs the guard-sh beside it when
    // there is no server.
    if let Some(real) = shell["path"]
        .as_str()
        .and_then(|p| std::fs::canonicalize(p).ok())
        && real.file_name() == Some(std::ffi::OsStr::new("guard-sh-client"))
    {
        programs.push(real.with_file_name("guard-sh"));
    }
    let guard_sh = shell["guardSh"].as_str().map(PathBuf::from);
    let audit_log = definition["auditLog"]
        .as_str()
        .map(PathBuf::from)
        .ok_or_else(|| failed(format!("{}: no `auditLog`", path.display())))?;
    Ok(ArmFolder {
        policy,
        policy_path,
        guard_sh,
        policy_sha256,
        programs,
        audit_log,
    })
}

/// `name` as `execvp` would find it: a path if it holds a `/`, else the
/// first executable match on `PATH`.
fn resolve_program(name: &OsString, search: &std::ffi::OsStr) -> Result<PathBuf, Exit> {
    let text = name.to_string_lossy();
    if text.contains('/') {
        return Ok(PathBuf::from(name));
    }
    find_program(&text, search)
        .ok_or_else(|| Exit::new(STATUS_NOT_FOUND, format!("{text}: not found on PATH")))
}

fn plan_json(plan: &HarnessPlan, enforcement: Enforcement) -> Value {
    let left_out: serde_json::Map<String, Value> = plan
        .left_out
        .iter()
        .map(|(file, names)| (file.display().to_string(), json!(names)))
        .collect();
    json!({
        "enforcement": enforcement.to_string(),
        "execute": plan.execute.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "leftOut": left_out,
    })
}
