//! Per-command confinement and the environment children get.
//!
//! [`env`] builds every child's environment from the policy. [`SandboxSpec`]
//! carries one command's kernel confinement ([`landlock`]) from the
//! interpreter, which prepares it before fork, to the process layer, which
//! enters it in the child between fork and exec.

pub mod bpf;
pub mod cgroup;
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
                spare: RefCell::new(None),
            });
            PREPARED.with(|p| p.borrow_mut().insert(key, Rc::clone(&prepared)));
            prepared
        }
    };
    let spare = prepared.spare.borrow_mut().take();
    let confinement = match (spare, &prepared.domain) {
        // Made by this process: a forked copy of the shell leaves its
        // parent's spare alone (one ruleset, one child's `/proc/<pid>`).
        (Some((owner, spare)), _) if owner == std::process::id() => spare,
        (_, Some(domain)) => domain.build(&prepared.files)?,
        (_, None) => Confinement::none(),
    };
    Ok((confinement, prepared.plan.clone()))
}

/// What [`prepare_command`] keeps for one program.
struct Prepared {
    files: CommandFiles,
    domain: Option<DomainPlan>,
    plan: Option<ExecPlan>,
    /// A ruleset built ahead for the next spawn, with the pid of the
    /// process that built it ([`make_spare_domain`]).
    spare: RefCell<Option<(u32, Confinement)>>,
}

/// Programs, folder and supervision a [`Prepared`] is for.
type Key = (PathBuf, PathBuf, bool);

thread_local! {
    static PREPARED: RefCell<HashMap<Key, Rc<Prepared>>> = RefCell::new(HashMap::new());
}

/// Build, ahead of the line, the ruleset the next spawn of `exe` (prepared
/// by [`prepare_command`] for `cwd` and `supervised`) will take, at a
/// private descriptor number: an idle line-server worker does this for the
/// arm's tool, so its first spawn in the line adds only the child's own
/// `/proc/<pid>` rule. Nothing when the program is not prepared, Landlock
/// is off, or one is ready.
pub fn make_spare_domain(exe: &Path, cwd: &Path, supervised: bool) {
    let key = (exe.to_path_buf(), cwd.to_path_buf(), supervised);
    let Some(prepared) = PREPARED.with(|p| p.borrow().get(&key).cloned()) else {
        return;
    };
    let Some(domain) = &prepared.domain else {
        return;
    };
    if prepared.spare.borrow().is_some() {
        return;
    }
    if let Ok(spare) = domain
        .build(&prepared.files)
        .and_then(|c| c.kept_private().map_err(SandboxError::Enforce))
    {
        *prepared.spare.borrow_mut() = Some((std::process::id(), spare));
    }
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

#[cfg(test)]
mod tests {
    #![allow(clippy::panic)] // test code reports failures by panicking
    use super::*;
    use crate::os::private_fd::PRIVATE_FD_FLOOR;

    /// A policy whose one command, `true`, is the system's `true`.
    fn policy_running_true() -> (Policy, PathBuf) {
        let exe = std::fs::canonicalize("/bin/true").unwrap_or_else(|e| panic!("/bin/true: {e}"));
        let json = format!(
            r#"{{"format":1,"arm":"t","shell":true,"tool":"true","bin_dir":"/bin",
                "commands":{{"true":{{"kind":"tool","path":{exe:?}}}}},
                "env":{{"pass":[],"deny":[]}},"sandbox":{{"mode":"required"}},"audit":{{}}}}"#,
            exe = exe.display().to_string()
        );
        let policy = Policy::from_json(Path::new("p.json"), json.as_bytes())
            .unwrap_or_else(|e| panic!("policy: {e}"));
        (policy, exe)
    }

    /// The ruleset descriptor the next spawn of `exe` would enter.
    fn next_ruleset(policy: &Policy, exe: &Path, cwd: &Path) -> Option<i32> {
        let rule = &policy.commands["true"];
        let (confinement, _) = prepare_command(policy, rule, exe, cwd, false)
            .unwrap_or_else(|e| panic!("prepare: {e}"));
        confinement.ruleset_fd()
    }

    #[test]
    fn a_spare_ruleset_serves_one_spawn_of_the_process_that_made_it() {
        let (policy, exe) = policy_running_true();
        let cwd = Path::new("/");
        // Prepared once (as a line server warms it), then a spare made.
        let made_per_spawn = next_ruleset(&policy, &exe, cwd).expect("Landlock is on here");
        assert!(made_per_spawn < PRIVATE_FD_FLOOR, "{made_per_spawn}");
        make_spare_domain(&exe, cwd, false);
        let spare = next_ruleset(&policy, &exe, cwd).expect("a ruleset");
        assert!(
            spare >= PRIVATE_FD_FLOOR,
            "the spare was not taken: {spare}"
        );
        // Used: the next spawn makes its own (a ruleset serves one child).
        let after = next_ruleset(&policy, &exe, cwd).expect("a ruleset");
        assert!(after < PRIVATE_FD_FLOOR, "the spare served twice: {after}");
        // A spare another process made (a forked copy of the shell's
        // parent) is left alone.
        make_spare_domain(&exe, cwd, false);
        let key = (exe.clone(), cwd.to_path_buf(), false);
        PREPARED.with(|p| {
            let prepared = p.borrow()[&key].clone();
            let mut spare = prepared.spare.borrow_mut();
            let (owner, _) = spare.as_mut().expect("a spare");
            *owner += 1;
        });
        let foreign = next_ruleset(&policy, &exe, cwd).expect("a ruleset");
        assert!(
            foreign < PRIVATE_FD_FLOOR,
            "another process's spare was taken: {foreign}"
        );
    }
}
