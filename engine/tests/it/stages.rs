//! The engine's modules import only what comes before them in the module
//! order that ARCHITECTURE.md gives (its "Module order" section): a stage
//! never reaches forward into a later one, so their import graph has no
//! cycle. Read from the source: every `crate::X` path (and `super::` paths
//! that climb to the crate root) outside comments, strings and
//! `#[cfg(test)]` items, by top-level module.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The module order: groups, earliest first; a module may import any
/// module of an earlier group.
fn module_order(architecture: &str) -> Vec<Vec<String>> {
    let section = architecture
        .split("\n## ")
        .find(|s| s.starts_with("Module order"))
        .expect("ARCHITECTURE.md has a \"## Module order\" section");
    let block = section.split("```").nth(1).expect("the section holds a fenced block with the order");
    block
        .lines()
        .skip(1) // the fence's info string
        .flat_map(|l| l.split('→'))
        .map(|group| group.split(',').map(|m| m.trim().to_owned()).filter(|m| !m.is_empty()).collect::<Vec<_>>())
        .filter(|g| !g.is_empty())
        .collect()
}

/// The source with comments and the contents of string and character
/// literals blanked out (each becomes spaces, so offsets stay).
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |p| i + p);
                blank(&mut out, i, end);
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let (mut depth, mut j) = (1, i + 2);
                while j < b.len() && depth > 0 {
                    if b[j] == b'/' && b.get(j + 1) == Some(&b'*') {
                        depth += 1;
                        j += 2;
                    } else if b[j] == b'*' && b.get(j + 1) == Some(&b'/') {
                        depth -= 1;
                        j += 2;
                    } else {
                        j += 1;
                    }
                }
                blank(&mut out, i, j);
                i = j;
            }
            b'r' if !ident_char_before(b, i) && matches!(b.get(i + 1), Some(b'#' | b'"')) => {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                if b.get(i + 1 + hashes) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
                let start = i + 2 + hashes;
                let end = b[start..].windows(close.len()).position(|w| w == close.as_slice()).map_or(b.len(), |p| start + p);
                blank(&mut out, start, end);
                i = end + close.len();
            }
            b'"' => {
                let mut j = i + 1;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                blank(&mut out, i + 1, j.min(b.len()));
                i = j + 1;
            }
            b'\'' => {
                // A character literal ('x', '\n', '\u{..}'), else a lifetime.
                let end = if b.get(i + 1) == Some(&b'\\') {
                    b[i + 2..].iter().position(|&c| c == b'\'').map(|p| i + 2 + p)
                } else {
                    let ch = src[i + 1..].chars().next().map_or(1, char::len_utf8);
                    (b.get(i + 1 + ch) == Some(&b'\'')).then_some(i + 1 + ch)
                };
                match end {
                    Some(e) => {
                        blank(&mut out, i + 1, e);
                        i = e + 1;
                    }
                    None => i += 1,
                }
            }
            _ => i += 1,
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn ident_char_before(b: &[u8], i: usize) -> bool {
    i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')
}

/// `code` less every item marked `#[cfg(test)]`, and the names of the
/// modules so marked that live in files of their own (`#[cfg(test)] mod x;`).
fn without_tests(code: &str) -> (String, Vec<String>) {
    const MARK: &str = "#[cfg(test)]";
    let mut out = String::with_capacity(code.len());
    let mut test_files = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find(MARK) {
        out.push_str(&rest[..at]);
        let item = &rest[at + MARK.len()..];
        let semi = item.find(';');
        let brace = item.find('{');
        let end = match (semi, brace) {
            (Some(s), b) if b.is_none_or(|b| s < b) => {
                if let Some(name) = item[..s].trim().strip_prefix("mod ") {
                    test_files.push(name.trim().to_owned());
                }
                s + 1
            }
            (_, Some(open)) => {
                let mut depth = 0usize;
                let mut end = item.len();
                for (k, c) in item[open..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = open + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            _ => item.len(),
        };
        rest = &item[end..];
    }
    out.push_str(rest);
    (out, test_files)
}

fn ident_at(s: &str) -> &str {
    let end = s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(s.len());
    &s[..end]
}

/// The top-level modules that `code` names (a file `depth` modules below
/// the crate root: 1 for `x.rs` and `x/mod.rs`, 2 for `x/y.rs`).
fn modules_named(code: &str, depth: usize) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut take = |after: &str| {
        if let Some(group) = after.strip_prefix('{') {
            let mut level = 0;
            let mut item_start = true;
            for (k, c) in group.char_indices() {
                match c {
                    '{' => level += 1,
                    '}' if level == 0 => break,
                    '}' => level -= 1,
                    ',' if level == 0 => item_start = true,
                    c if item_start && (c.is_ascii_alphabetic() || c == '_') && level == 0 => {
                        out.insert(ident_at(&group[k..]).to_owned());
                        item_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            out.insert(ident_at(after).to_owned());
        }
    };
    for (at, _) in code.match_indices("crate::") {
        if !ident_char_before(code.as_bytes(), at) {
            take(&code[at + "crate::".len()..]);
        }
    }
    for (at, _) in code.match_indices("super::") {
        let b = code.as_bytes();
        if ident_char_before(b, at) || (at >= 7 && &code[at - 7..at] == "super::") {
            continue;
        }
        let mut climbed = 0;
        let mut rest = &code[at..];
        while let Some(r) = rest.strip_prefix("super::") {
            climbed += 1;
            rest = r;
        }
        if climbed == depth {
            take(rest);
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).expect("readable source folder").map(|e| e.expect("entry").path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn modules_import_only_earlier_ones_in_the_documented_order() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let architecture = std::fs::read_to_string(root.join("../ARCHITECTURE.md")).expect("ARCHITECTURE.md beside the engine");
    let order = module_order(&architecture);
    let group_of: BTreeMap<&str, usize> =
        order.iter().enumerate().flat_map(|(g, ms)| ms.iter().map(move |m| (m.as_str(), g))).collect();

    let src = root.join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs");
    let modules: Vec<String> = code_only(&lib)
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let l = l.strip_prefix("pub(crate) ").or_else(|| l.strip_prefix("pub ")).unwrap_or(l);
            l.strip_prefix("mod ").and_then(|m| m.strip_suffix(';')).map(str::to_owned)
        })
        .collect();
    assert!(modules.len() > 10, "lib.rs declares the engine's modules: {modules:?}");
    let unplaced: Vec<&String> = modules.iter().filter(|m| !group_of.contains_key(m.as_str())).collect();
    assert!(unplaced.is_empty(), "modules missing from ARCHITECTURE.md's module order: {unplaced:?}");

    let mut files = Vec::new();
    rust_files(&src, &mut files);
    // Every file's code, and the files that are test modules.
    let mut code: BTreeMap<PathBuf, String> = BTreeMap::new();
    let mut test_only: BTreeSet<PathBuf> = BTreeSet::new();
    for f in &files {
        let (c, tests) = without_tests(&code_only(&std::fs::read_to_string(f).expect("readable source")));
        let dir = if f.file_name().is_some_and(|n| n == "mod.rs" || n == "lib.rs") {
            f.parent().expect("a folder").to_path_buf()
        } else {
            f.with_extension("")
        };
        for t in tests {
            test_only.insert(dir.join(format!("{t}.rs")));
            test_only.insert(dir.join(&t));
        }
        code.insert(f.clone(), c);
    }

    let mut edges: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for (file, c) in &code {
        let rel = file.strip_prefix(&src).expect("under src");
        if rel == Path::new("lib.rs") || test_only.iter().any(|t| file.starts_with(t)) {
            continue;
        }
        let parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        let top = parts[0].trim_end_matches(".rs").to_owned();
        let depth = if parts.last().is_some_and(|p| p == "mod.rs") { parts.len() - 1 } else { parts.len() };
        for m in modules_named(c, depth) {
            if m != top && modules.contains(&m) {
                edges.entry((top.clone(), m)).or_default().insert(rel.display().to_string());
            }
        }
    }
    assert!(edges.len() > 20, "the engine's modules import each other: {} edges read", edges.len());
    let forward: Vec<String> = edges
        .iter()
        .filter(|((from, to), _)| group_of[to.as_str()] >= group_of[from.as_str()])
        .map(|((from, to), files)| format!("{from} imports {to} (in {})", files.iter().cloned().collect::<Vec<_>>().join(", ")))
        .collect();
    assert!(forward.is_empty(), "imports that reach forward in ARCHITECTURE.md's module order:\n{}", forward.join("\n"));
}

#[test]
fn the_reader_sees_paths_and_not_comments_strings_or_tests() {
    let src = r##"
use crate::dom::{Document, NodeId};
use crate::{layout::Layout, style};
// crate::render in a comment
/* crate::fold in /* a nested */ block */
const S: &str = "crate::tree in a string";
const R: &str = r#"crate::find in a raw "string""#;
fn f<'a>(x: &'a str) -> char { let _ = super::safety::x(); '"' }
#[cfg(test)]
mod tests { use crate::digest; }
#[cfg(test)]
mod more;
"##;
    let (code, tests) = without_tests(&code_only(src));
    assert_eq!(modules_named(&code, 1).into_iter().collect::<Vec<_>>(), ["dom", "layout", "safety", "style"]);
    assert_eq!(modules_named(&code, 2).into_iter().collect::<Vec<_>>(), ["dom", "layout", "style"]);
    assert_eq!(tests, ["more"]);
}
