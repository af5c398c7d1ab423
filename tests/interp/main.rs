//! The interpreter: beside bash (the differential cases), agent command shapes, the guard
//! at run time, signals, a terminal session, and robustness.
//! One test binary (`cargo test --test interp`), a module per file.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)] // test code reports failures by panicking

#[path = "../common/mod.rs"]
mod common;

mod agents;
mod diff;
mod fake;
mod fake_fork;
mod guard;
mod guard_table;
mod pty;
mod raw_api_diff;
mod robustness;
mod signals;
