//! `guard-sh`: the restricted shell (see `guard_sh::cli::shell`).

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
