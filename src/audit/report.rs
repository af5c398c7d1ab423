//! Rendering a verification [`Report`] for people (a table) and scripts (JSON).

use super::verify::{Finding, Report};
use std::fmt::Write;

/// The report as one JSON document.
pub fn render_json(report: &Report) -> String {
    // A report holds only strings, numbers and maps: serializing cannot fail.
    serde_json::to_string_pretty(report).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}")) + "\n"
}

/// The report as a table per session, then the findings.
pub fn render_text(report: &Report) -> String {
    let mut out = String::new();
    let verdict = match report.exit_code {
        0 => "CLEAN",
        1 => "NOT CLEAN (trial invalid)",
        _ => "NOT CLEAN (log missing, unreadable, corrupt or chain broken)",
    };
    let _ = writeln!(
        out,
        "{verdict}: {} session(s), {} record(s) in {}; {}",
        report.sessions.len(),
        report.records,
        if report.files.is_empty() {
            "no files".to_string()
        } else {
            report.files.join(", ")
        },
        report.sealing
    );
    if !report.sessions.is_empty() {
        let _ = writeln!(
            out,
            "\n{:<40} {:<10} {:<11} {:<16} {:>6} {:>6} {:>7} {:>6} {:>8}",
            "SESSION",
            "ARM",
            "MODE",
            "ENFORCEMENT",
            "RECS",
            "LINES",
            "SPAWNED",
            "DENIED",
            "FINDINGS"
        );
    }
    for s in &report.sessions {
        let dash = || "-".to_string();
        let _ = writeln!(
            out,
            "{:<40} {:<10} {:<11} {:<16} {:>6} {:>6} {:>7} {:>6} {:>8}",
            s.id,
            s.arm.clone().unwrap_or_else(dash),
            s.mode.clone().unwrap_or_else(dash),
            s.enforcement.clone().unwrap_or_else(dash),
            s.records,
            s.lines,
            s.spawned,
            s.denied_lines + s.denied_commands,
            s.findings
        );
        if !s.binaries.is_empty() {
            let _ = writeln!(out, "    {:>6}  PROGRAM", "RUNS");
        }
        for (path, n) in &s.binaries {
            let _ = writeln!(out, "    {n:>6}  {path}");
        }
    }
    if !report.findings.is_empty() {
        let _ = writeln!(out, "\nFINDINGS");
        for f in &report.findings {
            let _ = writeln!(out, "  {}", render_finding(f));
        }
    }
    out
}

/// `KIND session ID seq N (FILE:LINE): message`.
pub fn render_finding(f: &Finding) -> String {
    let mut out = f.kind.name().to_string();
    if let Some(session) = &f.session {
        let _ = write!(out, " session {session}");
    }
    if let Some(seq) = f.seq {
        let _ = write!(out, " seq {seq}");
    }
    match (&f.file, f.line) {
        (Some(file), Some(line)) => {
            let _ = write!(out, " ({file}:{line})");
        }
        (Some(file), None) => {
            let _ = write!(out, " ({file})");
        }
        _ => {}
    }
    let _ = write!(out, ": {}", f.message);
    out
}
