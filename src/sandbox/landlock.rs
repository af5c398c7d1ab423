//! Kernel confinement (Linux Landlock): one domain per spawned command, and
//! one for guard-sh itself.
//!
//! Guarantee: a child whose [`Confinement::enforce`] returned `Ok` on a
//! Landlock kernel can execute only its own start-up chain (see
//! [`super::exec_chain`]) and its rule's `exec_allow`, write only under the
//! writable roots (plus the terminal and `/dev/null`), connect over TCP only
//! to its rule's ports and bind none (ABI >= 4), and neither signal
//! processes nor reach abstract UNIX sockets outside its domain (ABI >= 6).
//! It may read any file outside `/proc` but beneath the policy's
//! `unreadable` paths (the harness's home and login, the audit log, the
//! arm's configs), other tools' own folders and, in the folders the arm
//! lies in, what holds none of its programs or writable folders (the
//! operator's files); of `/proc`, its own folder
//! (`/proc/self`) and the system-wide figures in [`PROC_READABLE`]: another
//! process's `environ`, `cmdline`, `mem`, `maps` (the harness's model key
//! among them) and the kernel's own lists are closed.
//!
//! # Why reads are handled at all
//! Landlock's ptrace scoping was meant to close other processes' `/proc`
//! files, but measured on Linux 6.18 a domain still reads its unconfined
//! parent's `/proc/PID/environ` (and `cmdline` is never ptrace-checked).
//! So a command's domain handles `READ_FILE` and grants it beneath each
//! entry of `/` but `/proc` (and but links: what they lead to lies beneath
//! another entry; an entry holding an unreadable path is replaced by the
//! way down to it, see [`readable_beneath`]: Landlock cannot take a
//! subfolder back), beneath the files it may execute, beneath the entries
//! of `/proc` listed in
//! [`PROC_READABLE`], and, added by the child
//! itself just before it enters the domain, beneath its own
//! `/proc/<pid>` (the one process of the command whose number is known
//! then: processes it starts cannot read their own `/proc/self`).
//!
//! The ruleset is built in the parent before `fork` (every path opened as an
//! `O_PATH` descriptor, each rule added); the child makes five system calls:
//! `open("/proc/self")`, `landlock_add_rule`, `close`,
//! `prctl(PR_SET_NO_NEW_PRIVS)` and `landlock_restrict_self`.
//!
//! # What needs the execute right (measured with `strace -f` on Linux 6.18)
//! Landlock checks `LANDLOCK_ACCESS_FS_EXECUTE` when the kernel opens a file
//! for execution (`open_exec`): the `execve` target, the `PT_INTERP` loader
//! the ELF handler opens (`/lib64/ld-linux-x86-64.so.2`), and each `#!`
//! interpreter the script handler opens. Without the loader, `execve` of a
//! dynamically linked program fails with `EACCES`. Shared libraries are not
//! checked: the loader `openat`s them read-only and `mmap`s them
//! `PROT_EXEC`, which Landlock does not mediate, so `libc.so.6` needs no rule
//! (`tests/sandbox/exec.rs` asserts both facts against the kernel).
//!
//! # Writable roots and protected paths
//! Landlock can only add rights beneath a folder; it cannot take a subfolder
//! back. So a protected path (policy, bin folder, audit log) that lies
//! inside a writable root, or a writable root inside a protected folder, is
//! refused when the confinement is prepared ([`SandboxError::ProtectedWritable`])
//! instead of being silently writable: fail closed.
//!
//! # Modes
//! - `off`: nothing is enforced.
//! - `best-effort`: whatever the kernel offers (the caller warns once per
//!   session when [`Confinement::enforcement`] is [`Enforcement::None`]).
//! - `required`: Landlock ABI >= [`REQUIRED_ABI`] (4), the first ABI that
//!   covers everything the design promises for policy integrity: execute
//!   and write (1), cross-folder rename (2), `truncate(2)` (3) and TCP (4).
//!   Anything older, or no Landlock, is an error and guard-sh refuses to run.
//!   Scopes (6) and device ioctls (5) are added whenever the kernel has them.
//!
//! # Simulating a machine without Landlock
//! `GUARD_SH_LANDLOCK=off` in guard-sh's environment makes [`probe`] report
//! [`Enforcement::None`], so nothing is enforced (and `required` refuses).
//! It is read once per process, at the first probe.

use super::exec_chain::Resolver;
use crate::os::procfs::PROC_READABLE;
use crate::os::real_path::{RealPaths, bytes_within, is_within, settled};
use crate::policy::{CommandRule, Policy, SandboxMode};
use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, NetPort, Ruleset,
    RulesetAttr, RulesetCreated, RulesetCreatedAttr, RulesetError, Scope, make_bitflags,
};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// Environment variable that, set to `off`, disables Landlock for the process.
pub const LANDLOCK_ENV: &str = "GUARD_SH_LANDLOCK";

/// The lowest Landlock ABI that satisfies `sandbox.mode = "required"`.
pub const REQUIRED_ABI: u32 = 4;

/// Files every command may write: the null device and terminals.
const DEVICE_FILES: [&str; 2] = ["/dev/null", "/dev/tty"];
/// Folders of terminal devices every command may write.
const DEVICE_DIRS: [&str; 1] = ["/dev/pts"];

/// The write-ish rights guard-sh handles, before intersecting with the ABI.
/// `ResolveUnix` (connecting to socket files) is deliberately not handled:
/// reaching local services is not writing.
const WRITE_RIGHTS: BitFlags<AccessFs> = make_bitflags!(AccessFs::{
    WriteFile | RemoveDir | RemoveFile | MakeChar | MakeDir | MakeReg | MakeSock | MakeFifo
    | MakeBlock | MakeSym | Refer | Truncate | IoctlDev
});

/// What the kernel enforces on this machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enforcement {
    /// Landlock with this ABI version (capped at the newest the crate knows).
    Landlock {
        /// The ABI version in force.
        abi: u32,
    },
    /// No kernel confinement.
    None,
}

impl fmt::Display for Enforcement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Enforcement::Landlock { abi } => write!(f, "landlock-abi-{abi}"),
            Enforcement::None => f.write_str("none"),
        }
    }
}

/// Errors of preparing or enforcing a confinement, and of the policy pin.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error(
        "the policy requires the Landlock sandbox (ABI >= {REQUIRED_ABI}), but this system offers {found}"
    )]
    /// The policy requires Landlock and the kernel lacks it.
    Unavailable {
        /// What the kernel offers.
        found: Enforcement,
    },
    #[error(
        "protected path {} overlaps writable root {}: Landlock cannot exclude a path from a writable folder, \
         so the policy must keep them apart",
        protected.display(),
        writable.display()
    )]
    /// A protected path lies inside a writable root.
    ProtectedWritable {
        /// The protected path.
        protected: PathBuf,
        /// The writable root holding it.
        writable: PathBuf,
    },
    /// A command needs to execute a file outside the policy's stored
    /// execute set: the file changed after `arm-build` resolved the set.
    #[error(
        "{} is not in the policy's execute set (it changed after the arm was built); rebuild the arm with arm-build",
        path.display()
    )]
    NotInExecuteSet {
        /// The file (or folder) the command needs.
        path: PathBuf,
    },
    /// A path of a rule cannot be opened.
    #[error("cannot open {} for the sandbox: {source}", path.display())]
    Open {
        /// The path.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The kernel refused the ruleset or a rule.
    #[error("cannot build the Landlock ruleset: {0}")]
    Ruleset(#[from] RulesetError),
    /// The kernel refused to enter the domain.
    #[error("cannot enter the Landlock domain: {0}")]
    Enforce(io::Error),
}

impl SandboxError {
    /// The error as `std::io::Error`, for `pre_exec` hooks. For
    /// [`SandboxError::Enforce`] this is the errno itself (no allocation,
    /// so it is safe after `fork`).
    pub fn into_io(self) -> io::Error {
        match self {
            SandboxError::Enforce(e) => e,
            other => io::Error::other(other.to_string()),
        }
    }
}

/// The kernel's Landlock support, honouring `GUARD_SH_LANDLOCK=off`.
/// Probed once per process.
pub fn probe() -> Enforcement {
    static PROBED: OnceLock<Enforcement> = OnceLock::new();
    *PROBED.get_or_init(|| {
        if disabled_by_env() {
            return Enforcement::None;
        }
        kernel_abi().map_or(Enforcement::None, |abi| Enforcement::Landlock { abi })
    })
}

/// Whether `GUARD_SH_LANDLOCK=off` disables Landlock for this process.
pub fn disabled_by_env() -> bool {
    std::env::var_os(LANDLOCK_ENV).is_some_and(|v| v == "off")
}

/// `landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)`,
/// capped at the newest ABI the `landlock` crate knows.
fn kernel_abi() -> Option<u32> {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: with a null attribute pointer and size 0 the call only reports
    // the ABI version; it reads and writes no memory.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    let v = i32::try_from(v).ok().filter(|v| *v > 0)?;
    // A kernel newer than the crate is used at the crate's newest ABI.
    u32::try_from(ABI::from(v) as i32).ok()
}

/// The ABI a policy's confinement uses: None when nothing is enforced.
/// Errors when the policy requires more than the kernel offers.
pub fn effective_abi(mode: SandboxMode) -> Result<Option<u32>, SandboxError> {
    let found = probe();
    match (mode, found) {
        (SandboxMode::Off, _) => Ok(None),
        (SandboxMode::BestEffort, Enforcement::None) => Ok(None),
        (SandboxMode::BestEffort, Enforcement::Landlock { abi }) => Ok(Some(abi)),
        (SandboxMode::Required, Enforcement::Landlock { abi }) if abi >= REQUIRED_ABI => {
            Ok(Some(abi))
        }
        (SandboxMode::Required, found) => Err(SandboxError::Unavailable { found }),
    }
}

/// A prepared Landlock domain for one process: built before `fork`,
/// entered with [`Confinement::enforce`] between `fork` and `exec`.
/// Cloning is cheap (the ruleset descriptor is shared), so a `'static`
/// `pre_exec` hook can own a clone.
#[derive(Debug, Clone)]
pub struct Confinement {
    /// The ruleset with every rule added; None when nothing is enforced.
    ruleset: Option<Arc<OwnedFd>>,
    enforcement: Enforcement,
    /// The ruleset handles reading: the child adds its own `/proc/<pid>`.
    reads_own_proc: bool,
}

/// Which rights a domain handles (what it does not handle, it leaves to
/// the domains around it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Handled {
    /// Execute, writes, reads when granted, TCP and scopes: a command's
    /// domain and guard-sh's own.
    Everything,
    /// Execute only: the harness's outer domain.
    Execute,
    /// Writes, and reads when granted: the harness's inner domain.
    Files,
}

/// What one domain allows, before it becomes a ruleset.
#[derive(Debug, Default)]
struct Grants {
    /// Files or folders (everything beneath) that may be executed.
    execute: BTreeSet<PathBuf>,
    /// Folders (everything beneath) or files that may be written.
    write: BTreeSet<PathBuf>,
    /// TCP ports that may be connected to.
    connect: BTreeSet<u16>,
    /// Descriptors of the folders (everything beneath) or files that may
    /// be read; `None`: reading is not restricted.
    read: Option<Vec<crate::os::Fd>>,
    /// `write` paths opened ahead (with whether each is a folder), at
    /// private numbers, for a domain built more than once.
    write_opened: HashMap<PathBuf, (Arc<File>, bool)>,
}

impl Confinement {
    /// A confinement that enforces nothing.
    pub fn none() -> Confinement {
        Confinement {
            ruleset: None,
            enforcement: Enforcement::None,
            reads_own_proc: false,
        }
    }

    /// Prepare the domain for running `exe` (the resolved executable, as it
    /// will be passed to `execve`) under `rule`. `cwd` resolves relative
    /// paths in the policy and in `#!` lines. Call before `fork`.
    pub fn for_command(
        policy: &Policy,
        rule: &CommandRule,
        exe: &Path,
        cwd: &Path,
    ) -> Result<Confinement, SandboxError> {
        if effective_abi(policy.sandbox.mode)?.is_none() {
            return Ok(Confinement::none());
        }
        let files = CommandFiles::resolve(rule, exe, cwd)?;
        Confinement::for_files(policy, rule, &files, cwd)
    }

    /// [`Confinement::for_command`] with the command's files already
    /// resolved (the exec plan is made from the same ones).
    pub fn for_files(
        policy: &Policy,
        rule: &CommandRule,
        files: &CommandFiles,
        cwd: &Path,
    ) -> Result<Confinement, SandboxError> {
        match DomainPlan::for_files(policy, rule, files, cwd)? {
            Some(plan) => plan.build(files),
            None => Ok(Confinement::none()),
        }
    }

    /// This confinement with its ruleset moved to a number at or above
    /// [`crate::os::private_fd::PRIVATE_FD_FLOOR`], for one kept before the
    /// line that uses it (whose redirections and the line server's
    /// hand-over reuse the low ones). Not remembered among the private
    /// descriptors: it is closed once its spawn is made, and every number
    /// from the floor up is private anyway. Fails when the descriptor limit
    /// is below the floor.
    pub fn kept_private(self) -> io::Result<Confinement> {
        let Some(ruleset) = self.ruleset else {
            return Ok(self);
        };
        let floor = crate::os::private_fd::PRIVATE_FD_FLOOR;
        let moved = crate::os::duplicate_at_least(ruleset.as_raw_fd(), floor)?;
        Ok(Confinement {
            ruleset: Some(Arc::new(moved)),
            ..self
        })
    }

    /// The ruleset's descriptor, when there is one.
    #[cfg(test)]
    pub(crate) fn ruleset_fd(&self) -> Option<i32> {
        self.ruleset.as_ref().map(|r| r.as_raw_fd())
    }

    /// What this confinement enforces.
    pub fn enforcement(&self) -> Enforcement {
        self.enforcement
    }

    /// Enter the domain (the calling thread and its future children).
    /// Only system calls, no allocation: safe between `fork` and `exec`.
    /// The ruleset descriptor is close-on-exec, so the program never sees it.
    pub fn enforce(&self) -> Result<(), SandboxError> {
        let Some(ruleset) = &self.ruleset else {
            return Ok(());
        };
        if self.reads_own_proc {
            allow_reading_own_proc(ruleset.as_raw_fd()).map_err(SandboxError::Enforce)?;
        }
        // SAFETY: plain system calls on integer arguments; `ruleset` is an
        // open Landlock ruleset descriptor owned by `self`.
        unsafe {
            // Required by landlock_restrict_self without CAP_SYS_ADMIN, and it
            // keeps set-uid programs from regaining what the domain denies.
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err(SandboxError::Enforce(io::Error::last_os_error()));
            }
            if libc::syscall(libc::SYS_landlock_restrict_self, ruleset.as_raw_fd(), 0u32) != 0 {
                return Err(SandboxError::Enforce(io::Error::last_os_error()));
            }
        }
        Ok(())
    }

    /// A domain that handles only the execute right: `paths` (files, or
    /// folders and everything beneath) may be executed, nothing else is
    /// restricted. Used for the agent harness ([`super::harness`]).
    pub fn execute_only(abi: u32, paths: &BTreeSet<PathBuf>) -> Result<Confinement, SandboxError> {
        let grants = Grants {
            execute: paths.clone(),
            ..Grants::default()
        };
        Confinement::build_handling(abi, &grants, &Resolver::new(), Handled::Execute)
    }

    /// A domain that handles only files read and written, for the agent
    /// harness ([`super::harness`]), entered beneath its execute-only
    /// domain: it may write beneath `write` and the terminal devices, and
    /// read everything but `unreadable` (real paths; in a folder on the
    /// way to one, only the entries holding one of `needed`), and all of
    /// `/proc` (its own processes' files; another domain's are closed by
    /// Landlock's ptrace rule, and no process of the trial holds a secret
    /// in its environment block). Execute, TCP and scopes are not handled:
    /// the harness reaches its model over the network, and the line
    /// server it connects to lives outside its domain.
    pub fn harness_files(
        abi: u32,
        write: &BTreeSet<PathBuf>,
        unreadable: BTreeSet<PathBuf>,
        needed: BTreeSet<PathBuf>,
    ) -> Result<Confinement, SandboxError> {
        let scope = ReadScope { unreadable, needed };
        let mut read = readable_roots(&scope)?;
        let proc_error = |source: io::Error| SandboxError::Open {
            path: PathBuf::from("/proc"),
            source,
        };
        let proc = crate::os::open_path(Path::new("/proc")).map_err(proc_error)?;
        read.extend(crate::os::private_fd::keep_all(vec![proc]).map_err(proc_error)?);
        let mut grants = Grants {
            write: write.clone(),
            read: Some(read),
            ..Grants::default()
        };
        grants.add_devices();
        Confinement::build_handling(abi, &grants, &Resolver::new(), Handled::Files)
    }

    /// The ruleset for `grants`; execute rules on files `resolver` has
    /// read are made on its descriptors.
    fn build(abi: u32, grants: &Grants, resolver: &Resolver) -> Result<Confinement, SandboxError> {
        Confinement::build_handling(abi, grants, resolver, Handled::Everything)
    }

    /// The ruleset for `grants`, handling the rights `handled` names.
    fn build_handling(
        abi: u32,
        grants: &Grants,
        resolver: &Resolver,
        handled: Handled,
    ) -> Result<Confinement, SandboxError> {
        let known = ABI::from(abi as i32);
        let write_rights = WRITE_RIGHTS & AccessFs::from_write(known);
        let everything = handled == Handled::Everything;
        // A command's domain reads its own `/proc/<pid>`, added by the child;
        // the harness's files domain is granted all of `/proc` instead.
        let reads_own_proc = grants.read.is_some() && handled != Handled::Files;
        let mut handled = match handled {
            Handled::Everything => write_rights | AccessFs::Execute,
            Handled::Execute => AccessFs::Execute.into(),
            Handled::Files => write_rights,
        };
        if grants.read.is_some() {
            handled |= AccessFs::ReadFile;
        }
        let file_rights = AccessFs::from_file(known);
        let mut ruleset = Ruleset::default()
            // Ask for exactly what the probed ABI has; any refusal is an error.
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(handled)?;
        let tcp = everything && abi >= 4;
        if tcp {
            ruleset = ruleset.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?;
        }
        if everything && abi >= 6 {
            ruleset = ruleset.scope(Scope::from_all(ABI::V6))?;
        }
        let mut created: RulesetCreated = ruleset.create()?;
        if tcp {
            for port in &grants.connect {
                created = created.add_rule(NetPort::new(*port, AccessNet::ConnectTcp))?;
            }
        }
        // Path rules are added on the ruleset's descriptor directly: the
        // crate would `fstat` every descriptor again to sort files from
        // folders, which this code knows already (a hundred rules a spawn).
        let ruleset: Option<OwnedFd> = created.into();
        let Some(ruleset) = ruleset else {
            // The crate found no Landlock although the probe did: fail closed.
            return Err(SandboxError::Unavailable {
                found: Enforcement::None,
            });
        };
        // A command that may execute a file may read it (a loader maps
        // its program; a script is read by its interpreter), wherever it is.
        let execute_rights = if grants.read.is_some() {
            AccessFs::Execute | AccessFs::ReadFile
        } else {
            AccessFs::Execute.into()
        };
        for path in &grants.execute {
            let opened = resolver.opened(path).map(|file| (file, false));
            add_path(&ruleset, path, opened, execute_rights, file_rights)?;
        }
        for path in &grants.write {
            let opened = grants
                .write_opened
                .get(path)
                .map(|(file, dir)| (&**file, *dir));
            add_path(&ruleset, path, opened, write_rights, file_rights)?;
        }
        for &root in grants.read.as_deref().unwrap_or_default() {
            // READ_FILE is a right a file can carry too, so the same rule
            // serves a folder and a file.
            add_beneath(ruleset.as_raw_fd(), root, ACCESS_FS_READ_FILE).map_err(|source| {
                SandboxError::Open {
                    path: PathBuf::from(format!("/proc/self/fd/{root}")),
                    source,
                }
            })?;
        }
        Ok(Confinement {
            ruleset: Some(Arc::new(ruleset)),
            enforcement: Enforcement::Landlock { abi },
            reads_own_proc,
        })
    }
}

/// One command's domain resolved, not yet a ruleset: what
/// [`Confinement::for_files`] builds, kept to build again for each spawn
/// of the same program (each child adds its own `/proc/<pid>` to its
/// ruleset, so a ruleset serves one child).
#[derive(Debug)]
pub struct DomainPlan {
    abi: u32,
    grants: Grants,
}

impl DomainPlan {
    /// The domain of running the program of `files` under `rule`; None
    /// when Landlock is off. Fails when a file to execute lies outside
    /// the policy's stored execute set or a writable folder meets a
    /// protected path.
    pub fn for_files(
        policy: &Policy,
        rule: &CommandRule,
        files: &CommandFiles,
        cwd: &Path,
    ) -> Result<Option<DomainPlan>, SandboxError> {
        let Some(abi) = effective_abi(policy.sandbox.mode)? else {
            return Ok(None);
        };
        if let Some(stored) = &policy.sandbox.execute
            && let Some(missing) = files.execute.iter().find(|f| !covers(stored, f))
        {
            // guard-sh's own domain, made from the stored set, would refuse
            // it anyway; say why instead of a bare EACCES.
            return Err(SandboxError::NotInExecuteSet {
                path: missing.clone(),
            });
        }
        let mut grants = Grants {
            execute: files.execute.clone(),
            ..Grants::default()
        };
        grants.add_rights(rule, cwd);
        grants.add_writable(&policy.sandbox.writable, cwd);
        check_protected(policy, &grants.write, cwd)?;
        grants.add_devices();
        let scope = ReadScope {
            unreadable: unreadable_except(policy, &rule.writable, cwd),
            needed: (files.execute.iter())
                .chain(&grants.write)
                .map(|p| settled(p))
                .collect(),
        };
        grants.read = Some(readable_roots(&scope)?);
        Ok(Some(DomainPlan { abi, grants }))
    }

    /// Open the writable paths now, at private numbers, for a plan built
    /// again for later spawns (see [`super::prepare_command`]). A path
    /// that is missing now is opened at each build (and skipped if still
    /// missing).
    pub fn keep_open(&mut self) -> io::Result<()> {
        for path in &self.grants.write {
            let Ok(file) = crate::os::open_path(path).map(std::fs::File::from) else {
                continue;
            };
            let is_dir = file.metadata()?.is_dir();
            // Private by number only: the file is a system one (a program, a
            // writable folder, /dev/null) that lines may open by name.
            let kept = crate::os::private_fd::keep_shared(file)?;
            self.grants
                .write_opened
                .insert(path.clone(), (kept, is_dir));
        }
        Ok(())
    }

    /// A fresh ruleset of this plan, its execute rules made on the
    /// descriptors `files` read the programs through.
    pub fn build(&self, files: &CommandFiles) -> Result<Confinement, SandboxError> {
        Confinement::build(self.abi, &self.grants, &files.resolver)
    }
}

/// What one command's read grants leave out, and what they keep.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
struct ReadScope {
    /// Real paths the command may not read.
    unreadable: BTreeSet<PathBuf>,
    /// What it may execute or write (real paths): in a folder on the way
    /// to an unreadable path, the entries holding one of these are granted
    /// whole.
    needed: BTreeSet<PathBuf>,
}

/// What a command may read (see the module docs), as descriptors opened
/// once per process: each entry of `/` but `/proc` and the unreadable
/// paths, an entry holding one of those replaced by its own entries, and
/// so on down ([`readable_beneath`]); and the entries of `/proc` in
/// [`PROC_READABLE`]. These names do not change while a session runs
/// (nothing the agent may write holds them), and opening them per spawn
/// would double Landlock's cost; each is held `O_PATH` at a private
/// descriptor number, so a line can neither name it nor swap what it opens.
fn readable_roots(scope: &ReadScope) -> Result<Vec<crate::os::Fd>, SandboxError> {
    type Opened = BTreeMap<PathBuf, crate::os::Fd>;
    type Scopes = BTreeMap<ReadScope, Vec<crate::os::Fd>>;
    static OPENED: Mutex<(Opened, Scopes)> = Mutex::new((BTreeMap::new(), BTreeMap::new()));
    let mut guard = OPENED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let (opened, scopes) = &mut *guard;
    if let Some(roots) = scopes.get(scope) {
        return Ok(roots.clone());
    }
    let listing_error = |source: io::Error| SandboxError::Open {
        path: PathBuf::from("/"),
        source,
    };
    let mut paths = Vec::new();
    readable_beneath(Path::new("/"), scope, &mut paths).map_err(listing_error)?;
    paths.extend(
        PROC_READABLE
            .iter()
            .map(|name| Path::new("/proc").join(name)),
    );
    // Paths not opened yet: opened now, then moved to private numbers at once.
    let mut new_paths = Vec::new();
    let mut new_files = Vec::new();
    for path in &paths {
        if opened.contains_key(path) {
            continue;
        }
        // A root that vanished (or that this user cannot reach) grants nothing.
        if let Ok(file) = crate::os::open_path(path) {
            new_paths.push(path.clone());
            new_files.push(file);
        }
    }
    let saved = crate::os::private_fd::keep_all(new_files).map_err(listing_error)?;
    opened.extend(new_paths.into_iter().zip(saved));
    let roots: Vec<crate::os::Fd> = paths
        .iter()
        .filter_map(|p| opened.get(p).copied())
        .collect();
    scopes.insert(scope.clone(), roots.clone());
    Ok(roots)
}

/// Push onto `out` each entry of the folder `dir` a command may read
/// everything beneath. `/` and a folder holding an unreadable path are
/// listed: every entry but links (what they lead to lies beneath another
/// entry, judged there), `/proc` and the unreadable ones. A folder merely
/// on the way to one (`/tmp` for an arm in `/tmp/x/arm`) is not listed:
/// only the entry on the way and the entries holding something the
/// command may execute or write are granted, so an arm's ancestors cost a rule or
/// two, not one per file of theirs, and their other files (the operator's)
/// stay closed. An entry with an unreadable path beneath it is treated in
/// turn (Landlock can grant beneath a folder but not take a subfolder
/// back). A folder that cannot be listed grants nothing beneath it.
fn readable_beneath(dir: &Path, scope: &ReadScope, out: &mut Vec<PathBuf>) -> io::Result<()> {
    // Each path's first name below `dir`, with whether it is that entry
    // itself (`true`) or lies beneath it.
    let first_names = |paths: &BTreeSet<PathBuf>| -> BTreeMap<std::ffi::OsString, bool> {
        let mut names = BTreeMap::new();
        for path in paths {
            let Ok(rest) = path.strip_prefix(dir) else {
                continue;
            };
            let mut parts = rest.iter();
            if let Some(first) = parts.next() {
                let itself = parts.next().is_none();
                *names.entry(first.to_os_string()).or_insert(itself) |= itself;
            }
        }
        names
    };
    let unreadable = first_names(&scope.unreadable);
    let listed = dir == Path::new("/") || unreadable.values().any(|&itself| itself);
    if !listed {
        for name in unreadable.keys() {
            // Errors below the top: that folder grants nothing.
            let _ = readable_beneath(&dir.join(name), scope, out);
        }
        let holders = first_names(&scope.needed);
        out.extend(
            holders
                .into_keys()
                .filter(|name| !unreadable.contains_key(name))
                .map(|name| dir.join(name)),
        );
        return Ok(());
    }
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = dir.join(&name);
        if kind.is_symlink() || path == Path::new("/proc") || unreadable.get(&name) == Some(&true) {
            continue;
        }
        if kind.is_dir() && unreadable.contains_key(&name) {
            let _ = readable_beneath(&path, scope, out);
        } else {
            out.push(path);
        }
    }
    Ok(())
}

/// Whether the file at `opened` (a real path, as the kernel names an open
/// descriptor) lies where every command of `policy` may read: the check
/// the shell's own reads for a line (redirections, `source`) pass, so that
/// a line reads through the shell nothing its commands could not (the
/// operator's files beside the arm, another arm's folder). The strictest
/// command's roots: no tool's own folder, the programs of every rule.
/// Names that are no path (`pipe:[…]`) and `/proc` (judged by
/// [`crate::os::procfs`]) pass. Resolved once per process.
pub fn every_command_may_read(policy: &Policy, cwd: &Path, opened: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    thread_local! {
        static ROOTS: std::cell::OnceCell<Vec<PathBuf>> = const { std::cell::OnceCell::new() };
    }
    if !opened.is_absolute() || opened.starts_with("/proc") {
        return true;
    }
    ROOTS.with(|roots| {
        let roots = roots.get_or_init(|| {
            let execute = match &policy.sandbox.execute {
                Some(stored) => stored.iter().cloned().collect(),
                None => guard_sh_execute_set(policy, cwd),
            };
            let writable = policy.sandbox.writable.iter().map(|w| cwd.join(w));
            let scope = ReadScope {
                // No rule's own folder: every tool's is left out.
                unreadable: unreadable_except(policy, &[], cwd),
                needed: execute
                    .iter()
                    .cloned()
                    .chain(writable)
                    .map(|p| settled(&p))
                    .collect(),
            };
            let mut paths = Vec::new();
            // A listing that fails leaves nothing readable: fail closed.
            let _ = readable_beneath(Path::new("/"), &scope, &mut paths);
            paths
        });
        let opened = opened.as_os_str().as_bytes();
        roots
            .iter()
            .any(|root| bytes_within(opened, root.as_os_str().as_bytes()))
    })
}

/// What a command whose own folders are `own` (its rule's writable ones)
/// may not read, as real paths: the policy's `unreadable` paths and the
/// other tools' own folders (their writable folders: a login, a config).
fn unreadable_except(policy: &Policy, own: &[PathBuf], cwd: &Path) -> BTreeSet<PathBuf> {
    let own: BTreeSet<PathBuf> = own.iter().map(|w| cwd.join(w)).collect();
    let named = policy
        .sandbox
        .unreadable
        .iter()
        .chain(policy.commands.values().flat_map(|r| r.writable.iter()))
        .map(|p| cwd.join(p))
        .filter(|p| !own.contains(p));
    named.map(|p| settled(&p)).collect()
}

/// `struct landlock_path_beneath_attr` (packed, as the kernel reads it).
#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// `LANDLOCK_RULE_PATH_BENEATH` and `LANDLOCK_ACCESS_FS_READ_FILE`.
const RULE_PATH_BENEATH: libc::c_int = 1;
const ACCESS_FS_READ_FILE: u64 = 1 << 2;

/// In the child, before it enters the domain: let it read beneath its own
/// `/proc/<pid>` (`/proc/self` opened now names the child). Only system
/// calls, no allocation.
fn allow_reading_own_proc(ruleset: libc::c_int) -> io::Result<()> {
    // SAFETY: plain system calls; the path is a NUL-terminated literal.
    let own = unsafe {
        libc::openat(
            libc::AT_FDCWD,
            c"/proc/self".as_ptr(),
            libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    if own < 0 {
        return Err(io::Error::last_os_error());
    }
    let added = add_beneath(ruleset, own, ACCESS_FS_READ_FILE);
    // SAFETY: `own` was opened above and is closed once.
    unsafe { libc::close(own) };
    added
}

/// `landlock_add_rule(ruleset, LANDLOCK_RULE_PATH_BENEATH, {rights,
/// parent})`. Only a system call, no allocation: safe after `fork`.
fn add_beneath(ruleset: libc::c_int, parent: libc::c_int, rights: u64) -> io::Result<()> {
    let attr = PathBeneathAttr {
        allowed_access: rights,
        parent_fd: parent,
    };
    // SAFETY: `attr` is the packed struct the kernel reads and outlives
    // the call; the descriptors are plain integers the kernel checks.
    let added = unsafe {
        libc::syscall(
            libc::SYS_landlock_add_rule,
            ruleset,
            RULE_PATH_BENEATH,
            &attr as *const PathBeneathAttr,
            0u32,
        )
    };
    if added != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Add `rights` beneath `path` (a folder) or on `path` (a file: only the
/// rights a file can carry). `opened` is a descriptor `path` was opened
/// through before, with whether it is a folder (the exec chain's files;
/// a kept domain's writable folders); without one, `path` is opened
/// `O_PATH` and judged by that descriptor, not by its name, so a swap
/// cannot widen the rule. Missing paths are skipped: they grant nothing.
fn add_path(
    ruleset: &OwnedFd,
    path: &Path,
    opened: Option<(&File, bool)>,
    rights: BitFlags<AccessFs>,
    file_rights: BitFlags<AccessFs>,
) -> Result<(), SandboxError> {
    let open_error = |source: io::Error| SandboxError::Open {
        path: path.to_path_buf(),
        source,
    };
    let path_fd;
    let (fd, is_dir) = match opened {
        Some((file, is_dir)) => (file.as_fd(), is_dir),
        None => {
            path_fd = match crate::os::open_path(path) {
                Ok(fd) => fd,
                Err(_) if !path.exists() => return Ok(()),
                Err(e) => return Err(open_error(e)),
            };
            // Rights a file can carry too (execute) are the same either way.
            if file_rights.contains(rights) {
                (path_fd.as_fd(), false)
            } else {
                let mode = nix::sys::stat::fstat(path_fd.as_fd())
                    .map_err(|e| open_error(e.into()))?
                    .st_mode;
                (path_fd.as_fd(), mode & libc::S_IFMT == libc::S_IFDIR)
            }
        }
    };
    let rights = if is_dir { rights } else { rights & file_rights };
    if rights.is_empty() {
        return Ok(());
    }
    // An O_PATH descriptor is closed as soon as the rule is in the ruleset.
    add_beneath(ruleset.as_raw_fd(), fd.as_raw_fd(), rights.bits()).map_err(open_error)
}

/// What one command may execute: its program's start-up chain and each
/// helper's (a helper folder whole), resolved once and shared by the
/// command's Landlock domain and its exec plan, with the descriptors the
/// domain's rules are made on.
#[derive(Debug)]
pub struct CommandFiles {
    /// Canonical paths, and helper folders (everything beneath).
    pub execute: BTreeSet<PathBuf>,
    resolver: Resolver,
}

impl CommandFiles {
    /// Resolve what running `exe` under `rule` may execute. Errors when
    /// `exe` (or an interpreter of it that exists) cannot be read.
    pub fn resolve(rule: &CommandRule, exe: &Path, cwd: &Path) -> Result<Self, SandboxError> {
        let mut resolver = Resolver::new();
        let mut execute: BTreeSet<PathBuf> = start_chain(rule, exe, cwd, &mut resolver)?
            .into_iter()
            .collect();
        execute.extend(helper_execute_set(rule, cwd, &mut resolver));
        Ok(CommandFiles { execute, resolver })
    }

    /// The ELF loaders of the files read: allowed as `PT_INTERP` only.
    pub fn loaders(&self) -> BTreeSet<PathBuf> {
        self.resolver.elf_interpreters()
    }

    /// Keep the descriptors the programs were read through at private
    /// numbers, for files kept beyond one spawn (see
    /// [`super::exec_chain::Resolver::keep_private`]).
    pub fn keep_private(&mut self) -> io::Result<()> {
        self.resolver.keep_private()
    }
}

/// Whether `path` is one of `granted` or beneath one of them (a folder):
/// what an execute grant lets run, in a domain and in an exec plan.
pub(super) fn covers<'a>(granted: impl IntoIterator<Item = &'a PathBuf>, path: &Path) -> bool {
    granted.into_iter().any(|g| is_within(path, g))
}

/// `exe` and what the kernel runs to start it (its ELF loader, its `#!`
/// interpreters), as `resolver` finds them on the rule's `PATH`.
pub(super) fn start_chain(
    rule: &CommandRule,
    exe: &Path,
    cwd: &Path,
    resolver: &mut Resolver,
) -> Result<Vec<PathBuf>, SandboxError> {
    resolver
        .resolve(exe, cwd, &rule.path_env)
        .map_err(|source| SandboxError::Open {
            path: exe.to_path_buf(),
            source,
        })
}

/// What a command of `rule` may execute besides its own program's chain:
/// each helper with its start-up chain, a folder of helpers (e.g. git's
/// libexec folder) whole. A helper that does not exist grants nothing.
pub(super) fn helper_execute_set(
    rule: &CommandRule,
    cwd: &Path,
    resolver: &mut Resolver,
) -> Vec<PathBuf> {
    let mut set = Vec::new();
    for helper in &rule.exec_allow {
        let helper = cwd.join(helper);
        match resolver.resolve(&helper, cwd, &rule.path_env) {
            Ok(chain) => set.extend(chain),
            Err(_) if helper.is_dir() => set.push(helper),
            Err(_) => {}
        }
    }
    set
}

impl Grants {
    /// A rule's writable folders and its ports.
    fn add_rights(&mut self, rule: &CommandRule, cwd: &Path) {
        self.add_writable(&rule.writable, cwd);
        self.connect.extend(rule.connect_ports.iter().copied());
    }

    fn add_writable(&mut self, roots: &[PathBuf], cwd: &Path) {
        self.write.extend(roots.iter().map(|r| cwd.join(r)));
    }

    fn add_devices(&mut self) {
        self.write
            .extend(DEVICE_FILES.iter().chain(&DEVICE_DIRS).map(PathBuf::from));
    }
}

/// Refuse when a protected path and a writable root overlap (see the
/// module docs). Both sides are compared as real paths.
fn check_protected(
    policy: &Policy,
    writable: &BTreeSet<PathBuf>,
    cwd: &Path,
) -> Result<(), SandboxError> {
    // Each side resolved once, not once per pair; the folders they share
    // once for all.
    let mut real = RealPaths::new();
    let roots: Vec<(&PathBuf, PathBuf)> = writable.iter().map(|r| (r, real.of(r))).collect();
    for protected in &policy.sandbox.protected {
        // Unlike a writable root, which the agent may reach, a protected
        // path cannot move: what leads to it lies outside every writable
        // root (this check, made at start too).
        let protected_real = settled(&cwd.join(protected));
        for (root, root_real) in &roots {
            if is_within(&protected_real, root_real) || is_within(root_real, &protected_real) {
                return Err(SandboxError::ProtectedWritable {
                    protected: protected.clone(),
                    writable: (*root).clone(),
                });
            }
        }
    }
    Ok(())
}

/// Confine guard-sh itself, after it has loaded the policy and opened the
/// audit log (open descriptors keep working; nothing new can be opened for
/// writing outside the roots). Writes: the policy's writable roots, every
/// rule's writable folders and the devices; execute: everything any
/// command may execute (each child then enters its own narrower domain on
/// top, since domains stack); connect: the union of all rules' ports.
/// Returns what is enforced.
pub fn restrict_guard_sh(policy: &Policy, cwd: &Path) -> Result<Enforcement, SandboxError> {
    let confinement = prepare_guard_sh(policy, cwd)?;
    confinement.enforce()?;
    Ok(confinement.enforcement())
}

/// The domain [`restrict_guard_sh`] enters, without entering it.
pub fn prepare_guard_sh(policy: &Policy, cwd: &Path) -> Result<Confinement, SandboxError> {
    let Some(abi) = effective_abi(policy.sandbox.mode)? else {
        return Ok(Confinement::none());
    };
    let mut grants = Grants::default();
    let mut resolver = Resolver::new();
    grants.execute = match &policy.sandbox.execute {
        Some(stored) => stored.iter().cloned().collect(),
        None => execute_set(policy, cwd, &mut resolver),
    };
    for rule in policy.commands.values() {
        grants.add_rights(rule, cwd);
    }
    grants.add_writable(&policy.sandbox.writable, cwd);
    check_protected(policy, &grants.write, cwd)?;
    grants.add_devices();
    Confinement::build(abi, &grants, &resolver)
}

/// Everything any command of `policy` may execute: each program with its
/// start-up chain, each helper with its own (a helper folder whole). What
/// `arm-build` stores as the policy's `sandbox.execute`.
pub fn guard_sh_execute_set(policy: &Policy, cwd: &Path) -> BTreeSet<PathBuf> {
    execute_set(policy, cwd, &mut Resolver::new())
}

/// [`guard_sh_execute_set`] through `resolver`, which then holds the files
/// it read (one resolver for every rule: the tools share their loader and
/// often their helpers, and each distinct file is read once).
fn execute_set(policy: &Policy, cwd: &Path, resolver: &mut Resolver) -> BTreeSet<PathBuf> {
    let mut execute = BTreeSet::new();
    for rule in policy.commands.values() {
        if let Ok(chain) = resolver.resolve(&rule.path, cwd, &rule.path_env) {
            execute.extend(chain);
        }
        execute.extend(helper_execute_set(rule, cwd, resolver));
    }
    execute
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic)] // test code reports failures by panicking
    use super::*;

    #[test]
    fn the_childs_read_right_is_the_crates_read_file() {
        assert_eq!(
            BitFlags::<AccessFs>::from(AccessFs::ReadFile).bits(),
            ACCESS_FS_READ_FILE
        );
        assert_eq!(std::mem::size_of::<PathBeneathAttr>(), 12);
    }

    #[test]
    fn every_root_is_readable_but_proc_where_only_the_listed_entries_are() {
        let roots = readable_roots(&ReadScope::default()).unwrap_or_else(|e| panic!("{e}"));
        let named = names(&roots);
        assert!(named.contains(&PathBuf::from("/usr")), "{named:?}");
        assert!(named.contains(&PathBuf::from("/proc/cpuinfo")), "{named:?}");
        assert!(named.contains(&PathBuf::from("/proc/sys")), "{named:?}");
        // Of /proc, only the listed entries: no process folder, no kernel log.
        let of_proc: Vec<&PathBuf> = named.iter().filter(|r| r.starts_with("/proc")).collect();
        assert!(
            of_proc.iter().all(|r| PROC_READABLE
                .iter()
                .any(|name| Path::new("/proc").join(name) == **r)),
            "{of_proc:?}"
        );
        assert!(!named.contains(&PathBuf::from("/proc/kmsg")), "{named:?}");
        // No rule lies beneath another: a link at `/` (`bin -> usr/bin`
        // where /usr is merged) is not opened as a root of its own.
        for root in &named {
            assert!(
                !named
                    .iter()
                    .any(|other| other != root && root.starts_with(other)),
                "{root:?} lies beneath another root: {named:?}"
            );
        }
        assert!(
            roots
                .iter()
                .all(|&fd| crate::os::private_fd::is_private(fd))
        );
    }

    /// The paths the descriptors were opened on.
    fn names(roots: &[crate::os::Fd]) -> Vec<PathBuf> {
        roots
            .iter()
            .map(|fd| std::fs::read_link(format!("/proc/self/fd/{fd}")).unwrap_or_default())
            .collect()
    }

    /// An unreadable folder is left out by granting its siblings, and its
    /// ancestors' siblings, instead of its ancestors: nothing granted lies
    /// above or beneath it, and everything else in the tree is covered.
    #[test]
    fn an_unreadable_folder_is_left_out_of_the_read_roots() {
        let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let top = std::fs::canonicalize(root.path()).unwrap_or_else(|e| panic!("{e}"));
        for dir in ["arm/harness-home/.claude", "arm/work", "arm/home", "other"] {
            std::fs::create_dir_all(top.join(dir)).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(top.join("arm/policy.json"), "{}").unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(top.join("note"), "x").unwrap_or_else(|e| panic!("{e}"));
        let unreadable = BTreeSet::from([
            top.join("arm/harness-home"),
            top.join("arm/policy.json"),
            // Not there (yet): its folder is listed, so it stays out.
            top.join("arm/audit"),
        ]);
        let scope = ReadScope {
            unreadable: unreadable.clone(),
            needed: BTreeSet::new(),
        };
        let roots = readable_roots(&scope).unwrap_or_else(|e| panic!("{e}"));
        let named = names(&roots);
        for readable in ["arm/work", "arm/home"] {
            assert!(named.contains(&top.join(readable)), "{readable}: {named:?}");
        }
        // The folder above the arm is only on the way: its other entries
        // hold nothing the command runs.
        for closed in ["other", "note"] {
            assert!(!named.contains(&top.join(closed)), "{closed}: {named:?}");
        }
        for path in &named {
            for secret in &unreadable {
                assert!(
                    !path.starts_with(secret) && !secret.starts_with(path),
                    "{path:?} grants {secret:?}"
                );
            }
        }
        // Outside the tree, the other entries of `/` stay whole.
        assert!(named.contains(&PathBuf::from("/usr")), "{named:?}");
        // The same set again: the same descriptors, nothing opened anew.
        assert_eq!(readable_roots(&scope).ok(), Some(roots));
    }

    /// A folder merely on the way (a busy `/tmp`) is not listed: only the
    /// way down and the entries holding what the command runs are granted,
    /// however many other entries it has; the folder holding the unreadable
    /// path grants its other entries.
    #[test]
    fn a_folder_on_the_way_grants_only_the_way_and_what_the_command_runs() {
        let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let top = std::fs::canonicalize(root.path()).unwrap_or_else(|e| panic!("{e}"));
        for i in 0..100 {
            std::fs::write(top.join(format!("junk{i}")), "x").unwrap_or_else(|e| panic!("{e}"));
        }
        for dir in ["arm/harness-home", "arm/work", "tools/bin"] {
            std::fs::create_dir_all(top.join(dir)).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(top.join("arm/notes"), "x").unwrap_or_else(|e| panic!("{e}"));
        let scope = ReadScope {
            unreadable: BTreeSet::from([top.join("arm/harness-home")]),
            needed: BTreeSet::from([top.join("tools/bin/tool")]),
        };
        let named = names(&readable_roots(&scope).unwrap_or_else(|e| panic!("{e}")));
        for granted in ["tools", "arm/work", "arm/notes"] {
            assert!(named.contains(&top.join(granted)), "{granted}: {named:?}");
        }
        assert!(
            !named.iter().any(|p| p.starts_with(top.join("junk1"))),
            "{named:?}"
        );
        assert!(
            !named
                .iter()
                .any(|p| p.starts_with(top.join("arm/harness-home")))
        );
        assert!(named.contains(&PathBuf::from("/usr")), "{named:?}");
    }
}
