//! Arm data: the compiled [`Policy`] guard-sh loads, and the TOML it is made from.

pub mod model;

pub use model::*;
mod tmp_argmatch;
