//! Tests of the literal prefilters: built-in literals against those read from each
//! pattern's text, and every tier of the search against a literal-by-literal search.

use super::*;
use proptest::prelude::*;

#[test]
fn every_built_in_pattern_has_its_literals_from_the_build_and_they_are_its_own() {
    use crate::policy::{defaults, RuleMatch};
    let mut patterns = 0;
    for rule in defaults()
        .triggers
        .iter()
        .flat_map(|trigger| &trigger.rules)
    {
        let (globs, regex) = match &rule.matches {
            RuleMatch::Paths { globs } => (globs, None),
            RuleMatch::Line { regex, files } => (files, Some(regex)),
        };
        let texts = |literals: Option<Option<Literals>>| {
            literals.map(|literals| literals.map(|literals| literals.texts().join(" ")))
        };
        if let Some(regex) = regex {
            let RegexRequirement::Built(code) = RegexRequirement::new(regex) else {
                panic!("{} not read at build time", rule.id);
            };
            let requirement = required::regex_requirement(regex);
            assert_eq!(decode(code), requirement, "{}", rule.id);
            assert_eq!(code_length(code), code.len(), "{}", rule.id);
            assert_same_verdicts(code, &requirement);
            let read = required::regex_literals(regex).map(|read| read.join(" "));
            assert_eq!(texts(built(REGEXES, regex)), Some(read), "{}", rule.id);
            patterns += 1;
        }
        for glob in globs {
            let read = required::glob_literals(&required::rule_glob(glob));
            let read = read.map(|read| read.join(" "));
            let found = texts(built(GLOBS, glob));
            assert_eq!(found, Some(read), "{}", rule.id);
            patterns += 1;
        }
    }
    assert!(patterns > 100, "{patterns} built-in patterns");
    assert_eq!(built(REGEXES, r"not\.a\.rule"), None);
    assert_eq!(
        regex_literals(r"not\.a\.rule"),
        Some(Literals::Read(vec!["not.a.rule".to_string()]))
    );
}

/// A policy's pattern with a built-in one's length and both ends hashes alike and
/// shares its probe sequence; its literals and requirement must still be read from
/// its own text (taking the built-in one's would skip its rule on lines it matches).
#[test]
fn a_pattern_that_shares_a_built_in_ones_ends_is_read_from_its_own_text() {
    let mut tried = 0;
    let tables = [(REGEXES, true), (GLOBS, false)];
    for ((table, _), is_regex) in tables {
        for &[start, end, _, _] in table.iter().filter(|row| row[1] - row[0] > 40) {
            let built = built_text(start, end);
            // A letter in the middle (outside both hashed ends) changed to `q`.
            let Some(at) = (16..built.len() - 16).find(|&at| {
                built.as_bytes()[at].is_ascii_lowercase() && built.as_bytes()[at] != b'q'
            }) else {
                continue;
            };
            let mut twin = built.as_bytes().to_vec();
            twin[at] = b'q';
            let twin = String::from_utf8(twin).expect("an ASCII letter replaced");
            assert_eq!(slots::hash(twin.as_bytes()), slots::hash(built.as_bytes()));
            if is_regex {
                let read = required::regex_literals(&twin).map(Literals::Read);
                assert_eq!(regex_literals(&twin), read, "{twin}");
                let requirement = RegexRequirement::new(&twin);
                assert!(matches!(requirement, RegexRequirement::Read(_)), "{twin}");
            } else {
                let read = required::glob_literals(&required::rule_glob(&twin));
                assert_eq!(
                    rule_glob_literals(&twin),
                    read.map(Literals::Read),
                    "{twin}"
                );
            }
            tried += 1;
        }
    }
    assert!(tried > 20, "{tried} twins");
}

/// The requirement built code encodes.
fn decode(code: &[u32]) -> Requirement {
    let [kind, first, second] = [code[0], code[1], code[2]];
    if kind == LITERAL {
        return Requirement::Literal(Cow::Borrowed(built_text(first, second)));
    }
    let (mut parts, mut rest) = (Vec::new(), &code[3..]);
    for _ in 0..first {
        let length = code_length(rest);
        parts.push(decode(&rest[..length]));
        rest = &rest[length..];
    }
    match kind {
        ALL => Requirement::All(Cow::Owned(parts)),
        _ => Requirement::Any(Cow::Owned(parts)),
    }
}

/// Built code and the requirement it encodes hold for the same sets of literals: none,
/// all, each alone, all but each.
fn assert_same_verdicts(code: &[u32], requirement: &Requirement) {
    fn gather(requirement: &Requirement, into: &mut Vec<String>) {
        match requirement {
            Requirement::Literal(literal) => into.push(literal.to_string()),
            Requirement::All(parts) | Requirement::Any(parts) => {
                parts.iter().for_each(|part| gather(part, into))
            }
        }
    }
    let mut literals = Vec::new();
    gather(requirement, &mut literals);
    let mut sets = vec![Vec::new(), literals.clone()];
    for at in 0..literals.len() {
        sets.push(vec![literals[at].clone()]);
        let mut others = literals.clone();
        others.remove(at);
        sets.push(others);
    }
    for set in sets {
        let mut contains = |literal: &str| set.iter().any(|held| held == literal);
        let expected = requirement.holds(&mut contains);
        assert_eq!(code_holds(code, &mut contains), expected, "{set:?}");
    }
}

/// The owners whose literals `text` holds (case-insensitively), the slow way.
fn owners_holding(sets: &[Option<Vec<String>>], text: &str) -> Vec<usize> {
    let lower = text.to_ascii_lowercase();
    (0..sets.len())
        .filter(|&index| match &sets[index] {
            Some(literals) => literals.iter().any(|l| lower.contains(l.as_str())),
            None => true,
        })
        .collect()
}

#[test]
fn built_in_and_read_literals_find_the_same_candidates_at_every_tier() {
    let mut items: Vec<Option<Literals>> = BUILT_REGEX_LITERALS
        .iter()
        .chain(&BUILT_GLOB_LITERALS)
        .step_by(7)
        .map(|&row| built_row(row))
        .collect();
    let read = vec!["password".to_string(), built_literal(0).to_string()];
    items.extend([Some(Literals::Read(read)), None]);
    let sets = literal_sets(&items);
    let mut texts = vec![
        "const PASSWORD = 1".to_string(),
        "nothing".to_string(),
        String::new(),
        "x".to_string(),
    ];
    texts.extend(
        sets.iter()
            .flatten()
            .flatten()
            .map(|l| format!("a {} b", l.to_uppercase())),
    );
    let prefilter = Prefilter::new(items.into_iter());
    for (tier, searched) in [(0, 0), (1, BY_PAIRS)] {
        prefilter.searched.store(searched, Ordering::Relaxed);
        for text in &texts {
            let expected = owners_holding(&sets, text);
            assert_eq!(
                prefilter.candidates(text.as_bytes()),
                expected,
                "tier {tier} on {text:?}"
            );
        }
    }
    assert!(texts.len() > 50, "{} texts", texts.len());
}

/// The candidates the literal-by-literal search (the first tier before the pair
/// index) found: each literal looked for in the text in ASCII lower case, an empty
/// literal held by every text.
fn candidates_literal_by_literal(sets: &[Option<Vec<String>>], text: &[u8]) -> Vec<usize> {
    let lower = text.to_ascii_lowercase();
    (0..sets.len())
        .filter(|&index| match &sets[index] {
            Some(literals) => literals
                .iter()
                .any(|l| memchr::memmem::find(&lower, l.as_bytes()).is_some()),
            None => true,
        })
        .collect()
}

/// Each item's literals as owned strings (`None`: an item without literals), for the
/// literal-by-literal search the prefilter is compared with.
fn literal_sets(items: &[Option<Literals>]) -> Vec<Option<Vec<String>>> {
    items
        .iter()
        .map(|item| {
            let texts = item.as_ref().map(Literals::texts);
            texts.map(|texts| texts.into_iter().map(str::to_string).collect())
        })
        .collect()
}

/// Searches `texts` one after another from the `from`th text a prefilter has
/// searched, each against the literal-by-literal search.
fn assert_each_text_as_literal_by_literal(
    prefilter: &Prefilter,
    sets: &[Option<Vec<String>>],
    texts: &[Vec<u8>],
    from: usize,
) {
    prefilter.searched.store(from, Ordering::Relaxed);
    for (at, text) in texts.iter().enumerate() {
        assert_eq!(
            prefilter.candidates(text),
            candidates_literal_by_literal(sets, text),
            "text {} ({:?}), literals {sets:?}",
            from + at,
            String::from_utf8_lossy(text)
        );
    }
}

#[test]
fn every_text_of_a_small_alphabet_finds_what_the_literal_by_literal_search_found() {
    // One item per literal of one to three of `a`, `b`, and items with several:
    // literals of one byte, prefixes of others, overlapping ones, shared first pairs,
    // a duplicate, and one literal owned by two items.
    let mut sets: Vec<Option<Vec<String>>> = Vec::new();
    for length in 1..=3u32 {
        for bits in 0..1u32 << length {
            let literal = (0..length)
                .map(|at| if bits >> at & 1 == 1 { 'b' } else { 'a' })
                .collect();
            sets.push(Some(vec![literal]));
        }
    }
    let several = [vec!["ab", "aab", "a"], vec!["ba", "ba"], vec!["aba", "bab"]];
    sets.extend(several.map(|set| Some(set.into_iter().map(String::from).collect())));
    sets.push(None);
    let prefilter = Prefilter::new(sets.iter().cloned().map(|set| set.map(Literals::Read)));
    // Every text of up to six of `a`, `A`, `b`, `B`, `.`.
    let mut texts: Vec<Vec<u8>> = vec![Vec::new()];
    let mut last = texts.clone();
    for _ in 0..6 {
        last = last
            .iter()
            .flat_map(|text| {
                b"aAbB.".iter().map(move |&byte| {
                    let mut longer = text.clone();
                    longer.push(byte);
                    longer
                })
            })
            .collect();
        texts.extend(last.iter().cloned());
    }
    assert_eq!(texts.len(), 19_531);
    // From the first text, across the switch to the automaton, and beyond it.
    assert_each_text_as_literal_by_literal(&prefilter, &sets, &texts[..BY_PAIRS + 2], 0);
    assert_each_text_as_literal_by_literal(&prefilter, &sets, &texts, BY_PAIRS - 3);
}

#[test]
fn built_in_literals_beside_a_policys_own_find_what_the_literal_by_literal_search_found() {
    // Every built-in pattern's literals, and a policy's that share their first pair
    // with built-in ones: a prefix, a longer word, the same literal, its first byte.
    let mut items: Vec<Option<Literals>> = BUILT_REGEX_LITERALS
        .iter()
        .chain(&BUILT_GLOB_LITERALS)
        .map(|&row| built_row(row))
        .collect();
    let mut texts: Vec<Vec<u8>> = Vec::new();
    for (at, literal) in (0..BUILT_LITERAL_COUNT)
        .map(built_literal)
        .enumerate()
        .step_by(5)
    {
        let cut = literal.len() / 2;
        let read = [
            literal.to_string(),
            format!("{literal}zz"),
            literal.get(..cut.max(2)).unwrap_or(literal).to_string(),
            literal.get(..1).unwrap_or(literal).to_string(),
        ];
        items.push(Some(Literals::Read(vec![read[at % 4].clone()])));
        let upper = literal.to_ascii_uppercase();
        texts.extend([
            literal.as_bytes().to_vec(),
            upper.as_bytes().to_vec(),
            format!("x{upper}").into_bytes(),
            literal.get(1..).unwrap_or_default().as_bytes().to_vec(),
            literal
                .get(..literal.len() - 1)
                .unwrap_or_default()
                .as_bytes()
                .to_vec(),
        ]);
    }
    texts.extend([
        b"".to_vec(),
        b"\xff\xfe".to_vec(),
        "K\u{212A}\u{df}\u{130}".into(),
    ]);
    let sets = literal_sets(&items);
    let prefilter = Prefilter::new(items.into_iter());
    assert!(texts.len() > 100, "{} texts", texts.len());
    assert_each_text_as_literal_by_literal(&prefilter, &sets, &texts, 0);
    assert_each_text_as_literal_by_literal(&prefilter, &sets, &texts, BY_PAIRS - 10);
}

#[test]
fn threads_searching_across_the_switch_to_the_automaton_find_the_same_candidates() {
    let sets: Vec<Option<Vec<String>>> = ["password", "pass", "secret", "s", "se", "api_key"]
        .iter()
        .map(|literal| Some(vec![literal.to_string()]))
        .collect();
    let prefilter = Prefilter::new(sets.iter().cloned().map(|set| set.map(Literals::Read)));
    prefilter.searched.store(BY_PAIRS - 500, Ordering::Relaxed);
    let texts = ["my PASSWORD is", "SECRET", "api_KEY=1", "nothing", "", "xs"];
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                for text in texts.iter().cycle().take(1_000) {
                    let expected = candidates_literal_by_literal(&sets, text.as_bytes());
                    assert_eq!(prefilter.candidates(text.as_bytes()), expected, "{text}");
                }
            });
        }
    });
    assert!(prefilter.dfa.get().is_some());
}

proptest! {
    #[test]
    fn every_tier_of_a_prefilter_finds_the_same_candidates(
        sets in prop::collection::vec(
            prop::option::weighted(0.9, prop::collection::vec("[a-c.]{1,3}", 1..4)),
            1..12,
        ),
        texts in prop::collection::vec("[a-cA-C. ]{0,12}", 1..6),
    ) {
        let prefilter = Prefilter::new(sets.iter().cloned().map(|set| set.map(Literals::Read)));
        for (tier, searched) in [(0, 0), (1, BY_PAIRS)] {
            prefilter.searched.store(searched, Ordering::Relaxed);
            for text in &texts {
                let expected = owners_holding(&sets, text);
                prop_assert_eq!(
                    prefilter.candidates(text.as_bytes()),
                    expected,
                    "tier {} on {:?}", tier, text
                );
            }
        }
        prop_assert!(prefilter.pairs.get().is_some() && prefilter.dfa.get().is_some());
    }

    #[test]
    fn a_prefilter_finds_what_the_literal_by_literal_search_found_on_either_side_of_the_switch(
        sets in prop::collection::vec(
            prop::option::weighted(
                0.9,
                prop::collection::vec("[ab.\u{df}\u{130}\u{212A}]{0,4}", 1..5),
            ),
            1..10,
        ),
        texts in prop::collection::vec("[abAB. \u{df}\u{1E9E}\u{130}i\u{212A}kK]{0,16}", 1..8),
        from in BY_PAIRS - 8..BY_PAIRS + 1,
    ) {
        let prefilter = Prefilter::new(sets.iter().cloned().map(|set| set.map(Literals::Read)));
        let texts: Vec<Vec<u8>> = texts.into_iter().map(String::into_bytes).collect();
        assert_each_text_as_literal_by_literal(&prefilter, &sets, &texts, from);
    }
}

/// One prefilter of every built-in pattern's literals (line regexes and rule globs),
/// built once: its automaton costs millions of instructions to build.
struct BuiltIns {
    prefilter: Prefilter,
    sets: Vec<Option<Vec<String>>>,
}

fn built_ins() -> &'static BuiltIns {
    static BUILT: OnceLock<BuiltIns> = OnceLock::new();
    BUILT.get_or_init(|| {
        let items: Vec<Option<Literals>> = BUILT_REGEX_LITERALS
            .iter()
            .chain(&BUILT_GLOB_LITERALS)
            .map(|&row| built_row(row))
            .collect();
        let sets = literal_sets(&items);
        let prefilter = Prefilter::new(items.into_iter());
        BuiltIns { prefilter, sets }
    })
}

/// A piece of a line: a built-in literal (in any ASCII case, whole or without its last
/// byte), bytes a line may hold around it (CR, LF, NUL, bytes that are not UTF-8, the
/// first byte of a two-byte character), or a character NFKC folds to ASCII.
fn line_piece() -> impl Strategy<Value = Vec<u8>> {
    let filler = [
        b' ', b'\r', b'\n', 0, 0xff, 0xfe, 0xc3, b'_', b'.', b'e', b'=', b'"',
    ];
    prop_oneof![
        4 => (0..BUILT_LITERAL_COUNT, any::<u64>(), any::<bool>()).prop_map(
            |(id, case, cut)| {
                let mut bytes = built_literal(id).as_bytes().to_vec();
                for (at, byte) in bytes.iter_mut().enumerate() {
                    if case >> (at % 64) & 1 == 1 {
                        byte.make_ascii_uppercase();
                    }
                }
                if cut && bytes.len() > 1 {
                    bytes.pop();
                }
                bytes
            }
        ),
        2 => prop::collection::vec(prop::sample::select(filler.to_vec()), 0..5),
        1 => prop::sample::select(vec!["\u{212A}", "\u{17f}", "\u{ff53}", "\u{130}", "\u{df}"])
            .prop_map(|text| text.as_bytes().to_vec()),
    ]
}

/// A line of pieces, padded in front to a length about [`SHORT_LINE`] when `pad` says
/// (so that the last piece ends a line of 255 to 258 bytes).
fn line() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(line_piece(), 0..8),
        prop::option::of(SHORT_LINE - 1..SHORT_LINE + 3),
    )
        .prop_map(|(pieces, pad)| {
            let line = pieces.concat();
            match pad {
                Some(length) if length > line.len() => {
                    let mut padded = vec![b' '; length - line.len()];
                    padded.extend(line);
                    padded
                }
                _ => line,
            }
        })
}

proptest! {
    /// Whatever built-in literal a line holds, in whatever case, wherever (at its end,
    /// overlapping another, beside bytes that are not UTF-8), both tiers of the search
    /// find every pattern holding it, as a literal-by-literal search does; and every
    /// built-in line regex's requirement holds on the line as it does by `memmem`.
    #[test]
    fn every_built_in_literal_a_line_holds_is_found_at_every_tier(line in line()) {
        let built = built_ins();
        let expected = candidates_literal_by_literal(&built.sets, &line);
        for searched in [0, BY_PAIRS] {
            built.prefilter.searched.store(searched, Ordering::Relaxed);
            prop_assert_eq!(
                built.prefilter.candidates(&line),
                expected.clone(),
                "from text {} on {:?}", searched, String::from_utf8_lossy(&line)
            );
        }
        let lower = line.to_ascii_lowercase();
        let mut contains =
            |literal: &str| memchr::memmem::find(&lower, literal.as_bytes()).is_some();
        for &[start, end, _, _] in BUILT_REGEX_REQUIREMENTS.iter() {
            let regex = built_text(start, end);
            let requirement = RegexRequirement::new(regex);
            let RegexRequirement::Built(code) = requirement else {
                panic!("{regex} not read at build time");
            };
            prop_assert_eq!(
                requirement.holds(&line),
                decode(code).holds(&mut contains),
                "{} on {:?}", regex, String::from_utf8_lossy(&line)
            );
        }
    }
}
