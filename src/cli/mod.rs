//! The command lines of the four programs, one file each: `shell`
//! (`guard-sh` and `guard-bash`), `audit` (`guard-sh-audit`), `launch`
//! (`guard-sh-launch`) and `arm_build` (`arm-build`). Each has a `run` that
//! returns the exit status, or an [`Exit`] saying why it stopped early;
//! the binaries in `src/bin/` only call [`finish`] on it.

pub mod arm_build;
pub mod audit;
pub mod launch;
pub mod shell;

use std::process::ExitCode;

/// How a program stops early: its exit status and, unless the reason is
/// already on stderr, the message to print there.
#[derive(Debug, PartialEq, Eq)]
pub struct Exit {
    /// The process's exit status.
    pub status: u8,
    /// What to print on stderr after the program's name, if anything.
    pub message: Option<String>,
}

impl Exit {
    /// An exit with `status` and `message` to print.
    pub fn new(status: u8, message: impl Into<String>) -> Self {
        Exit {
            status,
            message: Some(message.into()),
        }
    }

    /// An exit whose reason has already been printed.
    pub fn silent(status: u8) -> Self {
        Exit {
            status,
            message: None,
        }
    }
}

/// The process's exit code for `result`; an [`Exit`]'s message goes to
/// stderr as `program: message`.
pub fn finish(program: &str, result: Result<ExitCode, Exit>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(exit) => {
            if let Some(message) = exit.message {
                eprintln!("{program}: {message}");
            }
            ExitCode::from(exit.status)
        }
    }
}
