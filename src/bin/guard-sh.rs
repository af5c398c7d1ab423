//! `guard-sh`: the restricted shell's entry point.
//!
//! This build parses and checks lines; it does not execute them yet. With
//! `--explain` it prints the verdict as JSON. Without it, a denied line is
//! refused exactly as the full shell will refuse it (status 126), and an
//! allowed line is reported as not executed (status 125) rather than handed
//! to any other shell.

use guard_sh::guard;
use guard_sh::policy::Policy;
use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::process::ExitCode;

/// Statuses of the command-line contract (design.md).
const DENIED: u8 = 126;
const USAGE_OR_SYNTAX: u8 = 2;
const NOT_EXECUTED: u8 = 125;

#[derive(Default)]
struct Invocation {
    explain: bool,
    command: Option<OsString>,
    policy: Option<PathBuf>,
}

fn main() -> ExitCode {
    match run(std::env::args_os().skip(1).collect()) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("guard-sh: {message}");
            ExitCode::from(USAGE_OR_SYNTAX)
        }
    }
}

/// Parse bash-style arguments: combined short flags (`-lc`, `-c -l`), the
/// command string as the first operand after `-c`.
fn parse_args(args: Vec<OsString>) -> Result<Invocation, String> {
    let mut inv = Invocation::default();
    let mut wants_command = false;
    let mut iter = args.into_iter();
    while let Some(arg) = iter.next() {
        let bytes = arg.as_bytes();
        match bytes {
            b"--explain" => inv.explain = true,
            b"--policy" => inv.policy = Some(iter.next().ok_or("--policy needs a FILE")?.into()),
            b"--arm" => {
                return Err("--arm is not available in this build; compile the arm with arm-build and pass --policy".into());
            }
            b"--login" | b"--norc" | b"--noprofile" => {}
            b"--version" => {
                println!("guard-sh {}", env!("CARGO_PKG_VERSION"));
                std::process::exit(0);
            }
            b"-o" | b"+o" => {
                iter.next().ok_or("-o needs an option name")?;
            }
            [b'-', flags @ ..] if !flags.is_empty() && !flags.starts_with(b"-") => {
                for flag in flags {
                    match flag {
                        b'c' => wants_command = true,
                        b'l' | b'i' | b's' | b'e' | b'u' | b'x' => {}
                        other => return Err(format!("-{}: invalid option", *other as char)),
                    }
                }
            }
            _ if bytes.starts_with(b"--") => {
                return Err(format!("{}: invalid option", arg.to_string_lossy()));
            }
            _ if wants_command && inv.command.is_none() => inv.command = Some(arg),
            // `$0` and positional parameters after the command, or a script.
            _ if inv.command.is_some() => {}
            _ => return Err("running script files is not available in this build; use -c".into()),
        }
    }
    if wants_command && inv.command.is_none() {
        return Err("-c: option requires an argument".into());
    }
    if inv.policy.is_none() {
        inv.policy = std::env::var_os("GUARD_SH_POLICY")
            .filter(|p| !p.is_empty())
            .map(PathBuf::from);
    }
    Ok(inv)
}

fn run(args: Vec<OsString>) -> Result<ExitCode, String> {
    let inv = parse_args(args)?;
    let policy_path = inv
        .policy
        .ok_or("no policy: set GUARD_SH_POLICY or pass --policy FILE")?;
    let policy = Policy::load(&policy_path).map_err(|e| e.to_string())?;
    let source: Vec<u8> = match inv.command {
        Some(command) => command.as_bytes().to_vec(),
        None => {
            let mut text = Vec::new();
            std::io::stdin()
                .read_to_end(&mut text)
                .map_err(|e| format!("reading stdin: {e}"))?;
            text
        }
    };
    let verdict = match guard::check_source(&policy, &source) {
        Ok(verdict) => verdict,
        Err(error) => {
            eprintln!("guard-sh: syntax error at {}", error.render(&source));
            return Ok(ExitCode::from(USAGE_OR_SYNTAX));
        }
    };
    if inv.explain {
        let mut out = std::io::stdout().lock();
        let json =
            serde_json::to_string_pretty(&verdict.to_json(&source)).map_err(|e| e.to_string())?;
        writeln!(out, "{json}").map_err(|e| format!("writing stdout: {e}"))?;
        return Ok(ExitCode::from(if verdict.allowed { 0 } else { 1 }));
    }
    if let Some(denial) = verdict.first_denial() {
        eprintln!("guard-sh: denied: {}", denial.reason);
        return Ok(ExitCode::from(DENIED));
    }
    eprintln!("guard-sh: not executed: this build checks lines but does not run them yet");
    Ok(ExitCode::from(NOT_EXECUTED))
}
