//! The library's top-level modules depend on each other one way only.
//!
//! Each module may use the modules below it in [`LAYERS`] and no other; a
//! use of `crate::X` in code (comments aside) from a module at or below X
//! fails this test, naming the file and line. Two modules on one layer may
//! not use each other.

#![allow(clippy::panic)] // test code reports failures by panicking

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Bottom first. A module's layer is its index.
const LAYERS: &[&[&str]] = &[
    &["os"],
    &["syntax", "policy"],
    &["audit"],
    &["guard"],
    &["sandbox"],
    &["system"],
    &["interp", "armbuild"],
    &["cli"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap_or_else(|e| panic!("{e}")).path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every `crate::NAME` in the code of `text` (comment lines skipped), with
/// its line number.
fn crate_uses(text: &str) -> Vec<(usize, String)> {
    let mut uses = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("//") {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '{')
                .collect();
            assert!(
                !name.starts_with('{'),
                "line {}: `use crate::{{…}}` hides which modules are used; name each",
                number + 1
            );
            uses.push((number + 1, name));
        }
    }
    uses
}

#[test]
fn modules_use_only_the_layers_below_them() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut wrong = Vec::new();
    for module in LAYERS.iter().flat_map(|layer| layer.iter()) {
        let root = src.join(module);
        let mut files = Vec::new();
        if root.is_dir() {
            rust_files(&root, &mut files);
        } else {
            files.push(src.join(format!("{module}.rs")));
        }
        let own = layer_of(module).unwrap_or_default();
        for file in files {
            let text = std::fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            for (line, used) in crate_uses(&text) {
                *seen.entry(format!("{module} -> {used}")).or_default() += 1;
                if used == *module {
                    continue;
                }
                match layer_of(&used) {
                    Some(layer) if layer < own => {}
                    _ => wrong.push(format!("{}:{line}: {module} uses {used}", file.display())),
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "uses against the layering:\n{}",
        wrong.join("\n")
    );
    // The scan sees the edges that exist (a scan finding nothing would pass).
    assert!(seen.contains_key("interp -> guard"), "{seen:?}");
    assert!(seen.contains_key("sandbox -> audit"), "{seen:?}");
}

/// Every top-level module of `src/lib.rs` has a layer.
#[test]
fn every_module_has_a_layer() {
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"))
        .unwrap_or_else(|e| panic!("{e}"));
    let modules: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';'))
        .collect();
    assert!(modules.len() >= 9, "{modules:?}");
    for module in modules {
        assert!(
            layer_of(module).is_some(),
            "{module} has no layer in LAYERS"
        );
    }
}

#[test]
fn a_use_from_below_is_reported() {
    let uses = crate_uses(
        "use crate::interp::Shell;\n// crate::guard in a comment\nlet x = crate::os::Fd;",
    );
    assert_eq!(uses, vec![(1, "interp".to_string()), (3, "os".to_string())]);
}
