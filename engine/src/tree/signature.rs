//! What makes siblings "the same kind of item": the structural signature
//! that decides which runs of siblings fold together.
//!
//! Two items have the same signature when they begin the same way (list
//! item, heading level, live region, plain line), stand for the same
//! element name, show the same sequence of widget roles (consecutive
//! repeats collapsed: a row of three links is like a row of two), both do
//! or both do not hold text, and have about as many child items (0, 1,
//! 2–3, 4–7, 8+). Names, values and the words of the text do not count:
//! twenty product cards share a signature whatever they sell.
//!
//! Prose is separate: a *text block* is a plain line (no element of its
//! own, no children) of text with at most links in it; runs of text blocks
//! fold as `… +N more text blocks (extract text)`.

use crate::dom::Document;
use super::{AxTree, Item, Prefix, Segment};
use crate::text::fnv1a;

/// Runs shorter than this are never folded as items (keeping one and
/// folding two is the least that saves anything), and a container needs a
/// run this long among its children to get a ref for its fold line.
pub const MIN_RUN: usize = 4;

/// The bucket of a child count.
fn bucket(n: usize) -> u8 {
    match n {
        0 => 0,
        1 => 1,
        2..=3 => 2,
        4..=7 => 3,
        _ => 4,
    }
}

/// The structural signature of an item (a hash; equal items, equal hashes).
pub fn signature(doc: &Document, tree: &AxTree, item: &Item) -> u64 {
    let mut key: Vec<u8> = Vec::with_capacity(32);
    match item.prefix {
        Prefix::None => key.push(0),
        Prefix::Heading(l) => key.extend([1, l]),
        Prefix::ListItem => key.push(2),
        Prefix::Live(r) => {
            key.push(3);
            key.extend(r.as_str().bytes());
        }
    }
    key.push(b'|');
    if let Some(e) = item.node.and_then(|n| doc.element(n)) {
        key.extend(e.local_name().as_bytes());
    }
    key.push(b'|');
    let mut last_role = None;
    let mut has_text = false;
    for seg in &item.head {
        match seg {
            Segment::Text(t) => has_text |= t.chars().any(char::is_alphanumeric),
            Segment::Widget(w) => {
                let role = tree.widgets[*w].role;
                if last_role != Some(role) {
                    key.extend(role.as_str().bytes());
                    key.push(b',');
                    last_role = Some(role);
                }
            }
        }
    }
    key.push(if has_text { b't' } else { b'-' });
    key.push(bucket(item.children.len()));
    fnv1a(&key)
}

/// Whether an item is a text block: a plain line of text (links allowed)
/// with no element of its own and nothing below it.
pub fn is_text_block(tree: &AxTree, item: &Item) -> bool {
    if item.node.is_some() || item.prefix != Prefix::None || !item.children.is_empty() {
        return false;
    }
    let mut text = false;
    for seg in &item.head {
        match seg {
            Segment::Text(t) => text |= t.chars().any(char::is_alphanumeric),
            Segment::Widget(w) => {
                if tree.widgets[*w].role != crate::semantics::role::Role::Link {
                    return false;
                }
            }
        }
    }
    text
}

/// Whether some run of at least [`MIN_RUN`] consecutive children of
/// `item` share a signature (text blocks excluded: they fold without a
/// ref).
pub fn has_foldable_run(doc: &Document, tree: &AxTree, item: &Item) -> bool {
    if item.children.len() < MIN_RUN {
        return false;
    }
    let mut run = 0;
    let mut last = None;
    for &c in &item.children {
        let child = &tree.items[c];
        if is_text_block(tree, child) {
            run = 0;
            last = None;
            continue;
        }
        let sig = signature(doc, tree, child);
        if last == Some(sig) {
            run += 1;
        } else {
            run = 1;
            last = Some(sig);
        }
        if run >= MIN_RUN {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{RefTable, Snapshot, SnapshotOptions, snapshot};

    fn snap(html: &str) -> Snapshot {
        snapshot(
            html.as_bytes(),
            &SnapshotOptions { fold: crate::FoldOptions::unfolded(), ..Default::default() },
            &mut RefTable::new(),
        )
    }

    /// The signatures of the children of the first item with children.
    fn child_sigs(s: &Snapshot) -> Vec<u64> {
        let t = &s.tree;
        let parent = t.items.iter().find(|i| !i.children.is_empty()).map(|i| i.children.clone()).unwrap_or_default();
        parent.iter().map(|&c| signature(&s.document, t, &t.items[c])).collect()
    }

    #[test]
    fn cards_with_different_words_share_a_signature() {
        let s = snap(
            "<ul><li><a href=/a>Lamp</a> $1 <button>Add</button></li>\
             <li><a href=/b>Big tent for four</a> $200 <button>Add to cart</button></li>\
             <li><a href=/c>Mug</a><button>Add</button><button>Wish</button></li>\
             <li>Just text</li><li>Text <ul><li>with a nested list</li></ul></li></ul>",
        );
        let sigs = child_sigs(&s);
        assert_eq!(sigs.len(), 5);
        assert_eq!(sigs[0], sigs[1], "same shape, other words");
        assert_ne!(sigs[0], sigs[2], "a different sequence of roles");
        assert_ne!(sigs[0], sigs[3], "no widgets");
        assert_ne!(sigs[3], sigs[4], "a child item more");
    }

    #[test]
    fn repeated_roles_collapse_and_child_counts_bucket() {
        let s = snap(
            "<nav aria-label=N><div><a href=/1>1</a> <a href=/2>2</a></div><div><a href=/1>1</a> <a href=/2>2</a> <a href=/3>3</a></div></nav>",
        );
        let sigs = child_sigs(&s);
        assert_eq!(sigs.len(), 2);
        assert_eq!(sigs[0], sigs[1], "two links or three: the same shape");
        assert_eq!(bucket(2), bucket(3));
        assert_ne!(bucket(3), bucket(4));
        assert_eq!(bucket(100), bucket(8));
    }

    #[test]
    fn text_blocks_are_plain_prose_lines() {
        let s = snap("<p>Prose with <a href=/x>a link</a>.</p><p><button>Go</button> text</p><h2>Head</h2>");
        let t = &s.tree;
        let flags: Vec<bool> = t.roots.iter().map(|&r| is_text_block(t, &t.items[r])).collect();
        assert_eq!(flags, [true, false, false]);
    }

    #[test]
    fn containers_with_a_long_run_get_a_ref_in_reading_order() {
        let mut html = String::from("<a href=/first>First</a><main>");
        for i in 0..5 {
            html.push_str(&format!("<article><h2>Post {i}</h2><a href=/p{i}>Read</a></article>"));
        }
        html.push_str("</main><aside aria-label=Side><a href=/s>S</a></aside>");
        let text = snap(&html).observation.text();
        assert!(
            text.starts_with("#\n[1] link \"First\"\n[2] main\n article\n  h2 Post 0\n  [3] link \"Read\""),
            "{text}"
        );
        assert!(text.contains("aside \"Side\"\n [8] link"), "a short container gets no ref: {text}");
    }
}
