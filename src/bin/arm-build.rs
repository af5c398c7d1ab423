//! `arm-build`: build one arm's folder (see `guard_sh::cli::arm_build`).

fn main() -> std::process::ExitCode {
    guard_sh::cli::finish("arm-build", guard_sh::cli::arm_build::run())
}
