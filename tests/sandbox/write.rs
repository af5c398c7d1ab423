//! Landlock write confinement against the real kernel: writable roots,
//! protected paths, devices, and the prepare-time refusal of overlaps.

use crate::sandbox_support;

use guard_sh::policy::SandboxMode;
use guard_sh::sandbox::landlock::{Confinement, Enforcement, SandboxError};
use sandbox_support::*;
use std::path::Path;

/// A `/bin/sh` tool stub that runs `script` (allowed helpers: `exec_allow`).
fn sh_tool(
    arm: &Arm,
    script: &str,
    exec_allow: &[&str],
) -> (guard_sh::policy::Policy, std::process::Output) {
    let stub = arm.stub("tool", &format!("#!/bin/sh\n{script}\n"));
    let r = rule(&stub, exec_allow, &[], &[]);
    let policy = arm.policy(commands(&r));
    let confinement = confine(arm, &policy, &r, &stub);
    let out = run_confined(&confinement, &arm.path("work"), &stub, &[]);
    (policy, out)
}

#[test]
fn landlock_blocks_write_outside_writable_roots() {
    let arm = Arm::new();
    let target = arm.path("outside/escape.txt");
    let (_, out) = sh_tool(
        &arm,
        &format!("echo leaked > '{}'; echo \"status=$?\"", target.display()),
        &[],
    );

    assert_eq!(stdout(&out), "status=2\n", "stderr: {}", stderr(&out));
    assert!(
        stderr(&out).contains("Permission denied"),
        "{}",
        stderr(&out)
    );
    assert!(
        !target.exists(),
        "the kernel must not have created {}",
        target.display()
    );
}

#[test]
fn writes_inside_the_writable_root_work() {
    let arm = Arm::new();
    let (_, out) = sh_tool(
        &arm,
        "mkdir -p d/e && echo one > d/e/f && mv d/e/f d/g && ln -s g d/link && rm d/link && echo done > /dev/null && echo ok",
        &[
            "/usr/bin/mkdir",
            "/usr/bin/mv",
            "/usr/bin/ln",
            "/usr/bin/rm",
        ],
    );

    assert_eq!(stdout(&out), "ok\n", "stderr: {}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(arm.path("work/d/g")).expect("moved file"),
        "one\n"
    );
}

#[test]
fn landlock_blocks_write_to_the_protected_policy_and_bin_folder() {
    let arm = Arm::new();
    let policy_file = arm.path("arm/policy.json");
    let bin = arm.path("arm/bin");
    let script = format!(
        "echo '{{}}' > '{p}'; echo \"policy=$?\"; echo x >> '{a}'; echo \"audit=$?\"; \
         mkdir '{b}/tool2'; echo \"mkdir=$?\"; ln -s /usr/bin/curl '{b}/curl'; echo \"ln=$?\"; \
         rm -f '{p}'; echo \"rm=$?\"",
        p = policy_file.display(),
        a = arm.path("arm/audit.log").display(),
        b = bin.display(),
    );
    let (_, out) = sh_tool(
        &arm,
        &script,
        &["/usr/bin/mkdir", "/usr/bin/ln", "/usr/bin/rm"],
    );

    assert_eq!(
        stdout(&out),
        "policy=2\naudit=2\nmkdir=1\nln=1\nrm=1\n",
        "stderr: {}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_to_string(&policy_file).expect("policy"),
        "{\"original\":true}\n"
    );
    assert_eq!(
        std::fs::read_to_string(arm.path("arm/audit.log")).expect("audit log"),
        ""
    );
    assert_eq!(std::fs::read_dir(&bin).expect("bin").count(), 0);
}

#[test]
fn landlock_blocks_truncate_of_a_file_outside_the_roots() {
    let arm = Arm::new();
    let policy_file = arm.path("arm/policy.json");
    let (_, out) = sh_tool(
        &arm,
        &format!(
            "truncate -s 0 '{}'; echo \"status=$?\"",
            policy_file.display()
        ),
        &["/usr/bin/truncate"],
    );

    assert_eq!(stdout(&out), "status=1\n", "stderr: {}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&policy_file).expect("policy"),
        "{\"original\":true}\n"
    );
}

#[test]
fn rule_writable_folder_is_writable_for_that_rule_only() {
    let arm = Arm::new();
    let home = arm.path("outside/config-home");
    std::fs::create_dir_all(&home).expect("config home");
    let stub = arm.stub(
        "tool",
        &format!(
            "#!/bin/sh\necho token > '{}/login'; echo \"status=$?\"\n",
            home.display()
        ),
    );
    let with_home = rule(&stub, &[], &[], std::slice::from_ref(&home));
    let without = rule(&stub, &[], &[], &[]);
    let policy = arm.policy(commands(&with_home));

    let out = run_confined(
        &confine(&arm, &policy, &with_home, &stub),
        &arm.path("work"),
        &stub,
        &[],
    );
    assert_eq!(stdout(&out), "status=0\n", "stderr: {}", stderr(&out));
    std::fs::remove_file(home.join("login")).expect("remove login");

    let out = run_confined(
        &confine(&arm, &policy, &without, &stub),
        &arm.path("work"),
        &stub,
        &[],
    );
    assert_eq!(stdout(&out), "status=2\n", "stderr: {}", stderr(&out));
    assert!(!home.join("login").exists());
}

#[test]
fn protected_path_inside_a_writable_root_is_refused_at_prepare_time() {
    let arm = Arm::new();
    let stub = arm.stub("tool", "#!/bin/sh\ntrue\n");
    let r = rule(&stub, &[], &[], &[]);
    let mut policy = arm.policy(commands(&r));
    policy.sandbox.protected.push(arm.path("work/.audit.log"));

    let err = Confinement::for_command(&policy, &r, &stub, &arm.path("work"))
        .expect_err("overlap must be refused");
    assert!(
        matches!(&err, SandboxError::ProtectedWritable { protected, .. } if protected == &arm.path("work/.audit.log")),
        "{err}"
    );
    assert!(
        err.to_string().contains("Landlock cannot exclude a path"),
        "{err}"
    );
}

#[test]
fn writable_root_inside_a_protected_folder_is_refused_at_prepare_time() {
    let arm = Arm::new();
    let stub = arm.stub("tool", "#!/bin/sh\ntrue\n");
    // A rule may not open the bin folder either, even through a symlink.
    let link = arm.path("outside/bin-link");
    std::os::unix::fs::symlink(arm.path("arm/bin"), &link).expect("symlink");
    let r = rule(&stub, &[], &[], &[link.join("sub")]);
    let policy = arm.policy(commands(&r));

    let err = Confinement::for_command(&policy, &r, &stub, &arm.path("work"))
        .expect_err("overlap must be refused");
    assert!(
        matches!(err, SandboxError::ProtectedWritable { .. }),
        "{err}"
    );
}

/// `/dev/null` and a terminal under `/dev/pts` (one this test opens: the
/// confined command writes to its follower, the test reads it from the
/// leader) stay writable; another device (`/dev/zero`) does not.
#[test]
fn dev_null_and_the_terminal_folder_stay_writable() {
    use std::io::Read;
    let pty = nix::pty::openpty(None, None).expect("openpty");
    let follower = std::fs::read_link(format!("/proc/self/fd/{}", {
        use std::os::fd::AsRawFd;
        pty.slave.as_raw_fd()
    }))
    .expect("the follower's name");
    assert!(follower.starts_with("/dev/pts"), "{}", follower.display());
    let arm = Arm::new();
    let (_, out) = sh_tool(
        &arm,
        &format!(
            "echo x > /dev/null && echo null=ok; echo x > /dev/zero; echo \"zero=$?\"; echo on-the-terminal > '{}' && echo pts=ok",
            follower.display()
        ),
        &[],
    );

    assert_eq!(
        stdout(&out),
        "null=ok\nzero=2\npts=ok\n",
        "stderr: {}",
        stderr(&out)
    );
    let mut leader = std::fs::File::from(pty.master);
    let mut seen = [0u8; 64];
    let n = leader.read(&mut seen).expect("read the terminal");
    assert!(
        String::from_utf8_lossy(&seen[..n]).contains("on-the-terminal"),
        "{:?}",
        &seen[..n]
    );
}

#[test]
fn mode_off_enforces_nothing() {
    let arm = Arm::new();
    let stub = arm.stub(
        "tool",
        &format!(
            "#!/bin/sh\necho x > '{}'\n",
            arm.path("outside/f").display()
        ),
    );
    let r = rule(&stub, &[], &[], &[]);
    let mut policy = arm.policy(commands(&r));
    policy.sandbox.mode = SandboxMode::Off;
    let confinement = confine(&arm, &policy, &r, &stub);

    assert_eq!(confinement.enforcement(), Enforcement::None);
    let out = run_confined(&confinement, &arm.path("work"), &stub, &[]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert!(arm.path("outside/f").is_file());
}

#[test]
fn mode_required_is_satisfied_on_this_kernel() {
    let arm = Arm::new();
    let r = rule(Path::new("/usr/bin/true"), &[], &[], &[]);
    let mut policy = arm.policy(commands(&r));
    policy.sandbox.mode = SandboxMode::Required;
    let confinement = confine(&arm, &policy, &r, Path::new("/usr/bin/true"));

    assert!(matches!(confinement.enforcement(), Enforcement::Landlock { abi } if abi >= 4));
}
