//! `handoff audit`: the library over thousands of generated records, and the real binary
//! over the example records in every format.

use crate::common::{example_registry, handoff_in, stdout_of, TestRepo};
use crate::generate;
use handoff::parse_document;
use handoff::Reference;
use handoff::{audit_documents, Audit as AuditReport};
use handoff::{Aliases, Registry};
use handoff::{Code, RoutingCode};
use std::collections::BTreeMap;
use std::path::Path;

/// `count` generated records, `per_file` to a file, audited against the example registry.
fn audit_generated(count: usize, per_file: usize) -> AuditReport {
    let documents: Vec<_> = generate::documents(count, per_file)
        .iter()
        .map(|(name, text)| parse_document(name, text))
        .collect();
    let mut registry =
        Registry::load(&example_registry("agents")).expect("the example registry loads");
    let aliases = Aliases::load(&example_registry("capability-aliases.yaml"))
        .expect("the example aliases load");
    registry.assign_departments(aliases.departments());
    audit_documents(
        &documents,
        Some(Reference {
            registry: &registry,
            aliases: &aliases,
        }),
    )
}

/// The real binary, run in the project's directory.
fn handoff_in_project() -> assert_cmd::Command {
    handoff_in(Path::new(env!("CARGO_MANIFEST_DIR")))
}

fn audit_cli(args: &[&str]) -> assert_cmd::assert::Assert {
    handoff_in_project().arg("audit").args(args).assert()
}

#[test]
fn thousands_of_generated_records_are_counted_exactly() {
    let cycles = 500;
    let count = cycles * generate::CYCLE;
    let report = audit_generated(count, 97);

    assert_eq!(report.records, count);
    assert_eq!(report.by_kind.get("routing-decision"), Some(&(5 * cycles)));
    assert_eq!(
        report.by_kind.get("interaction-record"),
        Some(&(3 * cycles))
    );
    assert_eq!(report.routing.compliant, cycles);
    assert_eq!(report.routing.non_compliant, 4 * cycles);
    assert_eq!(report.routing.unverified, 0);
    let mut by_kind: BTreeMap<Code, usize> = BTreeMap::new();
    for finding in &report.findings {
        *by_kind.entry(finding.finding.code).or_default() += 1;
    }
    for kind in RoutingCode::ALL.iter().map(|&code| Code::from(code)) {
        assert_eq!(by_kind.get(&kind), Some(&cycles), "{kind}");
    }
    assert_eq!(report.error_count(), 4 * cycles);
    assert_eq!(report.warning_count(), cycles);
    let escalation = &report.escalations[0];
    assert_eq!(
        (
            escalation.failure_type,
            escalation.total,
            escalation.decided
        ),
        ("wrong-capability", cycles, cycles)
    );
    assert_eq!(report.scope_expansions.approved, cycles);
    assert_eq!(report.reviews.get("approved"), Some(&cycles));
    let risk = report.tasks_by_risk;
    assert_eq!(
        (risk.low, risk.medium, risk.high, risk.unclassified),
        (cycles, cycles, cycles, 5 * cycles)
    );
    assert!(
        report.lint_failures.is_empty(),
        "{:?}",
        report.lint_failures.first()
    );
}

#[test]
fn the_findings_point_at_the_record_that_has_them() {
    let report = audit_generated(generate::CYCLE, 3);
    let located: Vec<(String, usize, &str)> = report
        .findings
        .iter()
        .map(|f| {
            let at = &f.finding;
            (
                at.source.clone().unwrap_or_default(),
                at.line.unwrap_or_default(),
                at.code.name(),
            )
        })
        .collect();
    // Records are joined by a blank line, three to a file.
    let first_line_of = |i: usize| {
        1 + (i - i % 3..i)
            .map(|j| generate::record(j).lines().count() + 1)
            .sum::<usize>()
    };
    assert_eq!(
        located[0],
        (
            "generated/000000.md".to_string(),
            first_line_of(1),
            "wrong-tie-break"
        )
    );
    assert_eq!(
        located[1],
        (
            "generated/000000.md".to_string(),
            first_line_of(2),
            "load-balancing-reason"
        )
    );
    assert_eq!(report.findings[0].task_id.as_deref(), Some("GEN-1"));
}

#[test]
fn without_a_registry_only_load_balancing_is_checked() {
    let documents: Vec<_> = generate::documents(generate::CYCLE, 8)
        .iter()
        .map(|(name, text)| parse_document(name, text))
        .collect();
    let report = audit_documents(&documents, None);
    let kinds: Vec<Code> = report.findings.iter().map(|f| f.finding.code).collect();
    assert_eq!(kinds, [RoutingCode::LoadBalancingReason.into()]);
    assert_eq!(report.routing.non_compliant, 1);
    assert_eq!(report.routing.unverified, 4);
}

#[test]
fn the_example_records_fail_with_every_finding_and_a_lint_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let bad = record_failing_lint(dir.path());
    let assert = audit_cli(&[
        "examples/registry/records",
        &bad,
        "--registry",
        "examples/registry",
    ])
    .code(1);
    let text = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    for expected in [
        "eng-043-backend.md:27: error[wrong-tie-break] ENG-043: the record says `qualifier-match` but `department-affinity` decides: it selects `fullstack-engineer`",
        "eng-044-api.md:1: error[load-balancing-reason] ENG-044",
        "eng-044-api.md:13: error[better-candidate] ENG-045: `security-engineer` covers oauth2 (1 of 1 requested qualifiers), more than the selected `backend-engineer` (0)",
        "eng-047-data.md:1: error[selected-lacks-domain] ENG-047",
        "eng-047-data.md:13: warning[candidates-differ] ENG-048",
        "bad.md:1:1: error[missing-field]: Interaction Record without `From`",
        "bad.md:8:16: error[invalid-value]",
        "tasks by risk class: low 1, medium 2, high 1, unclassified 3",
        "records failing lint: 1",
        "routing decisions: 2 compliant, 4 non-compliant, 0 unverified",
        "scope expansions: 1 approved, 1 rejected, 1 undecided",
        "escalations, wrong-capability: 1 (1 decided) -> Reroute to matching capability",
        "6 error(s), 2 warning(s)",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
}

#[test]
fn compliant_records_exit_0_and_json_is_the_documented_contract() {
    let assert = audit_cli(&[
        "examples/registry/records/eng-042-oauth.md",
        "--registry",
        "examples/registry",
        "--format",
        "json",
    ])
    .success();
    let value: serde_json::Value =
        serde_json::from_slice(&assert.get_output().stdout).expect("JSON output");
    assert_eq!(
        value["routing"],
        serde_json::json!({"compliant": 1, "non_compliant": 0, "unverified": 0})
    );
    assert_eq!(value["tasks_by_risk"]["high"], 1);
    assert_eq!(value["reviews"], serde_json::json!({"approved": 1}));
    assert_eq!(value["findings"], serde_json::json!([]));
    for key in [
        "records",
        "by_kind",
        "by_type",
        "escalations",
        "scope_expansions",
        "lint_failures",
    ] {
        assert!(value.get(key).is_some(), "missing {key}");
    }
}

#[test]
fn a_decision_written_by_route_passes_the_audit() {
    let output = handoff_in_project()
        .args([
            "route",
            "--registry",
            "examples/registry",
            "--capability",
            "backend: [node]",
        ])
        .args(["--requester", "frontend-engineer", "--task", "ENG-9"])
        .output()
        .expect("route runs");
    assert!(output.status.success());
    handoff_in_project()
        .args(["audit", "-", "--registry", "examples/registry"])
        .write_stdin(output.stdout)
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "routing decisions: 1 compliant, 0 non-compliant",
        ));
}

#[test]
fn the_html_page_is_self_contained_and_has_every_section() {
    let dir = tempfile::tempdir().expect("temp dir");
    let bad = record_failing_lint(dir.path());
    let args = [
        "examples/registry/records",
        &bad,
        "--registry",
        "examples/registry",
        "--format",
        "html",
    ];
    let assert = audit_cli(&args).code(1);
    let page = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    assert!(page.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"));
    assert_eq!(page.matches("<style>").count(), 1);
    assert_eq!(page.matches("<script>").count(), 1, "one inline script");
    for external in ["<script src", "<link", "src=", "href=\"http", "url("] {
        assert!(!page.contains(external), "{external} in the page");
    }
    let headings = elements(&page, "h2");
    assert_eq!(headings, ["Findings", "Tasks", "Timelines", "Summary"]);
    let titles = elements(&page, "h3");
    for title in [
        "Routing compliance (recorded decisions)",
        "Escalations by failure type (records)",
        "Tasks by risk class (records)",
        "Scope expansions (records)",
        "Records by kind",
        "Reviews by decision",
    ] {
        assert!(
            titles.iter().any(|t| t == title),
            "no {title} in {titles:?}"
        );
    }
    assert_balanced(&page);
    let cells = elements(&page, "td");
    assert!(
        cells.iter().any(|c| c.contains("wrong-tie-break")),
        "a findings row"
    );
    assert!(
        cells
            .iter()
            .any(|c| c.contains("wrong-capability → Reroute to matching capability")),
        "the escalation chart names the orchestrator's action"
    );
    // Errors come first, and a lint error links to its file and line.
    let severities: Vec<&String> = cells
        .iter()
        .filter(|c| *c == "error" || *c == "warning")
        .collect();
    let first_warning = severities.iter().position(|c| *c == "warning");
    let last_error = severities.iter().rposition(|c| *c == "error");
    assert!(first_warning.is_none_or(|w| last_error.is_none_or(|e| e < w)));
    let unescaped = page.replace("&#x2F;", "/");
    assert!(
        unescaped.contains(&format!("href=\"{bad}#L")),
        "a link to the record"
    );
    assert!(
        page.contains("No trail was read"),
        "without a trail, the page says so"
    );
}

#[test]
fn with_a_trail_the_page_shows_tasks_timelines_and_times() {
    // A repository holding the example records, with its trail in the default place:
    // the 004 chain, and the records imported.
    let repo = TestRepo::new();
    for entry in std::fs::read_dir(example_registry("records")).expect("the example records") {
        let path = entry.expect("an entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).expect("a name");
        let text = std::fs::read_to_string(&path).expect("a record");
        repo.write(&format!("records/{name}"), text);
    }
    let commit = repo.commit("records");
    let chain = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/trail/chain-004.jsonl");
    let chain = chain.to_str().expect("UTF-8");
    handoff_in(repo.path())
        .args(["trail", "append", chain])
        .assert()
        .success();
    // Records without a timestamp are skipped and named: exit 1.
    handoff_in(repo.path())
        .args(["trail", "import", "records"])
        .assert()
        .code(1);
    let registry = example_registry("");
    let registry = registry.to_str().expect("UTF-8");
    let assert = handoff_in(repo.path())
        .args([
            "audit",
            "records",
            "--registry",
            registry,
            "--format",
            "html",
        ])
        .assert()
        .code(1);
    let page = stdout_of(&assert);
    assert_balanced(&page);
    // The header: the commit, and the trail among the inputs.
    assert!(
        page.contains(&format!("commit <code>{}</code>", &commit[..12])),
        "the commit"
    );
    let meta = elements(&page, "p");
    assert!(
        meta.iter()
            .any(|p| p.starts_with("Inputs:") && p.contains("events")),
        "the trail among the inputs: {meta:?}"
    );
    // Tasks: one row per task with its status, risk, holder and handoff count.
    let rows = table_rows(&page, "tasks-table");
    let chain_row = rows
        .iter()
        .find(|r| r[0] == "TM-7")
        .expect("the 004 chain's task");
    assert_eq!(
        chain_row[1], "open",
        "ciso handed back to auto-code: {chain_row:?}"
    );
    assert_eq!(chain_row[3], "auto-code", "who holds it");
    assert_eq!(chain_row[4], "7", "its handoffs");
    let escalated = rows
        .iter()
        .find(|r| r[0] == "ENG-043")
        .expect("an imported task");
    assert_eq!(escalated[1], "done", "its escalation was approved");
    assert_eq!(escalated[2], "medium", "the record's risk class");
    // Timelines: an inline SVG per task, the failed handoff marked with its rollback.
    assert!(page.contains("aria-label=\"Timeline of task TM-7\""));
    assert!(page.contains("↩ rollback to auto-code"));
    // Summary: times to accept and to complete, and the per-agent chart.
    let summary = meta
        .iter()
        .find(|p| p.starts_with("Trail:"))
        .expect("the trail's summary");
    assert!(summary.contains("Time to accept: median"), "{summary}");
    assert!(summary.contains("Time to complete: median"), "{summary}");
    let titles = elements(&page, "h3");
    assert!(
        titles
            .iter()
            .any(|t| t.starts_with("Handoffs per receiving agent")),
        "{titles:?}"
    );
}

/// The cells of each row of the table `id`'s body, as text.
fn table_rows(page: &str, id: &str) -> Vec<Vec<String>> {
    let table = page
        .split(&format!("id=\"{id}\""))
        .nth(1)
        .and_then(|rest| rest.split("</table>").next())
        .expect("the table");
    let body = table.split("<tbody>").nth(1).unwrap_or(table);
    body.split("<tr")
        .skip(1)
        .map(|row| elements(row, "td"))
        .collect()
}

/// Writes a record that fails lint (no `From`, an unknown risk class); returns its path.
fn record_failing_lint(dir: &Path) -> String {
    let path = dir.join("bad.md");
    let record = "## Interaction Record\n\n| Field | Value |\n|---|---|\n| Task ID | ENG-049 |\n| Type | handoff |\n| To | qa-engineer |\n| Risk Class | extreme |\n";
    std::fs::write(&path, record).expect("write a record that fails lint");
    path.to_string_lossy().into_owned()
}

/// The text of every `<tag …>…</tag>` element, inner tags stripped.
fn elements(page: &str, tag: &str) -> Vec<String> {
    let open = format!("<{tag}");
    let close = format!("</{tag}>");
    page.split(open.as_str())
        .skip(1)
        .filter(|rest| rest.starts_with(['>', ' ']))
        .filter_map(|rest| rest.split_once('>').map(|(_, body)| body))
        .filter_map(|rest| rest.split(close.as_str()).next())
        .map(strip_tags)
        .collect()
}

fn strip_tags(html: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for ch in html.chars() {
        match ch {
            '<' => in_tag = true,
            '>' => in_tag = false,
            _ if !in_tag => text.push(ch),
            _ => {}
        }
    }
    text.trim().to_string()
}

/// Every element the page opens is closed, in order (void and self-closed elements
/// aside).
fn assert_balanced(page: &str) {
    let mut stack: Vec<String> = Vec::new();
    for tag in page
        .split('<')
        .skip(1)
        .filter_map(|rest| rest.split('>').next())
    {
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        let void = ["meta", "br", "hr", "img", "input"].contains(&name.as_str());
        if tag.starts_with('!') || void || tag.ends_with('/') {
            continue;
        }
        if tag.starts_with('/') {
            assert_eq!(
                stack.pop().as_deref(),
                Some(name.as_str()),
                "unbalanced </{name}>"
            );
        } else {
            stack.push(name);
        }
    }
    assert!(stack.is_empty(), "unclosed {stack:?}");
}
