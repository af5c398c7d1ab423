//! `guard-sh`: the restricted shell (see `guard_sh::cli::shell`).

fn main() -> std::process::ExitCode {
    guard_sh::cli::finish("guard-sh", guard_sh::cli::shell::run())
}
