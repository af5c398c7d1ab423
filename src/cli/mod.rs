//! The command lines of the four programs, one file each: `shell`
//! (`guard-sh` and `guard-bash`), `audit` (`guard-sh-audit`), `launch`
//! (`guard-sh-launch`) and `arm_build` (`arm-build`). Each has a `run` that
//! returns the exit status, or an [`Exit`] saying why it stopped early;
//! the binaries in `src/bin/` only call [`finish`] on it (the shells,
//! started once per line, [`run_without_runtime_setup`]).

pub mod arm_build;
pub mod audit;
pub mod launch;
pub mod serve;
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

/// guard-sh's entry: the marker a line server leaves behind, else the
/// shell, which may hand over to the line server (`--serve`). Here, above
/// both, so the shell never calls the server built on it.
pub fn guard_sh() -> Result<u8, Exit> {
    let argv = program_arguments();
    if argv.len() == 3 && argv[1] == serve::MARKER_ARG {
        serve::hold_token(&argv[2]);
    }
    // The server's name and token are the harness's: no line learns them.
    crate::audit::trial::forget_variable(serve::SERVER_ENV);
    match shell::run(argv)? {
        shell::Ran::Status(status) => Ok(status),
        shell::Ran::Serve {
            policy,
            policy_sha256,
            invocation,
        } => serve::serve(policy, policy_sha256, &invocation),
    }
}

/// The process's exit code for `result`; an [`Exit`]'s message goes to
/// stderr as `program: message`.
pub fn finish(program: &str, result: Result<ExitCode, Exit>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(exit) => ExitCode::from(report(program, exit)),
    }
}

/// Print `exit`'s message, if any, as `program: message`; its status.
fn report(program: &str, exit: Exit) -> u8 {
    if let Some(message) = exit.message {
        eprintln!("{program}: {message}");
    }
    exit.status
}

/// Run `run` as a program whose C `main` calls this (`#![no_main]`): Rust's
/// own start-up is skipped. It would find the main thread's stack guard
/// (glibc reads `/proc/self/maps` for it), install a stack-overflow handler
/// on an alternate stack and ignore SIGPIPE: 0.07 ms of each shell's start,
/// for a handler the shells' own stack check makes moot (they refuse
/// recursion before the stack ends) and a SIGPIPE disposition they reset.
/// What remains of it is done here: descriptors 0–2 are opened on
/// `/dev/null` when closed (status 126, nothing run, when that fails).
/// Exits through [`std::process::exit`], which flushes standard output as
/// a returning `main` does.
pub fn run_without_runtime_setup(program: &str, run: impl FnOnce() -> Result<u8, Exit>) -> ! {
    std::process::exit(i32::from(run_to_status(program, run)))
}

/// What [`run_without_runtime_setup`] runs, the status returned instead of
/// exiting with it.
pub fn run_to_status(program: &str, run: impl FnOnce() -> Result<u8, Exit>) -> u8 {
    match crate::os::stdio::open_standard_descriptors() {
        Ok(()) => run().unwrap_or_else(|exit| report(program, exit)),
        // Rust's runtime aborts here; a status says it (the message goes
        // to stderr if that is not the closed one).
        Err(e) => report(
            program,
            Exit::new(
                126,
                format!(
                    "a standard descriptor is closed and /dev/null cannot be opened on it: {e}"
                ),
            ),
        ),
    }
}

/// The arguments C `main` was given, kept by [`keep_program_arguments`].
static PROGRAM_ARGUMENTS: std::sync::OnceLock<Vec<std::ffi::OsString>> = std::sync::OnceLock::new();

/// Keep the arguments of C `main` for [`program_arguments`]. Rust's
/// runtime set-up, which a shell skips, is what hands them to
/// `std::env::args_os` with musl (glibc also passes them to initialisers,
/// where the standard library takes them itself).
///
/// # Safety
/// `argv` holds `argc` pointers to NUL-terminated strings that live as long
/// as the process, as C `main`'s do.
pub unsafe fn keep_program_arguments(argc: std::ffi::c_int, argv: *const *const std::ffi::c_char) {
    use std::os::unix::ffi::OsStrExt;
    let count = usize::try_from(argc).unwrap_or(0);
    let arguments = (0..count)
        .map(|i| {
            // SAFETY: the caller's promise: `argc` valid C strings.
            let arg = unsafe { std::ffi::CStr::from_ptr(*argv.add(i)) };
            std::ffi::OsStr::from_bytes(arg.to_bytes()).to_os_string()
        })
        .collect();
    let _ = PROGRAM_ARGUMENTS.set(arguments);
}

/// This program's arguments: C `main`'s where they were kept, else the
/// standard library's.
pub fn program_arguments() -> Vec<std::ffi::OsString> {
    match PROGRAM_ARGUMENTS.get() {
        Some(arguments) => arguments.clone(),
        None => std::env::args_os().collect(),
    }
}

/// The C `main` of a shell binary (`guard-sh`, and `guard-bash`, which
/// exists for its name): a crate with `#![no_main]` invokes it once, and
/// the shell starts through [`run_without_runtime_setup`].
#[macro_export]
macro_rules! shell_main {
    () => {
        /// The C entry point: the shell skips Rust's runtime set-up
        /// (see `guard_sh::cli::run_without_runtime_setup`).
        #[unsafe(no_mangle)]
        extern "C" fn main(
            argc: ::std::ffi::c_int,
            argv: *const *const ::std::ffi::c_char,
        ) -> ::std::ffi::c_int {
            // SAFETY: C main's own arguments.
            unsafe { $crate::cli::keep_program_arguments(argc, argv) };
            $crate::cli::run_without_runtime_setup("guard-sh", $crate::cli::guard_sh)
        }
    };
}
