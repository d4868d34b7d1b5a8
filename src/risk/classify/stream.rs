//! The stream of a change's files and lines through the compiled rules: the per-file
//! state ([`Classifier`]), the [`ChangeVisitor`] that feeds it, and the hunks held back
//! until the lines that replace them are seen (see `rewrite`).

use super::manifest::{differs_only_in_image_tags, runs_workloads_only};
use super::waiting::{release, Waiting};
use crate::git::{ChangeVisitor, ChangedFile, DiffLine, GitError, Head, LineSide, Repo, RepoPath};
use crate::policy::{Policy, Trigger};
use crate::risk::comments::CommentStyle;
use crate::risk::enclosing::ScopeCandidate;
use crate::risk::finding::Finding;
use crate::risk::fold::Folded;
use crate::risk::matcher::{LineRule, Matcher};
use crate::risk::project::{FileStacks, ProjectModel};
use crate::risk::rewrite::Rewrites;
use crate::risk::syntax::{Grammar, InCodeCandidate, CANDIDATES_PER_FILE};
use crate::suppress::{marker_rules, MARKER};
use std::collections::HashSet;

/// The scope rules that read auth into a definition's name (`function LoginForm()`,
/// `class AuthPanel`): like a file's name, not read in a browser component.
const NAME_SCOPE_RULES: &[&str] = &[
    "auth.scope.guard",
    "auth.scope.class",
    "auth.scope.token",
    "auth.scope.webauthn",
];

/// The trigger whose rules read records and binary files too.
const CREDENTIAL_ONLY: Option<&str> = Some("credential");

/// The per-file state of the stream.
pub(super) struct Classifier<'a> {
    matcher: &'a Matcher,
    policy: &'a Policy,
    pub(super) findings: Vec<Finding>,
    pub(super) counted: usize,
    /// For the current file: which line rules read it and have not fired yet.
    open: Vec<bool>,
    open_count: usize,
    /// Of those, the ones that read comment lines (secrets): a comment line is matched
    /// against these only, so a rule that cannot fire there does not run its regex there.
    open_in_comments: Vec<bool>,
    /// For the current file: which triggers already fired by path.
    fired_by_path: Vec<bool>,
    /// For the current file: path findings of triggers that need a changed line of code,
    /// kept until one is seen (then reported) or the file ends (then dropped).
    pending: Vec<Finding>,
    /// For the current file: what its changed lines of code release of `pending` (block
    /// comments, container build files: see `waiting`).
    waiting: Waiting,
    /// For the current file: whether any changed line was seen.
    saw_line: bool,
    /// For the current file: whether a test-file path rule matched it.
    is_test: bool,
    /// The project model, read at the base as files ask, and the current file's stacks.
    pub(super) project: ProjectModel,
    repo: &'a Repo,
    base: Head,
    head: Head,
    stacks: FileStacks,
    /// The first error reading a manifest (the visitor cannot return one).
    pub(super) error: Option<GitError>,
    /// For the current file: how its comment lines start.
    comments: CommentStyle,
    /// For the current file: the scope rules that read it, and its changed lines of code
    /// once one is seen; then every such file (see `enclosing`).
    scoped: Vec<usize>,
    candidate: Option<ScopeCandidate>,
    pub(super) candidates: Vec<ScopeCandidate>,
    /// For the current file: its grammar, and how many lines each `in_code` rule matched;
    /// then every such match, to confirm (see `syntax`).
    grammar: Option<Grammar>,
    in_code_matches: Vec<usize>,
    pub(super) in_code: Vec<InCodeCandidate>,
    /// The files whose base holds no suppression marker, as the stream saw while reading
    /// them (so that suppression need not read them again).
    pub(super) unmarked: HashSet<RepoPath>,
    /// For the current file: how its lines compare, and the hunk held until the lines that
    /// replace its removed lines are seen (see `rewrite`).
    rewrites: Option<Rewrites>,
    hunk: Hunk,
    /// The last path asked whether it is a browser component, and the answer.
    browser_component: Option<(RepoPath, bool)>,
}

/// At most this many removed lines of a hunk are held for comparison: a longer hunk is
/// read as it streams, so memory never grows with a file's lines.
const HUNK_LINES: usize = 32;

/// A hunk of the current file held back: its removed lines, then the added lines that
/// may replace them one to one.
#[derive(Default)]
struct Hunk {
    file: Option<ChangedFile>,
    removed: Vec<(usize, Vec<u8>)>,
    added: Vec<(usize, Vec<u8>)>,
    /// The head's line number of the hunk's first added line, if it has any.
    added_from: usize,
    /// How many lines of each side the file streamed before the hunk.
    removed_before: usize,
    added_before: usize,
    /// Whether the hunk's removed lines go on from a run held before it (longer than
    /// [`HUNK_LINES`]): its added lines replace the run's first lines, not these.
    spilled: bool,
}

impl<'a> Classifier<'a> {
    pub(super) fn new(
        matcher: &'a Matcher,
        policy: &'a Policy,
        repo: &'a Repo,
        (base, head): (Head, Head),
    ) -> Classifier<'a> {
        Classifier {
            matcher,
            policy,
            findings: Vec::new(),
            counted: 0,
            open: vec![false; matcher.line_rules.len()],
            open_count: 0,
            open_in_comments: vec![false; matcher.line_rules.len()],
            fired_by_path: vec![false; matcher.triggers.len()],
            pending: Vec::new(),
            waiting: Waiting::default(),
            saw_line: false,
            is_test: false,
            project: ProjectModel::default(),
            repo,
            base,
            head,
            stacks: FileStacks::default(),
            error: None,
            comments: CommentStyle::None,
            scoped: Vec::new(),
            candidate: None,
            candidates: Vec::new(),
            grammar: None,
            in_code_matches: vec![0; matcher.line_rules.len()],
            in_code: Vec::new(),
            unmarked: HashSet::new(),
            rewrites: None,
            hunk: Hunk::default(),
            browser_component: None,
        }
    }

    fn is_classified(&self, path: &RepoPath) -> bool {
        !self.policy.is_meta(path) && !self.matcher.is_excluded(&path.to_string_lossy())
    }

    /// Reads the stacks that speak for `file` (the project model, at the base).
    fn read_stacks(&mut self, file: &ChangedFile) {
        let path = file.path.to_string_lossy();
        match self.project.file_stacks(self.repo, &self.base, &path) {
            Ok(stacks) => self.stacks = stacks,
            Err(error) => {
                self.stacks = FileStacks::default();
                self.error.get_or_insert(error);
            }
        }
    }

    /// Ends the current file: path findings still waiting for a line of code are dropped
    /// when the file had changed lines (all comments), kept when it had none.
    pub(super) fn finish_file(&mut self) {
        self.release_hunk();
        self.hunk = Hunk::default();
        self.rewrites = None;
        let counts = !self.saw_line || (!self.pending.is_empty() && !self.held_are_confirmed());
        if counts {
            self.findings.append(&mut self.pending);
        }
        self.pending.clear();
        self.waiting = Waiting::default();
        self.saw_line = false;
        self.scoped.clear();
        self.candidates.extend(self.candidate.take());
    }

    /// Whether the current file's held lines are confirmed (see `waiting`); an error
    /// reading the file is kept and answers no (fail closed).
    fn held_are_confirmed(&mut self) -> bool {
        if !self.waiting.holds() {
            return true;
        }
        let heads = (&self.base, &self.head);
        match self.waiting.held_are_confirmed(self.repo, heads) {
            Ok(answer) => answer,
            Err(error) => {
                self.error.get_or_insert(error);
                false
            }
        }
    }

    /// Records the path rules the file fires: one finding per trigger and path. Those of
    /// a trigger that needs a changed line of code wait for one (see [`Self::line`]),
    /// except in a binary file or a submodule, which have no code lines to show.
    fn record_path_findings(&mut self, file: &ChangedFile) {
        self.fired_by_path
            .iter_mut()
            .for_each(|fired| *fired = false);
        let matched: Vec<(&RepoPath, Vec<usize>)> = file
            .touched_paths()
            .filter(|p| self.is_classified(p))
            .map(|path| {
                // A submodule is a directory: `vendor/oauth/` is what directory globs match.
                let mut text = path.to_string_lossy().into_owned();
                if file.submodule {
                    text.push('/');
                }
                (path, self.matcher.path_rules_for(&text))
            })
            .collect();
        self.is_test = matched.iter().flat_map(|(_, rules)| rules).any(|&rule| {
            self.matcher.triggers[self.matcher.path_rules[rule].trigger].name
                == Trigger::TestFile.as_str()
        });
        let waits = !file.binary && !file.submodule;
        for (path, rules) in matched {
            let mut fired_here = vec![false; self.matcher.triggers.len()];
            for rule_index in rules {
                let rule = &self.matcher.path_rules[rule_index];
                if (self.is_test && !rule.reads_test_files)
                    || !self.stacks.enables(&rule.stack)
                    || fired_here[rule.trigger]
                {
                    continue;
                }
                let trigger = &self.matcher.triggers[rule.trigger];
                // A browser component is neither auth nor an API route by its name
                // (a Stimulus `controllers/` folder routes no request).
                let by_name = trigger.name == Trigger::Auth.as_str()
                    || trigger.name == Trigger::ApiRoute.as_str();
                if by_name && self.is_browser_component(file, path) {
                    continue;
                }
                if trigger.name == Trigger::Payment.as_str() && self.is_workload_manifest(file) {
                    continue;
                }
                fired_here[rule.trigger] = true;
                self.fired_by_path[rule.trigger] = true;
                let trigger = &self.matcher.triggers[rule.trigger];
                let finding = Finding {
                    trigger: trigger.name.to_string(),
                    class: trigger.class,
                    path: Some(path.clone()),
                    line: None,
                    side: None,
                    rule: rule.id.to_string(),
                    stack: rule.stack.to_string(),
                    excerpt: None,
                };
                if waits && trigger.needs_code_change {
                    self.pending.push(finding);
                } else {
                    self.findings.push(finding);
                }
            }
        }
    }

    /// Whether `path` (of `file`) is a component that runs in the browser, which decides
    /// nothing the server does not check again: a `.vue` (not a Nuxt `.server.vue`) or
    /// `.svelte` file, or a `.jsx` or `.tsx` file that opens with the `"use client"`
    /// directive at both sides. Nothing else is proof: `.tsx` is also the server's
    /// extension where a framework renders JSX there (Hono, Fresh, React Router,
    /// TanStack Start, an Express app's views), found or not. Where Rails is found, a
    /// Rails page template or browser script is one too ([`is_rails_page`]). Neither auth
    /// nor an API route is read into its name (its lines are still read); a file that
    /// cannot be read is not one.
    fn is_browser_component(&mut self, file: &ChangedFile, path: &RepoPath) -> bool {
        if let Some((known, answer)) = &self.browser_component {
            if known == path {
                return *answer;
            }
        }
        let answer = self.reads_as_browser_component(file, path);
        self.browser_component = Some((path.clone(), answer));
        answer
    }

    fn reads_as_browser_component(&mut self, file: &ChangedFile, path: &RepoPath) -> bool {
        let Some(name) = path.as_str() else {
            return false;
        };
        let extension = name.rsplit_once('.').map(|(_, ext)| ext);
        if is_rails_page(name, extension) && self.stacks.found("rails") {
            return true;
        }
        match extension {
            Some("vue") => return !name.ends_with(".server.vue"),
            Some("svelte") => return true,
            Some("jsx" | "tsx") => {}
            _ => return false,
        }
        let old = file.old_path.as_ref().unwrap_or(&file.path);
        let sides = [(&self.base, old), (&self.head, &file.path)];
        let mut read_any = false;
        for (at, side_path) in sides {
            let Some(side_name) = side_path.as_str() else {
                return false;
            };
            match self.repo.read_file_at(at, side_name) {
                Ok(Some(bytes)) if says_use_client(&bytes) => read_any = true,
                Ok(None) => {}
                Ok(Some(_)) => return false,
                Err(error) => {
                    self.error.get_or_insert(error);
                    return false;
                }
            }
        }
        read_any
    }

    /// Whether `file` is a Kubernetes manifest that only runs a workload and whose change
    /// is a release's image tag: a YAML file that exists at both sides, each of whose
    /// documents has an `apiVersion` and a `kind` among the workload kinds
    /// (`kustomize/base/paymentservice.yaml`: the Deployment, Service and ServiceAccount of
    /// a payment service), and whose two sides differ only in `image:` lines naming the
    /// same image repository (a new tag or digest, `differs_only_in_image_tags`). It
    /// deploys the same service's next release and holds none of its payment logic, so
    /// payment is not read into its name; its lines are still read. Anything else (an
    /// image from another repository or registry, a changed command, arguments, port or
    /// host, a new or deleted manifest, a ConfigMap or Secret in it, a file that cannot be
    /// read): not one, and the name counts (fail closed).
    fn is_workload_manifest(&mut self, file: &ChangedFile) -> bool {
        let old = file.old_path.as_ref().unwrap_or(&file.path);
        let sides = [(&self.base, old), (&self.head, &file.path)];
        let mut texts = Vec::with_capacity(2);
        for (at, side_path) in sides {
            let Some(name) = side_path.as_str() else {
                return false;
            };
            if !(name.ends_with(".yaml") || name.ends_with(".yml")) {
                return false;
            }
            match self.repo.read_file_at(at, name) {
                Ok(Some(bytes)) if runs_workloads_only(&bytes) => texts.push(bytes),
                Ok(_) => return false,
                Err(error) => {
                    self.error.get_or_insert(error);
                    return false;
                }
            }
        }
        match texts.as_slice() {
            [before, after] => differs_only_in_image_tags(before, after),
            _ => false,
        }
    }

    /// Keeps a match of an `in_code` rule for confirmation by the file's grammar; the rule
    /// stops reading the file after [`CANDIDATES_PER_FILE`] of them.
    /// `folded`: the line's NFKC form, when only that matched (its columns are mapped
    /// back to the line's).
    fn note_in_code_match(
        &mut self,
        file: &ChangedFile,
        line: &DiffLine<'_>,
        index: usize,
        folded: Option<&Folded>,
    ) {
        let rule = &self.matcher.line_rules[index];
        let columns = match folded {
            None => rule.match_starts(line.content),
            Some(folded) => rule.match_starts(&folded.text).map(|starts| {
                let origins = starts.into_iter().map(|start| folded.origin(start));
                origins.collect()
            }),
        };
        let columns = columns.unwrap_or_default();
        self.in_code.push(InCodeCandidate {
            path: file.path.clone(),
            old_path: file.old_path.clone(),
            rule: index,
            side: line.side,
            number: line.number,
            columns,
            excerpt: self.matcher.excerpt(line.content),
        });
        self.in_code_matches[index] += 1;
        if self.in_code_matches[index] == CANDIDATES_PER_FILE {
            self.close(index);
        }
    }

    /// Keeps a changed line of code of the current file for its scope rules.
    fn note_code_line(&mut self, file: &ChangedFile, line: &DiffLine<'_>) {
        let candidate = self.candidate.get_or_insert_with(|| ScopeCandidate {
            path: file.path.clone(),
            old_path: file.old_path.clone(),
            rules: self.scoped.clone(),
            added: Vec::new(),
            removed: Vec::new(),
        });
        match line.side {
            LineSide::Added => candidate.added.push(line.number),
            LineSide::Removed => candidate.removed.push(line.number),
        }
    }

    /// Raises what a marker the change writes names (a trigger, or a line rule's id for
    /// its trigger), where it could cover something of this file: the trigger's path
    /// finding waiting for a line of code counts now; else a scope rule of the trigger
    /// that reads the file fires on the marker's line.
    fn note_marker(&mut self, file: &ChangedFile, line: &DiffLine<'_>) {
        for name in marker_rules(line.content) {
            let matcher = self.matcher;
            let trigger = matcher.triggers.iter().position(|t| t.name == name);
            let Some(trigger) = trigger.or_else(|| {
                let rule = matcher.line_rules.iter().find(|rule| rule.id == name);
                rule.map(|rule| rule.trigger)
            }) else {
                continue;
            };
            let name = &matcher.triggers[trigger].name;
            if let Some(at) = self.pending.iter().position(|f| &f.trigger == name) {
                let finding = self.pending.remove(at);
                self.findings.push(finding);
                continue;
            }
            let mut scoped = self.scoped.iter().map(|&index| &matcher.line_rules[index]);
            let Some(rule) = scoped.find(|rule| rule.trigger == trigger) else {
                continue;
            };
            self.findings.push(line_finding(matcher, rule, file, line));
        }
    }

    /// Opens the line rules that read `file`: every one its path selects, or only those
    /// of the trigger `only` names.
    fn open_line_rules(&mut self, file: &ChangedFile, only: Option<&str>) {
        let path = file.path.to_string_lossy();
        self.comments = CommentStyle::for_path(&path);
        self.waiting = Waiting::for_path(&path);
        self.rewrites = Some(Rewrites::for_path(&path, self.comments));
        self.grammar = Grammar::for_path(&path);
        self.in_code_matches.iter_mut().for_each(|count| *count = 0);
        self.matcher.line_rules_for(&path, &mut self.open);
        for (index, rule) in self.matcher.line_rules.iter().enumerate() {
            let other = only.is_some_and(|name| self.matcher.triggers[rule.trigger].name != name);
            let skips =
                (self.is_test && !rule.reads_test_files) || !self.stacks.enables(&rule.stack);
            if self.fired_by_path[rule.trigger] || other || skips {
                self.open[index] = false;
            } else if self.open[index] && (rule.scope || rule.data || rule.file_scope) {
                self.open[index] = false;
                if !NAME_SCOPE_RULES.contains(&&*rule.id)
                    || !self.is_browser_component(file, &file.path)
                {
                    self.scoped.push(index);
                }
            }
        }
        self.open_count = self.open.iter().filter(|open| **open).count();
        for (index, open) in self.open.iter().enumerate() {
            self.open_in_comments[index] = *open && self.matcher.reads_comments(index);
        }
    }

    /// Line rule `index` stops reading the current file.
    fn close(&mut self, index: usize) {
        self.open[index] = false;
        self.open_in_comments[index] = false;
        self.open_count -= 1;
    }
}

impl ChangeVisitor for Classifier<'_> {
    fn file(&mut self, file: &ChangedFile) -> bool {
        self.finish_file();
        self.is_test = false;
        self.open_count = 0;
        if file.submodule {
            if file.touched_paths().any(|path| self.is_classified(path)) {
                self.counted += 1;
                self.read_stacks(file);
                self.record_path_findings(file);
            }
            return false;
        }
        if !file.touched_paths().any(|path| self.is_classified(path)) {
            self.fired_by_path
                .iter_mut()
                .for_each(|fired| *fired = false);
            // A record is meta-data, but a key pasted into it is still a leak.
            if self.policy.is_meta(&file.path) {
                self.open_line_rules(file, CREDENTIAL_ONLY);
            }
            return self.open_count > 0;
        }
        self.counted += 1;
        self.read_stacks(file);
        self.record_path_findings(file);
        if !self.is_classified(&file.path) {
            return false;
        }
        // A binary file's text (see `git::content`) is read by the credential rules.
        let only = if file.binary { CREDENTIAL_ONLY } else { None };
        self.open_line_rules(file, only);
        self.open_count > 0 || !self.pending.is_empty() || !self.scoped.is_empty()
    }

    /// A file renamed or copied out of the records directory (or out of an excluded
    /// path) is read whole: what lay there was never read as code, whatever the rules
    /// say today.
    fn whole(&self, file: &ChangedFile) -> bool {
        file.old_path.as_ref().is_some_and(|old| {
            (!self.is_classified(old) || old.is_under(&self.policy.records_dir))
                && self.is_classified(&file.path)
        })
    }

    fn old_side_needle(&self) -> Option<&'static [u8]> {
        Some(MARKER.as_bytes())
    }

    /// Scope rules (and the readings after them) read a file with changed lines of code
    /// again, the grammar reads one whose `in_code` match it confirms, each only for a
    /// rule whose trigger could still raise the class; the end of the file reads one
    /// whose held lines decide a waiting finding. (The class the findings so far reach is
    /// a guess of the one those readings see: a file not kept is only inflated again.)
    fn reads_again(&self, file: &ChangedFile) -> bool {
        let reached = self.findings.iter().map(|finding| finding.class).max();
        let raises = |rule: usize| {
            let trigger = &self.matcher.triggers[self.matcher.line_rules[rule].trigger];
            reached.is_none_or(|class| trigger.class > class)
        };
        let scoped = self.candidate.as_ref();
        scoped.is_some_and(|candidate| candidate.rules.iter().any(|&rule| raises(rule)))
            || (self.waiting.holds() && !self.pending.is_empty())
            || self
                .in_code
                .last()
                .is_some_and(|candidate| candidate.path == file.path && raises(candidate.rule))
    }

    fn old_side_holds(&mut self, file: &ChangedFile, holds: bool) {
        if !holds {
            self.unmarked.insert(file.path.clone());
        }
    }

    /// Holds a removed line until the lines that replace it are seen; an added line
    /// joins the hunk it replaces lines of, or is read at once.
    fn line(&mut self, file: &ChangedFile, line: DiffLine<'_>) {
        if self.rewrites.is_none() {
            return self.read_line(file, line, false);
        }
        let hunk = &mut self.hunk;
        let (removed_before, added_before) = (
            hunk.removed_before + hunk.removed.len(),
            hunk.added_before + hunk.added.len(),
        );
        match line.side {
            LineSide::Removed => {
                let next = hunk.added.is_empty()
                    && hunk
                        .removed
                        .last()
                        .is_none_or(|(number, _)| number + 1 == line.number);
                let follows = next && hunk.removed.len() < HUNK_LINES;
                if !follows {
                    self.release_hunk();
                }
                let hunk = &mut self.hunk;
                if hunk.removed.is_empty() {
                    // A run longer than the hunk holds goes on in a new hunk whose removed
                    // lines are not where the run's added lines start: none may pair.
                    hunk.spilled = next && !follows;
                    hunk.file.get_or_insert_with(|| file.clone());
                    hunk.removed_before = removed_before;
                    hunk.added_before = added_before;
                    // Unchanged lines keep their offset: the hunk's added lines start
                    // where its removed lines do, moved by the lines added and removed
                    // before it.
                    hunk.added_from = (line.number + added_before).saturating_sub(removed_before);
                }
                hunk.removed.push((line.number, line.content.to_vec()));
            }
            LineSide::Added => {
                let joins = !hunk.removed.is_empty()
                    && !hunk.spilled
                    && hunk.added.len() < hunk.removed.len()
                    && line.number == hunk.added_from + hunk.added.len();
                if joins {
                    hunk.added.push((line.number, line.content.to_vec()));
                } else {
                    self.release_hunk();
                    self.hunk.added_before += 1;
                    self.read_line(file, line, false);
                }
            }
        }
    }
}

impl Classifier<'_> {
    /// Reads the hunk held back: each line as a comment line when every removed line is
    /// replaced by an added line of the same code, else each line as it is.
    fn release_hunk(&mut self) {
        let hunk = &mut self.hunk;
        if hunk.removed.is_empty() {
            return;
        }
        let removed = std::mem::take(&mut hunk.removed);
        let added = std::mem::take(&mut hunk.added);
        hunk.removed_before += removed.len();
        hunk.added_before += added.len();
        let Some(file) = hunk.file.clone() else {
            return;
        };
        let same = removed.len() == added.len()
            && self.rewrites.is_some_and(|rewrites| {
                removed
                    .iter()
                    .zip(&added)
                    .all(|((_, old), (_, new))| rewrites.same_code(old, new))
            });
        let lines = removed
            .iter()
            .map(|(number, content)| (LineSide::Removed, number, content))
            .chain(
                added
                    .iter()
                    .map(|(number, content)| (LineSide::Added, number, content)),
            );
        for (side, &number, content) in lines {
            let line = DiffLine {
                side,
                number,
                content,
            };
            self.read_line(&file, line, same);
        }
    }

    /// Reads one changed line; `no_code` reads it as a comment line (its code is the
    /// line it replaces).
    fn read_line(&mut self, file: &ChangedFile, line: DiffLine<'_>, no_code: bool) {
        self.saw_line = true;
        // Only secrets count in comment lines (see `comments`); asked only of the lines
        // that need the answer.
        let mut comment = no_code.then_some(true);
        if !self.pending.is_empty() {
            let is_comment = !is_blank(line.content)
                && *comment.get_or_insert_with(|| self.comments.is_comment(line.content));
            let read = (line.side, line.number, line.content);
            let style = self.comments;
            if let Some(released) = self.waiting.read(style, file, read, is_comment) {
                release(&released, &mut self.pending, &mut self.findings);
            }
        }
        if !self.scoped.is_empty()
            && !is_blank(line.content)
            && !*comment.get_or_insert_with(|| self.comments.is_comment(line.content))
        {
            self.note_code_line(file, &line);
        }
        if line.side == LineSide::Added
            && memchr::memmem::find(line.content, MARKER.as_bytes()).is_some()
        {
            self.note_marker(file, &line);
        }
        if self.open_count == 0 {
            return;
        }
        let mut fired = Vec::new();
        let in_comment = *comment.get_or_insert_with(|| self.comments.is_comment(line.content));
        let open = if in_comment {
            &self.open_in_comments
        } else {
            &self.open
        };
        self.matcher
            .open_matches(line.side, line.content, open, |index| {
                if self.matcher.confirms(index, line.content) {
                    fired.push((index, false));
                }
            });
        // A line outside ASCII is also read as Python reads its identifiers, NFKC-folded
        // (`ſession_id`, a fullwidth `ｐａｓｓｗｏｒｄ`): a rule only that form matches fires.
        let folded = Folded::of(line.content);
        if let Some(folded) = &folded {
            self.matcher
                .open_matches(line.side, &folded.text, open, |index| {
                    if !fired.iter().any(|&(known, _)| known == index)
                        && self.matcher.confirms(index, &folded.text)
                    {
                        fired.push((index, true));
                    }
                });
        }
        let matcher = self.matcher;
        for (index, only_folded) in fired {
            let rule = &matcher.line_rules[index];
            if rule.in_code && self.grammar.is_some() {
                let folded = folded.as_ref().filter(|_| only_folded);
                self.note_in_code_match(file, &line, index, folded);
                continue;
            }
            self.close(index);
            self.findings.push(line_finding(matcher, rule, file, &line));
        }
    }
}

/// The finding of line rule `rule` on `line` of `file`.
fn line_finding(
    matcher: &Matcher,
    rule: &LineRule,
    file: &ChangedFile,
    line: &DiffLine<'_>,
) -> Finding {
    let excerpt = matcher.excerpt(line.content);
    Finding::of_line(matcher, rule, &file.path, (line.number, line.side), excerpt)
}

/// Whether `name` is a Rails app's page template (`app/views/**/*.html.erb`, `.haml`,
/// `.slim`) or browser script (`app/javascript/**/*.js`, `.ts`, …, where Stimulus
/// controllers live): what they render or run in the browser decides nothing the
/// controller does not check, so `sessions_controller.js` or a Devise sign-in page is not
/// auth by its name; their lines still are. A JSON template (`.jbuilder`) is not one.
fn is_rails_page(name: &str, extension: Option<&str>) -> bool {
    let under = |folder: &str| {
        name.strip_prefix("app/")
            .or_else(|| name.split_once("/app/").map(|(_, rest)| rest))
            .is_some_and(|rest| rest.starts_with(folder))
    };
    let page = [".html.erb", ".html.haml", ".html.slim"]
        .iter()
        .any(|suffix| name.ends_with(suffix));
    let script = matches!(
        extension,
        Some("js" | "mjs" | "cjs" | "ts" | "mts" | "jsx" | "tsx")
    );
    (page && under("views/")) || (script && under("javascript/"))
}

/// Whether a JavaScript or TypeScript file opens with the `"use client"` directive (after
/// blank lines and line comments).
fn says_use_client(bytes: &[u8]) -> bool {
    let first = bytes
        .split(|&b| b == b'\n')
        .map(<[u8]>::trim_ascii)
        .find(|line| !line.is_empty() && !line.starts_with(b"//"));
    first.is_some_and(|line| {
        let line = line.strip_suffix(b";").unwrap_or(line).trim_ascii_end();
        line == b"\"use client\"" || line == b"'use client'"
    })
}

/// Whether a line holds nothing but white space.
fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}
