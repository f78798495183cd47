//! The reading itself: the text lower-cased and split into words once
//! ([`Words`]), markers found, then the findings — an override, an address,
//! an order, a persona — gathered word by word and weighed by distance.
//! Linear in the text: each word costs one table lookup, and phrases are
//! checked only around the few words that can start one.

use smallvec::SmallVec;

use super::vocabulary::{
    ACTION, AI_NAME, AI_NOUN, AI_START, BARE, DOC, HEY, IMPERATIVE, MODAL, MONEY, NEG, NOTE, OVERRIDE, PARTICIPLE,
    PERSONA, PRIOR, PRIOR_AFTER, REVEAL, ROLE, ROLE_MOD, SENSITIVE, Special, TABLE, TARGET, TARGET_WEAK, TELL, USER,
    chinese_override, is_filler, lookup, marker_at,
};
use super::{ACTION_WINDOW, WINDOW};

#[derive(Debug, Clone, Copy)]
struct Word {
    /// Where the lower-cased word is: in the text itself (plain lower-case
    /// ASCII words, most of them) or in [`Words::buf`].
    start: u32,
    end: u32,
    in_buf: bool,
    /// First in its sentence or clause (after `.`, `!`, `?`, `;`, `:`, `|`,
    /// a line break, or the start of the text).
    clause_start: bool,
    /// The first punctuation after the word, before the next word (`,`, `:`,
    /// `!`, `.`, …; `~` for a dash, 0 for none).
    after: u8,
    /// Its classes (see [`WORD_CLASSES`]).
    cls: u32,
    /// The phrases it may start.
    special: Special,
    /// A quotation mark comes between the previous word and this one.
    quote_before: bool,
}

/// The text lower-cased into words.
pub(super) struct Words<'a> {
    text: &'a str,
    /// The words that were not plain lower-case ASCII, lower-cased.
    buf: String,
    words: SmallVec<[Word; 32]>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `AI`, `AI agents`, `LLM`, `large language model`, `chatbot`.
    Ai,
    /// `ChatGPT`, `Claude`, `Gemini`, …
    Name,
    /// `agent`, `assistant`, `bot`: an addressee only as a vocative.
    Bare,
}

#[derive(Debug, Clone, Copy)]
enum Cue {
    /// A clear address to an AI (`Dear AI,`).
    Address,
    /// A weak address or role marker (`System:`, `Assistant,`).
    Role,
    /// An override order (`you must now`, `do not tell the user`).
    Order,
    /// An action (`click`, `navigate`, `please`).
    Action,
}

/// The last position of each cue seen so far.
#[derive(Debug, Default)]
struct Findings {
    address: Option<usize>,
    role: Option<usize>,
    order: Option<usize>,
    action: Option<usize>,
}

impl Findings {
    /// Records `cue` at word `at`; true when it completes a finding.
    fn add(&mut self, cue: Cue, at: usize) -> bool {
        let near = |p: Option<usize>| p.is_some_and(|p| at.abs_diff(p) <= WINDOW);
        let close = |p: Option<usize>| p.is_some_and(|p| at.abs_diff(p) <= ACTION_WINDOW);
        match cue {
            Cue::Address => {
                let hit = near(self.order) || close(self.action);
                self.address = Some(at);
                hit
            }
            Cue::Role => {
                let hit = near(self.order);
                self.role = Some(at);
                hit
            }
            Cue::Order => {
                let hit = near(self.address) || near(self.role);
                self.order = Some(at);
                hit
            }
            Cue::Action => {
                let hit = close(self.address);
                self.action = Some(at);
                hit
            }
        }
    }
}

/// Characters skipped inside and between words: invisible, they must not
/// split `ig\u{200B}nore`.
fn is_ignorable(c: char) -> bool {
    matches!(c, '\u{00AD}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
        || ('\u{E0000}'..='\u{E007F}').contains(&c)
}

fn is_quote(c: char) -> bool {
    matches!(c, '"' | '\'' | '`' | '“' | '”' | '„' | '‘' | '’' | '«' | '»' | '‹' | '›' | '「' | '」')
}

fn punct_byte(c: char) -> u8 {
    match c {
        ',' | '，' | '、' => b',',
        ':' | '：' => b':',
        '!' | '！' => b'!',
        '?' | '？' => b'?',
        '.' | '。' => b'.',
        '—' | '–' => b'~',
        c if is_quote(c) => b'"',
        c if c.is_ascii() => c as u8,
        _ => b'*',
    }
}

/// For each byte: 1 for an ASCII lower-case letter or digit, 2 for an
/// upper-case letter, 0 otherwise.
const fn word_byte_table() -> [u8; 256] {
    let mut t = [0; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        t[b] = if byte.is_ascii_uppercase() {
            2
        } else if byte.is_ascii_alphanumeric() {
            1
        } else {
            0
        };
        b += 1;
    }
    t
}
static WORD_BYTE: [u8; 256] = word_byte_table();

fn is_ascii_word_byte(b: u8) -> bool {
    WORD_BYTE[usize::from(b)] != 0
}

/// The character at byte `i` of `text` (a char boundary).
fn char_at(text: &str, i: usize) -> char {
    text[i..].chars().next().unwrap_or(' ')
}

fn is_apostrophe(c: char) -> bool {
    matches!(c, '\'' | '’' | 'ʼ')
}

/// Letters and digits (`ʼ`, a letter to Unicode, is an apostrophe here).
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() && !is_apostrophe(c)
}

impl<'a> Words<'a> {
    /// Lower-cases and splits the text into `self.words`; notes where weak
    /// markers were (as word indices) in `markers`. False when a strong
    /// marker (or a Chinese override) was found.
    /// `text`, not read yet.
    pub(super) fn new(text: &'a str) -> Words<'a> {
        Words { text, buf: String::new(), words: SmallVec::new() }
    }

    pub(super) fn scan(&mut self, markers: &mut Vec<usize>) -> bool {
        let text = self.text;
        let bytes = text.as_bytes();
        let Words { buf, words, .. } = self;
        let table = &*TABLE;
        let mut clause_start = true;
        let mut after_pending = false;
        let mut quote_before = false;
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            let at = i;
            let starts_word = is_ascii_word_byte(b) || (b >= 0x80 && is_word_char(char_at(text, i)));
            if starts_word {
                // The word: letters and digits, with apostrophes and
                // invisible characters inside.
                let mut plain = true;
                // Letters beyond Latin: no word of the table, no need to
                // lower-case.
                let mut foreign = false;
                let mut ascii = true;
                loop {
                    let mut run = 0;
                    let mut kinds = 0;
                    for &b in &bytes[i..] {
                        let kind = WORD_BYTE[usize::from(b)];
                        if kind == 0 {
                            break;
                        }
                        kinds |= kind;
                        run += 1;
                    }
                    plain &= kinds < 2;
                    i += run;
                    if i >= bytes.len() {
                        break;
                    }
                    let b = bytes[i];
                    if b < 0x80 && b != b'\'' {
                        break;
                    }
                    let c = char_at(text, i);
                    let len = c.len_utf8();
                    ascii &= len == 1;
                    let next_is_word = |j: usize| j < bytes.len() && (is_ascii_word_byte(bytes[j]) || (bytes[j] >= 0x80 && is_word_char(char_at(text, j))));
                    if is_apostrophe(c) {
                        if !next_is_word(i + len) {
                            break;
                        }
                        plain &= c == '\'';
                    } else if is_word_char(c) {
                        if matches!(c, '忽' | '无' | '忘' | '無' | '不') && chinese_override(text, i) {
                            return false;
                        }
                        plain = false;
                        foreign |= c >= '\u{0250}';
                    } else if is_ignorable(c) {
                        plain = false;
                    } else {
                        break;
                    }
                    i += len;
                }
                if i == at {
                    // Cannot happen (the first character is a word
                    // character), but never loop on the same byte.
                    i += char_at(text, at).len_utf8();
                    continue;
                }
                let (start, end, in_buf) = if plain || foreign {
                    (at, i, false)
                } else {
                    if buf.capacity() == 0 {
                        buf.reserve(text.len() + 4);
                    }
                    let from = buf.len();
                    if ascii {
                        buf.push_str(&text[at..i]);
                        buf[from..].make_ascii_lowercase();
                    } else {
                        for c in text[at..i].chars() {
                            if c.is_ascii() {
                                buf.push(c.to_ascii_lowercase());
                            } else if is_apostrophe(c) {
                                buf.push('\'');
                            } else if !is_ignorable(c) {
                                buf.extend(c.to_lowercase());
                            }
                        }
                    }
                    (from, buf.len(), true)
                };
                let (cls, special) = if foreign {
                    (0, Special::None)
                } else {
                    lookup(table, if in_buf { &buf[start..end] } else { &text[start..end] })
                };
                words.push(Word { start: start as u32, end: end as u32, in_buf, clause_start, after: 0, cls, special, quote_before });
                clause_start = false;
                quote_before = false;
                after_pending = true;
                continue;
            }
            let c = if b < 0x80 {
                i += 1;
                char::from(b)
            } else {
                let c = char_at(text, i);
                i += c.len_utf8();
                if is_ignorable(c) {
                    continue;
                }
                c
            };
            if c.is_whitespace() {
                if c == '\n' {
                    clause_start = true;
                }
                continue;
            }
            if after_pending {
                if let Some(w) = words.last_mut() {
                    w.after = punct_byte(c);
                }
                after_pending = false;
            }
            if matches!(c, '.' | '!' | '?' | ';' | ':' | '|' | '•' | '。' | '！' | '？' | '：' | '；') {
                clause_start = true;
            }
            quote_before |= is_quote(c);
            if matches!(c, '<' | '[' | '#') {
                match marker_at(&bytes[at..]) {
                    Some(true) => return false,
                    Some(false) => markers.push(words.len()),
                    None => {}
                }
            }
        }
        true
    }

    fn len(&self) -> usize {
        self.words.len()
    }

    /// Word `i`, or `""` past either end.
    fn w(&self, i: usize) -> &str {
        self.words.get(i).map_or("", |w| {
            let (start, end) = (w.start as usize, w.end as usize);
            if w.in_buf { &self.buf[start..end] } else { &self.text[start..end] }
        })
    }

    fn cls(&self, i: usize) -> u32 {
        self.words.get(i).map_or(0, |w| w.cls)
    }

    fn has(&self, i: usize, bits: u32) -> bool {
        self.cls(i) & bits != 0
    }

    fn after(&self, i: usize) -> u8 {
        self.words.get(i).map_or(0, |w| w.after)
    }

    fn clause_start(&self, i: usize) -> bool {
        self.words.get(i).is_some_and(|w| w.clause_start)
    }

    fn prev(&self, i: usize) -> &str {
        if i == 0 { "" } else { self.w(i - 1) }
    }

    pub(super) fn analyse(&self, markers: &[usize]) -> bool {
        let mut found = Findings::default();
        let mut markers = markers.iter().copied().peekable();
        for i in 0..self.len() {
            while let Some(m) = markers.next_if(|&m| m <= i) {
                if found.add(Cue::Role, m) {
                    return true;
                }
            }
            let bits = self.cls(i);
            if (bits != 0 || self.words[i].special != Special::None) && self.word(i, bits, &mut found) {
                return true;
            }
        }
        markers.any(|m| found.add(Cue::Role, m))
    }

    /// Checks the phrases word `i` (of classes `bits`) may start; true when
    /// the text is found to read like instructions.
    fn word(&self, i: usize, bits: u32, found: &mut Findings) -> bool {
        if bits & OVERRIDE != 0 {
            match self.override_at(i) {
                Some(true) => return true,
                Some(false) if found.add(Cue::Order, i) => return true,
                _ => {}
            }
        }
        if bits & ACTION != 0 && self.imperative_position(i) && found.add(Cue::Action, i) {
            return true;
        }
        if bits & AI_START != 0 && self.ai_address(i, found) {
            return true;
        }
        if bits & HEY != 0 {
            let k = if self.w(i + 1) == "there" { i + 2 } else { i + 1 };
            if let Some((end, kind)) = self.ai_phrase(k)
                && self.vocative_end(end)
                && found.add(if kind == Kind::Bare { Cue::Role } else { Cue::Address }, i)
            {
                return true;
            }
        }
        if bits & NOTE != 0 && matches!(self.w(i + 1), "to" | "for") {
            let k = self.skip_det(i + 2);
            if let Some((end, kind)) = self.ai_phrase(k)
                && kind != Kind::Bare
                && self.vocative_end(end)
                && (self.w(i) == "note" || found.add(Cue::Address, i))
            {
                return true;
            }
        }
        if bits & TELL != 0 {
            let k = if self.w(i + 1) == "the" { i + 2 } else { i + 1 };
            if self.has(k, USER) && matches!(self.w(k + 1), "to" | "that" | "about" | "know") && found.add(Cue::Order, i) {
                return true;
            }
        }
        if bits & REVEAL != 0
            && matches!(self.w(i + 1), "your" | "the" | "all" | "any" | "user's" | "users" | "their" | "my")
            && !(i > 0 && self.has(i - 1, NEG))
            && (i + 2..=i + 4).any(|k| self.has(k, SENSITIVE))
            && found.add(Cue::Order, i)
        {
            return true;
        }
        if bits & NEG != 0 {
            let v = if self.w(i + 1) == "ever" { i + 2 } else { i + 1 };
            if self.has(v, TELL | REVEAL) && (v + 1..=v + 3).any(|k| self.has(k, USER)) && found.add(Cue::Order, i) {
                return true;
            }
        }
        if bits & ROLE_MOD != 0
            && (self.is_instruction_word(i + 1)
                || (matches!(self.w(i + 1), "advanced" | "additional" | "important" | "urgent" | "updated" | "secret" | "system") && self.is_instruction_word(i + 2)))
            && !self.prev(i).eq("your")
            && found.add(Cue::Role, i)
        {
            return true;
        }
        if self.words[i].special != Special::None && self.special(i, found) {
            return true;
        }
        false
    }

    /// An override verb at `i`: `Some(true)` strong (`ignore all previous
    /// instructions`), `Some(false)` an order (`ignore your instructions`).
    fn override_at(&self, i: usize) -> Option<bool> {
        let mut j = i + 1;
        let mut prior = false;
        while j <= i + 6 {
            let c = self.cls(j);
            if c & PRIOR != 0 && !(c & TARGET_WEAK != 0 && !(self.has(j + 1, TARGET | TARGET_WEAK) || is_filler(self.w(j + 1)))) {
                prior = true;
            } else if !is_filler(self.w(j)) {
                break;
            }
            j += 1;
        }
        // `ignore the user's request`, `ignore what the customer asked`: an
        // order that turns the agent against the person it works for.
        let person = if self.w(j) == "what" { self.skip_det(j + 1) } else { j };
        if self.has(person, USER) {
            return Some(false);
        }
        let target = self.w(j);
        let c = self.cls(j);
        let (strong, last) = if target == "everything" {
            (matches!(self.w(j + 1), "above" | "previously" | "prior" | "earlier"), j + 1)
        } else if c & TARGET != 0 {
            let after = self.has(j + 1, PRIOR_AFTER);
            (prior || after, if after { j + 1 } else { j })
        } else {
            return (c & TARGET_WEAK != 0).then_some(false);
        };
        // `text like 'ignore previous instructions'` names the phrase: quoted
        // alone, it is an order that still needs an addressee.
        let quoted = self.words[i].quote_before && self.after(last) == b'"';
        Some(strong && !quoted)
    }

    fn is_instruction_word(&self, i: usize) -> bool {
        matches!(self.w(i), "instructions" | "instruction" | "directive" | "directives" | "orders" | "task")
    }

    /// Skips one determiner (`any`, `all`, `every`, `the`, …).
    fn skip_det(&self, i: usize) -> usize {
        if matches!(self.w(i), "any" | "all" | "every" | "each" | "the" | "other" | "fellow") { i + 1 } else { i }
    }

    /// Whether an AI phrase ending before word `end` is an address: it is
    /// followed by `,` `:` `!` or a dash, ends the text, or goes on with
    /// *reading / processing / … / please / who / that / you*.
    fn vocative_end(&self, end: usize) -> bool {
        end >= self.len()
            || (end > 0 && matches!(self.after(end - 1), b',' | b':' | b'!' | b'~'))
            || self.has(end, PARTICIPLE)
            || matches!(self.w(end), "please" | "who" | "that" | "you")
    }

    /// Whether word `i` stands where an order's verb stands: first in its
    /// clause, after `,` `:` `;` or a dash, or after *please, must, should,
    /// always, never, not, then, and, now, immediately, first, also, just*.
    fn imperative_position(&self, i: usize) -> bool {
        self.clause_start(i)
            || (i > 0
                && (matches!(self.after(i - 1), b',' | b':' | b';' | b'~' | b'!')
                    || matches!(
                        self.w(i - 1),
                        "please" | "must" | "should" | "shall" | "always" | "never" | "not" | "don't" | "dont" | "then" | "and" | "now"
                            | "immediately" | "first" | "also" | "just" | "kindly"
                    )))
    }

    /// An AI phrase starting at `i`: `AI`, `AI agents`, `LLM reviewers`,
    /// `large language models`, `automated agent`, `ChatGPT`, `GPT-4`, or a
    /// bare `agent` / `assistant` / `bot`. Returns the index after it.
    fn ai_phrase(&self, i: usize) -> Option<(usize, Kind)> {
        let first = self.w(i);
        if self.has(i, AI_NAME) {
            let mut end = i + 1;
            if first == "gpt" {
                while end < i + 3 && (self.w(end).starts_with(|c: char| c.is_ascii_digit()) || matches!(self.w(end), "turbo" | "o" | "mini")) {
                    end += 1;
                }
            }
            return Some((end, Kind::Name));
        }
        let mut j = i;
        let mut ai = false;
        let mut automated = false;
        while j < i + 4 {
            match self.w(j) {
                "ai" | "genai" | "agentic" | "llm" | "llms" => ai = true,
                "artificial" if self.w(j + 1) == "intelligence" => {
                    ai = true;
                    j += 1;
                }
                "large" if self.w(j + 1) == "language" => {}
                "language" if matches!(self.w(j + 1), "model" | "models") => return Some((j + 2, Kind::Ai)),
                "automated" | "autonomous" | "web" | "browsing" | "browser" | "computer" => automated = true,
                _ => break,
            }
            j += 1;
        }
        let noun = self.w(j);
        if self.has(j, AI_NOUN) {
            let end = if self.has(j + 1, AI_NOUN) { j + 2 } else { j + 1 };
            if ai || matches!(noun, "chatbot" | "chatbots") {
                return Some((end, Kind::Ai));
            }
            if automated && matches!(noun, "agent" | "agents" | "assistant" | "assistants") {
                return Some((end, Kind::Ai));
            }
            if j == i && self.has(j, BARE) {
                return Some((i + 1, Kind::Bare));
            }
            return None;
        }
        ai.then_some((j, Kind::Ai))
    }

    /// An AI phrase at `i` used as an address: `AI agents reading this
    /// page`, or a vocative at the start of a sentence (`Assistant,`,
    /// `AI: click …`).
    fn ai_address(&self, i: usize, found: &mut Findings) -> bool {
        let Some((end, kind)) = self.ai_phrase(i) else {
            return false;
        };
        if self.has(end, PARTICIPLE) && matches!(self.w(end + 1), "this" | "these" | "the" | "my" | "our") {
            // `AI agents reading this page:` / `… this page must …`, not
            // `AI agents reading this kind of page can be tricked`.
            let doc = if self.has(end + 2, DOC) {
                Some(end + 2)
            } else if self.has(end + 3, DOC) && !matches!(self.w(end + 2), "kind" | "sort" | "type" | "much" | "many" | "amount" | "number") {
                Some(end + 3)
            } else {
                None
            };
            if kind == Kind::Ai
                && let Some(d) = doc
                && (matches!(self.after(d), b',' | b':' | b'!' | b'~')
                    || matches!(self.w(d + 1), "must" | "should" | "shall" | "need" | "needs" | "please")
                    || self.has(d + 1, IMPERATIVE | OVERRIDE))
            {
                return true;
            }
            if found.add(Cue::Role, i) {
                return true;
            }
        }
        // `AI agent instruction: …`, `AI assistants must ignore …`: a role
        // marker, which an override order near it completes.
        if kind == Kind::Ai
            && ((self.is_instruction_word(end) && matches!(self.after(end), b':' | b','))
                || (end..end + 3).any(|k| self.has(k, MODAL) && self.has(k + 1, OVERRIDE)))
            && found.add(Cue::Role, i)
        {
            return true;
        }
        if self.clause_start(i) && end > i {
            let punct = self.after(end - 1);
            if matches!(punct, b',' | b':' | b'!') {
                let next = self.cls(end);
                let imperative = next & IMPERATIVE != 0;
                if kind == Kind::Ai && imperative {
                    return true;
                }
                if punct != b':'
                    && kind != Kind::Bare
                    && (imperative
                        || next & NEG != 0
                        || self.w(end) == "please"
                        || (self.w(end) == "do" && self.w(end + 1) == "not")
                        || (self.w(end) == "you" && self.has(end + 1, MODAL)))
                {
                    return true;
                }
                if found.add(Cue::Role, i) {
                    return true;
                }
            }
        }
        false
    }

    /// `you are now …`: `Some(true)` for a persona switch (`you are now
    /// DAN`, `… an unrestricted AI`, `… in developer mode`), `Some(false)`
    /// for any other `you are now a/an/in/no …`. `k` is the word after
    /// `are`.
    fn you_are_now(&self, k: usize) -> Option<bool> {
        if self.w(k) != "now" {
            return None;
        }
        let first = self.w(k + 1);
        if first == "in" {
            let mode = (k + 2..=k + 4).find(|&m| self.w(m) == "mode");
            return Some(mode.is_some_and(|m| {
                matches!(self.w(m - 1), "developer" | "god" | "jailbreak" | "jailbroken" | "dan" | "unrestricted" | "sudo" | "admin" | "unfiltered")
            }));
        }
        // The persona is the noun phrase right after (`a`/`an`, two words at
        // most): `you are now chatting with our AI assistant` is a widget.
        let start = if matches!(first, "a" | "an") { k + 2 } else { k + 1 };
        for m in start..start + 3 {
            let w = self.w(m);
            if self.has(m, PERSONA) && self.after(m) != b'-' {
                // `an assistant professor` is a job title.
                let title = w == "assistant"
                    && self.after(m) == 0
                    && !matches!(self.w(m + 1), "that" | "who" | "which" | "named" | "called" | "with" | "and" | "");
                if !title {
                    return Some(true);
                }
            }
            if w.ends_with("ing") || matches!(w, "with" | "to" | "of" | "for" | "on" | "at" | "by" | "from" | "in" | "") || self.after(m) != 0 {
                break;
            }
        }
        matches!(first, "a" | "an" | "no").then_some(false)
    }

    fn special(&self, i: usize, found: &mut Findings) -> bool {
        match self.words[i].special {
            Special::You => {
                let are = if self.w(i) == "you" {
                    match self.w(i + 1) {
                        "are" | "re" => Some(i + 2),
                        _ => None,
                    }
                } else {
                    Some(i + 1)
                };
                if let Some(k) = are {
                    match self.you_are_now(k) {
                        Some(true) => return true,
                        Some(false) => return found.add(Cue::Order, i),
                        None => {}
                    }
                } else if self.has(i + 1, MODAL) {
                    if self.w(i + 2) == "now" && found.add(Cue::Order, i) {
                        return true;
                    }
                    return found.add(Cue::Action, i);
                }
            }
            Special::System => {
                if matches!(self.w(i + 1), "prompt" | "prompts") {
                    if self.after(i + 1) == b':' {
                        return true;
                    }
                    return found.add(Cue::Role, i);
                }
                if matches!(self.w(i + 1), "message" | "note" | "override" | "instruction" | "instructions" | "notice" | "update")
                    || (self.clause_start(i) && self.after(i) == b':')
                {
                    return found.add(Cue::Role, i);
                }
            }
            Special::As => {
                if matches!(self.w(i + 1), "an" | "a")
                    && let Some((end, Kind::Ai)) = self.ai_phrase(i + 2)
                    && self.w(end) == "you"
                {
                    return true;
                }
            }
            Special::Attention => {
                if self.clause_start(i) || (i > 0 && self.has(i - 1, HEY)) {
                    let k = self.skip_det(i + 1);
                    if let Some((end, kind)) = self.ai_phrase(k)
                        && self.vocative_end(end)
                    {
                        if kind != Kind::Bare {
                            return true;
                        }
                        return found.add(Cue::Role, i);
                    }
                }
            }
            special @ (Special::To | Special::For) => {
                if self.clause_start(i) {
                    let det = self.w(i + 1);
                    let k = self.skip_det(i + 1);
                    if let Some((end, kind)) = self.ai_phrase(k)
                        && kind != Kind::Bare
                        && self.vocative_end(end)
                    {
                        if special == Special::To && matches!(det, "any" | "all" | "every" | "each") {
                            return true;
                        }
                        return found.add(if special == Special::To { Cue::Address } else { Cue::Role }, i);
                    }
                }
            }
            Special::If => {
                let k = match (self.w(i + 1), self.w(i + 2)) {
                    ("you're" | "youre", _) => i + 2,
                    ("you", "are" | "re") => i + 3,
                    _ => return false,
                };
                let k = if matches!(self.w(k), "an" | "a") { k + 1 } else { k };
                // `if you are an AI, …`, not `if you are an AI researcher`.
                if let Some((end, Kind::Ai | Kind::Name)) = self.ai_phrase(k)
                    && (self.vocative_end(end) || matches!(self.w(end), "and" | "or" | "then" | "agent" | "reading"))
                {
                    return true;
                }
            }
            Special::Instead => {
                if self.w(i + 1) == "you" && self.has(i + 2, MODAL) {
                    return found.add(Cue::Order, i);
                }
            }
            Special::From => {
                if self.w(i + 1) == "now" && self.w(i + 2) == "on" {
                    return found.add(Cue::Order, i);
                }
            }
            Special::Now => {
                if self.w(i + 1) == "you" && self.has(i + 2, MODAL) {
                    return found.add(Cue::Order, i);
                }
            }
            Special::Your => {
                let k = i + 1;
                let order = if self.has(k, ROLE_MOD) {
                    self.has(k + 1, ROLE)
                } else {
                    self.has(k, ROLE)
                        && (self.w(k + 1) == "now" || (matches!(self.w(k + 1), "is" | "are") && self.w(k + 2) == "now"))
                };
                if order {
                    return found.add(Cue::Order, i);
                }
            }
            Special::Without => {
                if matches!(self.w(i + 1), "telling" | "informing" | "alerting" | "notifying" | "asking" | "warning" | "letting")
                    && (i + 2..=i + 4).any(|k| self.has(k, USER))
                {
                    return found.add(Cue::Order, i);
                }
            }
            Special::Respond => {
                if self.w(i + 1) == "only" {
                    return found.add(Cue::Order, i);
                }
            }
            Special::Only => {
                if matches!(self.w(i + 1), "respond" | "reply" | "answer" | "say" | "output") {
                    return found.add(Cue::Order, i);
                }
            }
            Special::Pretend => {
                if matches!(self.w(i + 1), "you" | "you're" | "to" | "that") {
                    return found.add(Cue::Order, i);
                }
            }
            Special::When => {
                if matches!(self.w(i + 1), "summarizing" | "summarising")
                    && matches!(self.w(i + 2), "this" | "the")
                    && self.has(i + 3, DOC)
                {
                    return found.add(Cue::Address, i);
                }
            }
            Special::Wire => {
                if (i + 1..=i + 3).any(|k| self.has(k, MONEY) || self.w(k).starts_with(|c: char| c.is_ascii_digit())) {
                    return found.add(Cue::Order, i);
                }
            }
            Special::Please => return self.imperative_position(i) && found.add(Cue::Action, i),
            Special::None => {}
        }
        false
    }
}
