//! `guard-bash`: the same shell under a name containing `bash`, because
//! Claude Code silently ignores a `SHELL` whose path contains neither
//! `bash` nor `zsh` (and would then run the real bash).

#![no_main]

/// The C entry point: the shell skips Rust's runtime set-up
/// (see `guard_sh::cli::run_without_runtime_setup`).
#[unsafe(no_mangle)]
extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    guard_sh::cli::run_without_runtime_setup("guard-sh", guard_sh::cli::shell::run)
}
