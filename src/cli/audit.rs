//! `guard-sh-audit LOG... [--json] [--transcript FILE]...`: verify audit
//! logs and summarize each session; with `--transcript`, also cross-check
//! the harness's transcript against the logs (see
//! `crate::audit::transcript`). Exit 0 clean, 1 leak /
//! denied-but-executed / no sessions / harness not confined (with
//! `--require-harness`) / a tool outside the channel, a shell call not
//! recorded or a record without a call, 3 a log missing, unreadable,
//! corrupt or with a broken chain, or a transcript unreadable (3 wins over 1), 2 usage error.

use crate::audit::Redactor;
use crate::audit::report::{render_json, render_text};
use crate::audit::transcript::{self, Channel};
use crate::audit::verify::{
    Report, VerifyOptions, add_transcript_findings, add_unreadable, recorded_lines, verify_logs,
};
use crate::cli::Exit;
use crate::policy::Policy;
use clap::Parser;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Verify guard-sh audit logs: hash chains, leaks, denials, binaries reached.
#[derive(Parser)]
#[command(name = "guard-sh-audit", version)]
struct Args {
    /// Audit logs (JSON Lines) of one trial; sessions may span several files.
    #[arg(required = true)]
    logs: Vec<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Do not flag a trial without sessions or lines (an arm without a shell).
    #[arg(long)]
    allow_empty: bool,
    /// Flag a trial whose harness was not started by guard-sh-launch with
    /// Landlock (no `harness` record, or one with enforcement `none`).
    #[arg(long)]
    require_harness: bool,
    /// The harness's transcript (Claude Code or Codex session file, or the
    /// Claude Agent SDK's messages as JSON Lines): every tool call must be
    /// the arm's channel and match a guard-sh session, and every session a
    /// call. Repeatable.
    #[arg(long, value_name = "FILE")]
    transcript: Vec<PathBuf>,
    /// The arm's channel for `--transcript`: `shell`, or `mcp:SERVER`.
    #[arg(long, value_name = "CHANNEL", default_value = "shell", value_parser = Channel::parse)]
    channel: Channel,
    /// The arm's policy, to redact the transcript's commands as guard-sh
    /// redacted its lines (the forge token) before matching them.
    #[arg(long, value_name = "FILE")]
    policy: Option<PathBuf>,
}

/// Run `guard-sh-audit` with the process's arguments.
pub fn run() -> Result<ExitCode, Exit> {
    let args = Args::parse();
    let mut report = verify_logs(
        &args.logs,
        VerifyOptions {
            allow_empty: args.allow_empty,
            require_harness: args.require_harness,
        },
    );
    if !args.transcript.is_empty() {
        cross_check(&args, &mut report);
    }
    let text = if args.json {
        render_json(&report)
    } else {
        render_text(&report)
    };
    if std::io::stdout().write_all(text.as_bytes()).is_err() {
        return Err(Exit::silent(3));
    }
    Ok(ExitCode::from(u8::try_from(report.exit_code).unwrap_or(3)))
}

/// The transcript cross-check, its findings added to `report`.
fn cross_check(args: &Args, report: &mut Report) {
    let redactor = match &args.policy {
        None => Redactor::none(),
        Some(path) => match Policy::load(path)
            .map_err(|e| e.to_string())
            .and_then(|p| Redactor::from_policy(&p.audit).map_err(|e| e.to_string()))
        {
            Ok(r) => r,
            Err(e) => {
                add_unreadable(report, &path.display().to_string(), e);
                return;
            }
        },
    };
    let redact = |c: &str| redactor.redact(c).unwrap_or_else(|| c.to_string());
    let sessions = recorded_lines(&args.logs);
    let mut calls = Vec::new();
    for path in &args.transcript {
        let name = path.display().to_string();
        match crate::audit::verify::read_regular_file(path)
            .map_err(|e| e.to_string())
            .and_then(|b| String::from_utf8(b).map_err(|e| e.to_string()))
            .and_then(|t| transcript::read_calls(&t))
        {
            Ok(found) => calls.push((name, found)),
            Err(e) => add_unreadable(report, &name, format!("transcript {name}: {e}")),
        }
    }
    let all: Vec<transcript::Call> = calls.iter().flat_map(|(_, c)| c.clone()).collect();
    let name = calls
        .iter()
        .map(|(n, _)| n.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let mismatches = transcript::cross_check(&all, &sessions, &args.channel, &redact);
    add_transcript_findings(report, &name, &mismatches);
}
