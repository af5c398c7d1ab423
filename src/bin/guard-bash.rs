//! `guard-bash`: the same shell under a name containing `bash`, because
//! Claude Code silently ignores a `SHELL` whose path contains neither
//! `bash` nor `zsh` (and would then run the real bash).

fn main() -> std::process::ExitCode {
    guard_sh::cli::finish("guard-sh", guard_sh::cli::shell::run())
}
