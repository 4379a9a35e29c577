//! No file of core/src imports a file that imports it back, directly or through
//! others: a module split over files keeps its types in leaf files, and
//! its root file only declares the modules. The graph is read from the source text:
//! `use` declarations and `crate::`/`super::` paths written inline, each resolved
//! to the deepest module file it names. Unit tests (`#[cfg(test)] mod tests`) are
//! left out, as they may import what they test from anywhere.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every .rs file under `dir`.
fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            found.push(path);
        }
    }
}

/// `crate::session::stage` for src/session/stage.rs, `crate` for src/lib.rs.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).unwrap_or(file).with_extension("");
    let mut module = vec!["crate".to_string()];
    for part in relative.iter() {
        let part = part.to_string_lossy();
        if part != "lib" && part != "mod" {
            module.push(part.to_string());
        }
    }
    module
}

/// The source without its unit tests.
fn without_unit_tests(source: &str) -> &str {
    source
        .find("#[cfg(test)]\nmod tests")
        .map_or(source, |at| &source[..at])
}

/// The paths a `use` tree names, one level of braces expanded (`a::{b, c::D}`).
fn use_paths(tree: &str) -> Vec<String> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let Some((prefix, rest)) = tree.split_once("::{") else {
        return vec![tree];
    };
    let inner = rest.strip_suffix('}').unwrap_or(rest);
    let mut items = Vec::new();
    let (mut depth, mut item) = (0, String::new());
    for c in inner.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(std::mem::take(&mut item));
                continue;
            }
            _ => {}
        }
        item.push(c);
    }
    items.push(item);
    items
        .into_iter()
        .filter(|item| !item.is_empty())
        .map(|item| match item.split("::{").next().unwrap_or("") {
            "self" => prefix.to_string(),
            head => format!("{prefix}::{head}"),
        })
        .collect()
}

/// Every path a file names: its `use` declarations and inline `crate::`/`super::`
/// paths.
fn named_paths(source: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = source;
    while let Some(at) = rest.find("use ") {
        let before = &rest[..at];
        let line_start = before.rfind('\n').map_or(0, |n| n + 1);
        let starts_line = before[line_start..]
            .trim_start()
            .trim_start_matches("pub(crate) ")
            .trim_start_matches("pub(super) ")
            .trim_start_matches("pub ")
            .is_empty();
        let after = &rest[at + 4..];
        let end = after.find(';').unwrap_or(after.len());
        if starts_line {
            let tree = after[..end].split(" as ").next().unwrap_or("");
            paths.extend(use_paths(tree));
        }
        rest = &after[end.min(after.len())..];
    }
    for root in ["crate::", "super::"] {
        let mut rest = source;
        while let Some(at) = rest.find(root) {
            let path: String = rest[at..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            paths.push(path.trim_end_matches(':').to_string());
            rest = &rest[at + root.len()..];
        }
    }
    paths
}

/// The module file a path names, from inside `module`: the deepest existing prefix.
fn resolve(module: &[String], path: &str, modules: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    let parts: Vec<&str> = path.split("::").collect();
    let (mut base, mut rest): (Vec<String>, &[&str]) = match parts.first()? {
        &"crate" => (vec!["crate".to_string()], &parts[1..]),
        &"super" => (
            module[..module.len().saturating_sub(1)].to_vec(),
            &parts[1..],
        ),
        &"self" => (module.to_vec(), &parts[1..]),
        // A child module of this one, named without `self::`.
        first if modules.contains(&[module, &[first.to_string()]].concat()) => {
            (module.to_vec(), &parts[..])
        }
        _ => return None,
    };
    while rest.first() == Some(&"super") {
        base.pop();
        rest = &rest[1..];
    }
    let mut found = None;
    for taken in 0..=rest.len() {
        let mut candidate = base.clone();
        candidate.extend(rest[..taken].iter().map(|part| part.to_string()));
        if modules.contains(&candidate) {
            found = Some(candidate);
        }
    }
    found
}

/// One cycle through `start`, if there is one, as the modules along it.
fn cycle_from(
    start: &Vec<String>,
    edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
) -> Option<Vec<Vec<String>>> {
    let mut stack = vec![(start.clone(), vec![start.clone()])];
    let mut seen = BTreeSet::new();
    while let Some((module, trail)) = stack.pop() {
        for next in edges.get(&module).into_iter().flatten() {
            if next == start {
                return Some(trail.clone());
            }
            if seen.insert(next.clone()) {
                let mut longer = trail.clone();
                longer.push(next.clone());
                stack.push((next.clone(), longer));
            }
        }
    }
    None
}

#[test]
fn no_file_of_the_engine_imports_one_that_imports_it_back() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<Vec<String>> = files.iter().map(|file| module_of(&src, file)).collect();
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for file in &files {
        let module = module_of(&src, file);
        let source = std::fs::read_to_string(file).unwrap_or_default();
        let targets = named_paths(without_unit_tests(&source))
            .iter()
            .filter_map(|path| resolve(&module, path, &modules))
            .filter(|target| *target != module)
            .collect();
        edges.insert(module, targets);
    }
    assert!(
        edges.len() > 30 && edges.values().map(BTreeSet::len).sum::<usize>() > 60,
        "the graph was not read (src moved?)"
    );
    let cycles: Vec<String> = edges
        .keys()
        .filter_map(|module| cycle_from(module, &edges))
        .map(|cycle| {
            cycle
                .iter()
                .map(|module| module.join("::"))
                .collect::<Vec<_>>()
                .join(" -> ")
        })
        .collect();
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}
