//! guard-sh: a restricted shell that lets an AI agent reach exactly one tool.
//!
//! The pipeline, one module per stage:
//! `syntax` (text → AST) → `guard` (AST × policy → verdict) → `interp`
//! (runs the approved AST) → `exec` (fork/exec through one trait) with
//! `sandbox` (curated PATH, scrubbed env, Landlock) and `audit` (the log).
//! `policy` is the arm data every stage reads; `armbuild` makes it.

pub mod armbuild;
pub mod audit;
pub mod guard;
pub mod interp;
pub mod os;
pub mod policy;
pub mod sandbox;
pub mod syntax;
pub mod system;
