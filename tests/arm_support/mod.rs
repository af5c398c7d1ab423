//! Compiling the shipped arms in tests: stub executables stand in for the
//! tools (the guard decides by name; the stubs only satisfy the lookup that
//! the compiler does at build time).

#![allow(clippy::expect_used)] // test code reports failures by panicking

use guard_sh::armbuild::{self, BuildInputs};
use guard_sh::policy::Policy;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The arm data shipped in the repository.
pub fn arms_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("arms")
}

/// Compiles `arm` into `dir/<arm>`, with stub tools made in `dir/stubs`.
pub fn compile_with_stubs(arm: &str, dir: &Path) -> Policy {
    let stubs = dir.join("stubs");
    std::fs::create_dir_all(&stubs).expect("stub dir");
    for tool in ["tea", "gitea-axi", "curl", "gitea-mcp", "node", "git"] {
        let path = stubs.join(tool);
        std::fs::write(&path, "#!/bin/sh\nexit 0\n").expect("write stub");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .expect("chmod stub");
    }
    let search = std::env::join_paths([stubs.as_path(), Path::new("/usr/bin"), Path::new("/bin")])
        .expect("join");
    let inputs = BuildInputs {
        host: "http://127.0.0.1:3000".into(),
        repo: "o/r".into(),
        token: "test-token".into(),
        out_dir: dir.join(arm),
        search_path: Some(search),
    };
    armbuild::compile(&arms_dir(), arm, &inputs)
        .unwrap_or_else(|e| panic!("arm {arm} does not compile: {e}"))
}
