//! Errors of the policy stage: loading arm TOML, compiling it, loading a compiled policy.
//!
//! Every variant names the file (and where it applies the field) so that a
//! broken arm is fixed without guessing.

use std::path::PathBuf;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum PolicyError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// An arm or harmless-set TOML file is malformed or has an unknown field.
    #[error("{path}: {message}")]
    Toml { path: PathBuf, message: String },
    /// A compiled policy JSON file is malformed.
    #[error("{path}: not a valid compiled policy: {message}")]
    Json { path: PathBuf, message: String },
    /// A compiled policy of another format version.
    #[error(
        "{path}: policy format {found} is not supported (this guard-sh reads format {expected}); rebuild it with this arm-build"
    )]
    Format {
        path: PathBuf,
        found: u32,
        expected: u32,
    },
    /// `arms/NAME.toml` does not exist.
    #[error("no arm named {arm:?} in {dir} (arms there: {known})")]
    UnknownArm {
        arm: String,
        dir: PathBuf,
        known: String,
    },
    /// A field holds a value the compiler refuses.
    #[error("{path}: {field}: {message}")]
    Invalid {
        path: PathBuf,
        field: String,
        message: String,
    },
    /// A tool, helper or utility is not on the build-time `PATH`.
    #[error("{path}: {field}: the program {binary:?} was not found on PATH ({search})")]
    MissingBinary {
        path: PathBuf,
        field: String,
        binary: String,
        search: String,
    },
    /// An argument rule's own example does not hold.
    #[error("{path}: {field}: example {example:?} {expectation}")]
    Example {
        path: PathBuf,
        field: String,
        example: Vec<String>,
        expectation: String,
    },
}

impl PolicyError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        PolicyError::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn invalid(
        path: impl Into<PathBuf>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        PolicyError::Invalid {
            path: path.into(),
            field: field.into(),
            message: message.into(),
        }
    }
}
