//! Diagnostics: what went wrong, where, and how to fix it.
//!
//! Every problem `handoff` reports about a user's input is a [`Diagnostic`]: a stable
//! [`Code`], a [`Severity`], the file and the 1-based line and column it points at, a
//! message, and an optional hint that says how to repair it. Codes are an enum in the
//! manner of cargo-deny: each one carries its own description, an example of input that
//! triggers it, and the fix, so `handoff explain CODE` and any machine format (JSON,
//! SARIF) derive from one table instead of strings scattered through the code.
//!
//! Code names are a public contract: scripts match on them, so a code is never renamed
//! once shipped. New codes are added to the table in [`Code::ALL`].

use serde::Serialize;
use std::fmt;

/// How serious a diagnostic is. Errors make `lint` and `check` fail; warnings do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth fixing, but the input is usable as it is.
    Warning,
    /// The input is wrong: the command reports failure.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// The documentation of one diagnostic code, as `handoff explain` prints it.
#[derive(Debug, Clone, Copy)]
pub struct CodeInfo {
    /// The stable name, e.g. `missing-field`.
    pub name: &'static str,
    /// The severity the code is reported with.
    pub severity: Severity,
    /// One sentence: what the code means.
    pub summary: &'static str,
    /// A small input that triggers it.
    pub example: &'static str,
    /// How to repair the input.
    pub fix: &'static str,
}

/// Every diagnostic code `handoff` can report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    /// A record heading with no key/value table after it.
    MissingHeaderTable,
    /// A header-table row that is not `| key | value |`.
    MalformedRow,
    /// Prose on the line right after the header table, joining its paragraph.
    ProseJoinsTable,
    /// The same header key twice in one record.
    DuplicateField,
    /// A required header field is missing.
    MissingField,
    /// A header value outside its allowed values or form.
    InvalidValue,
    /// A timestamp that is not RFC 3339 with a zone.
    InvalidTimestamp,
    /// A template placeholder left unfilled.
    UnfilledPlaceholder,
    /// A Decision section still holding its placeholder.
    UnfilledDecision,
    /// A Decision whose first line is not a recognised decision.
    UnrecognizedDecision,
    /// An escalation without a failure type.
    MissingFailureType,
    /// An escalation failure type the seed does not define.
    InvalidFailureType,
    /// A review without an Evidence Bundle.
    MissingEvidenceBundle,
    /// A capability request without a readable `Capability needed:` line.
    MissingCapability,
    /// A capability request urgency other than blocking or non-blocking.
    InvalidUrgency,
    /// A scope expansion that names no file.
    MissingScopePaths,
    /// A section the seed does not define.
    UnknownSection,
    /// A tie-break rule the protocol does not define.
    UnrecognizedTieBreak,
    // `handoff check`: evidence, scope and sign-off.
    /// The task has no `review` or `handoff` record to take the Evidence Bundle from.
    NoEvidenceRecord,
    /// An Evidence Bundle item the risk class requires is absent.
    EvidenceMissing,
    /// An Evidence Bundle item is empty or still a placeholder (TBD, TODO, …, [template text]).
    EvidencePlaceholder,
    /// The `Files changed` item does not cover every changed file.
    FilesNotListed,
    /// The `Files changed` item lists a path that the change does not touch.
    FileListedUnchanged,
    /// The description is longer than three sentences.
    DescriptionTooLong,
    /// The test output is not mapped to acceptance criteria.
    TestsNotMapped,
    /// A declared acceptance criterion is mapped to no test.
    CriterionUnmapped,
    /// The before/after item does not say both what was before and what is after.
    BeforeAfterIncomplete,
    /// Migration notes say `none` although the change holds migrations, or do not name every migration file.
    MigrationNotesIncomplete,
    /// The rollback plan holds neither exact commands nor numbered steps.
    RollbackNotExact,
    /// A changed file is outside the task's declared file scope and no approved scope-expansion record names it.
    UndeclaredFile,
    /// A file-scope or scope-expansion pattern is not a valid glob.
    InvalidScopePattern,
    /// The task has no Task Assignment, so it has no declared file scope or author.
    MissingTaskAssignment,
    /// High-risk work has no approving `review` record from the required reviewer.
    MissingSignOff,
    /// The work was approved by its own author, which never counts.
    SelfSignOff,
    /// The work was approved by someone other than the reviewer its risk class requires.
    WrongReviewer,
    /// High-risk work has no available reviewer who is not its author: the task blocks.
    NoReviewerAvailable,
    /// The required reviewer's latest Decision rejects the work or requests changes.
    ReviewRefused,
    /// Review was waived by an explicit user instruction (\"ship it without review\").
    ReviewWaived,
    /// The change's risk is higher than the declared class; the higher class's evidence applies.
    RiskReclassified,

    // The findings of `handoff audit` on recorded Routing Decisions.
    /// The selected agent does not declare the requested domain.
    SelectedLacksDomain,
    /// Another candidate covers more requested qualifiers than the selected one.
    BetterCandidate,
    /// The recorded tie-break rule is not the rule that actually decided.
    WrongTieBreak,
    /// The decision relies on load-balancing, which the protocol excludes.
    LoadBalancingReason,
    /// The recorded matched or rejected agents differ from the registry's candidates.
    CandidatesDiffer,
}

impl Code {
    /// Every code, in the order `handoff explain --list` prints them.
    pub const ALL: &'static [Code] = &[
        Code::MissingHeaderTable,
        Code::MalformedRow,
        Code::ProseJoinsTable,
        Code::DuplicateField,
        Code::MissingField,
        Code::InvalidValue,
        Code::InvalidTimestamp,
        Code::UnfilledPlaceholder,
        Code::UnfilledDecision,
        Code::UnrecognizedDecision,
        Code::MissingFailureType,
        Code::InvalidFailureType,
        Code::MissingEvidenceBundle,
        Code::MissingCapability,
        Code::InvalidUrgency,
        Code::MissingScopePaths,
        Code::UnknownSection,
        Code::UnrecognizedTieBreak,
        Code::NoEvidenceRecord,
        Code::EvidenceMissing,
        Code::EvidencePlaceholder,
        Code::FilesNotListed,
        Code::FileListedUnchanged,
        Code::DescriptionTooLong,
        Code::TestsNotMapped,
        Code::CriterionUnmapped,
        Code::BeforeAfterIncomplete,
        Code::MigrationNotesIncomplete,
        Code::RollbackNotExact,
        Code::UndeclaredFile,
        Code::InvalidScopePattern,
        Code::MissingTaskAssignment,
        Code::MissingSignOff,
        Code::SelfSignOff,
        Code::WrongReviewer,
        Code::NoReviewerAvailable,
        Code::ReviewRefused,
        Code::ReviewWaived,
        Code::RiskReclassified,
        Code::SelectedLacksDomain,
        Code::BetterCandidate,
        Code::WrongTieBreak,
        Code::LoadBalancingReason,
        Code::CandidatesDiffer,
    ];

    /// The documentation of this code.
    pub fn info(self) -> CodeInfo {
        match self {
            Code::MissingHeaderTable => CodeInfo {
                name: "missing-header-table",
                severity: Severity::Error,
                summary: "A record heading is not followed by its key/value header table.",
                example: "## Interaction Record\n\nSome prose instead of the table.\n",
                fix: "Put the `| Field | Value |` table directly under the record heading.",
            },
            Code::MalformedRow => CodeInfo {
                name: "malformed-row",
                severity: Severity::Error,
                summary: "A row of the header table does not have exactly two cells, a key and a value.",
                example: "## Interaction Record\n| Task ID | ENG-042 |\n| Type | consultation | handoff |\n",
                fix: "Write one `| Key | Value |` row per field; escape a literal pipe in a value as `\\|`.",
            },
            Code::ProseJoinsTable => CodeInfo {
                name: "prose-joins-table",
                severity: Severity::Warning,
                summary: "Prose starts on the line right after the header table, so Markdown joins it to the table's paragraph; the table ends at the first line that is not a row and the rest becomes the text under the table.",
                example: "## Interaction Record\n| Task ID | ENG-042 |\n| Risk Class | medium |\nRules:\n",
                fix: "Put a blank line between the table and the prose (`handoff fmt` writes it).",
            },
            Code::DuplicateField => CodeInfo {
                name: "duplicate-field",
                severity: Severity::Error,
                summary: "A header key appears twice in one record (only `Rejected` rows may repeat).",
                example: "## Interaction Record\n| Task ID | ENG-042 |\n| Task ID | ENG-043 |\n",
                fix: "Keep one row per key; the first value is the one used.",
            },
            Code::MissingField => CodeInfo {
                name: "missing-field",
                severity: Severity::Error,
                summary: "A field the record kind requires is missing (Interaction Record: Task ID, Type, From, To; Task Assignment: Task ID, Assigned to, Expected file scope; Routing Decision: Task ID, Requested capability, Selected).",
                example: "## Interaction Record\n| Task ID | ENG-042 |\n| Type | consultation |\n",
                fix: "Add the missing `| Key | value |` row to the header table.",
            },
            Code::InvalidValue => CodeInfo {
                name: "invalid-value",
                severity: Severity::Error,
                summary: "A header value is not one of the allowed values (type, transport, risk class) or not in the expected form (a file-scope list, a capability, matched or rejected agents).",
                example: "## Interaction Record\n| Task ID | ENG-042 |\n| Type | chat |\n",
                fix: "Use one of the values the hint lists, or the form it shows (e.g. `auth: [oauth2, pkce]`).",
            },
            Code::InvalidTimestamp => CodeInfo {
                name: "invalid-timestamp",
                severity: Severity::Error,
                summary: "The Timestamp is not an RFC 3339 / ISO 8601 date and time with a zone.",
                example: "## Interaction Record\n| Timestamp | yesterday at noon |\n",
                fix: "Write it like `2026-01-11T20:30:00Z` (or `handoff new --timestamp now`).",
            },
            Code::UnfilledPlaceholder => CodeInfo {
                name: "unfilled-placeholder",
                severity: Severity::Error,
                summary: "A header value, a section or a labelled line still holds the template's placeholder (`[sender agent name]`, `<git rev-parse HEAD>`, TBD, TODO, ...).",
                example: "## Interaction Record\n| From | [sender agent name] |\n",
                fix: "Replace the placeholder with the real value, or remove the row or section.",
            },
            Code::UnfilledDecision => CodeInfo {
                name: "unfilled-decision",
                severity: Severity::Warning,
                summary: "The Decision section still holds its placeholder; that is expected when sending, and the receiver fills it.",
                example: "### Decision\n[Filled by the receiver: what was decided, rationale, next steps. Left blank when sending.]\n",
                fix: "The receiver writes the decision (`Approved`, `Rejected`, `Changes requested`, `Deferred`) and the rationale.",
            },
            Code::UnrecognizedDecision => CodeInfo {
                name: "unrecognized-decision",
                severity: Severity::Warning,
                summary: "The first line of the Decision section is not a recognised decision, so the decision counts as pending.",
                example: "### Decision\nLooks fine to me, mostly.\n",
                fix: "Start the Decision with `Approved`, `Rejected`, `Changes requested` or `Deferred`, then the rationale.",
            },
            Code::MissingFailureType => CodeInfo {
                name: "missing-failure-type",
                severity: Severity::Error,
                summary: "An escalation's Request has no `Failure Type:` line; the orchestrator cannot pick its action.",
                example: "## Interaction Record\n| Type | escalation |\n### Request\nI am stuck.\n",
                fix: "Add `Failure Type: <type>` to Request, one of the seed's failure types.",
            },
            Code::InvalidFailureType => CodeInfo {
                name: "invalid-failure-type",
                severity: Severity::Error,
                summary: "The `Failure Type:` line names a failure type the seed does not define.",
                example: "### Request\nFailure Type: bad-luck\n",
                fix: "Use wrong-capability, task-too-large, conflicting-requirements, environment-issue, insufficient-context or unknown.",
            },
            Code::MissingEvidenceBundle => CodeInfo {
                name: "missing-evidence-bundle",
                severity: Severity::Error,
                summary: "A review record has no Evidence Bundle section, or an empty one; the seed requires evidence matching the risk class.",
                example: "## Interaction Record\n| Type | review |\n### Context\nDone.\n",
                fix: "Add `### Evidence Bundle` with the items the risk class requires (`- **Files changed**: ...`).",
            },
            Code::MissingCapability => CodeInfo {
                name: "missing-capability",
                severity: Severity::Error,
                summary: "A capability-request record's Request has no `Capability needed:` line in the form `domain + [qualifiers]` or `domain: [qualifiers]`.",
                example: "## Interaction Record\n| Type | capability-request |\n### Request\nNeed help with colours.\n",
                fix: "Add `Capability needed: design-system + [tokens, dark-theme]` to Request.",
            },
            Code::InvalidUrgency => CodeInfo {
                name: "invalid-urgency",
                severity: Severity::Warning,
                summary: "The `Urgency:` line of a capability request is neither `blocking` nor `non-blocking`.",
                example: "### Request\nCapability needed: auth\nUrgency: soon\n",
                fix: "Write `Urgency: blocking` or `Urgency: non-blocking`.",
            },
            Code::MissingScopePaths => CodeInfo {
                name: "missing-scope-paths",
                severity: Severity::Error,
                summary: "A Request starting with `Scope expansion:` names no path, so no file can be approved by it.",
                example: "### Request\nScope expansion: need a few more files because reasons.\n",
                fix: "Name each file, e.g. `Scope expansion: need to also modify src/middleware/cors.ts because ...`.",
            },
            Code::UnknownSection => CodeInfo {
                name: "unknown-section",
                severity: Severity::Warning,
                summary: "A section title is not one of the seed's (Context, Request, Constraints, Evidence Bundle, Decision); it is kept, but tools ignore it.",
                example: "### My Proposal\n43 chars.\n",
                fix: "Nothing to do if it is intended; otherwise rename it to one of the seed's sections.",
            },
            Code::UnrecognizedTieBreak => CodeInfo {
                name: "unrecognized-tie-break",
                severity: Severity::Warning,
                summary: "The `Tie-break rule applied` names none of the protocol's rules, so it cannot be audited.",
                example: "## Routing Decision\n| Tie-break rule applied | fewer current assignments |\n",
                fix: "Use qualifier-match, department-affinity, documented-choice (say why in Reason) or none.",
            },
            // `handoff check`: evidence, scope and sign-off.
            Code::NoEvidenceRecord => CodeInfo {
                name: "no-evidence-record",
                severity: Severity::Error,
                summary: "The task has no `review` or `handoff` record to take the Evidence Bundle from.",
                example: "## Task Assignment\n| Task ID | ENG-1 |\n(and no Interaction Record of type review or handoff)\n",
                fix: "File a `review` record for the task (`handoff new review --task ID …`) with an `### Evidence Bundle` section.",
            },
            Code::EvidenceMissing => CodeInfo {
                name: "evidence-missing",
                severity: Severity::Error,
                summary: "An Evidence Bundle item the risk class requires is absent.",
                example: "### Evidence Bundle\n- **Files changed**: `src/a.rs`\n(a low-risk bundle without a Description)\n",
                fix: "Add the item as a labelled entry (`- **Description**: …` or a `#### Description` sub-heading); every item of the class is required.",
            },
            Code::EvidencePlaceholder => CodeInfo {
                name: "evidence-placeholder",
                severity: Severity::Error,
                summary: "An Evidence Bundle item is empty or still a placeholder (TBD, TODO, …, [template text]).",
                example: "- **Rollback plan**: TBD\n",
                fix: "Replace the placeholder with the real content.",
            },
            Code::FilesNotListed => CodeInfo {
                name: "files-not-listed",
                severity: Severity::Error,
                summary: "The `Files changed` item does not cover every changed file.",
                example: "- **Files changed**: `src/a.rs`\n(while the change also touches src/b.rs)\n",
                fix: "List every changed file, as its exact path, a directory prefix (`src/auth/`) or a glob (`tests/*.rs`).",
            },
            Code::FileListedUnchanged => CodeInfo {
                name: "file-listed-unchanged",
                severity: Severity::Warning,
                summary: "The `Files changed` item lists a path that the change does not touch.",
                example: "- **Files changed**: `src/a.rs`, `src/old.rs`\n(src/old.rs is unchanged)\n",
                fix: "Remove the path from the list, or check that the gate compares the right base and head.",
            },
            Code::DescriptionTooLong => CodeInfo {
                name: "description-too-long",
                severity: Severity::Error,
                summary: "The description is longer than three sentences.",
                example: "- **Description**: One. Two. Three. Four.\n",
                fix: "Say what changed in at most three sentences; put detail in Context.",
            },
            Code::TestsNotMapped => CodeInfo {
                name: "tests-not-mapped",
                severity: Severity::Error,
                summary: "The test output is not mapped to acceptance criteria.",
                example: "- **Test mapping**: all tests pass\n",
                fix: "Map each criterion to the test that verifies it: `AC1 → test_login`, a table row, or `- AC1: test_login`.",
            },
            Code::CriterionUnmapped => CodeInfo {
                name: "criterion-unmapped",
                severity: Severity::Error,
                summary: "A declared acceptance criterion is mapped to no test.",
                example: "### Acceptance Criteria\n- AC1: login works\n- AC2: logout works\n…\n- **Test mapping**: AC1 → test_login\n",
                fix: "Add a mapping line naming the criterion (by its ID, e.g. `AC2 → test_logout`, or by its text).",
            },
            Code::BeforeAfterIncomplete => CodeInfo {
                name: "before-after-incomplete",
                severity: Severity::Error,
                summary: "The before/after item does not say both what was before and what is after.",
                example: "- **Before/after**: login returns 401\n",
                fix: "Write both: `Before: … After: …`.",
            },
            Code::MigrationNotesIncomplete => CodeInfo {
                name: "migration-notes-incomplete",
                severity: Severity::Error,
                summary: "Migration notes say `none` although the change holds migrations, or do not name every migration file.",
                example: "- **Migrations**: none\n(while db/migrate/001_add_users.rb is added)\n",
                fix: "Name each migration file of the change and say what it does and whether it breaks anything.",
            },
            Code::RollbackNotExact => CodeInfo {
                name: "rollback-not-exact",
                severity: Severity::Error,
                summary: "The rollback plan holds neither exact commands nor numbered steps.",
                example: "- **Rollback plan**: just revert it\n",
                fix: "Give the exact commands in a code span or block (`git revert abc123`) or numbered steps.",
            },
            Code::UndeclaredFile => CodeInfo {
                name: "undeclared-file",
                severity: Severity::Error,
                summary: "A changed file is outside the task's declared file scope and no approved scope-expansion record names it.",
                example: "| Expected file scope | [src/auth/] |\n(while the change touches src/cors.ts)\n",
                fix: "Revert the file, or file a scope-expansion record with the command the gate prints and have the orchestrator approve it.",
            },
            Code::InvalidScopePattern => CodeInfo {
                name: "invalid-scope-pattern",
                severity: Severity::Error,
                summary: "A file-scope or scope-expansion pattern is not a valid glob.",
                example: "| Expected file scope | [src/[auth.ts] |\n",
                fix: "Close the bracket or escape it with a backslash (`src/\\[auth.ts`).",
            },
            Code::MissingTaskAssignment => CodeInfo {
                name: "missing-task-assignment",
                severity: Severity::Error,
                summary: "The task has no Task Assignment, so it has no declared file scope or author.",
                example: "(records for ENG-1, but no `## Task Assignment` with Task ID ENG-1)\n",
                fix: "Add the orchestrator's Task Assignment for the task (Task ID, Assigned to, Expected file scope, Risk Class).",
            },
            Code::MissingSignOff => CodeInfo {
                name: "missing-sign-off",
                severity: Severity::Error,
                summary: "High-risk work has no approving `review` record from the required reviewer.",
                example: "(a high-risk change with no review record whose Decision is approved)\n",
                fix: "Ask the required reviewer to fill the Decision of a `review` record for the task with `approved`.",
            },
            Code::SelfSignOff => CodeInfo {
                name: "self-sign-off",
                severity: Severity::Error,
                summary: "The work was approved by its own author, which never counts.",
                example: "| Assigned to | reality-checker |\n…\n### Decision\nApproved. Reviewer: reality-checker\n",
                fix: "Have the required reviewer (the backup reviewer when the usual one is the author) approve it.",
            },
            Code::WrongReviewer => CodeInfo {
                name: "wrong-reviewer",
                severity: Severity::Error,
                summary: "The work was approved by someone other than the reviewer its risk class requires.",
                example: "(a high-risk change approved by frontend-engineer)\n",
                fix: "Have the required reviewer (reality-checker, or security-engineer as backup) approve it.",
            },
            Code::NoReviewerAvailable => CodeInfo {
                name: "no-reviewer-available",
                severity: Severity::Error,
                summary: "High-risk work has no available reviewer who is not its author: the task blocks.",
                example: "(high risk, reality-checker and security-engineer both unavailable)\n",
                fix: "The orchestrator reports to the user; only an explicit user instruction (\"ship it without review\") waives review.",
            },
            Code::ReviewRefused => CodeInfo {
                name: "review-refused",
                severity: Severity::Error,
                summary: "The required reviewer's latest Decision rejects the work or requests changes.",
                example: "### Decision\nChanges requested: add a test for token expiry.\n",
                fix: "Address the review and have the reviewer approve it in a new `review` record.",
            },
            Code::ReviewWaived => CodeInfo {
                name: "review-waived",
                severity: Severity::Warning,
                summary: "Review was waived by an explicit user instruction (\"ship it without review\").",
                example: "## Interaction Record\n| From | user |\n…\nShip it without review.\n",
                fix: "Nothing to fix: the waiver is reported so that it stays visible.",
            },
            Code::RiskReclassified => CodeInfo {
                name: "risk-reclassified",
                severity: Severity::Warning,
                summary: "The change's risk is higher than the declared class; the higher class's evidence applies.",
                example: "| Risk Class | low |\n(while the change adds a database migration)\n",
                fix: "Supply the evidence of the computed class and document the reclassification in the Decision section.",
            },
            Code::SelectedLacksDomain => CodeInfo {
                name: "selected-lacks-domain",
                severity: Severity::Error,
                summary: "A Routing Decision selects an agent that does not declare the requested domain in the registry.",
                example: "| Requested capability | database: [postgresql] |\n| Selected | frontend-engineer |\n(frontend-engineer declares no `database` capability)\n",
                fix: "Route to an agent that declares the domain (`handoff route --registry R --capability ...`), or escalate: no agent has the capability.",
            },
            Code::BetterCandidate => CodeInfo {
                name: "better-candidate",
                severity: Severity::Error,
                summary: "Another candidate covers more of the requested qualifiers than the selected agent (rule 1, qualifier match, was not followed).",
                example: "| Requested capability | auth: [oauth2] |\n| Selected | backend-engineer |\n(security-engineer declares auth: [oauth2])\n",
                fix: "Select the agent whose qualifiers cover the most requested qualifiers; re-run `handoff route` to see the decision the rules make.",
            },
            Code::WrongTieBreak => CodeInfo {
                name: "wrong-tie-break",
                severity: Severity::Error,
                summary: "The recorded `Tie-break rule applied` is not the first rule that left exactly one agent.",
                example: "| Tie-break rule applied | qualifier-match |\n(two candidates cover the same qualifiers; department affinity decided)\n",
                fix: "Record the rule that actually decided: qualifier-match, department-affinity, documented-choice, or none for a single candidate.",
            },
            Code::LoadBalancingReason => CodeInfo {
                name: "load-balancing-reason",
                severity: Severity::Error,
                summary: "The decision relies on load-balancing (assignments, load, availability, round-robin), which the protocol excludes as non-auditable.",
                example: "| Reason | backend-engineer has fewer current assignments |\n",
                fix: "Decide by qualifier match, then department affinity, then a documented orchestrator choice; never by load.",
            },
            Code::CandidatesDiffer => CodeInfo {
                name: "candidates-differ",
                severity: Severity::Warning,
                summary: "The record's matched or rejected agents differ from the registry's candidates for the domain.",
                example: "| Matched agents | security-engineer (auth: [oauth2]) |\n(the registry also lists backend-engineer under auth)\n",
                fix: "List every candidate the registry has for the domain; if the registry changed since, note it in the Reason.",
            },
        }
    }

    /// The stable name of this code.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// Looks a code up by its name (case-insensitive).
    pub fn from_name(name: &str) -> Option<Code> {
        Code::ALL
            .iter()
            .copied()
            .find(|code| code.name().eq_ignore_ascii_case(name.trim()))
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// One problem found in a user's input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// The file it was found in (`-` for standard input).
    pub source: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub column: usize,
    /// Error or warning.
    pub severity: Severity,
    /// The stable code.
    pub code: Code,
    /// What is wrong, in one sentence.
    pub message: String,
    /// How to fix it (allowed values, the expected form), when there is more to say;
    /// `null` in JSON otherwise (keys are never missing).
    pub hint: Option<String>,
}

impl Diagnostic {
    /// A diagnostic with the code's own severity and no hint.
    pub fn new(
        code: Code,
        source: impl Into<String>,
        line: usize,
        column: usize,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            source: source.into(),
            line,
            column,
            severity: code.info().severity,
            code,
            message: message.into(),
            hint: None,
        }
    }

    /// Adds a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Whether this diagnostic is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_name_is_unique_and_round_trips() {
        let mut names: Vec<&str> = Code::ALL.iter().map(|code| code.name()).collect();
        for code in Code::ALL {
            assert_eq!(Code::from_name(code.name()), Some(*code));
            assert!(!code.info().summary.is_empty());
            assert!(!code.info().example.is_empty());
            assert!(!code.info().fix.is_empty());
        }
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len(), "duplicate code names");
    }
}
