//! `guard-sh`: the restricted shell (see `guard_sh::cli::shell`).

#![no_main]

guard_sh::shell_main!();
