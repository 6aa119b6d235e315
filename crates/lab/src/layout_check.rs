//! The lab's layout, checked on its sources (see the crate's documentation): the references
//! between top-level modules form no cycle, and no module but `cli` refers to an experiment
//! (a `*_bench` module). A reference is a `crate::NAME` path in code (comments and literals
//! are left out), `use crate::{..}` groups included; a file in `src/NAME/` belongs to `NAME`,
//! and `super::` paths, which stay inside a module, are not followed. Every crate of the
//! workspace is read the same way, and none may have a cycle either.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// From each module, the modules it refers to and where it first does (`file:line`).
type Graph = BTreeMap<String, BTreeMap<String, String>>;

/// `src` with comments, string literals and character literals blanked out (line breaks kept,
/// so that offsets still give line numbers).
fn code_only(src: &str) -> String {
    let s: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let blank = |out: &mut String, skipped: &[char]| {
        out.extend(skipped.iter().map(|&c| if c == '\n' { '\n' } else { ' ' }));
    };
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    // Whether the character `k` before `at` is part of a name.
    let after_ident = |at: usize, k: usize| at >= k && ident(s[at - k]);
    let mut i = 0;
    while i < s.len() {
        let (c, next) = (s[i], s.get(i + 1).copied());
        let start = i;
        if c == '/' && next == Some('/') {
            while i < s.len() && s[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < s.len() {
                if s[i] == '/' && s.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if s[i] == '*' && s.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == '"' {
            i += 1;
            while i < s.len() && s[i] != '"' {
                i += if s[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if c == 'r' && (!after_ident(i, 1) || (s[i - 1] == 'b' && !after_ident(i, 2))) {
            // A raw string (r"..", r#".."#, br".."), or else a raw identifier or a plain r.
            let mut j = i + 1;
            while s.get(j) == Some(&'#') {
                j += 1;
            }
            if s.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let hashes = j - i - 1;
            j += 1;
            while j < s.len() && !(s[j] == '"' && (1..=hashes).all(|k| s.get(j + k) == Some(&'#'))) {
                j += 1;
            }
            i = j + 1 + hashes;
        } else if c == '\'' && next == Some('\\') {
            // An escaped character: the backslash and the character after it, then to the quote.
            i += 3;
            while i < s.len() && s[i] != '\'' {
                i += 1;
            }
            i += 1;
        } else if c == '\'' && s.get(i + 2) == Some(&'\'') {
            i += 3;
        } else {
            // Code, a lifetime's quote included.
            out.push(c);
            i += 1;
            continue;
        }
        blank(&mut out, &s[start..i.min(s.len())]);
    }
    out
}

/// The first names of the `crate::` paths in `code` (from [`code_only`]), each with its line:
/// `crate::a::b` gives `a`, `crate::{a::{b, c}, d}` gives `a` and `d`.
fn crate_refs(code: &str) -> Vec<(String, usize)> {
    let s: Vec<char> = code.chars().collect();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let line = |at: usize| s[..at].iter().filter(|&&c| c == '\n').count() + 1;
    let skip_space = |mut i: usize| {
        while i < s.len() && s[i].is_whitespace() {
            i += 1;
        }
        i
    };
    let word = |i: usize| s[i..].iter().take_while(|&&c| ident(c)).collect::<String>();
    let mut refs = Vec::new();
    let mut i = 0;
    while i + 5 <= s.len() {
        let is_crate = s[i..i + 5].iter().copied().eq("crate".chars())
            && (i == 0 || !(ident(s[i - 1]) || s[i - 1] == '$'))
            && s.get(i + 5).is_none_or(|&c| !ident(c));
        if !is_crate {
            i += 1;
            continue;
        }
        let at = i;
        i = skip_space(i + 5);
        if !(s.get(i) == Some(&':') && s.get(i + 1) == Some(&':')) {
            continue;
        }
        i = skip_space(i + 2);
        if s.get(i) != Some(&'{') {
            refs.push((word(i), line(at)));
            continue;
        }
        // A group: the first name of each item at its top level.
        let mut depth = 0;
        let mut item_start = true;
        while i < s.len() {
            match s[i] {
                '{' => {
                    depth += 1;
                    item_start = depth == 1;
                }
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                ',' if depth == 1 => item_start = true,
                c if item_start && ident(c) => {
                    refs.push((word(i), line(at)));
                    item_start = false;
                }
                _ => {}
            }
            i += 1;
        }
    }
    refs.retain(|(name, _)| !name.is_empty());
    refs
}

/// The top-level module a source file belongs to: `x.rs`, `x/mod.rs` and `x/y.rs` are `x`;
/// the crate roots (lib.rs, main.rs) are none.
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let first = file.strip_prefix(src).ok()?.components().next()?.as_os_str().to_str()?.to_string();
    let name = first.strip_suffix(".rs").unwrap_or(&first).to_string();
    (name != "lib" && name != "main").then_some(name)
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            sources(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

/// The references between the top-level modules of the crate whose sources are in `src`.
fn graph(src: &Path) -> Graph {
    let mut files = Vec::new();
    sources(src, &mut files);
    let modules: BTreeSet<String> = files.iter().filter_map(|f| module_of(src, f)).collect();
    let mut graph: Graph = modules.iter().map(|m| (m.clone(), BTreeMap::new())).collect();
    for file in &files {
        let Some(from) = module_of(src, file) else { continue };
        let code = code_only(&std::fs::read_to_string(file).unwrap());
        let shown = file.strip_prefix(src).unwrap().display().to_string();
        for (to, line) in crate_refs(&code) {
            if to != from && modules.contains(&to) {
                graph.get_mut(&from).unwrap().entry(to).or_insert_with(|| format!("{shown}:{line}"));
            }
        }
    }
    graph
}

/// The cycles a depth-first walk of `graph` meets, each as its modules in order with the first
/// one again at the end: empty exactly when the graph has no cycle.
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    fn walk(m: &str, graph: &Graph, path: &mut Vec<String>, done: &mut BTreeSet<String>, found: &mut Vec<Vec<String>>) {
        if let Some(at) = path.iter().position(|p| p == m) {
            let mut cycle = path[at..].to_vec();
            cycle.push(m.to_string());
            found.push(cycle);
            return;
        }
        if done.contains(m) {
            return;
        }
        path.push(m.to_string());
        for next in graph.get(m).into_iter().flat_map(|to| to.keys()) {
            walk(next, graph, path, done, found);
        }
        path.pop();
        done.insert(m.to_string());
    }
    let (mut path, mut done, mut found) = (Vec::new(), BTreeSet::new(), Vec::new());
    for m in graph.keys() {
        walk(m, graph, &mut path, &mut done, &mut found);
    }
    found
}

/// A cycle as `a -> b (where a refers to b) -> ...`.
fn show(graph: &Graph, cycle: &[String]) -> String {
    let mut s = cycle[0].clone();
    for pair in cycle.windows(2) {
        s.push_str(&format!(" -> {} ({})", pair[1], graph[&pair[0]][&pair[1]]));
    }
    s
}

#[test]
fn the_labs_modules_form_no_cycle_and_only_cli_refers_to_an_experiment() {
    let graph = graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    // The reading itself works: the dispatcher's references to the experiments are found.
    assert!(graph["cli"].contains_key("engine_bench") && graph["cli"].contains_key("window_bench"), "{graph:#?}");
    let found: Vec<String> = cycles(&graph).iter().map(|c| show(&graph, c)).collect();
    assert!(found.is_empty(), "the lab's modules refer to each other in a cycle:\n{}", found.join("\n"));
    let reaching: Vec<String> = graph
        .iter()
        .filter(|(from, _)| *from != "cli")
        .flat_map(|(from, to)| {
            to.iter().filter(|(m, _)| m.ends_with("_bench")).map(move |(m, at)| format!("{from} -> {m} ({at})"))
        })
        .collect();
    assert!(
        reaching.is_empty(),
        "only cli may refer to an experiment; what two experiments share belongs in common:\n{}",
        reaching.join("\n")
    );
}

#[test]
fn references_are_read_from_code_only_and_a_cycle_is_shown_with_where_it_is() {
    let code = code_only(
        "use crate::{a::{b, c}, d};\n// crate::e\nlet s = \"crate::f\"; let c = '\"';\n/* crate::g */ crate::h::i();\npub(crate) fn j<'a>() {}\n",
    );
    let refs = crate_refs(&code);
    let refs: Vec<(&str, usize)> = refs.iter().map(|(m, l)| (m.as_str(), *l)).collect();
    assert_eq!(refs, [("a", 1), ("d", 1), ("h", 4)]);
    let edge = |from: &str, to: &str| -> (String, BTreeMap<String, String>) {
        (from.to_string(), [(to.to_string(), format!("{from}.rs:1"))].into())
    };
    let graph: Graph = [edge("a", "b"), edge("b", "c"), edge("c", "a"), edge("d", "a")].into();
    let found = cycles(&graph);
    assert_eq!(found, [["a", "b", "c", "a"]]);
    assert_eq!(show(&graph, &found[0]), "a -> b (a.rs:1) -> c (b.rs:1) -> a (c.rs:1)");
    assert!(cycles(&[edge("a", "b"), edge("b", "c")].into()).is_empty());
}

#[test]
fn no_crate_of_the_workspace_has_modules_that_refer_to_each_other_in_a_cycle() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut checked = Vec::new();
    let mut found = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(&crates).unwrap().flatten().map(|e| e.path().join("src")).collect();
    dirs.sort();
    for src in dirs.into_iter().filter(|s| s.is_dir()) {
        let graph = graph(&src);
        let name = src.parent().unwrap().file_name().unwrap().to_string_lossy().into_owned();
        found.extend(cycles(&graph).iter().map(|c| format!("{name}: {}", show(&graph, c))));
        checked.push(name);
    }
    // The reading itself works: every crate of the workspace was read, the core among them.
    for want in ["vt", "os", "serial", "mux", "window", "lab", "blitty"] {
        assert!(checked.iter().any(|c| c == want), "{want} not read: {checked:?}");
    }
    assert!(found.is_empty(), "modules refer to each other in a cycle:\n{}", found.join("\n"));
}
