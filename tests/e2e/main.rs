//! End to end with the real agent harnesses, installed from npm into a
//! cache folder and driven by fake model servers on loopback: every shell
//! command the agent asks for reaches guard-sh, and the audit log and the
//! fake server's log agree on what ran and what was refused.
//!
//! Ignored by default (they download the harnesses once):
//! `cargo test --test e2e -- --ignored` (or `bash tests/e2e/run.sh`). With
//! no npm registry they fail.

#![allow(clippy::panic)] // test code reports failures by panicking

#[path = "../common/mod.rs"]
mod common;

mod agent_sdk;
mod claude;
mod codex;
mod support;
