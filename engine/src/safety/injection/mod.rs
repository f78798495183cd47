//! Page text that tries to steer the agent, text a person cannot see, and
//! pages that stop the agent at a bot check.
//!
//! - [`reads_like_instructions`]: whether text is addressed to an AI agent
//!   with orders (prompt injection) rather than being ordinary prose,
//!   including prose *about* AI. The caller runs it on text hidden by CSS
//!   (`⚠ removed hidden instructions`) and on visible text
//!   (`⚠ suspected injection`), so it leans towards silence on ordinary
//!   pages.
//! - [`strip_invisible`]: removes invisible Unicode (tag characters,
//!   zero-width characters, bidi overrides) and decodes what tag characters
//!   spelled.
//! - [`challenge_words`], [`challenge_marker`] and [`challenge_element`]: bot and human checks
//!   (Cloudflare, reCAPTCHA, hCaptcha, PerimeterX, Arkose, DataDome, …).
//!
//! No regular expressions: the text is lower-cased and split into words
//! once, and each word costs one lookup in a table built once
//! ([`LazyLock`](std::sync::LazyLock)); phrases are then checked around the
//! few words that can start one. Everything is linear in the input.

mod challenge;
mod invisible;
mod scan;
mod vocabulary;
#[cfg(test)]
mod tests;

pub use challenge::{challenge_element, challenge_marker, challenge_words};
pub use invisible::{Stripped, strip_invisible};
use scan::Words;

/// Whether `text` reads like instructions addressed to an AI agent, model or
/// assistant (prompt injection) rather than ordinary page prose.
///
/// Case-insensitive; whitespace, punctuation and invisible characters
/// between words do not matter (`IGNORE... prior -- instructions` is
/// `ignore prior instructions`; `ig\u{200B}nore` is `ignore`). Three kinds
/// of evidence:
///
/// **Enough alone** (strong):
/// - an override of earlier instructions: *ignore / disregard / forget /
///   override / bypass …*, then up to six words among *all, the, your, any,
///   of, …* including one of *previous, prior, above, earlier, preceding,
///   foregoing, system*, then *instructions, prompts, directions,
///   directives, commands, guidelines, context* (`ignore all previous
///   instructions`, `disregard the above directions`, `forget your prior
///   prompts`), and `ignore everything above`; also in German, French,
///   Spanish, Italian, Portuguese (`ignoriere alle vorherigen Anweisungen`,
///   `ignore toutes les instructions précédentes`, `ignora todas las
///   instrucciones anteriores`) and Chinese (`忽略之前的所有指令`). Quoted on
///   its own (`text like 'ignore previous instructions'`) the phrase is
///   named, not given, and counts only as an order (below);
/// - chat-template markers: `<|im_start|>`, `<|im_end|>`, `<|system|>`,
///   `<|endoftext|>`, `<|eot_id|>`, `[INST]`, `<<SYS>>`, `<start_of_turn>`,
///   `[system](#…`;
/// - a persona switch: `you are now` and a persona right after (`DAN`, `an
///   unrestricted AI`, `a helpful assistant`, `a pirate`, `in developer
///   mode`);
/// - `system prompt:` (with the colon);
/// - an AI named as the reader: `as an AI (assistant|model|…), you`,
///   `attention AI …`, `note to AI …`, `to any/all AI …` at the start of a
///   sentence, `if you are an AI / an LLM / a language model / ChatGPT`
///   (the AI phrase must end the address: followed by `,` `:` `!`, a dash,
///   the end, or *reading / processing / … / please / who / that / you*, so
///   not `note to AI researchers`), `AI agents reading / visiting /
///   processing this page / site / document / email …` followed by `,` `:`
///   `!` or *must / should / please / an order* (`AI agents reading this
///   page can be tricked` is talk), and `AI: <order>` / `LLM, <order>` /
///   `ChatGPT, <order>` at the start of a sentence.
///
/// **An address and an order** near each other:
/// - a clear address (*dear / hey / hello AI …*, `to the AI:`, `message /
///   information / instructions for AI agents:`, `when summarizing this
///   page`) with an action within 20 words, the action standing where an
///   order's verb stands (first in its clause, after `,` `:`, or after
///   *please, must, always, never, then, and, …*): *click, navigate, visit,
///   send, transfer, recommend, mention, please, you must, …*;
/// - a weak address or role marker (`system:`, `Assistant,` / `Agent:` /
///   `ChatGPT:` at the start of a sentence, `system prompt`, `new
///   instructions`, `</system>`, `[system]`, `### instruction`, `AI agents
///   reading this page` as talk) with an override order within 40 words:
///   *ignore your instructions, you must now, you will now, from now on,
///   instead you should, your new task, do not tell the user, without
///   telling the user, tell the user to, reveal / send / output your system
///   prompt / password / cookies / API key, wire or transfer money, respond
///   only with, pretend to be, you are now a/an/in …*.
///
/// **Not enough**: talk about AI (`AI assistants are changing search`, `we
/// asked ChatGPT to write a poem`, `the leaked system prompt`), orders with
/// no AI addressed (`click here to continue`, `ignore the package
/// instructions and bake 10 minutes longer`, `do not tell the user their
/// password was wrong` in a style guide), headlines and labels (`ChatGPT:
/// everything you need to know`, `LLM: large language model`, `Model:
/// XR-200`, `Agent: Jane Smith`), `note to self`, `system requirements`,
/// and legal precedence (`these instructions supersede all previous
/// instructions`: nothing is told to ignore anything, so it is not
/// flagged).
///
/// `llm:` and `system prompt` alone (strong in the first design notes) are
/// weak here: glossaries and news about AI use them every day.
pub fn reads_like_instructions(text: &str) -> bool {
    if text.len() < 6 {
        return false;
    }
    if text.len() > MAX_TEXT {
        // Word offsets are 32-bit: read larger text in pieces.
        let mut cut = MAX_TEXT;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        return reads_like_instructions(&text[..cut]) || reads_like_instructions(&text[cut..]);
    }
    let mut words = Words::new(text);
    let mut markers = Vec::new();
    if !words.scan(&mut markers) {
        return true;
    }
    words.analyse(&markers)
}

/// The most text read in one piece (its lower-cased copy must fit 32-bit
/// offsets: lower-casing can grow text by half).
const MAX_TEXT: usize = 1 << 30;

/// Words further apart than this do not combine into one finding: an address
/// in one paragraph and an order three paragraphs later is ordinary prose.
const WINDOW: usize = 40;

/// The same for a clear address and a mere action (`Dear AI, … click`):
/// injected orders follow their address closely.
const ACTION_WINDOW: usize = 20;
