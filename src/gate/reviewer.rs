//! Who must review a change, and whether they signed it off.
//!
//! The seed's "Reviewer" lines, per risk class:
//!
//! - **low**: no reviewer; the orchestrator accepts on evidence completeness alone.
//! - **medium**: `qa-engineer`; `reality-checker` when qa-engineer authored the work;
//!   the orchestrator when both are unavailable. Reported, not required as evidence.
//! - **high**: `reality-checker`; `security-engineer` when reality-checker authored the
//!   work or is unavailable. Never auto-approved: with no reviewer available the task
//!   blocks. The only waiver is an explicit user instruction ("ship it without review")
//!   in a record from `user`, and the waiver is reported.
//!
//! Nobody signs off their own work: an approval whose decider is one of the authors
//! (the Task Assignment's `Assigned to`, and the `From` of every record that carries an
//! Evidence Bundle) never counts, whatever role the author holds.
//!
//! The required reviewer's latest *decision* counts (approved, rejected, changes
//! requested, deferred; a pending or absent Decision decides nothing). "Latest" is by
//! `Timestamp` only: when the decisions disagree and a record has no valid timestamp, or
//! two that disagree share one, the order cannot be established and sign-off fails with
//! the records that need one. File names never order grants.

use crate::identity::same_agent;
use crate::policy::ReviewerPolicy;
use crate::policy::RiskClass;

/// The name records use for the orchestrator whatever the policy calls it.
const GENERIC_ORCHESTRATOR: &str = "orchestrator";

/// Role names and availability (from the policy file; defaults from the seed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Roles {
    /// The orchestrator's name; the generic `orchestrator` also counts.
    pub orchestrator: String,
    /// Medium-risk reviewers, in order of preference; the orchestrator comes last.
    pub medium: Vec<String>,
    /// High-risk reviewers, in order of preference; there is no fallback.
    pub high: Vec<String>,
    /// Agents that are unavailable to review.
    pub unavailable: Vec<String>,
    /// The name of the human user, whose explicit instruction can waive review.
    pub user: String,
}

/// The name records use for the human user.
const USER: &str = "user";

impl Roles {
    /// The roles the policy names (its defaults are the seed's).
    pub fn from_policy(policy: &ReviewerPolicy) -> Roles {
        Roles {
            orchestrator: policy.orchestrator.clone(),
            medium: policy.medium.clone(),
            high: policy.high.clone(),
            unavailable: policy.unavailable.clone(),
            user: USER.to_string(),
        }
    }
}

impl Roles {
    /// Whether `name` is the orchestrator: the policy's name for it, or the generic
    /// `orchestrator` (records often address it so). Nothing else, so an agent cannot
    /// become the orchestrator by its choice of name.
    pub fn is_orchestrator(&self, name: &str) -> bool {
        same_agent(name, &self.orchestrator) || same_agent(name, GENERIC_ORCHESTRATOR)
    }

    /// Whether `name` is the user.
    pub fn is_user(&self, name: &str) -> bool {
        same_agent(name, &self.user)
    }

    /// Whether `name` may accept work or approve a scope expansion: the orchestrator,
    /// a designated reviewer, or the user.
    pub fn may_approve(&self, name: &str) -> bool {
        self.is_orchestrator(name)
            || self.is_user(name)
            || self
                .medium
                .iter()
                .chain(&self.high)
                .any(|r| same_agent(r, name))
    }

    fn available(&self, name: &str, authors: &[String]) -> bool {
        let authored = authors.iter().any(|author| same_agent(author, name));
        !authored && !self.unavailable.iter().any(|u| same_agent(u, name))
    }
}

/// Who must sign off a change of a given class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Requirement {
    /// Low risk: no reviewer.
    NotRequired,
    /// This reviewer.
    Reviewer(String),
    /// High risk with every reviewer unavailable or the author: the task blocks.
    NoneAvailable,
}

impl Requirement {
    /// The required reviewer's name, if there is one.
    pub fn name(&self) -> Option<&str> {
        match self {
            Requirement::Reviewer(name) => Some(name),
            _ => None,
        }
    }
}

/// The reviewer a change of `class` by `authors` needs.
pub fn required_reviewer(class: RiskClass, authors: &[String], roles: &Roles) -> Requirement {
    match class {
        RiskClass::Low => Requirement::NotRequired,
        RiskClass::Medium => {
            let chosen = roles.medium.iter().find(|r| roles.available(r, authors));
            Requirement::Reviewer(chosen.unwrap_or(&roles.orchestrator).clone())
        }
        RiskClass::High => match roles.high.iter().find(|r| roles.available(r, authors)) {
            Some(name) => Requirement::Reviewer(name.clone()),
            None => Requirement::NoneAvailable,
        },
    }
}

/// The Decision of one `review` record of the task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewDecision {
    /// Who decided: the Decision's `Reviewer:` line, else the record's `To`.
    pub decided_by: String,
    /// Whether the Decision approves.
    pub approved: bool,
    /// The decision status in canonical form (`approved`, `rejected`, `pending`…).
    pub status: String,
    /// The file the record is in.
    pub source: String,
    /// The line of its heading.
    pub line: usize,
    /// Its `Timestamp` as nanoseconds since the epoch, when valid.
    pub timestamp: Option<i128>,
}

impl ReviewDecision {
    /// Whether the Decision decides anything (a pending or absent one does not).
    fn decides(&self) -> bool {
        !matches!(self.status.as_str(), "pending" | "absent")
    }
}

/// Why sign-off does not hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignOffProblem {
    /// No approving review by the required reviewer.
    Missing {
        /// The required reviewer.
        required: String,
    },
    /// The author approved their own work.
    SelfSignOff {
        /// The review.
        review: ReviewDecision,
    },
    /// Someone other than the required reviewer approved.
    WrongReviewer {
        /// The review.
        review: ReviewDecision,
        /// The required reviewer.
        required: String,
    },
    /// The required reviewer refused (and did not approve later).
    Refused {
        /// The review.
        review: ReviewDecision,
    },
    /// High risk and nobody can review.
    NoneAvailable,
    /// The required reviewer's decisions disagree and cannot be put in order.
    Unordered {
        /// The decisions that need a (distinct, valid) timestamp.
        reviews: Vec<ReviewDecision>,
    },
}

/// The reviewer part of the verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewerReport {
    /// Who must review.
    pub requirement: Requirement,
    /// Who signed off, when the required reviewer did.
    pub signed_off_by: Option<String>,
    /// Whether sign-off holds, or is not required for the class, or was waived.
    pub ok: bool,
    /// Whether the user waived review.
    pub waived: bool,
    /// What is wrong (empty when `ok`).
    pub problems: Vec<SignOffProblem>,
}

/// Everything the sign-off judgement needs.
pub struct SignOffInput<'a> {
    /// The computed risk class.
    pub class: RiskClass,
    /// The authors of the work (normalised names).
    pub authors: &'a [String],
    /// Role names and availability.
    pub roles: &'a Roles,
    /// The task's reviews, oldest first.
    pub reviews: &'a [ReviewDecision],
    /// Whether a record from the user says "ship it without review".
    pub waived: bool,
}

/// Judges sign-off. Only high risk requires it; for medium the required reviewer and
/// any sign-off are reported, and a refusal by that reviewer still rejects.
pub fn judge(input: &SignOffInput) -> ReviewerReport {
    let requirement = required_reviewer(input.class, input.authors, input.roles);
    let mut report = ReviewerReport {
        signed_off_by: None,
        ok: true,
        waived: false,
        problems: Vec::new(),
        requirement: requirement.clone(),
    };
    let Requirement::Reviewer(required) = &requirement else {
        if requirement == Requirement::NoneAvailable {
            demand(&mut report, input.waived, SignOffProblem::NoneAvailable);
        }
        return report;
    };
    let by_required: Vec<&ReviewDecision> = input
        .reviews
        .iter()
        .filter(|r| r.decides() && same_agent(&r.decided_by, required))
        .collect();
    let latest = match latest(&by_required) {
        Ok(latest) => latest,
        Err(reviews) => {
            report.ok = false;
            report.problems.push(SignOffProblem::Unordered { reviews });
            return report;
        }
    };
    match latest {
        Some(review) if review.approved => report.signed_off_by = Some(review.decided_by.clone()),
        Some(review) if is_refusal(&review.status) => {
            report.ok = false;
            report.problems.push(SignOffProblem::Refused {
                review: (*review).clone(),
            });
        }
        _ if input.class == RiskClass::High => {
            let problem = missing_sign_off(input, required);
            demand(&mut report, input.waived, problem);
        }
        _ => {}
    }
    report
}

/// The latest of some decisions by `Timestamp`: when they all say the same, any of
/// them; otherwise the one with the greatest timestamp, provided every one has a valid
/// timestamp and no decision that says otherwise shares the greatest. `Err` lists the
/// decisions whose order cannot be established.
fn latest<'r>(
    reviews: &[&'r ReviewDecision],
) -> Result<Option<&'r ReviewDecision>, Vec<ReviewDecision>> {
    let Some(first) = reviews.first() else {
        return Ok(None);
    };
    if reviews.iter().all(|r| r.status == first.status) {
        return Ok(reviews.last().copied());
    }
    let undated: Vec<ReviewDecision> = reviews
        .iter()
        .filter(|r| r.timestamp.is_none())
        .map(|r| (*r).clone())
        .collect();
    if !undated.is_empty() {
        return Err(undated);
    }
    let newest = reviews.iter().filter_map(|r| r.timestamp).max();
    let at_newest: Vec<&&ReviewDecision> =
        reviews.iter().filter(|r| r.timestamp == newest).collect();
    if at_newest.iter().any(|r| r.status != at_newest[0].status) {
        return Err(at_newest.into_iter().map(|r| (*r).clone()).collect());
    }
    Ok(at_newest.first().map(|r| **r))
}

/// Records a problem that only the user's waiver can lift.
fn demand(report: &mut ReviewerReport, waived: bool, problem: SignOffProblem) {
    if waived {
        report.waived = true;
    } else {
        report.ok = false;
        report.problems.push(problem);
    }
}

/// Explains a missing sign-off by the approvals that do exist and do not count.
fn missing_sign_off(input: &SignOffInput, required: &str) -> SignOffProblem {
    let Some(review) = input.reviews.iter().rev().find(|r| r.approved) else {
        return SignOffProblem::Missing {
            required: required.to_string(),
        };
    };
    let review = review.clone();
    if input
        .authors
        .iter()
        .any(|a| same_agent(a, &review.decided_by))
    {
        SignOffProblem::SelfSignOff { review }
    } else {
        SignOffProblem::WrongReviewer {
            review,
            required: required.to_string(),
        }
    }
}

fn is_refusal(status: &str) -> bool {
    matches!(status, "rejected" | "changes-requested")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Policy;

    fn roles() -> Roles {
        Roles::from_policy(&Policy::default().reviewers)
    }

    #[test]
    fn the_reviewer_follows_the_class_and_the_author() {
        let r = roles();
        let reviewer = |class, author: &str| {
            let authors: Vec<String> = [author]
                .into_iter()
                .filter(|a| !a.is_empty())
                .map(String::from)
                .collect();
            required_reviewer(class, &authors, &r)
        };
        assert_eq!(reviewer(RiskClass::Low, ""), Requirement::NotRequired);
        let qa = Requirement::Reviewer("qa-engineer".into());
        assert_eq!(reviewer(RiskClass::Medium, "backend-engineer"), qa);
        let rc = Requirement::Reviewer("reality-checker".into());
        assert_eq!(reviewer(RiskClass::Medium, "qa-engineer"), rc);
        assert_eq!(reviewer(RiskClass::High, "backend-engineer"), rc);
        let sec = Requirement::Reviewer("security-engineer".into());
        assert_eq!(reviewer(RiskClass::High, "Reality-Checker"), sec);
        let both = [
            "backend-engineer".to_string(),
            "reality-checker".to_string(),
        ];
        assert_eq!(required_reviewer(RiskClass::High, &both, &r), sec);
    }

    #[test]
    fn only_the_named_orchestrator_and_reviewers_may_approve() {
        let r = roles();
        assert!(r.may_approve("Enterprise-Orchestrator") && r.may_approve("orchestrator"));
        assert!(r.may_approve("qa-engineer") && r.may_approve("user"));
        assert!(!r.may_approve("fake-orchestrator") && !r.may_approve("backend-engineer"));
    }

    #[test]
    fn unavailable_reviewers_fall_back_and_high_risk_can_block() {
        let mut r = roles();
        r.unavailable = vec!["reality-checker".into(), "qa-engineer".into()];
        let orchestrator = Requirement::Reviewer("enterprise-orchestrator".into());
        assert_eq!(required_reviewer(RiskClass::Medium, &[], &r), orchestrator);
        let sec = Requirement::Reviewer("security-engineer".into());
        assert_eq!(required_reviewer(RiskClass::High, &[], &r), sec);
        assert_eq!(
            required_reviewer(RiskClass::High, &["security-engineer".to_string()], &r),
            Requirement::NoneAvailable
        );
    }

    fn review(by: &str, status: &str) -> ReviewDecision {
        ReviewDecision {
            decided_by: by.into(),
            approved: status == "approved",
            status: status.into(),
            source: "r.md".into(),
            line: 1,
            timestamp: None,
        }
    }

    fn judge_high(author: &str, reviews: &[ReviewDecision], waived: bool) -> ReviewerReport {
        judge(&SignOffInput {
            class: RiskClass::High,
            authors: &[author.to_string()],
            roles: &roles(),
            reviews,
            waived,
        })
    }

    #[test]
    fn high_risk_needs_the_required_reviewer() {
        let ok = judge_high(
            "backend-engineer",
            &[review("reality-checker", "approved")],
            false,
        );
        assert!(ok.ok);
        assert_eq!(ok.signed_off_by.as_deref(), Some("reality-checker"));
        let none = judge_high("backend-engineer", &[], false);
        assert!(!none.ok);
        assert!(matches!(none.problems[0], SignOffProblem::Missing { .. }));
    }

    #[test]
    fn nobody_signs_off_their_own_work() {
        let report = judge_high(
            "reality-checker",
            &[review("reality-checker", "approved")],
            false,
        );
        assert!(!report.ok);
        assert!(matches!(
            report.problems[0],
            SignOffProblem::SelfSignOff { .. }
        ));
        let backup = judge_high(
            "reality-checker",
            &[review("security-engineer", "approved")],
            false,
        );
        assert!(backup.ok, "{backup:?}");
    }

    #[test]
    fn a_peer_approval_or_a_later_refusal_does_not_count() {
        let peer = judge_high(
            "backend-engineer",
            &[review("frontend-engineer", "approved")],
            false,
        );
        assert!(matches!(
            peer.problems[0],
            SignOffProblem::WrongReviewer { .. }
        ));
        let mut reviews = [
            review("reality-checker", "approved"),
            review("reality-checker", "changes-requested"),
        ];
        let unordered = judge_high("backend-engineer", &reviews, false);
        assert!(matches!(
            unordered.problems[0],
            SignOffProblem::Unordered { .. }
        ));
        reviews[0].timestamp = Some(1);
        reviews[1].timestamp = Some(1);
        let tied = judge_high("backend-engineer", &reviews, false);
        assert!(matches!(tied.problems[0], SignOffProblem::Unordered { .. }));
        reviews[1].timestamp = Some(2);
        let refused = judge_high("backend-engineer", &reviews, false);
        assert!(!refused.ok);
        assert!(matches!(
            refused.problems[0],
            SignOffProblem::Refused { .. }
        ));
    }

    #[test]
    fn the_users_waiver_lifts_sign_off_and_is_reported() {
        let report = judge_high("backend-engineer", &[], true);
        assert!(report.ok && report.waived);
    }

    #[test]
    fn the_requirement_names_its_reviewer_only() {
        let reviewer = Requirement::Reviewer("reality-checker".into());
        assert_eq!(reviewer.name(), Some("reality-checker"));
        assert_eq!(Requirement::NotRequired.name(), None);
        assert_eq!(Requirement::NoneAvailable.name(), None);
    }

    #[test]
    fn with_nobody_to_review_high_risk_blocks_and_low_risk_needs_no_one() {
        let mut r = roles();
        r.unavailable = vec!["reality-checker".into()];
        let judged = |class| {
            judge(&SignOffInput {
                class,
                authors: &["security-engineer".to_string()],
                roles: &r,
                reviews: &[review("security-engineer", "approved")],
                waived: false,
            })
        };
        let blocked = judged(RiskClass::High);
        assert!(!blocked.ok);
        assert_eq!(blocked.problems, [SignOffProblem::NoneAvailable]);
        let low = judged(RiskClass::Low);
        assert!(low.ok && low.problems.is_empty(), "{low:?}");
    }

    #[test]
    fn a_pending_decision_decides_nothing_and_a_deferral_is_no_refusal() {
        let mut reviews = [
            review("reality-checker", "approved"),
            review("reality-checker", "pending"),
        ];
        reviews[0].timestamp = Some(1);
        reviews[1].timestamp = Some(2);
        let pending = judge_high("backend-engineer", &reviews, false);
        assert!(pending.ok, "{pending:?}");
        assert_eq!(pending.signed_off_by.as_deref(), Some("reality-checker"));
        let deferred = judge_high(
            "backend-engineer",
            &[review("reality-checker", "deferred")],
            false,
        );
        assert!(!deferred.ok);
        assert!(matches!(
            deferred.problems[..],
            [SignOffProblem::Missing { .. }]
        ));
    }

    #[test]
    fn medium_risk_reports_its_reviewer_without_requiring_sign_off() {
        let report = judge(&SignOffInput {
            class: RiskClass::Medium,
            authors: &["backend-engineer".to_string()],
            roles: &roles(),
            reviews: &[],
            waived: false,
        });
        assert!(report.ok && report.problems.is_empty(), "{report:?}");
        assert_eq!(report.requirement.name(), Some("qa-engineer"));
    }
}
