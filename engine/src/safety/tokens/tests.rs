use super::*;

/// A vault reading and typing on one site, as a session's is.
fn here() -> Vault {
    let mut vault = Vault::new();
    vault.set_site(Some("shop.test"));
    vault
}

const JWT: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";

fn redact(text: &str) -> String {
    here().redact(text).into_owned()
}

fn unchanged(text: &str) {
    let mut vault = here();
    let out = vault.redact(text);
    assert!(matches!(out, Cow::Borrowed(_)), "{text:?} became {out:?}");
    assert_eq!(vault.issued(), 0);
}

#[test]
fn kind_names() {
    let names: Vec<&str> = [TokenKind::Card, TokenKind::Jwt, TokenKind::Key, TokenKind::Ssn, TokenKind::Iban, TokenKind::Secret]
        .iter()
        .map(|k| k.as_str())
        .collect();
    assert_eq!(names, ["card", "jwt", "key", "ssn", "iban", "secret"]);
}

#[test]
fn cards_in_every_grouping() {
    for text in ["4111 1111 1111 1111", "4111-1111-1111-1111", "4111111111111111"] {
        assert_eq!(redact(&format!("Card: {text}.")), "Card: ‹card:1›.");
    }
    assert_eq!(redact("Amex 3782 822463 10005 ok"), "Amex ‹card:1› ok");
    assert_eq!(redact("Amex 378282246310005"), "Amex ‹card:1›");
    assert_eq!(redact("MC 5555 5555 5555 4444"), "MC ‹card:1›");
    assert_eq!(redact("pay=4111111111111111&x=1"), "pay=‹card:1›&x=1");
    assert_eq!(redact("カード4111111111111111です"), "カード‹card:1›です");
    // Followed by more numbers (an expiry): still found.
    assert_eq!(redact("4111 1111 1111 1111 12/25"), "‹card:1› 12/25");
    assert_eq!(redact("4111 1111 1111 1111 2025"), "‹card:1› 2025");
    assert_eq!(redact("ref 12 4111 1111 1111 1111"), "ref 12 ‹card:1›");
}

#[test]
fn not_cards() {
    unchanged("4111 1111 1111 1112"); // Luhn
    unchanged("0000000000000000"); // one digit repeated (passes Luhn)
    unchanged("0000 0000 0000 0000");
    unchanged("41111111111111111111"); // 20 digits
    unchanged("x4111111111111111");
    unchanged("4111111111111111abc");
    unchanged("id_4111111111111111");
    unchanged("0.4111111111111111");
    unchanged("4111111111111111.25");
    unchanged("4111 1111-1111 1111"); // mixed separators
    unchanged("4111  1111  1111  1111"); // double spaces
    unchanged("411111111111"); // 12 digits
    unchanged("1234567890123452"); // Luhn-valid, no card starts with 1
    unchanged("9123456789012348");
    unchanged("7812 3456 7890 1234");
    unchanged("timestamp 1718000000000 ms");
}

#[test]
fn same_card_same_token_and_numbering_per_kind() {
    let mut vault = here();
    let out = vault.redact("4111 1111 1111 1111, 5555555555554444, 4111111111111111 and 4111-1111-1111-1111");
    assert_eq!(out, "‹card:1›, ‹card:2›, ‹card:1› and ‹card:1›");
    assert_eq!(vault.redact("AKIAIOSFODNN7EXAMPLE then 5555 5555 5555 4444"), "‹key:1› then ‹card:2›");
    assert_eq!(vault.redact("6011111111111117"), "‹card:3›");
    assert_eq!(vault.issued(), 4);
    // The value as first seen.
    assert_eq!(vault.resolve("‹card:1›").as_deref(), Ok("4111 1111 1111 1111"));
    assert_eq!(vault.resolve("‹card:2›").as_deref(), Ok("5555555555554444"));
}

#[test]
fn ssns() {
    assert_eq!(redact("SSN 078-05-1120."), "SSN ‹ssn:1›.");
    assert_eq!(redact("ssn:123-45-6789 and 123-45-6789"), "ssn:‹ssn:1› and ‹ssn:1›");
    assert_eq!(redact("(219-09-9999)"), "(‹ssn:1›)");
    for invalid in ["000-12-3456", "666-12-3456", "900-12-3456", "999-12-3456", "123-00-4567", "123-45-0000"] {
        unchanged(invalid);
    }
    unchanged("123456789"); // bare nine digits
    unchanged("123 45 6789");
    unchanged("1123-45-6789");
    unchanged("123-45-67890");
    unchanged("A123-45-6789");
    unchanged("123-45-6789A");
    unchanged("1.123-45-6789");
    // Hyphenated neighbours are not looked at.
    assert_eq!(redact("9-123-45-6789-1 A-123-45-6789"), "9-‹ssn:1›-1 A-‹ssn:1›");
    assert_eq!(redact("078-05-1120-4111111111111111"), "‹ssn:1›-‹card:1›");
}

#[test]
fn ibans() {
    assert_eq!(redact("IBAN DE89 3704 0044 0532 0130 00, BIC"), "IBAN ‹iban:1›, BIC");
    assert_eq!(redact("GB82WEST12345698765432"), "‹iban:1›");
    assert_eq!(redact("to GB82 WEST 1234 5698 7654 32 now"), "to ‹iban:1› now");
    assert_eq!(redact("FR14 2004 1010 0505 0001 3M02 606"), "‹iban:1›");
    assert_eq!(redact("NL91ABNA0417164300 ES9121000418450200051332"), "‹iban:1› ‹iban:2›");
    assert_eq!(redact("IT60X0542811101000000123456; CH9300762011623852957"), "‹iban:1›; ‹iban:2›");
    // A length that is a multiple of four does not swallow the next word.
    assert_eq!(redact("BE68 5390 0754 7034 from Anna"), "‹iban:1› from Anna");
    let mut vault = here();
    assert_eq!(vault.redact("DE89 3704 0044 0532 0130 00 / DE89370400440532013000"), "‹iban:1› / ‹iban:1›");
    assert_eq!(vault.redact("GB82 west 1234 5698 7654 32 = GB82WEST12345698765432"), "‹iban:2› = ‹iban:2›");
}

#[test]
fn not_ibans() {
    unchanged("DE89 3704 0044 0532 0130 01"); // checksum
    unchanged("DE89370400440532013001");
    unchanged("DE8937040044053201300"); // length
    unchanged("DE893704004405320130000");
    unchanged("XDE89370400440532013000");
    unchanged("DE89370400440532013000x");
    unchanged("ZZ89370400440532013000"); // no such country
    unchanged("DE89 37040044 0532 0130 00"); // irregular groups
    unchanged("de89370400440532013000");
}

#[test]
fn jwts() {
    assert_eq!(redact(&format!("Authorization: Bearer {JWT}")), "Authorization: Bearer ‹jwt:1›");
    assert_eq!(redact(&format!("/cb?token={JWT}&s=1")), "/cb?token=‹jwt:1›&s=1");
    assert_eq!(redact(&format!("token {JWT}. Next")), "token ‹jwt:1›. Next");
    let mut vault = here();
    assert_eq!(vault.redact(&format!("{JWT} {JWT}")), "‹jwt:1› ‹jwt:1›");
    assert_eq!(vault.resolve("‹jwt:1›").as_deref(), Ok(JWT));
}

#[test]
fn not_jwts() {
    unchanged("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9");
    unchanged("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0");
    // The header does not decode to a JSON object (truncated).
    unchanged("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc");
    unchanged("eyJ.eyJ.sig");
    unchanged(&format!("x{JWT}"));
    unchanged("eyJust.some.words");
}

#[test]
fn api_keys() {
    let alnum36 = "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789";
    let keys = [
        "AKIAIOSFODNN7EXAMPLE".to_owned(),
        "ASIAIOSFODNN7EXAMPLE".to_owned(),
        format!("ghp_{alnum36}"),
        format!("gho_{alnum36}"),
        format!("ghu_{alnum36}"),
        format!("ghs_{alnum36}"),
        format!("ghr_{alnum36}"),
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ".to_owned(),
        "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx".to_owned(),
        "xoxp-1234567890-1234567890-1234567890-abcdef".to_owned(),
        "sk_live_4eC39HqLyjWDarjtT1zdp7dc".to_owned(),
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc".to_owned(),
        "rk_live_4eC39HqLyjWDarjtT1zdp7dc".to_owned(),
        "AIzaSyA1b2C3d4E5f6G7h8I9j0K_lMnOpQr-StU".to_owned(),
        "sk-abcdefghijklmnopqrstuvWXYZ0123456789abcdefghijkl".to_owned(),
        "sk-proj-Ab3dEf6hIj9kLmN0pQr5sTu8vWx1yZ-ab_cd".to_owned(),
        "sk-ant-api03-AbCdEfGh1234567890IjKlMnOpQrStUvWxYz-abcdefAA".to_owned(),
    ];
    for key in &keys {
        assert_eq!(redact(&format!("key: {key} end")), "key: ‹key:1› end", "{key}");
        assert_eq!(redact(&format!("\"{key}\"")), "\"‹key:1›\"", "{key}");
    }
    let mut vault = here();
    let all = keys.join(" ");
    let out = vault.redact(&all);
    let expected: Vec<String> = (1..=keys.len()).map(|n| format!("‹key:{n}›")).collect();
    assert_eq!(out, expected.join(" "));
    assert_eq!(vault.resolve(&out).as_deref(), Ok(all.as_str()));
}

#[test]
fn not_api_keys() {
    unchanged("AKIAIOSFODNN7EXAMPL"); // 15 after the prefix
    unchanged("AKIAIOSFODNN7EXAMPLE1");
    unchanged("xAKIAIOSFODNN7EXAMPLE");
    unchanged("AKIAiosfodnn7example");
    unchanged("ghp_short");
    unchanged("ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ012345678"); // 35
    unchanged("github_pat_short");
    unchanged("xoxb-123");
    unchanged("sk_live_short");
    unchanged("AIzaSyA1b2C3d4E5f6G7h8I9j0K_lMnOpQr-St"); // 34
    unchanged("we use sk-learn and task-force ideas");
    unchanged("/blog/sk-top-10-ski-resorts-in-the-alps-2024");
    unchanged("sk-abcdefghijklmnopqrstuvwxyz"); // no digit or capital
    unchanged("risk-AbCdEf1234567890AbCdEf1234567890");
    unchanged("my-ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789");
}

#[test]
fn private_keys() {
    let block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1b2c3d4e5f6+/g7h8==\nQm9keQ==\n-----END RSA PRIVATE KEY-----";
    assert_eq!(redact(&format!("key:\n{block}\nafter")), "key:\n‹key:1›\nafter");
    let pkcs8 = "-----BEGIN PRIVATE KEY----- MIIEvQIBADANBgkqhkiG9w0BAQEFAASC -----END PRIVATE KEY-----";
    assert_eq!(redact(pkcs8), "‹key:1›");
    let encrypted = "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0A1B\n\nQUJD\n-----END RSA PRIVATE KEY-----";
    assert_eq!(redact(encrypted), "‹key:1›");
    // No END line: the header alone.
    assert_eq!(redact("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE (truncated"), "‹key:1› (truncated");
    assert_eq!(redact("-----BEGIN PRIVATE KEY----- nqetvQ105t7H89+uz… +14 more"), "‹key:1›… +14 more");
    // A different END label: the header alone.
    assert_eq!(
        redact("-----BEGIN EC PRIVATE KEY-----\nQUJD\n-----END RSA PRIVATE KEY-----"),
        "‹key:1›\n-----END RSA PRIVATE KEY-----"
    );
    unchanged("-----BEGIN PUBLIC KEY-----\nQUJD\n-----END PUBLIC KEY-----");
    unchanged("-----BEGIN CERTIFICATE-----\nQUJD\n-----END CERTIFICATE-----");
    unchanged("------BEGIN PRIVATE KEY-----");
}

#[test]
fn named_secrets() {
    let mut vault = here();
    vault.add_secret("db", "hunter2-long-password");
    vault.add_secret("short", "pw123");
    vault.add_secret("part", "hunter2");
    assert!(vault.has_secret("db") && vault.has_secret("short") && !vault.has_secret("nope"));
    assert_eq!(
        vault.redact("login with hunter2-long-password or hunter2 (pw123)"),
        "login with ‹secret:db› or ‹secret:part› (pw123)"
    );
    assert_eq!(vault.redact("xxhunter2yy"), "xx‹secret:part›yy");
    assert_eq!(vault.issued(), 2);
    // Short secrets are never searched for, but they are typeable.
    assert!(matches!(vault.redact("pw123"), Cow::Borrowed(_)));
    assert_eq!(vault.resolve("secret:short").as_deref(), Ok("pw123"));
    // A secret value wins over a pattern it overlaps.
    vault.add_secret("card", "4111 1111 1111 1111");
    assert_eq!(vault.redact("pay 4111 1111 1111 1111"), "pay ‹secret:card›");
    // Replacing a value.
    vault.add_secret("part", "swordfish");
    assert_eq!(vault.redact("hunter2 swordfish"), "hunter2 ‹secret:part›");
}

#[test]
fn existing_tokens_survive_and_redact_is_idempotent() {
    let mut vault = here();
    vault.add_secret("card:1", "card:1"); // even a secret that looks like a token's inside
    let text = format!(
        "‹card:1› was 4111 1111 1111 1111; ‹secret:x› ‹key:7›; {JWT} 078-05-1120 GB82WEST12345698765432 AKIAIOSFODNN7EXAMPLE"
    );
    let once = vault.redact(&text).into_owned();
    assert!(once.starts_with("‹card:1› was ‹card:1›; ‹secret:x› ‹key:7›; ‹jwt:1› ‹ssn:1› ‹iban:1› ‹key:1›"), "{once}");
    let twice = vault.redact(&once);
    assert!(matches!(twice, Cow::Borrowed(_)));
    assert_eq!(twice, once);
    unchanged("‹card:1› ‹secret:db› ‹iban:12›");
    // Text right after a value starts fresh, as it will after its token.
    for text in [
        "-----BEGIN PRIVATE KEY-----AKIAIOSFODNN7EXAMPLE",
        "-----BEGIN PRIVATE KEY-----4111111111111111",
        &format!("{JWT}9.4111111111111111"),
    ] {
        let mut vault = here();
        let once = vault.redact(text).into_owned();
        assert_eq!(vault.redact(&once), once, "{text}");
    }
}

/// Pieces that glue into awkward neighbours when concatenated.
const PIECES: [&str; 26] = [
    "4111111111111111",
    "5555 5555 5555 4444",
    "078-05-1120",
    "GB82WEST12345698765432",
    JWT,
    "AKIAIOSFODNN7EXAMPLE",
    "AIzaSyA1b2C3d4E5f6G7h8I9j0K_lMnOpQr-StU",
    "xoxb-123456789012-abcDEF",
    "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "-----BEGIN RSA PRIVATE KEY-----",
    "\nQUJD\n",
    "-----END RSA PRIVATE KEY-----",
    "hunter22",
    "sk-",
    "eyJ",
    "1234",
    "9",
    "-",
    " ",
    ".",
    "_",
    "x",
    "Z",
    "é",
    "カ",
    "secret:",
];

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config { failure_persistence: None, ..Default::default() })]
    #[test]
    fn redaction_is_idempotent_and_resolves_back(
        picks in proptest::collection::vec(0..PIECES.len(), 0..12),
        token in 0usize..4,
        at in 0usize..12,
    ) {
        let text: String = picks.iter().map(|&p| PIECES[p]).collect();
        let mut vault = here();
        vault.set_site(Some("shop.test"));
        vault.add_secret("pw", "hunter22");
        let once = vault.redact(&text).into_owned();
        // (`secret:NAME` as the whole text is a reference, by design.)
        if !once.trim().starts_with("secret:") {
            let resolved = vault.resolve(&once);
            proptest::prop_assert_eq!(resolved.as_deref(), Ok(text.as_str()));
        }
        let twice = vault.redact(&once);
        proptest::prop_assert!(matches!(twice, Cow::Borrowed(_)), "{:?} then {:?}", once, twice);
        // With a token already in the text.
        let mut pieces: Vec<&str> = picks.iter().map(|&p| PIECES[p]).collect();
        pieces.insert(at.min(pieces.len()), ["‹card:1›", "‹secret:pw›", "‹key:3›", "‹x:1›"][token]);
        let with_token = pieces.concat();
        let once = vault.redact(&with_token).into_owned();
        let twice = vault.redact(&once).into_owned();
        proptest::prop_assert_eq!(twice, once);
    }
}

#[test]
fn borrowed_when_nothing_found() {
    unchanged("");
    unchanged("Hello, world! Call +1 415 555 0100 before 2024-01-15; order #1002003004 costs $1,299.99.");
    let mut vault = here();
    vault.add_secret("pw", "correct horse battery");
    assert!(matches!(vault.redact("a correct horse, no battery"), Cow::Borrowed(_)));
}

#[test]
fn resolve_round_trip() {
    let mut vault = here();
    vault.set_site(Some("shop.test"));
    vault.add_secret("email-password", "Tr0ub4dor&3-xyz");
    let text = format!(
        "card 4111-1111-1111-1111 exp 12/25, amex 3782 822463 10005, ssn 078-05-1120, iban DE89 3704 0044 0532 0130 00, \
         jwt {JWT}, aws AKIAIOSFODNN7EXAMPLE, pw Tr0ub4dor&3-xyz, card again 4111111111111111"
    );
    let redacted = vault.redact(&text).into_owned();
    assert!(!redacted.contains("4111") && !redacted.contains("Tr0ub4dor") && !redacted.contains("eyJ"), "{redacted}");
    assert!(Vault::mentions_tokens(&redacted));
    // The second card form resolves to the first: compare digits there.
    let resolved = vault.resolve(&redacted).expect("all tokens were issued");
    assert_eq!(resolved, text.replace("4111111111111111", "4111-1111-1111-1111"));
    let single = "ssn 078-05-1120, iban DE89 3704 0044 0532 0130 00, key sk_live_4eC39HqLyjWDarjtT1zdp7dc";
    let mut vault = here();
    let redacted = vault.redact(single).into_owned();
    assert_eq!(vault.resolve(&redacted).as_deref(), Ok(single));
}

#[test]
fn resolve_secret_references() {
    let mut vault = here();
    vault.add_secret("github", "s3cr3t-value");
    assert_eq!(vault.resolve("secret:github").as_deref(), Ok("s3cr3t-value"));
    assert_eq!(vault.resolve("  secret:github\n").as_deref(), Ok("s3cr3t-value"));
    assert_eq!(vault.resolve("user ‹secret:github› end").as_deref(), Ok("user s3cr3t-value end"));
    assert_eq!(vault.resolve("secret:gitlab"), Err(ResolveError::UnknownSecret("gitlab".to_owned())));
    assert_eq!(vault.resolve("x ‹secret:gitlab›"), Err(ResolveError::UnknownSecret("gitlab".to_owned())));
    // Only the whole text is a reference.
    assert_eq!(vault.resolve("my secret:foo").as_deref(), Ok("my secret:foo"));
    assert_eq!(vault.resolve("secret:github please").as_deref(), Ok("secret:github please"));
    assert_eq!(vault.resolve("secret:").as_deref(), Ok("secret:"));
}

#[test]
fn tokens_are_typed_only_where_they_were_seen() {
    let mut vault = here();
    vault.add_secret("PIN", "from-the-file-1");
    vault.set_site(Some("www.bank.test"));
    assert_eq!(vault.redact("card 4111 1111 1111 1111"), "card ‹card:1›");
    vault.add_site_secret("password-1", "hunter2-hunter2");
    assert_eq!(vault.resolve("‹card:1›").as_deref(), Ok("4111 1111 1111 1111"));
    vault.set_site(Some("evil.test"));
    assert_eq!(vault.resolve("‹card:1›"), Err(ResolveError::OtherSite("‹card:1›".to_owned())));
    assert_eq!(vault.resolve("secret:password-1"), Err(ResolveError::OtherSite("secret:password-1".to_owned())));
    // The secrets file's values go wherever the person's model types them.
    assert_eq!(vault.resolve("secret:PIN").as_deref(), Ok("from-the-file-1"));
    // Seen on a second site (the card shown there too): typeable there.
    assert_eq!(vault.redact("4111111111111111"), "‹card:1›");
    assert_eq!(vault.resolve("‹card:1›").as_deref(), Ok("4111 1111 1111 1111"));
    // Research digests are no one page: nothing seen there is typeable.
    vault.set_site(None);
    assert_eq!(vault.redact("IBAN DE89 3704 0044 0532 0130 00"), "IBAN ‹iban:1›");
    vault.set_site(Some("bank.test"));
    assert_eq!(vault.resolve("‹iban:1›"), Err(ResolveError::OtherSite("‹iban:1›".to_owned())));
}

#[test]
fn resolve_unknown_tokens() {
    let mut vault = here();
    vault.set_site(Some("shop.test"));
    vault.redact("4111111111111111");
    assert_eq!(vault.resolve("‹card:9›"), Err(ResolveError::UnknownToken("‹card:9›".to_owned())));
    assert_eq!(vault.resolve("a ‹card:0› b"), Err(ResolveError::UnknownToken("‹card:0›".to_owned())));
    assert_eq!(vault.resolve("‹card:01›"), Err(ResolveError::UnknownToken("‹card:01›".to_owned())));
    assert_eq!(vault.resolve("‹iban:1›"), Err(ResolveError::UnknownToken("‹iban:1›".to_owned())));
    assert_eq!(vault.resolve("‹card:1›").as_deref(), Ok("4111111111111111"));
    // Not token-shaped: typed as is.
    for text in ["‹foo:1›", "‹card:x›", "‹card:1", "‹card›", "‹›", "‹secret:›", "plain"] {
        assert_eq!(vault.resolve(text).as_deref(), Ok(text));
        assert!(!Vault::mentions_tokens(text), "{text}");
    }
}

#[test]
fn mentions_tokens() {
    assert!(Vault::mentions_tokens("secret:github"));
    assert!(Vault::mentions_tokens(" secret:github "));
    assert!(Vault::mentions_tokens("pay ‹card:1› now"));
    assert!(Vault::mentions_tokens("‹secret:db›"));
    assert!(Vault::mentions_tokens("‹card:99›")); // refused by resolve, still a token
    assert!(!Vault::mentions_tokens("my secret:foo"));
    assert!(!Vault::mentions_tokens("4111 1111 1111 1111"));
}

#[test]
fn error_messages() {
    assert_eq!(ResolveError::UnknownSecret("db".to_owned()).to_string(), "no secret named db in the secrets file");
    assert_eq!(ResolveError::UnknownToken("‹card:3›".to_owned()).to_string(), "‹card:3› was never issued in this session");
}

#[test]
fn debug_shows_no_values() {
    let mut vault = here();
    vault.add_secret("bank", "very-secret-passphrase");
    vault.redact("4111111111111111 very-secret-passphrase");
    let debug = format!("{vault:?} {:#?}", vault.clone());
    assert!(!debug.contains("very-secret-passphrase") && !debug.contains("4111"), "{debug}");
    assert!(debug.contains("card"), "{debug}");
}

#[test]
fn a_megabyte_of_ordinary_text_gets_no_tokens() {
    let paragraph = "On 2024-01-15 at 09:30 the order #A-1002003004 (ref 4829-1934-5567) shipped for $1,299.99 \
        plus 8.25% tax; call +1 415 555 0100 or 020 7946 0958, fax (212) 555-0199. ISBN 978-3-16-148410-0, \
        version 1.2.3-beta, ZIP 94103-1234, tracking 1Z999AA10123456784, invoice 2023 2024 2025 2026 totals \
        12 345 678 and 3.14159265358979323846. Prices: 19.99, 249.00, 1 299 €. The SKU-4471 desk-lamp sells \
        with risk-free returns; see https://shop.example/p/12345678/sku-desk-lamp?page=2&sort=price-asc. \
        Coordinates 37.7749, -122.4194; epoch 1718000000 and 1718000000123 ms; IP 192.168.100.254. \
        Das Konto DE-Nummer bleibt privat, say the AKIA docs and Eyjafjallajökull guides. ";
    let mut text = String::with_capacity(1 << 20);
    while text.len() < 1 << 20 {
        text.push_str(paragraph);
    }
    let mut vault = here();
    vault.add_secret("pw", "not-in-this-text");
    assert!(matches!(vault.redact(&text), Cow::Borrowed(_)));
    assert_eq!(vault.issued(), 0);
}
