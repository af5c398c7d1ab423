//! `guard-sh-launch`: run an agent harness confined to the arm's shell and
//! commands (see `guard_sh::cli::launch`).

fn main() -> std::process::ExitCode {
    guard_sh::cli::finish("guard-sh-launch", guard_sh::cli::launch::run())
}
