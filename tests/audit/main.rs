//! The audit log: its writer, its descriptors out of a line's reach, failing closed,
//! the verifier, and whole sessions end to end.
//! One test binary (`cargo test --test audit`), a module per file.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)] // test code reports failures by panicking

#[path = "../audit_support/mod.rs"]
mod audit_support;
#[path = "../common/mod.rs"]
mod common;
#[path = "../sandbox_support/mod.rs"]
mod sandbox_support;

mod descriptors;
mod e2e;
mod fail_closed;
mod verify;
mod writer;
