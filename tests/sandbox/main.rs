//! Kernel confinement, judged from outside guard-sh (strace, loopback listeners, file
//! hashes): Landlock per command and for guard-sh itself, the exec and network
//! supervisor, a tool's environment. (`tests/sandbox_off.rs` stays a binary of its own: it
//! turns Landlock off for its whole process.)
//! One test binary (`cargo test --test sandbox`), a module per file.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)] // test code reports failures by panicking

#[path = "../common/mod.rs"]
mod common;
#[path = "../sandbox_support/mod.rs"]
mod sandbox_support;

mod arm;
mod e2e;
mod exec;
mod execute_set;
mod guard_sh_domain;
mod net;
mod proc_files;
mod serve;
mod supervisor_exec;
mod supervisor_network;
mod tool_env;
mod unreadable;
mod write;
