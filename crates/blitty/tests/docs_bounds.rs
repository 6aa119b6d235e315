//! docs/bounds.md names, for each bound, the constant that holds it: every one must exist in
//! the source, so the page cannot name a bound the code no longer has.

use std::path::Path;

fn sources(dir: &Path, out: &mut String) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push_str(&std::fs::read_to_string(&p).unwrap_or_default());
        }
    }
}

#[test]
fn every_constant_docs_bounds_names_is_in_the_source() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let page = std::fs::read_to_string(root.join("docs/bounds.md")).expect("docs/bounds.md");
    let mut code = String::new();
    sources(&root.join("crates"), &mut code);
    let mut checked = 0;
    for row in page.lines().filter(|l| l.starts_with('|')) {
        let Some(last) = row.trim_end_matches('|').rsplit('|').next() else { continue };
        let name = last.trim().trim_matches('`');
        let konst = name.rsplit("::").next().unwrap_or(name);
        if konst.is_empty() || !konst.chars().all(|c| c.is_ascii_uppercase() || c == '_') || !konst.contains('_') {
            continue;
        }
        assert!(
            code.contains(&format!("const {konst}:")),
            "docs/bounds.md names {name}, which the source does not define"
        );
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} constants found in the page's tables");
}
