//! The arms: their files compiled, `arm-build` and `guard-sh-launch` as programs.
//! One test binary (`cargo test --test arms`), a module per file.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)] // test code reports failures by panicking

mod arm_build;
mod launch;
mod policy;
mod serve;
