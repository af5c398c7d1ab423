//! Spawning an external command: the last check of its argv, the name
//! resolved in the bin folder, its supervision handed to this process.

use super::{Assign, Started};
use crate::audit::Event;
use crate::guard;
use crate::interp::lossy;
use crate::interp::{Flow, Shell};
use crate::sandbox::SandboxSpec;
use crate::sandbox::env::{ShellVar, build_child_env, changed_held_name};
use crate::sandbox::supervisor::Attach;
use crate::system::{Pid, ProcessGroup, SpawnError, SpawnRequest};
use std::os::unix::ffi::OsStrExt;
use std::time::Instant;

impl Shell<'_> {
    /// Where a spawned child hands its supervision listener: this
    /// process's inbox (`Ok(None)` when commands are not supervised).
    /// Where it cannot be made, a policy that requires the sandbox stops
    /// the line (126); otherwise the shell warns and goes on with Landlock
    /// alone.
    fn exec_inbox(&mut self) -> Result<Option<crate::system::Fd>, Flow> {
        match self.sys.exec_inbox() {
            None => Ok(None),
            Some(Ok(fd)) => Ok(Some(fd)),
            Some(Err(e)) => {
                let message = format!("cannot start the exec supervisor: {e}");
                let _ = self.sink().record(Event::Error {
                    message: message.clone(),
                });
                if self.policy.sandbox.mode == crate::policy::SandboxMode::Required {
                    self.error(&format!("sandbox: {message}"));
                    return Err(Flow::Abort(126));
                }
                self.error(&format!(
                    "warning: {message}; commands run with Landlock alone"
                ));
                Ok(None)
            }
        }
    }

    /// Check, resolve, audit and start an external command.
    pub(super) fn spawn_external(
        &mut self,
        argv: &[Vec<u8>],
        assigns: &[Assign],
        pgroup: ProcessGroup,
    ) -> Result<Started, Flow> {
        let policy = self.policy.clone();
        let on_system = |name: &str| self.sys.is_a_program(name);
        let rule = match guard::check_argv(&policy, &self.cwd, argv, &on_system) {
            Ok(rule) => rule,
            Err(deny) if !deny.rule.stops_the_line() => {
                return Ok(Started::Done(self.not_found(&deny, argv)));
            }
            Err(deny) => return Err(self.deny(&deny, argv)),
        };
        let name = lossy(&argv[0]);
        let path = policy.bin_dir.join(std::ffi::OsStr::from_bytes(&argv[0]));
        if !is_executable(&*self.sys, &path) {
            self.error(&format!("{name}: command not found"));
            return Ok(Started::Done(127));
        }
        let mut shell_vars: Vec<ShellVar<'_>> = Vec::new();
        let sorted = self.vars.sorted();
        for (n, var) in &sorted {
            if assigns.iter().any(|(a, _)| a == *n) {
                continue;
            }
            // Arrays are never exported (bash cannot either), nor a name
            // only declared.
            let crate::interp::Value::Scalar(value) = &var.value else {
                continue;
            };
            if var.invisible {
                continue;
            }
            shell_vars.push(ShellVar {
                name: n.as_str(),
                value,
                // `set -a` marks what is assigned while it is on, not
                // what was set before.
                exported: var.exported,
                inherited: var.inherited,
            });
        }
        for (n, v) in assigns {
            shell_vars.push(ShellVar {
                name: n.as_str(),
                value: v,
                exported: true,
                inherited: false,
            });
        }
        if let Some(held) = changed_held_name(&policy, rule, &shell_vars, &self.held_at_start) {
            let deny = guard::held_environment_denial(&policy, &name, held);
            return Err(self.deny(&deny, argv));
        }
        let env = build_child_env(&policy, rule, shell_vars);
        let inbox = self.exec_inbox()?;
        let prepared =
            crate::sandbox::prepare_command(&policy, rule, &path, &self.cwd, inbox.is_some());
        let (confinement, plan) = match prepared {
            Ok(prepared) => prepared,
            Err(e) => {
                self.error(&format!("{name}: sandbox: {e}"));
                let _ = self.sink().record(Event::Error {
                    message: format!("{name}: sandbox: {e}"),
                });
                return Ok(Started::Done(126));
            }
        };
        let supervise = inbox
            .zip(plan)
            .map(|(inbox, plan)| Attach::to(inbox, &plan));
        // The child's exec of its program, when the plan allows it, is
        // recorded here and goes on without a round trip to the watch; one
        // the plan refuses is left to the watch, which refuses and records it.
        let first_judged = supervise
            .as_ref()
            .is_some_and(Attach::lets_first_exec_through);
        let req = SpawnRequest {
            path: path.clone(),
            argv: argv.to_vec(),
            envp: env.vars,
            cwd: self.cwd.clone(),
            pgroup,
            foreground_tty: None,
            sandbox: SandboxSpec {
                confinement,
                supervise,
            },
        };
        // The bin-folder link is what the audit verifier expects to see.
        let resolved = path.display().to_string();
        let event_argv: Vec<String> = argv.iter().map(|a| lossy(a)).collect();
        let added = env.added;
        let t0 = Instant::now();
        let (sys, audit) = self.sys_and_sink();
        let result = sys.spawn(&req, audit, &mut |pid, audit| {
            audit.record(Event::Spawn {
                pid,
                path: resolved.clone(),
                argv: event_argv.clone(),
                env_added: added.clone(),
            })?;
            if !first_judged {
                return Ok(());
            }
            audit.record(Event::Exec {
                pid,
                ppid: std::process::id() as i32,
                path: resolved.clone(),
                allowed: true,
                reason: String::new(),
            })
        });
        // Its descriptors (the Landlock ruleset) closed now, before a copy
        // that ends with this command closes the line's descriptors.
        drop(req);
        self.started(&name, result, t0)
    }

    /// What a spawn of `name` (started at `t0`) came to, for the caller.
    fn started(
        &mut self,
        name: &str,
        result: Result<Pid, SpawnError>,
        t0: Instant,
    ) -> Result<Started, Flow> {
        match result {
            Ok(pid) => {
                if std::mem::take(&mut self.copy.drop_descriptors_after_spawn) {
                    self.sys.close_line_descriptors();
                }
                Ok(Started::Running(pid, t0, true))
            }
            Err(SpawnError::Refused(message)) => {
                self.error(&format!("audit log unavailable: {message}"));
                Err(Flow::Abort(126))
            }
            Err(SpawnError::Os(e)) => {
                self.error(&format!("{name}: {e}"));
                let _ = self.sink().record(Event::Error {
                    message: format!("{name}: {e}"),
                });
                Ok(Started::Done(if e.raw_os_error() == Some(libc::ENOENT) {
                    127
                } else {
                    126
                }))
            }
        }
    }
}

fn is_executable(sys: &dyn crate::system::System, path: &std::path::Path) -> bool {
    sys.file_info(path, true)
        .is_ok_and(|m| m.kind == crate::system::FileKind::File && m.mode & 0o111 != 0)
}
