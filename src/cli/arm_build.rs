//! `arm-build ARM --host URL --repo OWNER/NAME --token-env VAR --out DIR`:
//! build one arm's folder (see [`crate::armbuild`]). Exit statuses: 0 built
//! (or listed), 2 any error; the message never holds the token.

use crate::armbuild::{
    ArmListing, BoundOverrides, BuildError, BuildOptions, arms_dir, build, list,
};
use crate::cli::Exit;
use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;

/// Command line of arm-build.
#[derive(Debug, Parser)]
#[command(
    name = "arm-build",
    version,
    about = "Build one benchmark arm: policy, bin folder, system prompt and runtime configs"
)]
struct Cli {
    /// The arm to build (see --list).
    #[arg(required_unless_present = "list")]
    arm: Option<String>,
    /// List the arms and exit.
    #[arg(long, conflicts_with_all = ["host", "repo", "token", "token_env", "out", "skill", "guard_sh"])]
    list: bool,
    /// Base URL of the forge, e.g. http://127.0.0.1:3000
    #[arg(long, required_unless_present = "list")]
    host: Option<String>,
    /// The repository, OWNER/NAME.
    #[arg(long, required_unless_present = "list")]
    repo: Option<String>,
    /// Name of the environment variable holding the API token (one of
    /// --token-env and --token is required).
    #[arg(long, value_name = "VAR")]
    token_env: Option<String>,
    /// The API token itself (visible in the process list: prefer --token-env).
    #[arg(long, conflicts_with = "token_env")]
    token: Option<String>,
    /// Print the arm's definition (arm.json, which holds the token) on
    /// stdout; by default one line names the folder.
    #[arg(long)]
    print_definition: bool,
    /// The output folder (created; rebuilt in place if arm-build made it).
    #[arg(long, required_unless_present = "list")]
    out: Option<PathBuf>,
    /// The Agent Skill file for arms whose bootstrap has one.
    #[arg(long)]
    skill: Option<PathBuf>,
    /// The arms folder (default: the installed arms, else those built into
    /// arm-build).
    #[arg(long)]
    arms: Option<PathBuf>,
    /// The guard-sh executable to use as the agent's SHELL.
    #[arg(long = "guard-sh", value_name = "PATH")]
    guard_sh: Option<PathBuf>,
    /// When rebuilding in place, keep what an earlier trial left in work/
    /// (by default it is removed, so nothing planted reaches the next trial).
    #[arg(long)]
    keep_work: bool,
    /// Processes and threads one trial may have alive at once (default:
    /// the arm file's `bounds.processes`, else 512).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(8..))]
    max_processes: Option<u64>,
    /// Memory one trial may use, in MiB (default: the arm file's
    /// `bounds.memory_mib`, else 4096).
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(16..))]
    max_memory_mib: Option<u64>,
    /// The largest file a process of one trial may write, in MiB (default:
    /// the arm file's `bounds.file_mib`, else 1024).
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..))]
    max_file_mib: Option<u64>,
    /// CPU time all processes of one trial may use together, in seconds
    /// (default: the arm file's `bounds.cpu_seconds`, else 3600).
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    max_cpu_seconds: Option<u64>,
    /// The bytes of all files under the arm's work/ and tmp/ together, in
    /// MiB (default: the arm file's `bounds.disk_mib`, else 4096).
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..))]
    max_disk_mib: Option<u64>,
    /// Wall time of one line, in seconds (default: the arm file's
    /// `bounds.line_seconds`, else 900).
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    max_line_seconds: Option<u64>,
}

/// Run `arm-build` with the process's arguments.
pub fn run() -> Result<ExitCode, Exit> {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            // clap's message quotes argument values; keep a --token value out of it.
            let text = e.render().to_string();
            let redacted = token_arguments()
                .iter()
                .fold(text, |t, secret| t.replace(secret.as_str(), "***"));
            // `--help` and `--version` are answers: stdout, status 0.
            if e.use_stderr() {
                eprint!("{redacted}");
                return Err(Exit::silent(2));
            }
            print!("{redacted}");
            return Ok(ExitCode::SUCCESS);
        }
    };
    build_or_list(cli).map_err(|e| Exit::new(2, format!("error: {e}")))?;
    Ok(ExitCode::SUCCESS)
}

/// Values given to `--token` on the command line (`--token T`, `--token=T`).
fn token_arguments() -> Vec<String> {
    let args: Vec<String> = std::env::args().collect();
    let mut found = Vec::new();
    for (i, a) in args.iter().enumerate() {
        if a == "--token" {
            found.extend(args.get(i + 1).cloned());
        } else if let Some(t) = a.strip_prefix("--token=") {
            found.push(t.to_string());
        }
    }
    found.retain(|t| !t.is_empty());
    found
}

fn build_or_list(cli: Cli) -> Result<(), BuildError> {
    if cli.list {
        let (arms_dir, _unpacked) = arms_dir(cli.arms.as_deref())?;
        let mut broken = false;
        for ArmListing { name, description } in list(&arms_dir)? {
            match description {
                Ok(d) => println!("{name}\t{d}"),
                Err(e) => {
                    broken = true;
                    println!("{name}\t(invalid: {e})");
                }
            }
        }
        return if broken {
            Err(BuildError::Usage("some arms are invalid".into()))
        } else {
            Ok(())
        };
    }
    let missing = |what: &str| BuildError::Usage(format!("{what} is required"));
    let token = match (&cli.token, &cli.token_env) {
        (Some(t), None) => t.clone(),
        (None, Some(var)) => match std::env::var(var) {
            Ok(t) if !t.is_empty() => t,
            Ok(_) => {
                return Err(BuildError::Usage(format!(
                    "--token-env: the variable {var} is empty"
                )));
            }
            Err(_) => {
                return Err(BuildError::Usage(format!(
                    "--token-env: the variable {var} is not set"
                )));
            }
        },
        _ => {
            return Err(BuildError::Usage(
                "the API token is required: --token-env VAR (the variable holding it) or --token TOKEN".into(),
            ));
        }
    };
    warn_of_a_short_token(&token);
    let opts = BuildOptions {
        arm: cli.arm.ok_or_else(|| missing("ARM"))?,
        host: cli.host.ok_or_else(|| missing("--host"))?,
        repo: cli.repo.ok_or_else(|| missing("--repo"))?,
        token,
        out: cli.out.ok_or_else(|| missing("--out"))?,
        skill: cli.skill,
        arms_dir: cli.arms,
        guard_sh: cli.guard_sh,
        keep_work: cli.keep_work,
        bounds: BoundOverrides {
            processes: cli.max_processes,
            memory_mib: cli.max_memory_mib,
            file_mib: cli.max_file_mib,
            disk_mib: cli.max_disk_mib,
            cpu_seconds: cli.max_cpu_seconds,
            line_seconds: cli.max_line_seconds,
        },
    };
    let out = opts.out.clone();
    let arm = opts.arm.clone();
    let definition = build(&opts)?;
    if !cli.print_definition {
        println!(
            "built arm {arm} in {} (its definition: {}/arm.json)",
            out.display(),
            out.display()
        );
        return Ok(());
    }
    let text = serde_json::to_string_pretty(&definition).map_err(|e| BuildError::Serialize {
        what: "arm definition",
        message: e.to_string(),
    })?;
    println!("{text}");
    Ok(())
}

/// Tokens shorter than this also match ordinary text the audit log holds.
const SHORT_TOKEN: usize = 16;

/// The audit log redacts every occurrence of the token, wherever it
/// stands: a short one (`example`) also hides parts of paths and words
/// (`…/arm-[REDACTED]/bin/ls`). Said on stderr; the arm is built anyway.
fn warn_of_a_short_token(token: &str) {
    if token.chars().count() < SHORT_TOKEN {
        eprintln!(
            "arm-build: warning: the token has {} characters: the audit log redacts every occurrence of it, so a token this short also hides ordinary text (paths, words) in the records; use the forge's real token ({SHORT_TOKEN} characters or more)",
            token.chars().count()
        );
    }
}
