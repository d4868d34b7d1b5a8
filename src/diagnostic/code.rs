//! The diagnostic codes: one enumeration per area, and the umbrella [`Code`] over them.
//!
//! Each area's codes are declared once, with their stable names, by
//! [`crate::spelled::spelled_enum!`], which derives their iteration (`ALL`), parsing and
//! printing; [`Code::all`] chains the areas; each area lists its warnings (`WARNINGS`),
//! every other code is an error. What a code means, an example and the fix are data
//! ([`super::explain`]), so `handoff explain` and any machine format read one table.
//!
//! Code names are a public contract: scripts match on them, so a code is never renamed
//! once shipped.

use super::explain::{explanation, Explanation};
use super::Severity;
use crate::spelled::spelled_enum;
use std::fmt;

spelled_enum! {
    /// Problems in a record as written: structure, fields, values, sections (`lint`,
    /// `parse`, and the gate for the task's own record files).
    #[non_exhaustive]
    RecordCode {
        /// A record heading with no key/value table after it.
        MissingHeaderTable => "missing-header-table",
        /// A header-table row that is not `| key | value |`.
        MalformedRow => "malformed-row",
        /// Prose on the line right after the header table, joining its paragraph.
        ProseJoinsTable => "prose-joins-table",
        /// The same header key twice in one record.
        DuplicateField => "duplicate-field",
        /// A required header field is missing.
        MissingField => "missing-field",
        /// A header value outside its allowed values or form.
        InvalidValue => "invalid-value",
        /// A timestamp that is not RFC 3339 with a zone.
        InvalidTimestamp => "invalid-timestamp",
        /// A template placeholder left unfilled.
        UnfilledPlaceholder => "unfilled-placeholder",
        /// A Decision section still holding its placeholder.
        UnfilledDecision => "unfilled-decision",
        /// A Decision whose first line is not a recognised decision.
        UnrecognizedDecision => "unrecognized-decision",
        /// An escalation without a failure type.
        MissingFailureType => "missing-failure-type",
        /// An escalation failure type the seed does not define.
        InvalidFailureType => "invalid-failure-type",
        /// A review without an Evidence Bundle.
        MissingEvidenceBundle => "missing-evidence-bundle",
        /// A capability request without a readable `Capability needed:` line.
        MissingCapability => "missing-capability",
        /// A capability request urgency other than blocking or non-blocking.
        InvalidUrgency => "invalid-urgency",
        /// A scope expansion that names no file.
        MissingScopePaths => "missing-scope-paths",
        /// A section the seed does not define.
        UnknownSection => "unknown-section",
        /// A tie-break rule the protocol does not define.
        UnrecognizedTieBreak => "unrecognized-tie-break",
        /// A record holds the same section twice (two `### Decision`).
        DuplicateSection => "duplicate-section",
    }
}

spelled_enum! {
    /// What `handoff check` finds: evidence, scope, sign-off and the task's records.
    #[non_exhaustive]
    GateCode {
        /// The task has no `review` or `handoff` record to take the Evidence Bundle from.
        NoEvidenceRecord => "no-evidence-record",
        /// An Evidence Bundle item the risk class requires is absent.
        EvidenceMissing => "evidence-missing",
        /// An Evidence Bundle item is empty or still a placeholder.
        EvidencePlaceholder => "evidence-placeholder",
        /// The `Files changed` item does not cover every changed file.
        FilesNotListed => "files-not-listed",
        /// The `Files changed` item lists a path that the change does not touch.
        FileListedUnchanged => "file-listed-unchanged",
        /// The description is longer than three sentences.
        DescriptionTooLong => "description-too-long",
        /// The test output is not mapped to acceptance criteria.
        TestsNotMapped => "tests-not-mapped",
        /// A declared acceptance criterion is mapped to no test.
        CriterionUnmapped => "criterion-unmapped",
        /// The before/after item does not say both what was before and what is after.
        BeforeAfterIncomplete => "before-after-incomplete",
        /// Migration notes say `none` although the change holds migrations, or do not
        /// name every migration file.
        MigrationNotesIncomplete => "migration-notes-incomplete",
        /// The rollback plan holds neither exact commands nor numbered steps.
        RollbackNotExact => "rollback-not-exact",
        /// A changed file is outside the declared file scope with no approved expansion.
        UndeclaredFile => "undeclared-file",
        /// A file-scope or scope-expansion pattern is not a valid glob.
        InvalidScopePattern => "invalid-scope-pattern",
        /// The task has no Task Assignment, so no declared file scope or author.
        MissingTaskAssignment => "missing-task-assignment",
        /// High-risk work has no approving `review` record from the required reviewer.
        MissingSignOff => "missing-sign-off",
        /// The work was approved by its own author, which never counts.
        SelfSignOff => "self-sign-off",
        /// The work was approved by someone other than the required reviewer.
        WrongReviewer => "wrong-reviewer",
        /// High-risk work has no available reviewer who is not its author.
        NoReviewerAvailable => "no-reviewer-available",
        /// The required reviewer's latest Decision rejects the work or requests changes.
        ReviewRefused => "review-refused",
        /// Review was waived by an explicit user instruction.
        ReviewWaived => "review-waived",
        /// The change's risk is higher than the declared class.
        RiskReclassified => "risk-reclassified",
        /// A name the gate reads is not an agent name once normalised.
        InvalidAgentName => "invalid-agent-name",
        /// A head record or an input assigns a task the base already assigns.
        ReassignedTask => "reassigned-task",
        /// Task Assignments of equal authority for one task disagree.
        ConflictingAssignments => "conflicting-assignments",
        /// The change itself assigns the task it is judged by.
        TaskAssignedByChange => "task-assigned-by-change",
        /// A file-scope pattern matches every path.
        UnboundedScope => "unbounded-scope",
        /// A grant or an assignment in a `--records` input was ignored.
        UntrustedGrant => "untrusted-grant",
        /// A Decision the gate reads cannot be read as a plain status.
        UnreadableDecision => "unreadable-decision",
        /// The order of decisions that disagree cannot be established by timestamps.
        UnorderedRecords => "unordered-records",
        /// An input is larger than a documented cap.
        LimitExceeded => "limit-exceeded",
        /// The change has no Task Assignment, which the policy's `require_task` requires
        /// at its class.
        TaskRequired => "task-required",
        /// The change has no Task Assignment, not required at its class during the
        /// roll-out (`require_task`).
        NoTaskAssignment => "no-task-assignment",
        /// The change adopts the gate (adds the policy file and only the gate's setup).
        AdoptsGate => "adopts-gate",
    }
}

spelled_enum! {
    /// What `handoff audit` finds in a recorded Routing Decision.
    #[non_exhaustive]
    RoutingCode {
        /// The selected agent does not declare the requested domain.
        SelectedLacksDomain => "selected-lacks-domain",
        /// Another candidate covers more requested qualifiers than the selected one.
        BetterCandidate => "better-candidate",
        /// The recorded tie-break rule is not the rule that actually decided.
        WrongTieBreak => "wrong-tie-break",
        /// The decision relies on load-balancing, which the protocol excludes.
        LoadBalancingReason => "load-balancing-reason",
        /// The recorded matched or rejected agents differ from the registry's candidates.
        CandidatesDiffer => "candidates-differ",
    }
}

spelled_enum! {
    /// What `handoff contract check` finds in an `agent_contract_handoff` block, spelled
    /// as CONTRACT.md spells its codes.
    #[non_exhaustive]
    ContractCode {
        /// `agent_status` is not an object.
        AgentStatus => "AGENT_STATUS",
        /// `agent_status.plan_status` is empty or not one of the five statuses.
        PlanStatus => "PLAN_STATUS",
        /// `agent_status.pending_steps` is absent.
        PendingSteps => "PENDING_STEPS",
        /// `agent_status.next_action` is absent.
        NextAction => "NEXT_ACTION",
        /// `agent_status.agent_id` is absent.
        AgentId => "AGENT_ID",
        /// A canonical status without an `evidence_report` object.
        EvidenceReport => "EVIDENCE_REPORT",
        /// `evidence_report.patterns_checked` is absent.
        PatternsChecked => "PATTERNS_CHECKED",
        /// `evidence_report.files_checked` is absent.
        FilesChecked => "FILES_CHECKED",
        /// `evidence_report.commands_run` is absent.
        CommandsRun => "COMMANDS_RUN",
        /// `evidence_report.key_outputs` is absent.
        KeyOutputs => "KEY_OUTPUTS",
        /// `evidence_report.verbatim_outputs` is absent.
        VerbatimOutputs => "VERBATIM_OUTPUTS",
        /// `evidence_report.cross_layer_impacts` is absent.
        CrossLayerImpacts => "CROSS_LAYER_IMPACTS",
        /// `evidence_report.open_gaps` is absent, or the consolidation's list is empty.
        OpenGaps => "OPEN_GAPS",
        /// A task that needs consolidation has no `consolidation_report`.
        ConsolidationReport => "CONSOLIDATION_REPORT",
        /// `consolidation_report.ownership_assessment` is empty or not an allowed value.
        OwnershipAssessment => "OWNERSHIP_ASSESSMENT",
        /// `consolidation_report.confirmed_findings` is empty.
        ConfirmedFindings => "CONFIRMED_FINDINGS",
        /// `consolidation_report.suspected_findings` is empty.
        SuspectedFindings => "SUSPECTED_FINDINGS",
        /// `consolidation_report.conflicts` is empty.
        Conflicts => "CONFLICTS",
        /// `consolidation_report.next_best_agent` is empty.
        NextBestAgent => "NEXT_BEST_AGENT",
        /// An `approval_request` without a rollback.
        ApprovalRequestRollback => "APPROVAL_REQUEST_ROLLBACK",
        /// An `approval_request` without a verification.
        ApprovalRequestVerification => "APPROVAL_REQUEST_VERIFICATION",
        /// An `approval_request` field that only warns is empty.
        ApprovalRequestFieldMissing => "APPROVAL_REQUEST_FIELD_MISSING",
        /// An `approval_request.risk_level` outside LOW, MEDIUM, HIGH, CRITICAL.
        ApprovalRequestInvalidRiskLevel => "APPROVAL_REQUEST_INVALID_RISK_LEVEL",
        /// A COMPLETE without a verification object.
        VerificationResultRequiredForComplete => "VERIFICATION_RESULT_REQUIRED_FOR_COMPLETE",
        /// A COMPLETE whose verification result is not `pass`.
        VerificationResultMustBePass => "VERIFICATION_RESULT_MUST_BE_PASS",
        /// A COMPLETE whose own `loop_state` says the loop is unfinished.
        LoopStateIncomplete => "LOOP_STATE_INCOMPLETE",
    }
}

impl RecordCode {
    /// The record codes reported as warnings: the input is usable as it is.
    pub const WARNINGS: &'static [RecordCode] = &[
        RecordCode::ProseJoinsTable,
        RecordCode::UnfilledDecision,
        RecordCode::UnrecognizedDecision,
        RecordCode::InvalidUrgency,
        RecordCode::UnknownSection,
        RecordCode::UnrecognizedTieBreak,
    ];
}

impl GateCode {
    /// The gate codes reported as warnings: they do not reject the change.
    pub const WARNINGS: &'static [GateCode] = &[
        GateCode::FileListedUnchanged,
        GateCode::ReviewWaived,
        GateCode::RiskReclassified,
        GateCode::TaskAssignedByChange,
        GateCode::UntrustedGrant,
        GateCode::NoTaskAssignment,
        GateCode::AdoptsGate,
    ];
}

impl RoutingCode {
    /// The routing codes reported as warnings (the registry may have changed since).
    pub const WARNINGS: &'static [RoutingCode] = &[RoutingCode::CandidatesDiffer];
}

impl ContractCode {
    /// The contract codes reported as warnings (CONTRACT.md's `warnings` list).
    pub const WARNINGS: &'static [ContractCode] = &[
        ContractCode::ApprovalRequestFieldMissing,
        ContractCode::ApprovalRequestInvalidRiskLevel,
    ];
}

spelled_enum! {
    /// Handoff messages (`message check`) and the trail (`trail verify`).
    #[non_exhaustive]
    TrailCode {
        /// The message does not match its kind's JSON Schema.
        Schema => "schema",
        /// The document is neither JSON, JSON lines nor YAML.
        NotJson => "not-json",
        /// An object that is none of the message kinds.
        UnknownKind => "unknown-kind",
        /// A document with no message.
        Empty => "empty-document",
        /// A delegation without a return timeout (002 §2.2).
        DelegationTimeout => "delegation-timeout",
        /// An escalation without a decision rationale (002 §2.4).
        EscalationRationale => "escalation-rationale",
        /// An escalation deeper than 3.
        EscalationDepth => "escalation-depth",
        /// A broadcast without its broadcast group.
        BroadcastGroup => "broadcast-group",
        /// A timestamp that is not ISO 8601 in UTC.
        NotUtc => "not-utc",
        /// A timeout that is not a duration.
        BadDuration => "bad-duration",
        /// An integer beyond ±(2^53 − 1), which JCS libraries hash differently.
        NumberRange => "number-range",
        /// A 004 handoff with neither a task nor a workflow id.
        MissingTask => "missing-task",
        /// A handoff id with white space or control characters.
        BadId => "bad-id",
        /// An id that is a UUID of another version than 4.
        NotUuidV4 => "not-uuid-v4",
        /// A 004 handoff filed under its workflow id for want of a task id.
        TaskFromWorkflow => "task-from-workflow",
        /// `on_timeout` without a timeout.
        TimeoutMissing => "timeout-missing",
        /// An event whose content does not hash to its `hash`.
        Edited => "edited",
        /// An event whose `prev` is not the hash of the event before.
        ChainBroken => "chain-broken",
        /// Events missing from the chain.
        Deleted => "deleted",
        /// Events out of `seq` order, or one twice.
        Reordered => "reordered",
        /// Events cut off the end (`HEAD` is ahead of the chain).
        Truncated => "truncated",
        /// A last line without its newline: an interrupted write.
        Torn => "torn",
        /// A line that is not an audit event.
        Malformed => "malformed",
        /// An event in another day's segment than its `recorded_at`.
        WrongSegment => "wrong-segment",
        /// `HEAD` missing, or naming a hash that is not the chain's.
        Head => "head",
        /// `ANCHOR` cannot be read.
        Anchor => "anchor",
        /// An event that is not a legal next step of its handoff.
        IllegalTransition => "illegal-transition",
        /// An event for a handoff never initiated.
        UnknownHandoff => "unknown-handoff",
        /// An event naming other agents, type or attempt than its handoff.
        HandoffMismatch => "handoff-mismatch",
        /// A fourth attempt.
        RetryLimit => "retry-limit",
        /// A fourth re-route of a rejected handoff.
        RerouteLimit => "reroute-limit",
    }
}

/// Every diagnostic code `handoff` can report, by area. Areas and codes are added over
/// time, so a `match` outside this crate needs a wildcard arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Code {
    /// A record as written.
    Record(RecordCode),
    /// The pull-request gate.
    Gate(GateCode),
    /// A recorded routing decision.
    Routing(RoutingCode),
    /// An agent's contract block.
    Contract(ContractCode),
    /// A handoff message or the trail.
    Trail(TrailCode),
}

impl Code {
    /// Every code, area by area, in the order `handoff explain` lists them.
    pub fn all() -> impl Iterator<Item = Code> {
        let record = RecordCode::ALL.iter().copied().map(Code::Record);
        let gate = GateCode::ALL.iter().copied().map(Code::Gate);
        let routing = RoutingCode::ALL.iter().copied().map(Code::Routing);
        let contract = ContractCode::ALL.iter().copied().map(Code::Contract);
        let trail = TrailCode::ALL.iter().copied().map(Code::Trail);
        record
            .chain(gate)
            .chain(routing)
            .chain(contract)
            .chain(trail)
    }

    /// The stable name, e.g. `missing-field`.
    pub fn name(self) -> &'static str {
        match self {
            Code::Record(code) => code.as_str(),
            Code::Gate(code) => code.as_str(),
            Code::Routing(code) => code.as_str(),
            Code::Contract(code) => code.as_str(),
            Code::Trail(code) => code.as_str(),
        }
    }

    /// Looks a code up by its name (case-insensitive).
    pub fn from_name(name: &str) -> Option<Code> {
        let wanted = name.trim();
        Code::all().find(|code| code.name().eq_ignore_ascii_case(wanted))
    }

    /// What the code means, its severity, an example and the fix.
    pub fn explanation(self) -> &'static Explanation {
        explanation(self.name())
    }

    /// The severity the code is reported with: a warning when its area lists it in
    /// `WARNINGS`, else an error (a new code fails closed until it is listed).
    pub fn severity(self) -> Severity {
        let warning = match self {
            Code::Record(code) => RecordCode::WARNINGS.contains(&code),
            Code::Gate(code) => GateCode::WARNINGS.contains(&code),
            Code::Routing(code) => RoutingCode::WARNINGS.contains(&code),
            Code::Contract(code) => ContractCode::WARNINGS.contains(&code),
            Code::Trail(code) => TrailCode::WARNINGS.contains(&code),
        };
        if warning {
            Severity::Warning
        } else {
            Severity::Error
        }
    }
}

impl From<RecordCode> for Code {
    fn from(code: RecordCode) -> Code {
        Code::Record(code)
    }
}

impl From<GateCode> for Code {
    fn from(code: GateCode) -> Code {
        Code::Gate(code)
    }
}

impl From<RoutingCode> for Code {
    fn from(code: RoutingCode) -> Code {
        Code::Routing(code)
    }
}

impl From<TrailCode> for Code {
    fn from(code: TrailCode) -> Code {
        Code::Trail(code)
    }
}

impl TrailCode {
    /// The message codes reported as warnings: the message is usable as it is.
    pub const WARNINGS: &'static [TrailCode] = &[
        TrailCode::NotUuidV4,
        TrailCode::TaskFromWorkflow,
        TrailCode::TimeoutMissing,
    ];

    /// The severity it is reported with.
    pub fn severity(self) -> Severity {
        Code::Trail(self).severity()
    }
}

impl From<ContractCode> for Code {
    fn from(code: ContractCode) -> Code {
        Code::Contract(code)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl serde::Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}
