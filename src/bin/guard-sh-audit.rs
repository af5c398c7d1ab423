//! `guard-sh-audit`: verify a trial's audit logs (see `guard_sh::cli::audit`).

fn main() -> std::process::ExitCode {
    guard_sh::cli::finish("guard-sh-audit", guard_sh::cli::audit::run())
}
