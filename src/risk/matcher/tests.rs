//! Tests of the matcher: the forward lazy DFA against each whole regex, the secret
//! predicates, the rule globs against each glob alone, and compilation on first use.

use super::*;

/// A rule's id, its regex compiled whole and as the forward lazy DFA alone, and
/// the words of its text.
type BothWays = (String, Regex, Box<Forward>, Vec<String>);

/// Every built-in line regex, compiled whole and as the forward lazy DFA alone
/// (`line_forward`), with the words of its own text (runs of three or more word
/// characters) for the property test below.
fn forward_and_whole() -> &'static [BothWays] {
    static RULES: std::sync::LazyLock<Vec<BothWays>> = std::sync::LazyLock::new(|| {
        let policy = Policy::default();
        let rules = policy.triggers.iter().flat_map(|trigger| &trigger.rules);
        rules
            .filter_map(|rule| match &rule.matches {
                RuleMatch::Line { regex, .. } => Some((rule.id.to_string(), regex.to_string())),
                RuleMatch::Paths { .. } => None,
            })
            .map(|(id, source)| {
                let whole = compile_line_regex(&source).expect("compiles");
                let forward = line_forward(&source).expect("builds");
                let words = source
                    .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                    .filter(|word| word.len() >= 3)
                    .map(String::from)
                    .collect();
                (id, whole, forward, words)
            })
            .collect()
    });
    &RULES
}

/// Pieces a line is built from besides a rule's words: the punctuation and spacing
/// the rules look for, and look-alikes a Unicode reading would fold into ASCII
/// letters (`ſ` for `s`, the Kelvin sign for `k`, fullwidth letters), which this
/// ASCII reading must treat as the whole regex does.
const NOISE: &[&str] = &[
    " ", "  ", "\t", "_", "-", ".", ":", "=", "==", "(", ")", "[", "]", "{", "}", "'", "\"", "`",
    ",", ";", "/", "$", "@", "->", "::", "!", "?", "#", "*", "<", ">", "0", "401", "403", "x", "Q",
    "\u{17f}", "\u{212a}", "\u{ff53}", "\u{e9}", "\n",
];

/// `word` with one of its letters (the `at`th, counted around) written as a
/// look-alike: `ſ` for `s`, the Kelvin sign for `k`, else the fullwidth letter.
fn look_alike(word: &str, at: usize) -> String {
    let at = at % word.len();
    word.char_indices()
        .map(|(index, c)| match (index == at, c.to_ascii_lowercase()) {
            (true, 's') => '\u{17f}',
            (true, 'k') => '\u{212a}',
            (true, lower @ 'a'..='z') => {
                char::from_u32(u32::from(lower) - u32::from('a') + 0xff41).unwrap_or(c)
            }
            _ => c,
        })
        .collect()
}

proptest::proptest! {
    /// The forward lazy DFA answers what the whole regex answers, for every built-in
    /// line rule, on lines made of the rule's own words (in any case) and noise, and
    /// of arbitrary bytes.
    #[test]
    fn the_forward_dfa_answers_what_the_whole_regex_answers(
        rule in 0..forward_and_whole().len(),
        pieces in proptest::collection::vec(
            (proptest::num::usize::ANY, 0u8..4, proptest::collection::vec(proptest::num::u8::ANY, 0..2)),
            1..8,
        ),
    ) {
        let (id, whole, forward, words) = &forward_and_whole()[rule];
        let mut line = Vec::new();
        for (pick, case, bytes) in pieces {
            let piece = match pick % 4 {
                0 if !words.is_empty() => words[pick / 4 % words.len()].clone(),
                1 if !words.is_empty() => look_alike(&words[pick / 4 % words.len()], pick / 4),
                _ => NOISE[pick / 4 % NOISE.len()].to_string(),
            };
            let piece = match case {
                0 => piece.to_ascii_lowercase(),
                1 => piece.to_ascii_uppercase(),
                _ => piece,
            };
            line.extend_from_slice(piece.as_bytes());
            if case == 3 {
                line.extend_from_slice(&bytes);
            }
        }
        proptest::prop_assert_eq!(
            forward.is_match(&line),
            Some(whole.is_match(&line)),
            "{} on {:?}",
            id,
            String::from_utf8_lossy(&line)
        );
        // And where each match starts (what an `in_code` rule's grammar check reads).
        let starts: Vec<usize> = whole.find_iter(&line).map(|found| found.start()).collect();
        proptest::prop_assert_eq!(
            forward.match_starts(&line),
            Some(starts),
            "{} on {:?}",
            id,
            String::from_utf8_lossy(&line)
        );
    }
}

proptest::proptest! {
    /// A whole file that does not hold what a rule's lines require has no line the rule
    /// matches (a file rule looks at no line of such a file): for every built-in line
    /// rule, on texts of several lines made of the rule's own words and noise.
    #[test]
    fn a_text_holds_what_each_of_its_matching_lines_requires(
        rule in 0..forward_and_whole().len(),
        pieces in proptest::collection::vec((proptest::num::usize::ANY, proptest::bool::ANY), 1..24),
    ) {
        let (id, whole, _, words) = &forward_and_whole()[rule];
        let mut text = String::new();
        for (pick, upper) in pieces {
            let piece = match pick % 3 {
                0 if !words.is_empty() => words[pick / 3 % words.len()].as_str(),
                _ if pick % 5 == 0 => "\n",
                _ => NOISE[pick / 3 % NOISE.len()],
            };
            text.push_str(&if upper { piece.to_ascii_uppercase() } else { piece.to_string() });
        }
        let source = Policy::default()
            .triggers
            .iter()
            .flat_map(|trigger| &trigger.rules)
            .find_map(|rule| match &rule.matches {
                RuleMatch::Line { regex, .. } if rule.id == *id => Some(regex.clone()),
                _ => None,
            })
            .expect("the rule is a line rule");
        let requirement = RegexRequirement::new(&source);
        for line in text.split('\n') {
            if whole.is_match(line.as_bytes()) {
                proptest::prop_assert!(requirement.holds(text.as_bytes()), "{} on {:?}", id, text);
            }
        }
    }
}

#[test]
fn the_forward_dfa_answers_on_long_and_odd_lines() {
    // Lines of every rule's words with NUL, invalid UTF-8, CRLF and look-alikes, as
    // long as 64 KiB: the lazy DFA answers what the whole regex does, or gives up
    // (`None`, and the whole regex answers); never a miss of its own.
    let all: Vec<&str> = forward_and_whole()
        .iter()
        .flat_map(|(_, _, _, words)| words.iter().map(String::as_str))
        .collect();
    let mut lines: Vec<Vec<u8>> = Vec::new();
    for (step, glue) in [
        &b" "[..],
        b"\0",
        b"\xff\xfe",
        b"\r\n",
        b"_",
        "\u{17f}".as_bytes(),
    ]
    .iter()
    .enumerate()
    {
        let mut line = Vec::new();
        let mut at = step;
        while line.len() < 64 * 1024 {
            line.extend_from_slice(all[at % all.len()].as_bytes());
            line.extend_from_slice(glue);
            at = (at * 31 + 7) % all.len();
        }
        lines.push(line.clone());
        lines.push(line[line.len() / 2..].to_vec());
        lines.push([&line[..], b"\r"].concat());
    }
    for (id, whole, forward, _) in forward_and_whole() {
        for line in &lines {
            let answer = forward.is_match(line);
            assert!(
                answer.is_none_or(|found| found == whole.is_match(line)),
                "{id}: {answer:?} on a line of {} bytes",
                line.len()
            );
            let starts = forward.match_starts(line);
            let expected: Vec<usize> = whole.find_iter(line).map(|found| found.start()).collect();
            assert!(
                starts.as_ref().is_none_or(|starts| *starts == expected),
                "{id}: match starts on a line of {} bytes",
                line.len()
            );
        }
    }
}

#[test]
fn the_forward_dfa_answers_on_each_rules_own_words() {
    // Every word of every rule alone and after a letter, so that each rule's
    // answers include matches, not only misses.
    let mut matched = 0;
    for (id, whole, forward, words) in forward_and_whole() {
        for word in words {
            for line in [word.clone(), format!("x{word}("), format!("{word} = 1")] {
                let expected = whole.is_match(line.as_bytes());
                matched += usize::from(expected);
                assert_eq!(
                    forward.is_match(line.as_bytes()),
                    Some(expected),
                    "{id}: {line}"
                );
                let starts = whole.find_iter(line.as_bytes()).map(|found| found.start());
                assert_eq!(
                    forward.match_starts(line.as_bytes()),
                    Some(starts.collect()),
                    "{id}: {line}"
                );
            }
        }
    }
    assert!(matched > 100, "{matched}");
}

#[test]
fn placeholders_references_and_templates_are_not_secrets() {
    for value in [
        "changeme",
        "${DB_PASSWORD}",
        "<your-token>",
        "DB_PASSWORD",
        "********",
        "xxxxxxxx",
        "/run/secrets/db",
        "{{ csrf_token }}",
        "your_api_key_here",
        "12345678",
        "ENC(abc)",
        "%(password)s",
        "Password",
        "password123",
        "test-secret-key",
    ] {
        assert!(is_dummy_secret(value.as_bytes()), "{value}");
    }
    for value in [
        "hunter22x",
        "s3cr3t-Pa55",
        "AKIAIOSFODNN7EXAMPLF",
        "q8Zr!x0pL",
    ] {
        assert!(!is_dummy_secret(value.as_bytes()), "{value}");
    }
}

#[test]
fn secret_spans_are_the_value_group_or_the_whole_match_of_policy_rules() {
    let regex = compile_line_regex(r"token = '(?P<value>[^']+)'").unwrap();
    let text = b"token = 'abcdefghijklmnop' # ok";
    assert_eq!(secret_spans(&regex, false, text), vec![9..25]);
    let whole = compile_line_regex(r"sk_live_[a-z]+").unwrap();
    assert_eq!(
        secret_spans(&whole, true, b"key sk_live_abcdefgh end"),
        vec![4..20]
    );
    assert!(secret_spans(&whole, false, b"key sk_live_abcdefgh end").is_empty());
}

/// `{a,b}` alternatives expanded (the default globs do not nest them).
fn expand(glob: &str) -> Vec<String> {
    let Some(open) = glob.find('{') else {
        return vec![glob.to_string()];
    };
    let close = open + glob[open..].find('}').expect("a closed brace");
    glob[open + 1..close]
        .split(',')
        .flat_map(|alternative| {
            expand(&format!(
                "{}{alternative}{}",
                &glob[..open],
                &glob[close + 1..]
            ))
        })
        .collect()
}

/// Under CI (`CI` set, where this test ran for a minute on a loaded machine) one in
/// `CI_STRIDE` of a glob's alternatives, a different one for each glob (`seed`): every
/// glob is still instantiated, and across the rules every alternative of a shared list
/// (the code extensions) still is. Locally, all of them.
fn sampled(alternatives: Vec<String>, seed: usize) -> Vec<String> {
    const CI_STRIDE: usize = 4;
    if std::env::var_os("CI").is_none() || alternatives.len() < CI_STRIDE {
        return alternatives;
    }
    alternatives
        .into_iter()
        .enumerate()
        .filter(|(index, _)| index % CI_STRIDE == seed % CI_STRIDE)
        .map(|(_, alternative)| alternative)
        .collect()
}

/// Paths a glob matches, and near misses: each alternative instantiated, in three
/// cases, with a suffix, without the extension, the dot made an underscore …
fn paths_near(glob: &str, seed: usize) -> Vec<String> {
    let mut paths = Vec::new();
    for concrete in sampled(expand(glob), seed) {
        for (any_dirs, any_name) in [("src/", "Name"), ("", ""), ("a/B/", "x.y")] {
            let path = concrete
                .trim_start_matches('/')
                .replace("**/", any_dirs)
                .replace("/**", "/Main.py")
                .replace('*', any_name)
                .replace('?', "q");
            let path = path.strip_suffix('/').unwrap_or(&path).to_string();
            for path in [
                path.clone(),
                path.to_ascii_uppercase(),
                path.to_ascii_lowercase(),
                format!("{path}.orig"),
                format!("{path}/inner.py"),
                format!("x{path}"),
                path.replacen('.', "_", 1),
                path.rsplit_once('.')
                    .map_or(path.clone(), |(s, _)| s.to_string()),
            ] {
                paths.push(path);
            }
        }
    }
    paths
}

#[test]
fn rule_globs_agree_with_each_case_insensitive_glob_alone() {
    let policy = Policy::default();
    let matcher = Matcher::new(&policy).expect("the default rules compile");
    let mut path_globs: Vec<Vec<PolicyText>> = Vec::new();
    let mut file_globs: Vec<Vec<PolicyText>> = Vec::new();
    for rule in policy.triggers.iter().flat_map(|trigger| &trigger.rules) {
        match &rule.matches {
            RuleMatch::Paths { globs } => path_globs.push(globs.clone()),
            RuleMatch::Line { files, .. } => file_globs.push(files.clone()),
        }
    }
    let mut paths: Vec<String> = path_globs
        .iter()
        .chain(&file_globs)
        .flatten()
        .enumerate()
        .flat_map(|(seed, glob)| paths_near(glob, seed))
        .collect();
    paths.extend(["README", "a.b/c", ".env", "x.PY", "Dockerfile"].map(String::from));
    paths.sort();
    paths.dedup();
    let compile = |globs: &[Vec<PolicyText>]| -> Vec<Vec<globset::GlobMatcher>> {
        globs
            .iter()
            .map(|globs| {
                globs
                    .iter()
                    .map(|glob| {
                        compile(glob, Dialect::Rule, true)
                            .expect("compiles")
                            .compile_matcher()
                    })
                    .collect()
            })
            .collect()
    };
    let (path_matchers, file_matchers) = (compile(&path_globs), compile(&file_globs));
    // Each glob alone, on the path read once (as `GlobMatcher::is_match` reads it).
    let one_by_one = |globs: &[Vec<PolicyText>], path: &globset::Candidate| -> Vec<usize> {
        let matchers = match std::ptr::eq(globs, path_globs.as_slice()) {
            true => &path_matchers,
            false => &file_matchers,
        };
        (0..globs.len())
            .filter(|&rule| {
                matchers[rule]
                    .iter()
                    .any(|glob| glob.is_match_candidate(path))
            })
            .collect()
    };
    let mut checked = [0, 0];
    for path in &paths {
        let candidate = globset::Candidate::new(path);
        let expected = one_by_one(&path_globs, &candidate);
        checked[0] += usize::from(!expected.is_empty());
        assert_eq!(
            matcher.path_rules_for(path),
            expected,
            "path rules on {path}"
        );
        let mut applicable = vec![false; matcher.line_rules.len()];
        matcher.line_rules_for(path, &mut applicable);
        let restricted: Vec<usize> = one_by_one(&file_globs, &candidate)
            .into_iter()
            .filter(|&rule| !file_globs[rule].is_empty())
            .collect();
        checked[1] += usize::from(!restricted.is_empty());
        let found: Vec<usize> = (0..applicable.len())
            .filter(|&rule| applicable[rule] && !file_globs[rule].is_empty())
            .collect();
        assert_eq!(found, restricted, "file globs on {path}");
    }
    // Both sides see matches, not only misses.
    assert!(checked[0] > 500 && checked[1] > 200, "{checked:?}");
}

#[test]
fn every_default_line_rule_has_a_prefilter_its_examples_pass() {
    let policy = Policy::default();
    let mut without = Vec::new();
    for rule in policy.triggers.iter().flat_map(|trigger| &trigger.rules) {
        if let RuleMatch::Line { regex, .. } = &rule.matches {
            if regex_literals(regex).is_none() {
                without.push(rule.id.clone());
            }
        }
    }
    assert!(without.is_empty(), "no prefilter: {without:?}");
}

#[test]
fn a_rule_is_compiled_only_when_a_text_could_match_it() {
    let matcher = Matcher::new(&Policy::default()).expect("the default rules compile");
    let compiled = |matcher: &Matcher| {
        matcher
            .line_rules
            .iter()
            .filter(|rule| rule.regex.get().is_some())
            .count()
    };
    let open = vec![true; matcher.line_rules.len()];
    matcher.open_matches(LineSide::Added, b"fix a typo in the guide", &open, |_| {});
    assert_eq!(compiled(&matcher), 0);
    matcher.open_matches(LineSide::Added, b"x = os.getenv('X')", &open, |_| {});
    // The rules with `getenv`, `environ` or `env` among their literals.
    let after_env = compiled(&matcher);
    assert!(
        after_env >= 1 && after_env < matcher.line_rules.len() / 3,
        "{after_env}"
    );
    // `private` is a literal of the credential rules, but without `key` (or any
    // other word of theirs) no branch of theirs can match.
    matcher.open_matches(
        LineSide::Added,
        b"cargo doc --document-private-items",
        &open,
        |_| {},
    );
    assert_eq!(compiled(&matcher), after_env);
    // An excerpt compiles only the credential rules the line could match: none here,
    // and the one that redacts a token, which still cuts it.
    let excerpt = matcher.excerpt(b"x = os.getenv('X')");
    assert_eq!(
        (excerpt.as_str(), compiled(&matcher)),
        ("x = os.getenv('X')", after_env)
    );
    let token = b"token = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'";
    assert!(!matcher.excerpt(token).contains("4eC39HqLyjWDarjtT1zdp7dc"));
    assert!(compiled(&matcher) < matcher.line_rules.len() / 2);
    assert!(matcher.path_rules_for("docs/guide.md").is_empty());
    assert!(matcher.path_globs.compiled() < 5);
}

#[test]
fn a_rule_that_does_not_compile_never_fires_and_is_reported() {
    let mut policy = Policy::default();
    policy.triggers[0].rules.push(Rule::from_policy_file(
        "test-file.policy-1".to_string(),
        RuleMatch::Line {
            regex: "(unclosed".into(),
            files: Vec::new(),
        },
    ));
    policy.triggers[1].rules.push(Rule::from_policy_file(
        "api-route.policy-1".to_string(),
        RuleMatch::Paths {
            globs: vec!["src/[z-a]".into()],
        },
    ));
    let matcher = Matcher::new(&policy).expect("nothing is compiled yet");
    assert!(matcher.first_error().is_none());
    let open = vec![true; matcher.line_rules.len()];
    let mut fired = Vec::new();
    matcher.open_matches(LineSide::Added, b"(unclosed", &open, |rule| {
        fired.push(rule)
    });
    assert!(fired.is_empty());
    let error = matcher.first_error().expect("the broken regex is reported");
    assert_eq!(error.rule, "test-file.policy-1");
    assert!(matcher.path_rules_for("src/x").is_empty());
}

#[test]
fn the_built_in_lists_take_the_prefilters_built_ahead_equal_to_those_built_here() {
    let matcher = Matcher::new(&Policy::default()).expect("the defaults compile");
    let regexes = matcher.line_rules.iter().map(|rule| &*rule.source);
    Prefilter::assert_built_ahead(regexes, regex_literals);
    for globs in [&matcher.path_globs, &matcher.file_globs] {
        Prefilter::assert_built_ahead(globs.sources(), crate::pattern::rule_glob_literals);
    }
    // Any other list builds its own: one glob more, or one fewer.
    let globs = matcher.path_globs.sources();
    assert!(!Prefilter::is_built_ahead(
        globs.clone().chain(["x.secret"])
    ));
    assert!(!Prefilter::is_built_ahead(globs.clone().skip(1)));
    let mut policy = Policy::default();
    policy.triggers[1].rules.remove(0);
    let edited = Matcher::new(&policy).expect("compiles");
    assert!(!Prefilter::is_built_ahead(edited.path_globs.sources()));
}
