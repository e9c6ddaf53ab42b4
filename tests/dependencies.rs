//! The house is a strict stack: `domain` at the bottom, then `layout` and `record`,
//! the recognizer, the pipeline, and on top `http`, `jobs`, `store`, `keys`, `eval`
//! and the command line; `redis_client` (the connection the scaled-out mode shares)
//! sits beside the ground floor and names nothing of the crate. The generator
//! (`synth`) sits beside the reading side: it may use its ground floor, but nothing
//! on the reading side may use it. This test reads every source file of each module
//! (its tests included) and fails on a path into a module it must not depend on.

use std::path::{Path, PathBuf};

/// Each module of `src/` and the modules it must never name.
const FORBIDDEN: &[(&str, &[&str])] = &[
    (
        "domain",
        &[
            "layout",
            "record",
            "recognizer",
            "pipeline",
            "http",
            "store",
            "keys",
            "eval",
            "cli",
            "synth",
            "jobs",
            "redis_client",
        ],
    ),
    (
        "layout",
        &[
            "record",
            "recognizer",
            "pipeline",
            "http",
            "store",
            "keys",
            "eval",
            "cli",
            "synth",
            "jobs",
            "redis_client",
        ],
    ),
    (
        "record",
        &[
            "layout",
            "recognizer",
            "pipeline",
            "http",
            "store",
            "keys",
            "eval",
            "cli",
            "synth",
            "jobs",
            "redis_client",
        ],
    ),
    // The recognizer's trainer draws crops from the generator; the model never
    // reaches up into the pipeline that uses it.
    (
        "recognizer",
        &[
            "pipeline",
            "http",
            "jobs",
            "store",
            "keys",
            "eval",
            "cli",
            "redis_client",
        ],
    ),
    (
        "pipeline",
        &[
            "http",
            "jobs",
            "store",
            "keys",
            "eval",
            "cli",
            "synth",
            "redis_client",
        ],
    ),
    ("http", &["eval", "cli", "synth"]),
    // The queue and its workers run the pipeline; the HTTP layer sits above them.
    ("jobs", &["http", "eval", "cli", "synth"]),
    (
        "store",
        &["pipeline", "http", "jobs", "eval", "cli", "synth"],
    ),
    (
        "keys",
        &["pipeline", "http", "jobs", "store", "eval", "cli", "synth"],
    ),
    (
        "redis_client",
        &[
            "domain",
            "layout",
            "record",
            "recognizer",
            "pipeline",
            "http",
            "jobs",
            "store",
            "keys",
            "eval",
            "cli",
            "synth",
        ],
    ),
    (
        "synth",
        &[
            "pipeline",
            "http",
            "jobs",
            "store",
            "keys",
            "eval",
            "cli",
            "redis_client",
        ],
    ),
    (
        "eval",
        &["http", "jobs", "store", "keys", "cli", "redis_client"],
    ),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The modules of this crate `source` names by path (`crate::x`, `hawiya::x`,
/// `crate::{x, ...}`), with the line each is named on.
fn named_modules(source: &str) -> Vec<(usize, String)> {
    let mut named = Vec::new();
    for (number, line) in source.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        for root in ["crate::", "hawiya::"] {
            for (at, _) in code.match_indices(root) {
                let rest = &code[at + root.len()..];
                let names: Vec<&str> = match rest.strip_prefix('{') {
                    Some(group) => group
                        .split(['}', ','])
                        .map(|n| n.trim().split("::").next().unwrap_or(""))
                        .collect(),
                    None => vec![rest],
                };
                for name in names {
                    let module: String = name
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    if !module.is_empty() {
                        named.push((number + 1, module));
                    }
                }
            }
        }
    }
    named
}

#[test]
fn no_module_names_a_module_above_it_and_the_reader_never_names_the_generator() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut breaches = Vec::new();
    for (module, forbidden) in FORBIDDEN {
        let dir = src.join(module);
        assert!(dir.is_dir(), "src/{module} is gone: update this table");
        let mut files = Vec::new();
        rust_files(&dir, &mut files);
        for file in files {
            let source = std::fs::read_to_string(&file).unwrap();
            for (line, named) in named_modules(&source) {
                if forbidden.contains(&named.as_str()) {
                    breaches.push(format!(
                        "{}:{line} names crate::{named}",
                        file.strip_prefix(&src).unwrap().display()
                    ));
                }
            }
        }
    }
    assert!(breaches.is_empty(), "{breaches:#?}");
}

#[test]
fn the_scan_sees_every_way_of_naming_a_module() {
    let source = "use crate::synth::LineGenerator;\n\
                  use crate::{pipeline::Pipeline, synth};\n\
                  let x = crate::synth::lines::sample(); // crate::http in a comment\n\
                  let y = hawiya::eval::run;";
    let named: Vec<String> = named_modules(source).into_iter().map(|(_, m)| m).collect();
    assert_eq!(named, ["synth", "pipeline", "synth", "synth", "eval"]);
}
