//! guard-sh: a restricted shell that lets an AI agent reach exactly one tool.
//!
//! The pipeline, one module per stage:
//! `syntax` (text → AST) → `guard` (AST × policy → verdict) → `interp`
//! (runs the approved AST) → `system` (fork/exec through one trait) with
//! `sandbox` (curated PATH, scrubbed env, Landlock, the exec supervisor)
//! and `audit` (the log). `policy` is the arm data every stage reads;
//! `armbuild` makes it; `os` holds what several stages share. Modules use
//! only the layers below them (docs/architecture.md, checked by
//! tests/structure.rs).

#[allow(missing_docs)] // not yet documented item by item
pub mod armbuild;
#[allow(missing_docs)] // not yet documented item by item
pub mod audit;
pub mod cli;
pub mod guard;
#[allow(missing_docs)] // not yet documented item by item
pub mod interp;
pub mod os;
#[allow(missing_docs)] // not yet documented item by item
pub mod policy;
pub mod sandbox;
#[allow(missing_docs)] // not yet documented item by item
pub mod syntax;
#[allow(missing_docs)] // not yet documented item by item
pub mod system;
