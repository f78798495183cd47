//! The words [`reads_like_instructions`](super::reads_like_instructions)
//! knows: each word's classes as bits of one table lookup (built once),
//! the words that start a phrase, and the chat-template markers read as
//! bytes. Nothing here reads text; it is the vocabulary the scan looks up.

use std::collections::HashMap;
use std::sync::LazyLock;

// Word classes: bits of the one table lookup each word costs.
/// Verbs that override: ignore, disregard, forget, …
pub(super) const OVERRIDE: u32 = 1 << 0;
/// previous, prior, above, … (before the noun).
pub(super) const PRIOR: u32 = 1 << 1;
/// instructions, prompts, directions, …: overriding them with `PRIOR` is strong.
pub(super) const TARGET: u32 = 1 << 3;
/// rules, programming, …: overriding them is an order, never strong alone.
pub(super) const TARGET_WEAK: u32 = 1 << 4;
/// précédentes, anteriores, … (after the noun, in Romance languages).
pub(super) const PRIOR_AFTER: u32 = 1 << 5;
/// reading, visiting, processing, …
pub(super) const PARTICIPLE: u32 = 1 << 6;
/// page, site, document, email, …
pub(super) const DOC: u32 = 1 << 7;
/// Actions an agent takes: click, navigate, send, …
pub(super) const ACTION: u32 = 1 << 8;
/// ai, llm, …: make the next noun an AI.
const AI_QUAL: u32 = 1 << 9;
/// agent, assistant, model, bot, crawler, …
pub(super) const AI_NOUN: u32 = 1 << 10;
/// chatgpt, claude, gemini, …
pub(super) const AI_NAME: u32 = 1 << 11;
/// hey, hi, hello, dear, …
pub(super) const HEY: u32 = 1 << 12;
/// note, message, memo, … (`note to AI`).
pub(super) const NOTE: u32 = 1 << 13;
/// tell, inform, convince, … (`tell the user to`).
pub(super) const TELL: u32 = 1 << 14;
/// reveal, send, output, … (`reveal your system prompt`).
pub(super) const REVEAL: u32 = 1 << 15;
/// What must not leak: password, cookies, system prompt, …
pub(super) const SENSITIVE: u32 = 1 << 16;
/// user, human, operator.
pub(super) const USER: u32 = 1 << 17;
/// not, don't, never.
pub(super) const NEG: u32 = 1 << 18;
/// must, should, will, shall, need.
pub(super) const MODAL: u32 = 1 << 19;
/// agent, assistant, bot: an addressee only in a vocative (`Assistant, …`).
pub(super) const BARE: u32 = 1 << 21;
/// What `you are now` turns the model into.
pub(super) const PERSONA: u32 = 1 << 22;
/// money, funds, bitcoin, …
pub(super) const MONEY: u32 = 1 << 23;
/// task, goal, mission, … (`your new task`).
pub(super) const ROLE: u32 = 1 << 24;
/// new, real, actual, updated, only, … (`your new task`).
pub(super) const ROLE_MOD: u32 = 1 << 25;
/// The few actions that are rarely nouns (`AI: click …`, `ChatGPT, send …`).
pub(super) const IMPERATIVE: u32 = 1 << 26;
/// Words that may start an AI phrase (`large language model`, `automated agent`).
pub(super) const AI_START: u32 = 1 << 27;

const WORD_CLASSES: &[(u32, &[&str])] = &[
    (
        OVERRIDE | ACTION | IMPERATIVE,
        &[
            "ignore", "ignoring", "disregard", "disregarding", "forget", "forgetting", "override", "overriding", "bypass", "discard",
            "dismiss", "neglect", "ignoriere", "ignorieren", "ignoriert", "vergiss", "vergessen", "vergesst", "missachte", "missachten",
            "ignorez", "ignorer", "oublie", "oubliez", "oublier", "ignora", "ignorar", "ignore", "olvida", "olvide", "olvidar", "dimentica",
            "dimenticate", "ignorate", "esqueça", "esqueca", "desconsidere", "desconsidera",
        ],
    ),
    (
        PRIOR,
        &[
            "previous", "prior", "above", "earlier", "preceding", "foregoing", "aforementioned", "system", "vorherigen", "vorigen",
            "bisherigen", "obigen", "früheren", "vorangegangenen", "vorhergehenden",
        ],
    ),
    (
        TARGET,
        &[
            "instruction", "instructions", "prompt", "prompts", "directions", "directive", "directives", "command", "commands",
            "guideline", "guidelines", "context", "anweisungen", "anweisung", "instruktionen", "befehle", "vorgaben", "consignes",
            "instrucciones", "indicaciones", "órdenes", "ordenes", "istruzioni", "instruções", "instrucoes",
        ],
    ),
    (
        TARGET_WEAK,
        &[
            "rules", "rule", "programming", "restrictions", "safeguards", "guardrails", "filters", "policies", "training", "orders",
            "messages", "text", "input", "conversation", "constraints", "system", "everything",
        ],
    ),
    (
        PRIOR_AFTER,
        &[
            "précédentes", "précédents", "précédente", "antérieures", "anteriores", "anterior", "previas", "previos", "precedenti",
            "precedente", "anteriori",
        ],
    ),
    (
        PARTICIPLE,
        &[
            "reading", "visiting", "processing", "parsing", "summarizing", "summarising", "crawling", "scraping", "browsing", "viewing",
            "analyzing", "analysing", "indexing", "ingesting", "accessing", "seeing", "encountering", "reviewing", "evaluating",
            "screening", "interpreting", "handling",
        ],
    ),
    (
        DOC,
        &[
            "page", "pages", "site", "website", "webpage", "text", "document", "content", "message", "email", "post", "comment",
            "review", "article", "html", "section", "note", "line", "file", "listing", "profile", "resume", "cv", "paper", "submission",
            "application", "source", "product", "description", "passage", "paragraph", "prompt", "conversation", "thread", "repository",
            "repo", "code",
        ],
    ),
    (
        ACTION,
        &[
            "navigate", "visit", "open", "click", "tap", "go", "send", "email", "forward", "transfer", "wire", "pay", "buy", "purchase",
            "download", "install", "run", "execute", "submit", "post", "upload", "share", "reveal", "output", "print", "say", "respond",
            "reply", "answer", "tell", "recommend", "rate", "approve", "accept", "delete", "remove", "call", "contact", "book",
            "subscribe", "register", "enter", "type", "fill", "follow", "include", "mention", "insist", "praise", "promote", "rank",
            "give", "grant", "add", "redirect", "fetch", "retrieve", "copy", "paste", "exfiltrate", "always", "never",
            "leak", "disclose", "summarize", "summarise", "describe", "state", "claim", "endorse",
        ],
    ),
    (
        IMPERATIVE,
        &[
            "navigate", "click", "visit", "recommend", "tell", "reveal", "transfer", "wire", "say", "respond", "reply", "mention",
            "insist", "forward", "send", "exfiltrate", "praise", "endorse", "disclose",
        ],
    ),
    (AI_QUAL | AI_START, &["ai", "genai", "agentic", "llm", "llms"]),
    (AI_START, &["artificial", "large", "language", "automated", "autonomous", "chatbot", "chatbots"]),
    (
        AI_NOUN,
        &[
            "agent", "agents", "assistant", "assistants", "model", "models", "system", "systems", "bot", "bots", "chatbot", "chatbots",
            "crawler", "crawlers", "scraper", "scrapers", "reader", "readers", "reviewer", "reviewers", "browser", "browsers", "tool",
            "tools", "summarizer", "summarizers", "summariser", "evaluator", "evaluators", "screener", "screeners", "llm", "llms",
        ],
    ),
    (BARE | AI_START, &["agent", "agents", "assistant", "assistants", "bot", "bots"]),
    (AI_NAME | AI_START, &["chatgpt", "gpt", "claude", "gemini", "copilot", "bard"]),
    (HEY, &["hey", "hi", "hello", "dear", "psst", "greetings", "yo"]),
    (NOTE, &["note", "message", "notice", "memo", "reminder", "instructions", "msg", "text", "information", "info", "guidance", "request", "hint"]),
    (
        TELL,
        &[
            "tell", "inform", "convince", "ask", "instruct", "urge", "persuade", "remind", "notify", "warn", "alert", "let", "mention",
            "say", "show",
        ],
    ),
    (
        REVEAL,
        &[
            "reveal", "output", "print", "repeat", "leak", "disclose", "exfiltrate", "send", "email", "forward", "share", "dump", "show",
            "post", "upload", "paste", "include", "append", "give", "provide", "display", "return", "transmit",
        ],
    ),
    (
        SENSITIVE,
        &[
            "prompt", "instructions", "password", "passwords", "credentials", "api", "key", "keys", "token", "tokens", "cookies",
            "cookie", "secrets", "secret", "conversation", "history", "memory", "emails", "inbox", "ssn", "session", "wallet", "seed",
            "passphrase", "otp", "credit", "private", "personal", "contacts", "files",
        ],
    ),
    (
        USER,
        &["user", "users", "user's", "users'", "human", "operator", "principal", "customer", "customers", "customer's", "client", "client's"],
    ),
    (NEG, &["not", "don't", "dont", "never"]),
    (MODAL, &["must", "should", "will", "shall", "need", "needs"]),
    (
        PERSONA,
        &[
            "ai", "assistant", "chatbot", "llm", "dan", "unrestricted", "unfiltered", "uncensored", "jailbroken", "evil", "malicious",
            "hacker", "pirate", "jailbreak",
        ],
    ),
    (MONEY, &["money", "funds", "fund", "bitcoin", "btc", "eth", "ethereum", "crypto", "usdt", "usdc", "payment", "dollars", "euros"]),
    (ROLE, &["task", "tasks", "goal", "objective", "job", "mission", "purpose", "role", "assignment", "priority", "instructions", "directive", "orders"]),
    (ROLE_MOD, &["new", "real", "actual", "true", "updated", "only", "sole", "primary", "revised", "hidden", "secret"]),
];

/// Words whose phrases are checked one by one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Special {
    None,
    You,
    System,
    As,
    Attention,
    To,
    For,
    If,
    Instead,
    From,
    Now,
    Your,
    Without,
    Respond,
    Only,
    Pretend,
    When,
    Wire,
    Please,
}

const SPECIALS: &[(Special, &[&str])] = &[
    (Special::You, &["you", "you're", "youre"]),
    (Special::System, &["system"]),
    (Special::As, &["as"]),
    (Special::Attention, &["attention", "attn"]),
    (Special::To, &["to"]),
    (Special::For, &["for"]),
    (Special::If, &["if"]),
    (Special::Instead, &["instead"]),
    (Special::From, &["from"]),
    (Special::Now, &["now"]),
    (Special::Your, &["your"]),
    (Special::Without, &["without"]),
    (Special::Respond, &["respond", "reply", "answer"]),
    (Special::Only, &["only"]),
    (Special::Pretend, &["pretend"]),
    (Special::When, &["when"]),
    (Special::Wire, &["wire", "transfer"]),
    (Special::Please, &["please"]),
];

/// Words allowed between an override verb and what it overrides (checked
/// only after one: they are the commonest words, kept out of the table).
pub(super) fn is_filler(w: &str) -> bool {
    matches!(
        w,
        "all" | "any" | "of" | "the" | "your" | "my" | "these" | "those" | "every" | "and" | "or" | "other" | "its" | "their" | "our"
            | "that" | "this" | "such" | "you" | "have" | "been" | "were" | "given" | "received" | "just" | "entire" | "please"
            | "alle" | "die" | "deine" | "ihre" | "sie" | "bitte" | "toutes" | "tous" | "les" | "vos" | "tes" | "todas" | "todos"
            | "las" | "los" | "tus" | "sus" | "tutte" | "le" | "tue" | "sue" | "as" | "suas" | "tuas"
    )
}

/// One word of the table: its classes and what it starts.
type Entry = (&'static str, u32, Special);

/// The word table, bucketed by the first two bytes of a word (letters,
/// digits, `'`): a word costs two byte lookups and a compare or two, and
/// most words land in an empty bucket.
pub(super) struct Table {
    /// For each prefix slot, the range of `entries` whose words start so,
    /// and their lengths (bit `n` for `n` bytes; 31 for longer).
    slots: Vec<(u16, u16, u32)>,
    entries: Vec<Entry>,
    /// Words that do not start with two such bytes (`órdenes`).
    other: Vec<Entry>,
}

/// Index of a byte among `'`, digits and lower-case ASCII letters (1..=37;
/// 0 for the end of the word).
fn prefix_index(b: Option<&u8>) -> Option<usize> {
    match b {
        None => Some(0),
        Some(b'\'') => Some(1),
        Some(&b @ b'0'..=b'9') => Some(usize::from(b - b'0') + 2),
        Some(&b @ b'a'..=b'z') => Some(usize::from(b - b'a') + 12),
        Some(_) => None,
    }
}

/// The bucket of a word, `None` when it does not start with two such bytes.
fn prefix_slot(word: &[u8]) -> Option<usize> {
    Some(prefix_index(word.first())? * 38 + prefix_index(word.get(1))?)
}

pub(super) static TABLE: LazyLock<Table> = LazyLock::new(|| {
    let mut merged: HashMap<&'static str, (u32, Special)> = HashMap::new();
    for &(bits, words) in WORD_CLASSES {
        for &w in words {
            merged.entry(w).or_insert((0, Special::None)).0 |= bits;
        }
    }
    for &(special, words) in SPECIALS {
        for &w in words {
            merged.entry(w).or_insert((0, Special::None)).1 = special;
        }
    }
    let mut entries: Vec<(usize, Entry)> = Vec::new();
    let mut other = Vec::new();
    for (w, (bits, special)) in merged {
        match prefix_slot(w.as_bytes()) {
            Some(slot) => entries.push((slot, (w, bits, special))),
            None => other.push((w, bits, special)),
        }
    }
    entries.sort_unstable_by_key(|&(slot, (w, _, _))| (slot, w));
    let mut slots = vec![(0u16, 0u16, 0u32); 38 * 38];
    for (n, &(slot, (w, _, _))) in entries.iter().enumerate() {
        let n = u16::try_from(n).unwrap_or(u16::MAX);
        if slots[slot].1 == 0 {
            slots[slot].0 = n;
        }
        slots[slot].1 = n + 1;
        slots[slot].2 |= length_bit(w.len());
    }
    Table { slots, entries: entries.into_iter().map(|(_, e)| e).collect(), other }
});

fn length_bit(len: usize) -> u32 {
    1 << len.min(31)
}

/// The classes of `word` (lower-case) and what it starts.
pub(super) fn lookup(table: &Table, word: &str) -> (u32, Special) {
    let bytes = word.as_bytes();
    let bucket = match prefix_slot(bytes) {
        Some(slot) => {
            let (start, end, lengths) = table.slots[slot];
            if lengths & length_bit(bytes.len()) == 0 {
                return (0, Special::None);
            }
            &table.entries[usize::from(start)..usize::from(end)]
        }
        None if bytes.is_empty() => return (0, Special::None),
        None => &table.other[..],
    };
    bucket.iter().find(|e| e.0.len() == bytes.len() && e.0.as_bytes() == bytes).map_or((0, Special::None), |e| (e.1, e.2))
}

/// Chat-template markers: enough alone.
const STRONG_MARKERS: &[&[u8]] = &[
    b"<|im_start|>",
    b"<|im_end|>",
    b"<|im_sep|>",
    b"<|system|>",
    b"<|user|>",
    b"<|assistant|>",
    b"<|endoftext|>",
    b"<|eot_id|>",
    b"<|start_header_id|>",
    b"<|end_header_id|>",
    b"<|begin_of_text|>",
    b"[inst]",
    b"[/inst]",
    b"<<sys>>",
    b"<</sys>>",
    b"<start_of_turn>",
    b"<end_of_turn>",
    b"[system](#",
];

/// Role markers that also show up in ordinary markup samples and
/// headings: weak addresses.
const WEAK_MARKERS: &[&[u8]] = &[
    b"<system>",
    b"</system>",
    b"<instructions>",
    b"</instructions>",
    b"[system]",
    b"[system message]",
    b"[instructions]",
    b"###instruction",
    b"###system",
];

/// Whether `text` starts with `pat` (ASCII, lower-case), ignoring case and
/// whitespace between the pattern's characters.
fn starts_with_loose(text: &[u8], pat: &[u8]) -> bool {
    let mut i = 0;
    let mut skipped = 0;
    for (n, &p) in pat.iter().enumerate() {
        if n > 0 {
            while i < text.len() && text[i].is_ascii_whitespace() {
                i += 1;
                skipped += 1;
                if skipped > 8 {
                    return false;
                }
            }
        }
        if i >= text.len() || text[i].to_ascii_lowercase() != p {
            return false;
        }
        i += 1;
    }
    true
}

/// `Some(true)` for a strong marker at the start of `rest`, `Some(false)`
/// for a weak one.
pub(super) fn marker_at(rest: &[u8]) -> Option<bool> {
    if STRONG_MARKERS.iter().any(|m| m[0] == rest[0] && starts_with_loose(rest, m)) {
        return Some(true);
    }
    WEAK_MARKERS.iter().any(|m| m[0] == rest[0] && starts_with_loose(rest, m)).then_some(false)
}

/// `忽略之前的所有指令` and kin: an override verb at byte `at` near a
/// "before/above" word and an "instruction" word (there are no spaces to
/// split on).
pub(super) fn chinese_override(text: &str, at: usize) -> bool {
    const VERBS: &[&str] = &["忽略", "无视", "忽视", "忘记", "忘掉", "無視", "不要理会"];
    const BEFORE: &[&str] = &["之前", "以上", "先前", "上面", "前面", "此前", "以前", "上述", "これまで", "上記"];
    const WHAT: &[&str] = &["指令", "指示", "提示词", "命令", "说明"];
    let rest = &text[at..];
    let Some(verb) = VERBS.iter().find(|v| rest.starts_with(**v)) else {
        return false;
    };
    let mut lo = at.saturating_sub(30);
    while !text.is_char_boundary(lo) {
        lo += 1;
    }
    let mut hi = (at + verb.len() + 36).min(text.len());
    while !text.is_char_boundary(hi) {
        hi -= 1;
    }
    let near = &text[lo..hi];
    BEFORE.iter().any(|b| near.contains(b)) && WHAT.iter().any(|w| near.contains(w))
}
