//! Landlock execute confinement against the real kernel, with `strace` as
//! the oracle of which `execve` calls the kernel allowed.
//!
//! This suite needs a Landlock kernel (ABI >= 4); `sandbox_off.rs` covers a
//! machine without it.

use crate::sandbox_support;

use guard_sh::sandbox::exec_chain;
use guard_sh::sandbox::landlock::{Enforcement, REQUIRED_ABI, probe};
use landlock::{
    AccessFs, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr,
};
use sandbox_support::*;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

#[test]
fn probe_reports_a_landlock_abi_new_enough_for_required_mode() {
    let found = probe();
    assert!(
        matches!(found, Enforcement::Landlock { abi } if abi >= REQUIRED_ABI),
        "this suite needs Landlock ABI >= {REQUIRED_ABI}; probe says {found}"
    );
    let Enforcement::Landlock { abi } = found else {
        return;
    };
    assert_eq!(probe().to_string(), format!("landlock-abi-{abi}"));
}

#[test]
fn enforcement_displays_as_landlock_abi_n_or_none() {
    assert_eq!(
        Enforcement::Landlock { abi: 7 }.to_string(),
        "landlock-abi-7"
    );
    assert_eq!(Enforcement::None.to_string(), "none");
}

/// The kernel fact the start-up chain exists for: with the execute right on
/// the program alone, a dynamically linked program cannot start, because the
/// kernel opens its ELF loader for execution too.
#[test]
fn kernel_checks_execute_on_the_elf_loader_of_a_dynamic_program() {
    let truth = std::fs::canonicalize("/usr/bin/true").expect("/usr/bin/true");
    let mut cmd = Command::new(&truth);
    let ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::Execute)
        .and_then(|r| r.create())
        .and_then(|r| {
            r.add_rule(PathBeneath::new(
                PathFd::new(&truth).expect("O_PATH"),
                AccessFs::Execute,
            ))
        })
        .expect("ruleset");
    let mut ruleset = Some(ruleset);
    // SAFETY: the closure runs once in the child and only restricts it.
    unsafe {
        cmd.pre_exec(move || {
            ruleset
                .take()
                .map(|r| r.restrict_self())
                .transpose()
                .map_err(std::io::Error::other)?;
            Ok(())
        });
    }
    let err = cmd.status().expect_err("exec must fail without the loader");
    assert_eq!(err.raw_os_error(), Some(libc::EACCES), "{err}");
}

/// The other half: shared libraries are mapped, not exec'd, so the chain
/// (program + loader, no libc) is enough.
#[test]
fn dynamic_program_starts_with_only_itself_and_its_loader_executable() {
    let chain =
        exec_chain::resolve(Path::new("/usr/bin/true"), Path::new("/"), &[]).expect("chain");
    assert_eq!(chain.len(), 2, "{chain:?}");
    assert!(chain[1].to_string_lossy().contains("ld-linux"), "{chain:?}");
    assert!(
        !chain
            .iter()
            .any(|p| p.to_string_lossy().contains("libc.so")),
        "{chain:?}"
    );

    let arm = Arm::new();
    let tool = Path::new("/usr/bin/true");
    let r = rule(tool, &[], &[], &[]);
    let policy = arm.policy(commands(&r));
    let confinement = confine(&arm, &policy, &r, tool);
    assert!(matches!(
        confinement.enforcement(),
        Enforcement::Landlock { .. }
    ));
    let out = run_confined(&confinement, &arm.path("work"), tool, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn landlock_blocks_exec_of_curl_from_a_tool_stub() {
    let arm = Arm::new();
    let stub = arm.stub("tool", "#!/bin/sh\nexec /usr/bin/curl --version\n");
    let r = rule(&stub, &[STRACE], &[], &[]);
    let policy = arm.policy(commands(&r));
    let confinement = confine(&arm, &policy, &r, &stub);
    let (out, trace) = run_traced(&confinement, &arm.path("work"), &stub, &[]);

    assert_eq!(out.status.code(), Some(126), "stderr: {}", stderr(&out));
    assert!(
        stderr(&out).contains("Permission denied"),
        "{}",
        stderr(&out)
    );
    assert!(
        executed(&trace, &stub.to_string_lossy()),
        "the stub itself must run:\n{trace}"
    );
    assert!(refused_with_eacces(&trace, "/usr/bin/curl"), "{trace}");
    assert!(!executed(&trace, "/usr/bin/curl"), "{trace}");
}

#[test]
fn landlock_blocks_exec_of_python3_from_a_grandchild_of_the_tool() {
    // The domain is inherited: a subshell's child is confined as well.
    let arm = Arm::new();
    let stub = arm.stub(
        "tool",
        "#!/bin/sh\n( /usr/bin/python3 -c 'print(1)' ); echo \"status=$?\"\n",
    );
    let r = rule(&stub, &[STRACE], &[], &[]);
    let policy = arm.policy(commands(&r));
    let confinement = confine(&arm, &policy, &r, &stub);
    let (out, trace) = run_traced(&confinement, &arm.path("work"), &stub, &[]);

    assert_eq!(stdout(&out), "status=126\n", "stderr: {}", stderr(&out));
    assert!(refused_with_eacces(&trace, "/usr/bin/python3"), "{trace}");
    assert!(!executed(&trace, "/usr/bin/python3"), "{trace}");
}

#[test]
fn landlock_blocks_the_compress_program_of_sort() {
    // GNU sort spills to temp files past its buffer and then runs the
    // compress program; the kernel must refuse it even with no argument rule.
    let arm = Arm::new();
    let sort = Path::new("/usr/bin/sort");
    let r = rule(sort, &[STRACE], &[], &[]);
    let policy = arm.policy(commands(&r));
    let input = arm.path("work/input");
    let lines: String = (0..20000)
        .map(|i| format!("{}\n", (i * 7919) % 20000))
        .collect();
    std::fs::write(&input, lines).expect("write input");
    let confinement = confine(&arm, &policy, &r, sort);
    let work = arm.path("work").to_string_lossy().into_owned();
    let (out, trace) = run_traced(
        &confinement,
        &arm.path("work"),
        sort,
        &[
            "-S",
            "4k",
            "-T",
            &work,
            "--compress-program=/usr/bin/gzip",
            "input",
        ],
    );

    assert_ne!(
        out.status.code(),
        Some(0),
        "sort must fail: {}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("couldn't execute compress program"),
        "{}",
        stderr(&out)
    );
    assert!(refused_with_eacces(&trace, "/usr/bin/gzip"), "{trace}");
    assert!(!executed(&trace, "/usr/bin/gzip"), "{trace}");
}

#[test]
fn env_node_script_runs_under_its_interpreter_chain() {
    let arm = Arm::new();
    let stub = arm.stub(
        "tool",
        "#!/usr/bin/env node\nconsole.log('hello from ' + process.argv[2]);\n",
    );
    // No exec_allow: /usr/bin/env comes from the #! line, node from env's PATH.
    let r = rule(&stub, &[STRACE], &[], &[]);
    let policy = arm.policy(commands(&r));
    let confinement = confine(&arm, &policy, &r, &stub);
    let (out, trace) = run_traced(&confinement, &arm.path("work"), &stub, &["x"]);

    assert_eq!(stdout(&out), "hello from x\n", "stderr: {}", stderr(&out));
    assert!(executed(&trace, &stub.to_string_lossy()), "{trace}");
    assert!(executed(&trace, "/usr/bin/node"), "{trace}");
}

#[test]
fn env_node_script_cannot_exec_anything_else() {
    let arm = Arm::new();
    let stub = arm.stub(
        "tool",
        "#!/usr/bin/env node\n\
         try { require('child_process').execFileSync('/usr/bin/curl', ['--version']); console.log('ran'); }\n\
         catch (e) { console.log(e.code); }\n",
    );
    let r = rule(&stub, &[STRACE], &[], &[]);
    let policy = arm.policy(commands(&r));
    let confinement = confine(&arm, &policy, &r, &stub);
    let (out, trace) = run_traced(&confinement, &arm.path("work"), &stub, &[]);

    assert_eq!(stdout(&out), "EACCES\n", "stderr: {}", stderr(&out));
    assert!(refused_with_eacces(&trace, "/usr/bin/curl"), "{trace}");
    assert!(!executed(&trace, "/usr/bin/curl"), "{trace}");
}

#[test]
fn helper_listed_in_exec_allow_runs_and_an_unlisted_one_does_not() {
    let arm = Arm::new();
    let stub = arm.stub(
        "tool",
        "#!/bin/sh\n/usr/bin/basename /a/b\n/usr/bin/dirname /a/b\necho \"dirname=$?\"\n",
    );
    let r = rule(&stub, &["/usr/bin/basename"], &[], &[]);
    let policy = arm.policy(commands(&r));
    let confinement = confine(&arm, &policy, &r, &stub);
    let out = run_confined(&confinement, &arm.path("work"), &stub, &[]);

    assert_eq!(stdout(&out), "b\ndirname=126\n", "stderr: {}", stderr(&out));
}

#[test]
fn landlock_blocks_exec_of_a_file_written_into_a_writable_root() {
    // Crafting an executable: the agent may write under work/, but nothing
    // there is executable, whatever its mode bits.
    let arm = Arm::new();
    let stub = arm.stub(
        "tool",
        "#!/bin/sh\nprintf '#!/bin/sh\\necho crafted\\n' > crafted\nchmod +x crafted 2>/dev/null\n./crafted\necho \"status=$?\"\n",
    );
    let r = rule(&stub, &["/usr/bin/chmod"], &[], &[]);
    let policy = arm.policy(commands(&r));
    let confinement = confine(&arm, &policy, &r, &stub);
    let out = run_confined(&confinement, &arm.path("work"), &stub, &[]);

    assert!(
        arm.path("work/crafted").is_file(),
        "the write itself is allowed"
    );
    assert_eq!(stdout(&out), "status=126\n", "stderr: {}", stderr(&out));
}

#[test]
fn chain_of_a_script_lists_script_interpreter_and_loader_once_each() {
    let arm = Arm::new();
    let stub = arm.stub("tool", "#!/bin/sh\ntrue\n");
    let chain = exec_chain::resolve(&stub, &arm.path("work"), &[]).expect("chain");
    let dash = std::fs::canonicalize("/bin/sh").expect("/bin/sh");
    assert_eq!(chain[0], std::fs::canonicalize(&stub).expect("stub"));
    assert_eq!(chain[1], dash);
    assert_eq!(chain.len(), 3, "{chain:?}");
    assert!(chain[2].to_string_lossy().contains("ld-linux"), "{chain:?}");
}

#[test]
fn chain_of_a_missing_program_is_an_error() {
    let err = exec_chain::resolve(Path::new("/nonexistent/tool"), Path::new("/"), &[])
        .expect_err("missing");
    assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
}
