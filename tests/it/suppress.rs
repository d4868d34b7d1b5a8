//! Suppression beyond the policy's `allow` entries: `--baseline` (the SARIF log of an
//! earlier run) and the inline `handoff:allow` marker. Each counts only from the base
//! revision, each is reported, and each fails closed where a change could use it to let
//! itself through.

use crate::common::{handoff_in, json_output, stdout_in, TestRepo};
use serde_json::Value;

const BASELINE: &str = "ci/handoff-baseline.sarif";

/// `handoff classify --base main --head HEAD --format json` plus `extra`.
fn classify(repo: &TestRepo, extra: &[&str]) -> Value {
    let args = [
        &[
            "classify", "--base", "main", "--head", "HEAD", "--format", "json",
        ],
        extra,
    ]
    .concat();
    let (code, json) = json_output(repo.path(), &args);
    assert_eq!(code, Some(0), "{json:#}");
    json
}

/// The triggers of the classification's findings that count.
fn triggers(classification: &Value) -> Vec<String> {
    let findings = classification["findings"].as_array().cloned();
    let names = findings.unwrap_or_default().into_iter();
    names
        .filter_map(|f| f["trigger"].as_str().map(str::to_string))
        .collect()
}

/// The real binary run in `dir` with `args`: its exit code and standard output.
fn output_in(dir: &std::path::Path, args: &[&str]) -> (Option<i32>, String) {
    let output = handoff_in(dir).args(args).output().expect("run handoff");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    (output.status.code(), stdout)
}

/// A new branch `name` from `main` with `files` written (and `removed` deleted), committed.
fn branch(repo: &TestRepo, name: &str, files: &[(&str, &str)], removed: &[&str]) {
    repo.git(&["switch", "-q", "-c", name, "main"]);
    for (path, content) in files {
        repo.write(path, content);
    }
    for path in removed {
        repo.remove(path);
    }
    repo.commit(name);
}

/// A repository whose `main` holds a migration and the policy file, and a baseline: the
/// SARIF log `classify` wrote for the commit that added both (a migration finding and a
/// `policy` finding), committed on `main` as [`BASELINE`] when `commit_baseline`.
fn with_baseline(commit_baseline: bool) -> (TestRepo, String) {
    let (repo, _) = TestRepo::with_files(&[("README.md", "# app\n")]);
    repo.write("migrations/0001.sql", "CREATE TABLE a (id int);\n")
        .write(".handoff.yaml", "copies: false\n");
    repo.commit("migration and policy");
    let args = [
        "classify", "--base", "HEAD~1", "--head", "HEAD", "--format", "sarif",
    ];
    let sarif = stdout_in(repo.path(), &args);
    if commit_baseline {
        repo.write(BASELINE, &sarif);
        repo.commit("baseline");
    }
    (repo, sarif)
}

#[test]
fn a_baselined_finding_of_the_base_is_counted_apart_and_raises_nothing() {
    let (repo, _) = with_baseline(true);
    branch(
        &repo,
        "migration",
        &[("migrations/0001.sql", "CREATE TABLE a (id int, b int);\n")],
        &[],
    );
    assert_eq!(classify(&repo, &[])["risk"], "high");
    let classification = classify(&repo, &["--baseline", BASELINE]);
    assert_eq!(classification["risk"], "low", "{classification:#}");
    let suppressed = &classification["suppressed"][0];
    assert_eq!(suppressed["trigger"], "migration");
    assert_eq!(suppressed["by"], "baseline");
    let reason = suppressed["reason"].as_str().unwrap_or_default();
    assert!(reason.starts_with("in the baseline ci/handoff-baseline.sarif at base "));
    // The gate counts it on the Risk line and in its JSON.
    let args = [
        "check",
        "--base",
        "main",
        "--head",
        "HEAD",
        "--baseline",
        BASELINE,
    ];
    let human = stdout_in(repo.path(), &args);
    assert!(human.contains("0 finding(s), 1 baselined"), "{human}");
    let (_, verdict) = json_output(repo.path(), &[&args[..], &["--format", "json"]].concat());
    assert_eq!(verdict["risk"]["class"], "low", "{verdict:#}");
    assert_eq!(verdict["risk"]["suppressed"][0]["by"], "baseline");
    // SARIF marks it suppressed (external), with the baseline as the justification.
    let sarif = stdout_in(repo.path(), &[&args[..], &["--format", "sarif"]].concat());
    let log: Value = serde_json::from_str(&sarif).unwrap_or_default();
    let results = log["runs"][0]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let suppressed: Vec<&Value> = results
        .iter()
        .filter(|r| r.get("suppressions").is_some())
        .collect();
    assert_eq!(suppressed.len(), 1, "{log:#}");
    assert_eq!(suppressed[0]["suppressions"][0]["kind"], "external");
    // The gate's own files are never baselined, even when the baseline lists them.
    branch(&repo, "policy", &[(".handoff.yaml", "copies: true\n")], &[]);
    let classification = classify(&repo, &["--baseline", BASELINE]);
    assert_eq!(classification["risk"], "high", "{classification:#}");
    assert_eq!(triggers(&classification), ["policy"]);
}

#[test]
fn a_baseline_the_change_adds_or_edits_suppresses_nothing_and_is_high_risk() {
    // Added by the change: the base has no baseline, the change brings one.
    let (repo, sarif) = with_baseline(false);
    let migration = ("migrations/0001.sql", "CREATE TABLE a (id int, b int);\n");
    branch(&repo, "adds", &[migration, (BASELINE, &sarif)], &[]);
    let classification = classify(&repo, &["--baseline", BASELINE]);
    assert_eq!(classification["risk"], "high", "{classification:#}");
    assert!(classification.get("suppressed").is_none());
    assert_eq!(triggers(&classification), ["migration", "policy"]);
    // Edited by the change: the base's baseline lists nothing, the change fills it in.
    let empty = r#"{"version": "2.1.0", "runs": [{"results": []}]}"#;
    repo.git(&["switch", "-q", "main"]);
    repo.write(BASELINE, empty);
    repo.commit("empty baseline");
    branch(&repo, "edits", &[migration, (BASELINE, &sarif)], &[]);
    let classification = classify(&repo, &["--baseline", BASELINE]);
    assert_eq!(classification["risk"], "high", "{classification:#}");
    assert!(classification.get("suppressed").is_none());
    assert_eq!(triggers(&classification), ["migration", "policy"]);
    // What is not a SARIF log written by handoff cannot run (exit 2, the fix named).
    let output = handoff_in(repo.path())
        .args(["classify", "--base", "main", "--head", "HEAD"])
        .args(["--baseline", "README.md"])
        .output()
        .expect("run handoff");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("README.md at base"), "{stderr}");
    assert!(stderr.contains("--format sarif"), "{stderr}");
}

#[test]
fn lint_does_not_report_again_what_its_baseline_lists() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let record = "# Task\n\n## Task Assignment\n\n| Field | Value |\n|---|---|\n\
                  | Task ID | T-1 |\n| Risk Class | extreme |\n";
    std::fs::write(dir.path().join("old.md"), record).expect("write");
    let lint = |extra: &[&str]| output_in(dir.path(), &[&["lint", "."], extra].concat());
    let (code, sarif) = lint(&["--format", "sarif"]);
    assert_eq!(code, Some(1), "the old record has errors: {sarif}");
    let baseline = dir.path().join("lint-baseline.sarif");
    std::fs::write(&baseline, &sarif).expect("write");
    let baseline = baseline.to_string_lossy().into_owned();
    let (code, human) = lint(&["--baseline", &baseline]);
    assert_eq!(code, Some(0), "{human}");
    assert!(human.contains("no problems ("), "{human}");
    assert!(human.contains(" baselined)"), "{human}");
    // A new record with the same problems is reported: each entry covers one diagnostic.
    std::fs::write(dir.path().join("new.md"), record).expect("write");
    let (code, json) = lint(&["--baseline", &baseline, "--format", "json"]);
    assert_eq!(code, Some(1), "{json}");
    let json: Value = serde_json::from_str(&json).unwrap_or_default();
    let diagnostics = json["diagnostics"].as_array().cloned().unwrap_or_default();
    let baselined = json["baselined"].as_array().cloned().unwrap_or_default();
    assert!(!diagnostics.is_empty() && !baselined.is_empty(), "{json:#}");
    assert!(
        diagnostics.iter().all(|d| d["source"] == "./new.md"),
        "{json:#}"
    );
    assert!(
        baselined.iter().all(|d| d["source"] == "./old.md"),
        "{json:#}"
    );
}

#[test]
fn audit_does_not_report_again_what_its_baseline_lists() {
    let project = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let args = [
        "audit",
        "examples/registry/records",
        "--registry",
        "examples/registry",
    ];
    let run = |extra: &[&str]| output_in(project, &[&args[..], extra].concat());
    let (code, sarif) = run(&["--format", "sarif"]);
    assert_eq!(code, Some(1), "the examples have routing errors: {sarif}");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let baseline = dir.path().join("audit.sarif");
    std::fs::write(&baseline, &sarif).expect("write");
    let baseline = baseline.to_string_lossy().into_owned();
    let (code, human) = run(&["--baseline", &baseline]);
    assert_eq!(code, Some(0), "{human}");
    assert!(human.contains("0 error(s), 0 warning(s), "), "{human}");
    assert!(human.contains(" baselined ("), "{human}");
    let (_, json) = run(&["--baseline", &baseline, "--format", "json"]);
    let json: Value = serde_json::from_str(&json).unwrap_or_default();
    assert_eq!(json["findings"], Value::Array(Vec::new()), "{json:#}");
    let baselined = json["baselined"]["findings"].as_array().cloned();
    assert!(!baselined.unwrap_or_default().is_empty(), "{json:#}");
    // SARIF lists them as suppressed, and the log is a baseline again.
    let (code, again) = run(&["--baseline", &baseline, "--format", "sarif"]);
    assert_eq!(code, Some(0));
    let log: Value = serde_json::from_str(&again).unwrap_or_default();
    let results = log["runs"][0]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(!results.is_empty());
    assert!(
        results.iter().all(|r| r.get("suppressions").is_some()),
        "{log:#}"
    );
}

const MARKED: &str =
    "-- handoff:allow migration (seed data, reviewed)\nINSERT INTO t VALUES (1);\n";

/// A repository whose `main` holds a marked migration and the files the fail-closed
/// cases start from.
fn with_markers() -> TestRepo {
    let (repo, _) = TestRepo::with_files(&[
        ("README.md", "# app\n"),
        ("migrations/0001_seed.sql", MARKED),
        ("migrations/0002.sql", "CREATE TABLE b (id int);\n"),
        (
            "migrations/0003.sql",
            "-- handoff:allow auth\nCREATE TABLE c (id int);\n",
        ),
        (
            "app/settings.py",
            "# handoff:allow env-var, handoff:allow env-var.line.python\nDEBUG = False\n",
        ),
        (
            "notes/strings.py",
            "# handoff:allow auth\nTITLE = 'Sign in'\n",
        ),
        (".handoff.yaml", "# handoff:allow policy\ncopies: false\n"),
    ]);
    repo
}

#[test]
fn a_marker_of_the_base_covers_its_files_path_finding_of_the_trigger_it_names() {
    let repo = with_markers();
    let edited = format!("{MARKED}INSERT INTO t VALUES (2);\n");
    branch(&repo, "seed", &[("migrations/0001_seed.sql", &edited)], &[]);
    let classification = classify(&repo, &[]);
    assert_eq!(classification["risk"], "low", "{classification:#}");
    let suppressed = &classification["suppressed"][0];
    assert_eq!(suppressed["trigger"], "migration");
    assert_eq!(suppressed["by"], "marker");
    assert_eq!(
        suppressed["reason"],
        "`handoff:allow` at migrations/0001_seed.sql:1 in the base"
    );
    let args = [
        "check", "--base", "main", "--head", "HEAD", "--format", "sarif",
    ];
    let log: Value = serde_json::from_str(&stdout_in(repo.path(), &args)).unwrap_or_default();
    let results = log["runs"][0]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let marked = results.iter().find(|r| r.get("suppressions").is_some());
    assert_eq!(
        marked.map(|r| r["suppressions"][0]["kind"].clone()),
        Some(Value::from("inSource")),
        "{log:#}"
    );
}

#[test]
fn a_marker_of_the_base_counts_the_same_in_a_change_of_many_files() {
    // Enough files for the stream to read on two threads, which tell whether each base
    // holds a marker: the marked file is covered, an unmarked one still counts.
    let repo = with_markers();
    let edited = format!("{MARKED}INSERT INTO t VALUES (2);\n");
    let notes: Vec<(String, String)> = (0..80)
        .map(|i| (format!("notes/n{i:02}.txt"), format!("note {i}\n")))
        .collect();
    let mut files: Vec<(&str, &str)> = notes
        .iter()
        .map(|(path, text)| (path.as_str(), text.as_str()))
        .collect();
    files.push(("migrations/0001_seed.sql", &edited));
    files.push(("migrations/0002.sql", "CREATE TABLE b (id int, x int);\n"));
    branch(&repo, "many", &files, &[]);
    let classification = classify(&repo, &[]);
    let suppressed = &classification["suppressed"][0];
    assert_eq!(suppressed["by"], "marker", "{classification:#}");
    assert_eq!(
        suppressed["reason"],
        "`handoff:allow` at migrations/0001_seed.sql:1 in the base"
    );
    let findings = classification["findings"].as_array().cloned();
    let counted = findings.unwrap_or_default();
    assert!(
        counted
            .iter()
            .any(|f| f["trigger"] == "migration" && f["path"] == "migrations/0002.sql"),
        "{classification:#}"
    );
}

#[test]
fn a_marker_on_a_crlf_line_or_at_the_end_of_a_long_base_counts_on_one_thread_and_on_two() {
    // The stream tells whether each base holds a marker while it reads it: a marker on a
    // CRLF line, or a file's last bytes after 150 KB of lines, is seen whichever thread
    // reads the file, as when suppression reads the base itself.
    let lines = |value: usize| -> String {
        (0..5_000)
            .map(|i| format!("INSERT INTO t VALUES ({}, 'row');\r\n", i * value))
            .collect()
    };
    let crlf = format!("{}-- handoff:allow migration\r\n{}", lines(1), lines(1));
    let at_end = format!("{}-- handoff:allow migration", lines(1));
    let (repo, _) = TestRepo::with_files(&[
        ("README.md", "# app\n"),
        ("migrations/0001_crlf.sql", &crlf),
        ("migrations/0002_end.sql", &at_end),
    ]);
    // Each base's first line edited in place, so the markers keep their lines.
    let edit = |text: &str| text.replacen("(0, 'row')", "(0, 'edited')", 1);
    let (crlf_edited, end_edited) = (edit(&crlf), edit(&at_end));
    let notes: Vec<(String, String)> = (0..80)
        .map(|i| (format!("notes/n{i:02}.txt"), format!("note {i}\n")))
        .collect();
    for (name, many) in [("few", false), ("many", true)] {
        let mut files = vec![
            ("migrations/0001_crlf.sql", crlf_edited.as_str()),
            ("migrations/0002_end.sql", end_edited.as_str()),
        ];
        if many {
            files.extend(
                notes
                    .iter()
                    .map(|(path, text)| (path.as_str(), text.as_str())),
            );
        }
        branch(&repo, name, &files, &[]);
        let classification = classify(&repo, &[]);
        let reasons: Vec<&str> = classification["suppressed"]
            .as_array()
            .map(|all| all.iter().filter_map(|s| s["reason"].as_str()).collect())
            .unwrap_or_default();
        assert_eq!(
            reasons,
            [
                "`handoff:allow` at migrations/0001_crlf.sql:5001 in the base",
                "`handoff:allow` at migrations/0002_end.sql:5001 in the base",
            ],
            "{name}: {classification:#}"
        );
        assert!(!triggers(&classification).contains(&"migration".to_string()));
    }
}

/// A fail-closed case: its branch name, the files it writes and deletes, and the
/// triggers that must count.
type Case<'a> = (
    &'a str,
    &'a [(&'a str, &'a str)],
    &'a [&'a str],
    &'a [&'a str],
);

#[test]
fn a_marker_the_change_adds_moves_or_does_not_own_lets_nothing_through() {
    let repo = with_markers();
    let moved = "INSERT INTO t VALUES (1);\n-- handoff:allow migration (seed data, reviewed)\n";
    let cases: [Case; 7] = [
        // Added by the change, on the file it changes.
        (
            "added",
            &[("migrations/0002.sql", "-- handoff:allow migration\nCREATE TABLE b (id int, x int);\n")],
            &[],
            &["migration"],
        ),
        // The base's marker moved to another line by the change.
        ("moved", &[("migrations/0001_seed.sql", moved)], &[], &["migration"]),
        // A marker for another trigger.
        (
            "other-rule",
            &[("migrations/0003.sql", "-- handoff:allow auth\nCREATE TABLE c (id int, y int);\n")],
            &[],
            &["migration"],
        ),
        // A line finding: a marker never covers a changed line, whatever it names.
        (
            "line",
            &[("app/settings.py", "# handoff:allow env-var, handoff:allow env-var.line.python\nDEBUG = os.environ[\"DEBUG\"]\n")],
            &[],
            &["env-var"],
        ),
        // The gate's own files: never.
        (
            "policy",
            &[(".handoff.yaml", "# handoff:allow policy\ncopies: true\n")],
            &[],
            &["policy"],
        ),
        // A marked file renamed into a place its trigger watches.
        (
            "renamed",
            &[("app/auth/strings.py", "# handoff:allow auth\nTITLE = 'Sign in'\n")],
            &["notes/strings.py"],
            &["auth"],
        ),
        // The file deleted with its marker.
        ("deleted", &[], &["migrations/0001_seed.sql"], &["migration"]),
    ];
    for (name, files, removed, expected) in cases {
        branch(&repo, name, files, removed);
        let classification = classify(&repo, &[]);
        assert_eq!(
            triggers(&classification),
            expected,
            "{name}: {classification:#}"
        );
        assert!(classification.get("suppressed").is_none(), "{name}");
    }
    // In the pull request's description: not a file of the base, it covers nothing.
    branch(
        &repo,
        "description",
        &[("migrations/0002.sql", "CREATE TABLE b (id int, x int);\n")],
        &[],
    );
    let description = "Seed data only. handoff:allow migration\n";
    let output = handoff_in(repo.path())
        .args([
            "check", "--base", "main", "--head", "HEAD", "--format", "json",
        ])
        .args(["--records", "-"])
        .write_stdin(description)
        .output()
        .expect("run handoff");
    let verdict: Value = serde_json::from_slice(&output.stdout).unwrap_or_default();
    assert_eq!(verdict["risk"]["class"], "high", "{verdict:#}");
    assert!(verdict["risk"].get("suppressed").is_none(), "{verdict:#}");
}

/// A view module whose `main` marks one definition that auth's scope rules read.
const VIEWS: &str = "import os\n\n\ndef login_page(request):  # handoff:allow auth -- renders the form, no check\n    return render(\"form-a\")\n\n\ndef logout_view(request):\n    return redirect(\"/a\")\n";

/// The lines of a trigger's findings: `(line, by)` of each suppressed one, and the
/// line of each that counts.
type Lines = (Vec<(u64, String)>, Vec<u64>);

/// [`Lines`] of `trigger` in `classification`, counted lines in report order, each once.
fn auth_lines(classification: &Value, trigger: &str) -> Lines {
    let of = |key: &str| {
        let list = classification[key].as_array().cloned().unwrap_or_default();
        list.into_iter()
            .filter(move |f| f["trigger"] == trigger)
            .collect::<Vec<_>>()
    };
    let suppressed = of("suppressed")
        .iter()
        .map(|f| {
            let line = f["line"].as_u64().unwrap_or_default();
            (line, f["by"].as_str().unwrap_or_default().to_string())
        })
        .collect();
    // A line can count more than once (a definition's scope finding and the names on
    // it); each line is listed once.
    let mut counted: Vec<u64> = of("findings")
        .iter()
        .map(|f| f["line"].as_u64().unwrap_or_default())
        .collect();
    counted.dedup();
    (suppressed, counted)
}

#[test]
fn a_marker_on_a_definition_covers_the_scope_finding_on_that_line_only() {
    let (repo, _) = TestRepo::with_files(&[("README.md", "# app\n"), ("app/pages.py", VIEWS)]);
    let login_body = VIEWS.replace("form-a", "form-b");
    let both = login_body.replace("\"/a\"", "\"/b\"");
    let shifted = format!("import sys\n{login_body}");
    let cases: [(&str, &str, Lines); 3] = [
        // The marked definition's body: covered, on the marker's own line.
        (
            "body",
            &login_body,
            (vec![(4, "marker".to_string())], vec![]),
        ),
        // Both definitions: the unmarked one counts.
        ("both", &both, (vec![(4, "marker".to_string())], vec![8])),
        // A line added above: the marker's line is kept by the diff, one line lower
        // (the definition is read on each side: line 4 of the base, 5 of the head).
        (
            "shifted",
            &shifted,
            (
                vec![(4, "marker".to_string()), (5, "marker".to_string())],
                vec![],
            ),
        ),
    ];
    for (name, views, lines) in cases {
        branch(&repo, name, &[("app/pages.py", views)], &[]);
        let classification = classify(&repo, &[]);
        assert_eq!(
            auth_lines(&classification, "auth"),
            lines,
            "{name}: {classification:#}"
        );
        let expected = if name == "both" { "high" } else { "low" };
        assert_eq!(
            classification["risk"], expected,
            "{name}: {classification:#}"
        );
    }
    let reason = classify(&repo, &[])["suppressed"][0]["reason"].clone();
    assert_eq!(reason, "`handoff:allow` at app/pages.py:4 in the base");
}

#[test]
fn a_line_marker_the_change_writes_moves_or_puts_elsewhere_covers_nothing() {
    let unmarked = VIEWS.replace("  # handoff:allow auth -- renders the form, no check", "");
    let above = unmarked.replace("def login_page", "# handoff:allow auth\ndef login_page");
    let (repo, _) = TestRepo::with_files(&[
        ("README.md", "# app\n"),
        ("app/pages.py", VIEWS),
        ("app/forms.py", &above),
        ("app/plain.py", &unmarked),
    ]);
    let renamed = VIEWS
        .replace("login_page", "login_form")
        .replace("form-a", "form-b");
    let marks_logout = unmarked.replace(
        "def logout_view(request):",
        "def logout_view(request):  # handoff:allow auth",
    );
    let marked_and_edited = marks_logout.replace("\"/a\"", "\"/b\"");
    let cases: [(&str, &str, &str, Vec<u64>); 4] = [
        // The marker's own line edited by the change (the definition renamed).
        ("edited", "app/pages.py", &renamed, vec![4]),
        // A marker on the line above the definition.
        (
            "above",
            "app/forms.py",
            &above.replace("form-a", "form-b"),
            vec![5],
        ),
        // A marker the change adds, with a change to the body: raised where it is written.
        ("added", "app/plain.py", &marked_and_edited, vec![8]),
        // A marker alone, in a change that touches no other line: raised all the same.
        ("alone", "app/plain.py", &marks_logout, vec![8]),
    ];
    for (name, path, text, counted) in cases {
        branch(&repo, name, &[(path, text)], &[]);
        let classification = classify(&repo, &[]);
        assert_eq!(
            auth_lines(&classification, "auth"),
            (vec![], counted),
            "{name}: {classification:#}"
        );
        assert_eq!(classification["risk"], "high", "{name}: {classification:#}");
    }
}

#[test]
fn a_path_marker_written_in_a_comment_only_change_raises_its_trigger() {
    let (repo, _) = TestRepo::with_files(&[
        ("README.md", "# app\n"),
        ("migrations/0002.sql", "CREATE TABLE b (id int);\n"),
    ]);
    let marked = "-- handoff:allow migration\nCREATE TABLE b (id int);\n";
    branch(&repo, "mark", &[("migrations/0002.sql", marked)], &[]);
    let classification = classify(&repo, &[]);
    assert_eq!(
        triggers(&classification),
        ["migration"],
        "{classification:#}"
    );
    assert_eq!(classification["risk"], "high");
    // Without the marker, a comment is not a change to the migration.
    let comment = "-- reviewed\nCREATE TABLE b (id int);\n";
    branch(&repo, "comment", &[("migrations/0002.sql", comment)], &[]);
    assert_eq!(classify(&repo, &[])["risk"], "low");
}
