//! `GUARD_SH_LANDLOCK=off`: the behaviour of a machine without Landlock.
//! The same stubs the confined suites refuse run unconfined here, probe says
//! `none`, and `required` refuses. One test, because the override is read
//! once per process and must be set before anything probes. So it is a
//! test binary of its own, not a module of `tests/sandbox/`.

mod common;
mod sandbox_support;

use guard_sh::policy::SandboxMode;
use guard_sh::sandbox::landlock::{
    Confinement, Enforcement, LANDLOCK_ENV, SandboxError, probe, restrict_guard_sh,
};
use sandbox_support::*;
use std::net::TcpListener;

#[test]
fn landlock_off_enforces_nothing_and_required_mode_refuses() {
    // SAFETY: this binary's only test; nothing else reads the environment yet.
    unsafe { std::env::set_var(LANDLOCK_ENV, "off") };
    assert_eq!(probe(), Enforcement::None);
    assert_eq!(probe().to_string(), "none");

    let arm = Arm::new();
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let escape = arm.path("outside/escape.txt");
    let stub = arm.stub(
        "tool",
        &format!(
            "#!/bin/bash\n/usr/bin/curl --version > /dev/null; echo \"curl=$?\"\n\
             echo leaked > '{}'; echo \"write=$?\"\n\
             if exec 3<>/dev/tcp/127.0.0.1/{port}; then echo connected; fi\n",
            escape.display()
        ),
    );
    let r = rule(&stub, &[STRACE], &[], &[]);
    let policy = arm.policy(commands(&r));
    let confinement = confine(&arm, &policy, &r, &stub);
    assert_eq!(confinement.enforcement(), Enforcement::None);
    let (out, trace) = run_traced(&confinement, &arm.path("work"), &stub, &[]);

    assert_eq!(
        stdout(&out),
        "curl=0\nwrite=0\nconnected\n",
        "stderr: {}",
        stderr(&out)
    );
    assert!(
        executed(&trace, "/usr/bin/curl"),
        "unconfined, curl really runs:\n{trace}"
    );
    assert!(escape.is_file());
    assert!(listener.accept().is_ok(), "the listener saw the connection");

    assert_eq!(
        restrict_guard_sh(&policy, &arm.path("work")).expect("best effort"),
        Enforcement::None
    );

    let mut required = policy.clone();
    required.sandbox.mode = SandboxMode::Required;
    let err = Confinement::for_command(&required, &r, &stub, &arm.path("work"))
        .expect_err("required must refuse");
    assert!(
        matches!(
            err,
            SandboxError::Unavailable {
                found: Enforcement::None
            }
        ),
        "{err}"
    );
    assert!(
        err.to_string().contains("requires the Landlock sandbox"),
        "{err}"
    );
    assert!(matches!(
        restrict_guard_sh(&required, &arm.path("work")),
        Err(SandboxError::Unavailable { .. })
    ));
}
