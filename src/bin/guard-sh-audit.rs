//! `guard-sh-audit LOG... [--json]`: verify audit logs and summarize each
//! session. Exit 0 clean, 1 leak / denied-but-executed / no sessions /
//! harness not confined (with `--require-harness`),
//! 3 log corrupt or chain broken (3 wins over 1), 2 usage error.

use clap::Parser;
use guard_sh::audit::report::{render_json, render_text};
use guard_sh::audit::verify::{VerifyOptions, verify_logs};
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
}

fn main() -> ExitCode {
    let args = Args::parse();
    let report = verify_logs(
        &args.logs,
        VerifyOptions {
            allow_empty: args.allow_empty,
            require_harness: args.require_harness,
        },
    );
    let text = if args.json {
        render_json(&report)
    } else {
        render_text(&report)
    };
    if std::io::stdout().write_all(text.as_bytes()).is_err() {
        return ExitCode::from(3);
    }
    ExitCode::from(u8::try_from(report.exit_code).unwrap_or(3))
}
