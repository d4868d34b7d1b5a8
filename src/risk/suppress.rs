//! Which findings of a change do not count, and why (see [`crate::suppress`]).
//!
//! A finding is suppressed, in this order, by an `allow` entry of the policy, by a
//! `handoff:allow` marker, or by the baseline; everything here is read from the base, so
//! a change cannot suppress its own findings. The `policy` and `file-count` triggers are
//! never suppressed.
//!
//! A marker counts only where the change leaves it alone: in the base revision of a file
//! the change modifies in place (not one it adds, deletes, renames or copies), on a line
//! the diff keeps (a marker the change adds, edits, removes or moves never counts). What
//! it covers depends on the finding:
//!
//! - A **path finding** of the trigger it names (by the trigger's name: a path finding
//!   stands for the whole trigger on the file), when the marker's line is also at the
//!   same line number in the head (write it at the top).
//! - A **line finding** on the marker's own line, of the trigger or the rule id it names.
//!   A line rule fires on a line the change writes, where no base marker stands, so in
//!   practice this is a scope rule's finding: the definition around a changed line
//!   (`def login_page():  # handoff:allow auth`). The classifier reports each definition
//!   a scope rule fires on, so a marker on one covers that one and no other: a finding
//!   with one unmarked line stays.
//!
//! Either way the change that wrote the marker was itself judged at the trigger's class:
//! the classifier raises the trigger a marker names on the line the change writes it on,
//! where it could cover something (see `classify`).

use super::finding::{Finding, Suppressed};
use crate::git::{diff_lines, ChangeStatus, ChangedFile, GitError, Head, LineSide, Repo, RepoPath};
use crate::policy::Policy;
use crate::suppress::{fingerprint, marker_rules, Baseline, SuppressedBy, MARKER};
use std::collections::{HashMap, HashSet};

impl Finding {
    /// The finding's message in reports: its trigger, class and rule.
    pub fn message(&self) -> String {
        format!(
            "{} → {} risk (policy rule {}; `handoff classify` says why)",
            self.trigger, self.class, self.rule
        )
    }

    /// Its stable fingerprint (rule, file, message), as SARIF and baselines carry it.
    pub fn fingerprint(&self) -> String {
        let path = self.path.as_ref().map(|path| path.to_string_lossy());
        fingerprint(&self.rule, path.as_deref(), &self.message())
    }
}

/// A marker of the base that the change leaves alone.
struct Marker {
    /// Its line in the base, and in the head.
    base_line: usize,
    head_line: usize,
    /// The rule ids and trigger names it names.
    rules: Vec<String>,
}

/// Decides, finding by finding, what suppresses it.
pub(crate) struct Suppressor<'a> {
    repo: &'a Repo,
    base: &'a Head,
    head: &'a Head,
    policy: &'a Policy,
    /// The files the change modifies in place: the only ones whose markers count.
    modified: Vec<&'a RepoPath>,
    baseline: Option<Baseline>,
    markers: HashMap<RepoPath, Vec<Marker>>,
    /// Files whose base is known to hold no marker (not read again).
    unmarked: HashSet<RepoPath>,
}

impl<'a> Suppressor<'a> {
    pub(crate) fn new(
        repo: &'a Repo,
        (base, head): (&'a Head, &'a Head),
        policy: &'a Policy,
        files: &'a [ChangedFile],
    ) -> Suppressor<'a> {
        let modified = files
            .iter()
            .filter(|file| file.status == ChangeStatus::Modified && !file.submodule)
            .map(|file| &file.path)
            .collect();
        Suppressor {
            repo,
            base,
            head,
            policy,
            modified,
            baseline: policy.baseline.clone(),
            markers: HashMap::new(),
            unmarked: HashSet::new(),
        }
    }

    /// Tells which files' base is known to hold no marker, as the diff saw it.
    pub(crate) fn know_unmarked(&mut self, paths: HashSet<RepoPath>) {
        self.unmarked = paths;
    }

    /// Whether something may suppress `finding` (the baseline's entries left unspent):
    /// what the classifier's shortcuts leave out of the class reached so far.
    pub(crate) fn may_cover(&mut self, finding: &Finding) -> Result<bool, GitError> {
        Ok(self.allowance(finding).is_some()
            || self.marker(finding)?.is_some()
            || self
                .covered_by_baseline(finding)
                .is_some_and(|fp| self.baseline.as_ref().is_some_and(|b| b.holds(&fp))))
    }

    /// Splits `findings` into those that count and those suppressed, with what
    /// suppressed each and why.
    pub(crate) fn split(
        &mut self,
        findings: Vec<Finding>,
    ) -> Result<(Vec<Finding>, Vec<Suppressed>), GitError> {
        let mut kept = Vec::new();
        let mut suppressed = Vec::new();
        for finding in findings {
            let why = match self.allowance(&finding) {
                Some(reason) => Some((SuppressedBy::Allow, reason)),
                None => match self.marker(&finding)? {
                    Some(reason) => Some((SuppressedBy::Marker, reason)),
                    None => self.spend_baseline(&finding),
                },
            };
            match why {
                Some((by, reason)) => suppressed.push(Suppressed {
                    finding,
                    by,
                    reason,
                }),
                None => kept.push(finding),
            }
        }
        Ok((kept, suppressed))
    }

    /// The reason of the `allow` entry that covers `finding`.
    fn allowance(&self, finding: &Finding) -> Option<String> {
        let path = finding.path.as_ref()?.to_string_lossy();
        let allowance = self
            .policy
            .allowance(&finding.trigger, &finding.rule, &path)?;
        Some(allowance.reason.clone())
    }

    /// The fingerprint to look up in the baseline, for a finding a baseline may cover.
    fn covered_by_baseline(&self, finding: &Finding) -> Option<String> {
        self.baseline.as_ref()?;
        Policy::can_suppress(&finding.trigger, &finding.rule).then(|| finding.fingerprint())
    }

    fn spend_baseline(&mut self, finding: &Finding) -> Option<(SuppressedBy, String)> {
        let fingerprint = self.covered_by_baseline(finding)?;
        let baseline = self.baseline.as_mut()?;
        baseline.take(&fingerprint).then(|| {
            (
                SuppressedBy::Baseline,
                format!("in the baseline {}", baseline.source),
            )
        })
    }

    /// The reason of the base marker that covers `finding`, if one does.
    fn marker(&mut self, finding: &Finding) -> Result<Option<String>, GitError> {
        let Some(path) = &finding.path else {
            return Ok(None);
        };
        let path_finding = finding.line.is_none() && self.policy.is_path_rule(&finding.rule);
        if !(path_finding || finding.line.is_some())
            || !Policy::can_suppress(&finding.trigger, &finding.rule)
            || !self.modified.contains(&path)
        {
            return Ok(None);
        }
        if !self.markers.contains_key(path) {
            let markers = self.standing_markers(path)?;
            self.markers.insert(path.clone(), markers);
        }
        let markers = self
            .markers
            .get(path)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let covering = markers.iter().find(|marker| match finding.line {
            None => marker.base_line == marker.head_line && marker.rules.contains(&finding.trigger),
            Some(line) => {
                let marker_line = match finding.side {
                    Some(LineSide::Removed) => marker.base_line,
                    _ => marker.head_line,
                };
                marker_line == line
                    && (marker.rules.contains(&finding.trigger)
                        || marker.rules.contains(&finding.rule))
            }
        });
        Ok(covering.map(|marker| {
            format!(
                "`{MARKER}` at {}:{} in the base",
                path.to_string_lossy(),
                marker.base_line
            )
        }))
    }

    /// The markers of `path` at the base on lines the diff keeps, with their head lines.
    fn standing_markers(&self, path: &RepoPath) -> Result<Vec<Marker>, GitError> {
        if self.unmarked.contains(path) {
            return Ok(Vec::new());
        }
        let text = path.to_string_lossy();
        let Some(base) = self.repo.read_file_at(self.base, &text)? else {
            return Ok(Vec::new());
        };
        if memchr::memmem::find(&base, MARKER.as_bytes()).is_none() {
            return Ok(Vec::new());
        }
        let head = self
            .repo
            .read_file_at(self.head, &text)?
            .unwrap_or_default();
        let (mut removed, mut added) = (Vec::new(), Vec::new());
        diff_lines(&base, &head, |side, index, _| match side {
            LineSide::Removed => removed.push(index),
            LineSide::Added => added.push(index),
        });
        removed.sort_unstable();
        added.sort_unstable();
        // Walk the base's kept lines beside the head's: a kept line is the head's next
        // line that the change did not add.
        let mut markers = Vec::new();
        let mut head_index = 0;
        let mut added = added.into_iter().peekable();
        for (index, line) in base.split_inclusive(|b| *b == b'\n').enumerate() {
            if removed.binary_search(&index).is_ok() {
                continue;
            }
            while added.next_if_eq(&head_index).is_some() {
                head_index += 1;
            }
            let rules = marker_rules(line);
            if !rules.is_empty() {
                markers.push(Marker {
                    base_line: index + 1,
                    head_line: head_index + 1,
                    rules,
                });
            }
            head_index += 1;
        }
        Ok(markers)
    }
}
