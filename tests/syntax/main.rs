//! The parser: its corpus, generated inputs, properties, errors, continuations, and the
//! inputs fuzzing found.
//! One test binary (`cargo test --test syntax`), a module per file.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)] // test code reports failures by panicking

#[path = "../common/mod.rs"]
mod common;
#[path = "../syntax_support/mod.rs"]
mod syntax_support;

mod continuations;
mod corpus;
mod errors;
mod fuzz_regressions;
mod generated;
mod properties;
