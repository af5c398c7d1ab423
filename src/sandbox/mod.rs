//! Per-command confinement and the environment children get.
//!
//! [`env`] builds every child's environment from the policy. [`SandboxSpec`]
//! carries one command's kernel confinement ([`landlock`]) from the
//! interpreter, which prepares it before fork, to the process layer, which
//! enters it in the child between fork and exec.

pub mod env;
pub mod exec_chain;
pub mod harness;
pub mod landlock;
pub mod supervisor;

use crate::policy::{CommandRule, Policy};
use landlock::{CommandFiles, Confinement, DomainPlan, SandboxError};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use supervisor::ExecPlan;

/// One command's Landlock domain and exec plan, from one resolution of
/// what it may execute; none when neither is in force (no plan when
/// nothing supervises).
///
/// What is resolved (the program's start-up chain read through kept
/// descriptors, the domain's grants, the plan) is kept for the process,
/// per program, folder and supervision, and only the ruleset is made anew
/// for each spawn (its child adds its own `/proc/<pid>` to it). The
/// programs and the policy's folders lie where no line may write, so they
/// do not change during a session; a program its operator replaces gets a
/// domain that refuses the new file (fail closed). A line server fills
/// this once for all its workers (`cli::serve`).
pub fn prepare_command(
    policy: &Policy,
    rule: &CommandRule,
    exe: &Path,
    cwd: &Path,
    supervised: bool,
) -> Result<(Confinement, Option<ExecPlan>), SandboxError> {
    /// What [`prepare_command`] keeps for one program.
    struct Prepared {
        files: CommandFiles,
        domain: Option<DomainPlan>,
        plan: Option<ExecPlan>,
    }
    type Key = (PathBuf, PathBuf, bool);
    thread_local! {
        static PREPARED: RefCell<HashMap<Key, Rc<Prepared>>> = RefCell::new(HashMap::new());
    }
    let landlock = landlock::effective_abi(policy.sandbox.mode)?.is_some();
    if !landlock && !supervised {
        return Ok((Confinement::none(), None));
    }
    let key = (exe.to_path_buf(), cwd.to_path_buf(), supervised);
    let prepared = match PREPARED.with(|p| p.borrow().get(&key).cloned()) {
        Some(prepared) => prepared,
        None => {
            let mut files = CommandFiles::resolve(rule, exe, cwd)?;
            let mut domain = DomainPlan::for_files(policy, rule, &files, cwd)?;
            let plan = supervised.then(|| ExecPlan::for_files(rule, exe, &files));
            let kept = files
                .keep_private()
                .and_then(|()| domain.as_mut().map_or(Ok(()), DomainPlan::keep_open));
            kept.map_err(|source| SandboxError::Open {
                path: exe.to_path_buf(),
                source,
            })?;
            let prepared = Rc::new(Prepared {
                files,
                domain,
                plan,
            });
            PREPARED.with(|p| p.borrow_mut().insert(key, Rc::clone(&prepared)));
            prepared
        }
    };
    let confinement = match &prepared.domain {
        Some(domain) => domain.build(&prepared.files)?,
        None => Confinement::none(),
    };
    Ok((confinement, prepared.plan.clone()))
}

/// What the kernel enforces for one spawned command: a Landlock domain
/// prepared before fork (see [`landlock::Confinement::for_command`]),
/// entered by the child between fork and exec.
#[derive(Debug, Clone)]
pub struct SandboxSpec {
    /// The Landlock domain (or none) the child enters.
    pub confinement: Confinement,
    /// Hand the tree's `execve`s to the supervisor ([`supervisor`]).
    pub supervise: Option<supervisor::Attach>,
}

impl Default for SandboxSpec {
    fn default() -> Self {
        SandboxSpec {
            confinement: Confinement::none(),
            supervise: None,
        }
    }
}
