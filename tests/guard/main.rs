//! The static guard: its corpus, network arguments, protected paths and `--explain`.
//! One test binary (`cargo test --test guard`), a module per file.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)] // test code reports failures by panicking

#[path = "../common/mod.rs"]
mod common;

mod corpus;
mod explain;
mod network_args;
mod paths;
