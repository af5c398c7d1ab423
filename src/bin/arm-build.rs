//! `arm-build`: build one arm's folder (see `guard_sh::armbuild`).

fn main() -> std::process::ExitCode {
    guard_sh::armbuild::main()
}
