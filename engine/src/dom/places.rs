//! Finding a page's elements again in another copy of the same page: the
//! same URL loaded by another engine (a tab that moves from the static
//! path to Chromium), or the page as a script rebuilt it.
//!
//! An element is known by its place: its `id`, when it is the element that
//! id finds in its document; else its parent's place, its tag, and how many
//! elements of that tag come before it among its parent's children (the
//! CSS `:nth-of-type` index, which an inserted banner of another tag does
//! not shift). Places are hashed to 64 bits, so each document costs one
//! walk and one word per node, and a place is looked up in O(1); a place
//! two elements of one document share is ambiguous and found nowhere.

use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use super::{Document, NodeId};

/// No element: text, comments, the document node.
const NONE: u64 = 0;

/// The place of every element of one document.
#[derive(Debug, Clone)]
pub struct Places {
    keys: Vec<u64>,
}

impl Places {
    /// The places of `doc`'s elements, in one walk.
    pub fn of(doc: &Document) -> Places {
        let mut keys = vec![NONE; doc.len()];
        // How many children of each tag a parent had so far (pre-order
        // visits a parent's children in order).
        let mut seen: HashMap<(NodeId, &html5ever::LocalName), u32> = HashMap::new();
        for id in doc.descendants(NodeId::DOCUMENT) {
            let Some(e) = doc.element(id) else { continue };
            let parent = doc.parent(id).unwrap_or(NodeId::DOCUMENT);
            let n = seen.entry((parent, e.local_name())).or_insert(0);
            *n += 1;
            let mut h = DefaultHasher::new();
            e.local_name().hash(&mut h);
            match e.id().filter(|v| !v.is_empty() && doc.element_by_id(v) == Some(id)) {
                Some(v) => ("#", v).hash(&mut h),
                None => (keys[parent.index()], *n).hash(&mut h),
            }
            // NONE stays free for "not an element".
            keys[id.index()] = h.finish().max(1);
        }
        Places { keys }
    }

    /// The place of `node` (`None` for what is not an element).
    fn key(&self, node: NodeId) -> Option<u64> {
        self.keys.get(node.index()).copied().filter(|&k| k != NONE)
    }

    /// Where the elements of this document are in `other`'s.
    pub fn map_to(&self, other: &Places) -> PlaceMap<'_> {
        let mut to: HashMap<u64, Option<NodeId>> = HashMap::with_capacity(other.keys.len() / 2);
        for (i, &k) in other.keys.iter().enumerate() {
            if k != NONE {
                to.entry(k).and_modify(|n| *n = None).or_insert(Some(NodeId::from_index(i)));
            }
        }
        PlaceMap { from: self, to }
    }
}

/// Elements of one document found in another by their place.
#[derive(Debug)]
pub struct PlaceMap<'a> {
    from: &'a Places,
    /// Place → the one element of the other document there (`None`: two).
    to: HashMap<u64, Option<NodeId>>,
}

impl PlaceMap<'_> {
    /// The element of the other document at `node`'s place, if exactly one
    /// is there.
    pub fn get(&self, node: NodeId) -> Option<NodeId> {
        self.to.get(&self.from.key(node)?).copied().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ParseOptions, parse};

    fn doc(html: &str) -> Document {
        parse(html.as_bytes(), &ParseOptions::default())
    }

    /// The innermost element whose text is `text`.
    fn by_text(d: &Document, text: &str) -> NodeId {
        d.descendants(NodeId::DOCUMENT)
            .filter(|&n| d.element(n).is_some() && d.text_content(n).trim() == text)
            .last()
            .unwrap_or_else(|| panic!("no element with text {text:?}"))
    }

    #[test]
    fn elements_are_found_again_in_a_copy_that_scripts_changed() {
        let before = doc("<main><p>one</p><p>two</p><button id=go>Go</button><ul><li>a</li><li>b</li></ul></main>");
        // A banner of another tag before the paragraphs, an item added at
        // the end, the button moved into a form: the paragraphs, the items
        // and the button (by its id) keep their places.
        let after = doc("<main><div>Sale!</div><p>one</p><p>two</p><ul><li>a</li><li>b</li><li>c</li></ul><form><button id=go>Go</button></form></main>");
        let (a, b) = (Places::of(&before), Places::of(&after));
        let map = a.map_to(&b);
        for text in ["one", "two", "a", "b", "Go"] {
            assert_eq!(map.get(by_text(&before, text)), Some(by_text(&after, text)), "{text}");
        }
        // Text nodes have no place.
        let text = before.first_child(by_text(&before, "one")).expect("a text node");
        assert_eq!(map.get(text), None);
    }

    #[test]
    fn a_place_two_elements_share_is_found_nowhere() {
        // Two elements with one id: the second is placed by position, the
        // first by the id; the copy has the id twice as well.
        let before = doc("<p id=x>first</p><p id=x>second</p>");
        let after = doc("<div><p id=x>first</p></div><p id=x>second</p>");
        let (a, b) = (Places::of(&before), Places::of(&after));
        let map = a.map_to(&b);
        assert_eq!(map.get(by_text(&before, "first")), Some(by_text(&after, "first")));
        // The second moved from body's 2nd <p> to its 1st: not the same place.
        assert_eq!(map.get(by_text(&before, "second")), None);
        // A page where two siblings cannot be told apart does not exist:
        // nth-of-type tells them apart, so the same page maps to itself.
        let same = a.map_to(&a);
        assert_eq!(same.get(by_text(&before, "second")), Some(by_text(&before, "second")));
    }

    #[test]
    fn deep_pages_are_walked_without_recursion() {
        let html = "<div>".repeat(20_000) + "deep";
        let d = doc(&html);
        let p = Places::of(&d);
        let deepest = d.descendants(NodeId::DOCUMENT).filter(|&n| d.element(n).is_some()).last().expect("elements");
        assert_eq!(p.map_to(&p).get(deepest), Some(deepest));
    }
}
