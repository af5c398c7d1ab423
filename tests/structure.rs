//! The library's structure, checked: top-level modules depend on each
//! other one way only, and no function is longer than
//! [`MAX_FUNCTION_LINES`].
//!
//! Each module may use the modules below it in [`LAYERS`] and no other; a
//! use of `crate::X` in code (comments aside) from a module at or below X
//! fails this test, naming the file and line. Two modules on one layer may
//! not use each other.

#![allow(clippy::panic)] // test code reports failures by panicking

use std::collections::{BTreeMap, BTreeSet};
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

/// The longest a function of the library may be, in lines from its `fn`
/// line to its closing brace.
const MAX_FUNCTION_LINES: usize = 120;

/// Each function of `text` longer than `max` lines: its name, first line
/// and length. A function ends at the first line that is its `fn` line's
/// indentation followed by `}` (rustfmt's layout); a declaration without a
/// body is skipped.
fn long_functions(text: &str, max: usize) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut long = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        let indent = &line[..line.len() - code.len()];
        let Some(at) = code.find("fn ") else {
            continue;
        };
        let head = &code[..at];
        let is_fn = head.split_whitespace().all(|w| {
            w.starts_with("pub") || matches!(w, "const" | "unsafe" | "async" | "extern" | "\"C\"")
        });
        if !is_fn || code.starts_with("//") {
            continue;
        }
        let name: String = code[at + 3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let Some(open) = (start..lines.len()).find(|&i| {
            let l = lines[i].trim_end();
            l.ends_with('{') || l.ends_with(';')
        }) else {
            continue;
        };
        if lines[open].trim_end().ends_with(';') {
            continue;
        }
        let close = format!("{indent}}}");
        if let Some(end) = (open + 1..lines.len()).find(|&i| lines[i] == close) {
            let length = end - start + 1;
            if length > max {
                long.push((name, start + 1, length));
            }
        }
    }
    long
}

#[test]
fn no_function_is_longer_than_the_limit() {
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    assert!(files.len() > 50, "{files:?}");
    let mut long = Vec::new();
    for file in files {
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for (name, line, length) in long_functions(&text, MAX_FUNCTION_LINES) {
            long.push(format!(
                "{}:{line}: fn {name} is {length} lines",
                file.display()
            ));
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines (split them):\n{}",
        long.join("\n")
    );
}

#[test]
fn a_long_function_is_reported() {
    let body = "    let x = 1;\n".repeat(5);
    let text = format!(
        "/// doc\npub(crate) fn short() {{\n}}\n\nimpl A {{\n    fn long(&self) {{\n{body}    }}\n    fn decl(&self);\n}}\n"
    );
    assert_eq!(long_functions(&text, 6), vec![("long".to_string(), 6, 7)]);
    assert!(long_functions(&text, 7).is_empty());
}

/// The parts of a module: each file `M/X.rs` and folder `M/X/` directly
/// in `src/M/`, with every Rust file of that part.
fn parts_of(module: &Path) -> BTreeMap<String, Vec<PathBuf>> {
    let mut parts = BTreeMap::new();
    for entry in std::fs::read_dir(module).unwrap_or_else(|e| panic!("{}: {e}", module.display())) {
        let path = entry.unwrap_or_else(|e| panic!("{e}")).path();
        let name = path
            .file_stem()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if path.is_dir() {
            let mut files = Vec::new();
            rust_files(&path, &mut files);
            parts.insert(name, files);
        } else if path.extension().is_some_and(|e| e == "rs") && name != "mod" {
            parts.insert(name, vec![path]);
        }
    }
    parts
}

/// The sibling parts the code of `text` names, for a file `depth` folders
/// below its module (`M/X.rs` and `M/X/mod.rs`: 0; `M/X/Y.rs`: 1): through
/// `crate::M::NAME` and `super::NAME` (as many `super::` as reach `M`),
/// a `{…}` group's first names included.
fn sibling_uses(text: &str, module: &str, depth: usize) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let up = "super::".repeat(depth + 1);
    let from_crate = format!("crate::{module}::");
    for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
        for prefix in [from_crate.as_str(), up.as_str()] {
            let mut rest = line;
            while let Some(at) = rest.find(prefix) {
                // `super::super::x` seen from one `super::` deeper is not ours.
                let deeper = prefix == up && rest[..at].ends_with("super::");
                rest = &rest[at + prefix.len()..];
                if deeper || rest.starts_with("super::") {
                    // Above the module: not one of its parts.
                    rest = rest.trim_start_matches("super::");
                    continue;
                }
                // A `{…}` group names each of its items; a plain path only
                // its first segment (`super::a::f(x, y)` names `a`).
                let items: Vec<&str> = match rest.strip_prefix('{') {
                    Some(inner) => inner
                        .split('}')
                        .next()
                        .unwrap_or_default()
                        .split(',')
                        .collect(),
                    None => vec![rest],
                };
                for item in items {
                    let name: String = item
                        .trim()
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    names.insert(name);
                }
            }
        }
    }
    names
}

/// The uses between the parts of `module` (its folder), as edges.
fn part_edges(module_dir: &Path, module: &str) -> BTreeMap<String, BTreeSet<String>> {
    let parts = parts_of(module_dir);
    let mut edges = BTreeMap::new();
    for (part, files) in &parts {
        let mut used = BTreeSet::new();
        for file in files {
            let relative = file.strip_prefix(module_dir).unwrap_or(file);
            let mut depth = relative.components().count() - 1;
            if file.file_name().is_some_and(|n| n == "mod.rs") {
                depth = depth.saturating_sub(1);
            }
            let text =
                std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            used.extend(sibling_uses(&text, module, depth));
        }
        used.retain(|u| u != part && parts.contains_key(u));
        edges.insert(part.clone(), used);
    }
    edges
}

/// A circle in `edges`, as the parts along it, if there is one.
fn a_circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == node) {
            let mut circle = path[at..].to_vec();
            circle.push(node.to_string());
            return Some(circle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(circle) = visit(next, edges, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|start| visit(start, edges, &mut Vec::new(), &mut done))
}

/// Inside each module the files use each other one way: no circle between
/// its parts (`cli::shell` and `cli::serve`, `interp::builtins` and
/// `interp::expand`, `audit::record` and `audit::trial` each used the
/// other; the quoting helpers now sit below both).
#[test]
fn the_parts_of_a_module_use_each_other_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut circles = Vec::new();
    let mut edges_seen = 0;
    for module in LAYERS.iter().flat_map(|layer| layer.iter()) {
        let dir = src.join(module);
        if !dir.is_dir() {
            continue;
        }
        let edges = part_edges(&dir, module);
        edges_seen += edges.values().map(BTreeSet::len).sum::<usize>();
        if let Some(circle) = a_circle(&edges) {
            circles.push(format!("{module}: {}", circle.join(" -> ")));
        }
    }
    assert!(
        circles.is_empty(),
        "circles inside modules:\n{}",
        circles.join("\n")
    );
    // The scan sees the uses that exist (a scan finding nothing would pass).
    assert!(
        edges_seen > 20,
        "only {edges_seen} uses between parts found"
    );
}

#[test]
fn a_circle_between_parts_is_reported() {
    let uses = sibling_uses(
        "use super::{expand, quote::quote};\nlet x = crate::interp::builtins::f(a, pattern);\n// super::vars\nsuper::super::jobs::x();",
        "interp",
        0,
    );
    assert_eq!(
        uses.into_iter().collect::<Vec<_>>(),
        vec!["builtins", "expand", "quote"]
    );
    let deeper = sibling_uses("use super::super::jobs;\nuse super::local;", "interp", 1);
    assert_eq!(deeper.into_iter().collect::<Vec<_>>(), vec!["jobs"]);
    let edges: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec![]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(
        a_circle(&edges),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
}

/// The fields of `pub struct NAME` in `text` that are visible outside
/// their module (`pub`, `pub(crate)`, `pub(super)`…).
fn visible_fields(text: &str, name: &str) -> Vec<String> {
    let open = format!("pub struct {name}");
    let Some(start) = text.find(&open) else {
        panic!("no `{open}` found");
    };
    text[start..]
        .lines()
        .skip(1)
        .take_while(|l| *l != "}")
        .filter(|l| l.starts_with("    pub"))
        .map(|l| l.trim().to_string())
        .collect()
}

/// The shell's state is the interpreter's: nothing outside `interp` sets a
/// field of `Shell` (the command line goes in through `Shell::start`).
#[test]
fn no_field_of_the_shell_is_visible_outside_the_interpreter() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/interp/mod.rs");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
    let visible = visible_fields(&text, "Shell<'a>");
    assert!(visible.is_empty(), "visible fields of Shell: {visible:?}");
    // The scan reads fields where there are some.
    let sample = "pub struct Shell<'a> {\n    policy: P,\n    pub(crate) status: i32,\n}\n";
    assert_eq!(
        visible_fields(sample, "Shell<'a>"),
        vec!["pub(crate) status: i32,"]
    );
}
