//! Arm data: the compiled [`Policy`] guard-sh loads, and the TOML it is made from.
//!
//! `source` reads `arms/*.toml`, `compile` turns one arm plus the shared
//! harmless set into a [`Policy`] (resolving every name to a real binary),
//! `examples` checks the examples each argument rule carries, `load` reads a
//! compiled policy back, and `argmatch` decides whether an [`ArgRule`] matches.

mod argmatch;
pub mod endpoint;
pub mod error;
pub mod load;
pub mod model;
pub mod pin;

pub use error::PolicyError;
pub use load::sha256_hex;
pub use model::*;
