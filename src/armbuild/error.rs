//! Errors of arm-build. None of them ever carries the token.

use crate::policy::PolicyError;
use std::path::PathBuf;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum BuildError {
    #[error(transparent)]
    Policy(#[from] PolicyError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Usage(String),
    #[error("{path}: {message}")]
    Skill { path: PathBuf, message: String },
    #[error(
        "{path}: not empty and not made by arm-build; refusing to replace its contents (choose an empty or new folder)"
    )]
    ForeignOutDir { path: PathBuf },
    #[error("cannot serialize {what}: {message}")]
    Serialize { what: &'static str, message: String },
    /// An error about the arms compiled into arm-build, its paths named
    /// as `(built-in)/arms/…` instead of the temporary folder they were
    /// unpacked into for the build (gone when the message is read).
    #[error("{0}")]
    BuiltIn(String),
}

impl BuildError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        BuildError::Io {
            path: path.into(),
            source,
        }
    }
}
