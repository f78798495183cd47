//! The pattern scan: where text holds a value that looks like a secret
//! (a card number passing Luhn, an IBAN with its check digits, an SSN,
//! a JWT, an API key of a known shape, a private key block), by
//! hand-written linear scanners over the bytes, no regular expressions.

use super::TokenKind;

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn is_key_char(c: u8) -> bool {
    is_word(c) || c == b'-'
}

/// The end of the run of bytes matching `f` starting at `i`.
fn run_end(b: &[u8], i: usize, f: impl Fn(u8) -> bool) -> usize {
    i + b.get(i..).map_or(0, |rest| rest.iter().take_while(|&&c| f(c)).count())
}

/// Like [`run_end`], but stopping before `-----`: a private key block right
/// after a key is a value of its own.
fn key_run_end(b: &[u8], i: usize, f: impl Fn(u8) -> bool) -> usize {
    let mut j = i;
    while j < b.len() && f(b[j]) && !(b[j] == b'-' && b[j..].starts_with(b"-----")) {
        j += 1;
    }
    j
}

/// Scans `text[from..to]` for pattern values (its edges count as
/// boundaries), pushing absolute `(start, end, kind)` in order.
pub(super) fn scan(text: &str, from: usize, to: usize, out: &mut Vec<(usize, usize, TokenKind)>) {
    let b = &text.as_bytes()[from..to];
    let mut groups = Vec::new();
    // Where the text after the last value found starts: a boundary, as the
    // token replacing that value will be when the output is redacted again.
    let mut lo = 0;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let prev = if i > lo { Some(b[i - 1]) } else { None };
        let word_start = prev.is_none_or(|p| !is_word(p));
        let key_start = prev.is_none_or(|p| !is_key_char(p));
        let hit = match c {
            b'0'..=b'9' if prev.is_none_or(|p| !p.is_ascii_digit()) => {
                let before = out.len();
                i = digit_run(&b[lo..], i - lo, &mut groups, &mut |s, e, kind| out.push((from + lo + s, from + lo + e, kind))) + lo;
                if out.len() > before && out.last().is_some_and(|&(_, e, _)| e == from + i) {
                    lo = i;
                }
                continue;
            }
            b'A'..=b'Z' if word_start => match iban_at(b, i) {
                Some(end) => Some((end, TokenKind::Iban)),
                None if key_start => upper_key_at(b, i).map(|e| (e, TokenKind::Key)),
                None => None,
            },
            b'e' if key_start && prev != Some(b'.') => jwt_at(b, i).map(|e| (e, TokenKind::Jwt)),
            b'g' | b'r' | b's' | b'x' if key_start => lower_key_at(b, i).map(|e| (e, TokenKind::Key)),
            b'-' if prev != Some(b'-') => private_key_at(b, i).map(|e| (e, TokenKind::Key)),
            _ => None,
        };
        match hit {
            Some((end, kind)) => {
                out.push((from + i, from + end, kind));
                i = end;
                lo = end;
            }
            // Nothing starts inside a word: skip the rest of it.
            None if is_word(c) => i = run_end(b, i + 1, is_word),
            None => i += 1,
        }
    }
}

/// The run of digit groups starting at `start` (a digit after a non-digit):
/// groups joined by single spaces or hyphens. Reports the SSNs and cards in
/// it and returns where it ends.
fn digit_run(
    b: &[u8],
    start: usize,
    groups: &mut Vec<(usize, usize, u8)>,
    report: &mut impl FnMut(usize, usize, TokenKind),
) -> usize {
    groups.clear();
    let mut i = start;
    let mut sep = 0;
    let mut digits = 0;
    loop {
        let group_start = i;
        i = run_end(b, i, |c| c.is_ascii_digit());
        groups.push((group_start, i, sep));
        digits += i - group_start;
        if i + 1 < b.len() && matches!(b[i], b' ' | b'-') && b[i + 1].is_ascii_digit() {
            sep = b[i];
            i += 1;
        } else {
            break;
        }
    }
    let end = i;
    if digits < 9 {
        return end;
    }
    let groups: &[(usize, usize, u8)] = groups;
    let n = groups.len();
    // Glued to a word, or the digits after a decimal point (or before one).
    let glued_before = start > 0 && (is_word(b[start - 1]) || (b[start - 1] == b'.' && start >= 2 && b[start - 2].is_ascii_digit()));
    let glued_after = end < b.len() && (is_word(b[end]) || (b[end] == b'.' && b.get(end + 1).is_some_and(u8::is_ascii_digit)));
    let (start_ok, end_ok) = (!glued_before, !glued_after);
    let len = |g: usize| groups[g].1 - groups[g].0;
    let sep = |g: usize| groups[g].2;
    // A window may end at group `g` when a separator or the run's good end follows.
    let may_end = |g: usize| g + 1 < n || end_ok;
    let mut g = 0;
    while g < n {
        if g == 0 && !start_ok {
            g += 1;
            continue;
        }
        let ssn = g + 2 < n
            && (len(g), len(g + 1), len(g + 2)) == (3, 2, 4)
            && sep(g + 1) == b'-'
            && sep(g + 2) == b'-'
            // Neighbours joined by hyphens do not matter: they may be
            // values themselves, and redacting again must find the same.
            && (g + 3 < n || end_ok)
            && ssn_valid(&b[groups[g].0..groups[g + 2].1]);
        if ssn {
            report(groups[g].0, groups[g + 2].1, TokenKind::Ssn);
            g += 3;
            continue;
        }
        let mut card = None;
        if (13..=19).contains(&len(g)) {
            if may_end(g) && is_card(&b[groups[g].0..groups[g].1]) {
                card = Some(g);
            }
        } else if len(g) == 4 && g + 1 < n {
            let window_sep = sep(g + 1);
            let mut total = 4;
            for j in g + 1..n {
                if sep(j) != window_sep || !(3..=6).contains(&len(j)) {
                    break;
                }
                total += len(j);
                if total > 19 {
                    break;
                }
                if total >= 13 && may_end(j) {
                    let mut buf = [0u8; 19];
                    let mut k = 0;
                    for &c in &b[groups[g].0..groups[j].1] {
                        if c.is_ascii_digit() {
                            buf[k] = c;
                            k += 1;
                        }
                    }
                    if is_card(&buf[..k]) {
                        card = Some(j);
                    }
                }
            }
        }
        match card {
            Some(last) => {
                report(groups[g].0, groups[last].1, TokenKind::Card);
                g = last + 1;
            }
            None => g += 1,
        }
    }
    end
}

/// `AAA-GG-SSSS` in the issued ranges.
fn ssn_valid(s: &[u8]) -> bool {
    let area = &s[0..3];
    let group = &s[4..6];
    let serial = &s[7..11];
    area != b"000" && area != b"666" && area[0] != b'9' && group != b"00" && serial != b"0000"
}

/// Digits that could be a card number: brand prefix and length, not one
/// digit repeated, Luhn.
fn is_card(d: &[u8]) -> bool {
    let len = d.len();
    if !(13..=19).contains(&len) || d.iter().all(|&c| c == d[0]) {
        return false;
    }
    let prefix = |n: usize| d[..n].iter().fold(0u32, |acc, &c| acc * 10 + u32::from(c - b'0'));
    let brand = match d[0] {
        b'4' => matches!(len, 13 | 16 | 19),
        b'3' => match prefix(2) {
            34 | 37 => len == 15,
            30 | 36 | 38 | 39 => len >= 14,
            35 => len >= 16,
            _ => false,
        },
        b'5' => {
            if (51..=55).contains(&prefix(2)) {
                len == 16
            } else {
                true // Maestro (50, 56–59)
            }
        }
        b'2' => (2221..=2720).contains(&prefix(4)) && len == 16,
        b'6' => true, // Discover, UnionPay, Maestro
        _ => false,
    };
    brand && luhn(d)
}

fn luhn(d: &[u8]) -> bool {
    let mut sum = 0;
    for (k, &c) in d.iter().rev().enumerate() {
        let mut v = u32::from(c - b'0');
        if k % 2 == 1 {
            v *= 2;
            if v > 9 {
                v -= 9;
            }
        }
        sum += v;
    }
    sum % 10 == 0
}

/// IBAN lengths by country (ISO 13616 registry).
fn iban_length(country: &[u8]) -> Option<usize> {
    Some(match country {
        b"NO" => 15,
        b"BE" => 16,
        b"DK" | b"FI" | b"FO" | b"GL" | b"NL" | b"SD" | b"FK" => 18,
        b"MK" | b"SI" => 19,
        b"AT" | b"BA" | b"EE" | b"KZ" | b"LT" | b"LU" | b"XK" | b"MN" => 20,
        b"CH" | b"HR" | b"LI" | b"LV" => 21,
        b"BG" | b"BH" | b"CR" | b"DE" | b"GB" | b"GE" | b"IE" | b"ME" | b"RS" | b"VA" => 22,
        b"AE" | b"GI" | b"IL" | b"IQ" | b"TL" | b"SO" | b"OM" => 23,
        b"AD" | b"CZ" | b"ES" | b"MD" | b"PK" | b"RO" | b"SA" | b"SE" | b"SK" | b"TN" | b"VG" => 24,
        b"PT" | b"ST" | b"LY" => 25,
        b"IS" | b"TR" => 26,
        b"FR" | b"GR" | b"IT" | b"MC" | b"MR" | b"SM" | b"BI" | b"DJ" => 27,
        b"AL" | b"AZ" | b"BY" | b"CY" | b"DO" | b"GT" | b"HU" | b"LB" | b"PL" | b"SV" | b"NI" => 28,
        b"BR" | b"EG" | b"PS" | b"QA" | b"UA" => 29,
        b"JO" | b"KW" | b"MU" => 30,
        b"MT" | b"SC" => 31,
        b"LC" => 32,
        b"RU" => 33,
        _ => return None,
    })
}

/// An IBAN starting at `i` (an upper-case letter at a word start): its end.
fn iban_at(b: &[u8], i: usize) -> Option<usize> {
    let head = b.get(i..i + 4)?;
    if !(head[1].is_ascii_uppercase() && head[2].is_ascii_digit() && head[3].is_ascii_digit()) {
        return None;
    }
    let expected = iban_length(&head[..2])?;
    let plain_end = run_end(b, i, |c| c.is_ascii_alphanumeric());
    let end = if plain_end - i == expected {
        plain_end
    } else if plain_end - i == 4 {
        // Groups of four split by single spaces, the last one shorter.
        let mut pos = i + 4;
        let mut count = 4;
        while count < expected {
            let want = (expected - count).min(4);
            let group = b.get(pos + 1..pos + 1 + want)?;
            if b[pos] != b' ' || !group.iter().all(u8::is_ascii_alphanumeric) {
                return None;
            }
            pos += 1 + want;
            count += want;
        }
        pos
    } else {
        return None;
    };
    if b.get(end).is_some_and(|&c| is_word(c)) {
        return None;
    }
    let chars = || b[i..end].iter().filter(|&&c| c != b' ');
    let rearranged = chars().skip(4).chain(chars().take(4));
    let mut rest = 0u32;
    for &c in rearranged {
        rest = match c {
            b'0'..=b'9' => (rest * 10 + u32::from(c - b'0')) % 97,
            _ => (rest * 100 + u32::from(c.to_ascii_uppercase() - b'A') + 10) % 97,
        };
    }
    (rest == 1).then_some(end)
}

/// An API key with an upper-case prefix (AWS, Google) at `i`: its end.
fn upper_key_at(b: &[u8], i: usize) -> Option<usize> {
    let rest = &b[i..];
    if rest.starts_with(b"AKIA") || rest.starts_with(b"ASIA") {
        let end = i + 20;
        let body = b.get(i + 4..end)?;
        let ok = body.iter().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()) && !b.get(end).is_some_and(|&c| is_word(c));
        return ok.then_some(end);
    }
    if rest.starts_with(b"AIza") {
        // 35 characters; longer runs count too (an exact length would fail
        // here and could pass once a value glued after it was redacted).
        let end = key_run_end(b, i + 4, is_key_char);
        return (end - i >= 39).then_some(end);
    }
    None
}

/// An API key shape: prefix, the characters of the body, the shortest body.
type KeyShape = (&'static [u8], fn(u8) -> bool, usize);

fn alnum(c: u8) -> bool {
    c.is_ascii_alphanumeric()
}

const KEY_SHAPES: [KeyShape; 14] = [
    (b"ghp_", alnum, 36),
    (b"gho_", alnum, 36),
    (b"ghu_", alnum, 36),
    (b"ghs_", alnum, 36),
    (b"ghr_", alnum, 36),
    (b"github_pat_", is_word, 22),
    (b"sk_live_", alnum, 16),
    (b"sk_test_", alnum, 16),
    (b"rk_live_", alnum, 16),
    (b"rk_test_", alnum, 16),
    // Slack tokens hold no `_`, but a body that stopped short of one would
    // fail here and pass once a value glued after it was redacted.
    (b"xoxa-", is_key_char, 10),
    (b"xoxb-", is_key_char, 10),
    (b"xoxp-", is_key_char, 10),
    (b"xoxr-", is_key_char, 10),
];

/// An API key with a lower-case prefix (GitHub, Slack, Stripe, OpenAI,
/// Anthropic) at `i`: its end.
fn lower_key_at(b: &[u8], i: usize) -> Option<usize> {
    let rest = &b[i..];
    for (prefix, body, min) in KEY_SHAPES {
        if rest.starts_with(prefix) {
            let start = i + prefix.len();
            let end = key_run_end(b, start, body);
            let ok = end - start >= min && !b.get(end).is_some_and(|&c| is_word(c));
            return ok.then_some(end);
        }
    }
    if rest.starts_with(b"sk-") {
        let start = i + 3;
        let end = key_run_end(b, start, is_key_char);
        // Some stretch between `-`/`_` of 16+ characters with a digit or a
        // capital: random, not a slug like `sk-ski-resorts-in-austria`.
        let random = b[start..end]
            .split(|&c| c == b'-' || c == b'_')
            .any(|part| part.len() >= 16 && part.iter().any(|c| c.is_ascii_digit() || c.is_ascii_uppercase()));
        return (end - start >= 20 && random).then_some(end);
    }
    None
}

fn base64url_value(c: u8) -> Option<u32> {
    Some(u32::from(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'-' => 62,
        b'_' => 63,
        _ => return None,
    }))
}

fn base64url_decode(s: &[u8]) -> Option<Vec<u8>> {
    if s.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(s.len() / 4 * 3 + 2);
    let mut acc = 0u32;
    let mut bits = 0;
    for &c in s {
        acc = (acc << 6) | base64url_value(c)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// A JWT at `i` (`eyJ` header, payload, signature joined by dots): its end.
fn jwt_at(b: &[u8], i: usize) -> Option<usize> {
    if !b[i..].starts_with(b"eyJ") {
        return None;
    }
    let b64 = |c: u8| is_key_char(c);
    let header_end = key_run_end(b, i, b64);
    if b.get(header_end) != Some(&b'.') {
        return None;
    }
    let payload_end = key_run_end(b, header_end + 1, b64);
    if payload_end == header_end + 1 || b.get(payload_end) != Some(&b'.') {
        return None;
    }
    // The signature is whatever base64url follows (no length check: text
    // glued to it would make the check fail here but pass once redacted).
    let end = key_run_end(b, payload_end + 1, b64);
    let header = base64url_decode(&b[i..header_end])?;
    let object = header.starts_with(b"{\"") && header.trim_ascii_end().ends_with(b"}");
    object.then_some(end)
}

/// A `-----BEGIN … PRIVATE KEY-----` block at `i`: its end (through the
/// matching END line, or the header alone when none follows the body).
fn private_key_at(b: &[u8], i: usize) -> Option<usize> {
    const BEGIN: &[u8] = b"-----BEGIN ";
    const DASHES: &[u8] = b"-----";
    if !b[i..].starts_with(BEGIN) {
        return None;
    }
    let label_start = i + BEGIN.len();
    let label_end = run_end(b, label_start, |c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b' ');
    let label = &b[label_start..label_end];
    if label.len() > 64 || !b[label_end..].starts_with(DASHES) || !(label.ends_with(b"PRIVATE KEY") || label.ends_with(b"PRIVATE KEY BLOCK")) {
        return None;
    }
    let header_end = label_end + DASHES.len();
    // The body (base64, `Proc-Type:`-style headers, whitespace) up to the
    // next `-----`. Without its END line (a page that shows the block cut
    // short) the body's whole lines go with the header: they are the key.
    let mut j = header_end;
    let mut last_space = header_end;
    while j < b.len() && !b[j..].starts_with(DASHES) {
        let c = b[j];
        if !(c.is_ascii_alphanumeric() || c.is_ascii_whitespace() || b"+/=:,.-_".contains(&c)) {
            // A cut-off mark (`…`) ends key material; other text starts
            // after the last whole chunk.
            return Some(if c >= 0x80 { j } else { last_space });
        }
        if c.is_ascii_whitespace() {
            last_space = j;
        }
        j += 1;
    }
    if j == b.len() {
        return Some(j);
    }
    let footer = &b[j..];
    let matching = footer.starts_with(b"-----END ") && footer[9..].starts_with(label) && footer[9 + label.len()..].starts_with(DASHES);
    Some(if matching { j + 9 + label.len() + DASHES.len() } else { last_space })
}
