//! The core's files import in layers (ARCHITECTURE.md, "The core's layers"): no file
//! imports one that imports it back, directly or through others. Read from the sources:
//! every `crate::…` and `super::…` path outside comments and a file's own tests, resolved
//! to the file it names (a name `lib.rs` re-exports to the file it comes from), and the
//! graph of files searched for a circle. `lib.rs`, the root every file hangs from, and
//! the files of tests are left out, as they would be of any such count.
//!
//! Before the game machine's folder (`core/src/game/`) 19 files were in one circle;
//! this test fails with the circle it finds, so one cannot come back unseen.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every source file of the core, by module path (`game/queue`, `sync`, `game` for
/// `game/mod.rs`), with its text.
fn sources() -> BTreeMap<String, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeMap::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("the core's sources") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(&root).expect("under src");
                let name = rel.with_extension("").to_string_lossy().replace('\\', "/");
                let name = name.strip_suffix("/mod").unwrap_or(&name).to_owned();
                out.insert(name, std::fs::read_to_string(&path).expect("a source"));
            }
        }
    }
    out
}

/// The text without comments and without the file's own `mod tests`.
fn code(text: &str) -> String {
    let text = text
        .split("#[cfg(test)]\nmod tests")
        .next()
        .unwrap_or_default();
    text.lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The names `lib.rs` takes from a file (`pub use io::{Answer, …};`, `use game::Games;`),
/// by name.
fn reexports(lib: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut rest = lib;
    while let Some(at) = rest.find("use ") {
        rest = &rest[at + 4..];
        let Some(end) = rest.find(';') else { break };
        let stmt = &rest[..end];
        if let Some((module, items)) = stmt.split_once("::")
            && module
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            for item in items.trim_matches(|c| c == '{' || c == '}').split(',') {
                let item = item.trim();
                if !item.is_empty() && !item.contains("::") {
                    out.insert(item.to_owned(), module.to_owned());
                }
            }
        }
        rest = &rest[end..];
    }
    out
}

/// The paths a file names after `crate::` or `super::`, as (base, segments): the base is
/// the module `super` stands for (empty for `crate`). A group `a::{b, c::d}` gives each.
fn paths(module: &str, is_folder: bool, code: &str) -> Vec<(Vec<String>, Vec<String>)> {
    let mine: Vec<String> = module.split('/').map(str::to_owned).collect();
    // `super` of `game/queue.rs` is `game`; of `game/mod.rs` and of `sync.rs`, the root.
    let above: Vec<String> = mine[..mine.len() - 1].to_vec();
    let mut out = vec![];
    for (start, base) in [("crate::", vec![]), ("super::", above)] {
        let mut rest = code;
        while let Some(at) = rest.find(start) {
            let before = rest[..at].chars().last();
            rest = &rest[at + start.len()..];
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                continue;
            }
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            let head: Vec<String> = rest[..end]
                .split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect();
            if rest[end..].starts_with('{') {
                let group = &rest[end + 1..rest[end..].find('}').map_or(rest.len(), |e| end + e)];
                for item in group.split(',') {
                    let mut p = head.clone();
                    p.extend(item.trim().split("::").map(str::to_owned));
                    out.push((base.clone(), p));
                }
            } else {
                out.push((base.clone(), head));
            }
        }
    }
    // `mod queue;` … `use queue::Queue;` in a folder's `mod.rs`.
    if is_folder {
        for line in code.lines() {
            let line = line
                .trim_start_matches("pub(crate) ")
                .trim_start_matches("pub ");
            if let Some(rest) = line.strip_prefix("use ")
                && let Some((first, _)) = rest.split_once("::")
            {
                out.push((mine.clone(), vec![first.to_owned()]));
            }
        }
    }
    out
}

/// The file a path names: the longest prefix that is a file.
fn resolve(
    files: &BTreeSet<String>,
    reexported: &BTreeMap<String, String>,
    base: &[String],
    path: &[String],
) -> Option<String> {
    let full: Vec<String> = base.iter().chain(path).cloned().collect();
    for n in (1..=full.len()).rev() {
        let name = full[..n].join("/");
        if files.contains(&name) {
            return Some(name);
        }
    }
    match (base.is_empty(), path.first()) {
        (true, Some(first)) => reexported.get(first).cloned(),
        _ => None,
    }
}

/// The graph of the core's files: who imports whom.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let sources = sources();
    let reexported = reexports(&sources["lib"]);
    let counted = |n: &str| n != "lib" && !n.ends_with("tests") && n != "test_kit";
    let files: BTreeSet<String> = sources.keys().cloned().collect();
    let mut graph = BTreeMap::new();
    for (name, text) in sources.iter().filter(|(n, _)| counted(n)) {
        let is_folder = files.iter().any(|f| f.starts_with(&format!("{name}/")));
        let mut to = BTreeSet::new();
        for (base, path) in paths(name, is_folder, &code(text)) {
            if let Some(t) = resolve(&files, &reexported, &base, &path)
                && t != *name
                && counted(&t)
            {
                to.insert(t);
            }
        }
        graph.insert(name.clone(), to);
    }
    graph
}

/// The files from which `from` is reached back, if it is: a circle through it.
fn circle_through(graph: &BTreeMap<String, BTreeSet<String>>, from: &str) -> Option<Vec<String>> {
    let mut seen = BTreeMap::<String, String>::new();
    let mut queue = std::collections::VecDeque::from([from.to_owned()]);
    while let Some(at) = queue.pop_front() {
        for next in graph.get(&at).into_iter().flatten() {
            if next == from {
                let mut path = vec![at.clone()];
                while let Some(prev) = seen.get(path.last().expect("one")) {
                    path.push(prev.clone());
                }
                path.reverse();
                return Some(path);
            }
            if !seen.contains_key(next) && next != from {
                seen.insert(next.clone(), at.clone());
                queue.push_back(next.clone());
            }
        }
    }
    None
}

#[test]
fn no_file_of_the_core_imports_one_that_imports_it_back() {
    let graph = graph();
    // The count is not empty: a parser that found nothing would pass for no reason.
    assert!(graph.len() > 40, "{} files read", graph.len());
    assert!(
        graph["durable"].contains("game/queue"),
        "{:?}",
        graph["durable"]
    );
    assert!(
        graph["game/slot"].contains("game/queue"),
        "{:?}",
        graph["game/slot"]
    );
    assert!(graph["commands"].contains("io"), "{:?}", graph["commands"]);
    for name in graph.keys() {
        if let Some(circle) = circle_through(&graph, name) {
            panic!("an import circle: {} -> {name}", circle.join(" -> "));
        }
    }
}

/// The reader finds a circle where there is one: the test above cannot pass by a reader
/// that never sees one.
#[test]
fn a_circle_is_found() {
    let mut graph = graph();
    graph
        .get_mut("game/queue")
        .expect("the file")
        .insert("durable".into());
    let circle = circle_through(&graph, "durable").expect("a circle");
    assert!(circle.contains(&"game/queue".to_owned()), "{circle:?}");
}
