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

use landlock::Confinement;

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
