//! `handoff init`: the files that set a repository up for the gate, and what to do next.
//!
//! What a repository needs and does not have yet: a commented `.handoff.yaml` (every key
//! documented, the defaults as values, valid for the loader), the records directory
//! with a README, and the workflow `.github/workflows/handoff.yml`. A file that exists
//! (or a link where it would go) is never touched; a dry run writes nothing. The
//! report ([`Initialised::text`]) ends with the CODEOWNERS lines the trust model depends
//! on.

use crate::io::create_new;
use crate::policy::{defaults, POLICY_FILE};
use std::path::Path;

/// The commented policy file.
const POLICY: &str = include_str!("../templates/init/handoff.yaml");
/// The records directory's README.
const RECORDS_README: &str = include_str!("../templates/init/records-readme.md");
/// The workflow (also `examples/check/github-actions.yml`).
const WORKFLOW: &str = include_str!("../templates/init/workflow.yml");
/// Where the workflow goes.
const WORKFLOW_PATH: &str = ".github/workflows/handoff.yml";

/// What `init` did to one file, or would do in a dry run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InitStep {
    /// Written.
    Created,
    /// Not there; a dry run writes nothing.
    WouldCreate,
    /// There already; left as it is.
    Kept,
}

/// What `init` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Initialised {
    /// Each file, relative to the repository's root, and what was done to it.
    pub files: Vec<(String, InitStep)>,
    /// Whether it was a dry run.
    pub dry_run: bool,
    /// The records directory, relative to the root, without a trailing `/`.
    pub records_dir: String,
}

/// Writes the files the repository at `root` does not have yet (none with `dry_run`).
/// An error names the file or directory that could not be written.
pub fn init_repository(root: &Path, dry_run: bool) -> Result<Initialised, String> {
    let records_dir = defaults().records_dir.trim_end_matches('/').to_string();
    let wanted = [
        (POLICY_FILE.to_string(), POLICY),
        (format!("{records_dir}/README.md"), RECORDS_README),
        (WORKFLOW_PATH.to_string(), WORKFLOW),
    ];
    let mut files = Vec::new();
    for (path, text) in wanted {
        let step = write_new(&root.join(&path), text, dry_run)?;
        files.push((path, step));
    }
    Ok(Initialised {
        files,
        dry_run,
        records_dir,
    })
}

fn write_new(path: &Path, text: &str, dry_run: bool) -> Result<InitStep, String> {
    if path.symlink_metadata().is_ok() {
        return Ok(InitStep::Kept);
    }
    if dry_run {
        return Ok(InitStep::WouldCreate);
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|error| format!("{}: cannot create: {error}", parent.display()))?;
    }
    match create_new(path, text.as_bytes()) {
        Ok(()) => Ok(InitStep::Created),
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => Ok(InitStep::Kept),
        Err(error) => Err(format!("{}: cannot write: {error}", path.display())),
    }
}

impl Initialised {
    /// The report for a person: a line per file, the CODEOWNERS lines and how to adopt
    /// the gate, then what was (or would be) created.
    pub fn text(&self) -> String {
        let records_dir = &self.records_dir;
        let mut report = String::new();
        let mut created = 0;
        for (path, step) in &self.files {
            let verb = match step {
                InitStep::Created => "created",
                InitStep::WouldCreate => "would create",
                InitStep::Kept => "kept",
            };
            created += usize::from(*step != InitStep::Kept);
            let why = match step {
                InitStep::Kept => " (it exists; not overwritten)",
                _ => "",
            };
            report.push_str(&format!("{verb} {path}{why}\n"));
        }
        report.push_str(&format!(
            "\nAdd to .github/CODEOWNERS, so that records, the policy and the workflow need the \
             reviewers' approval\n(the gate cannot tell who wrote a file; CODEOWNERS with branch \
             protection can), with your team for @OWNER/reviewers:\n\n\
             /{records_dir}/ @OWNER/reviewers\n/{POLICY_FILE} @OWNER/reviewers\n\
             /{WORKFLOW_PATH} @OWNER/reviewers\n\n\
             Commit these files (and CODEOWNERS) in one pull request, nothing else: the gate \
             recognises it as the change that adopts it and passes it at its real class (high: \
             it changes the gate's own files) with no Task Assignment; review it as such. From \
             the next pull request on, {POLICY_FILE}'s require_task decides what a change with no \
             Task Assignment meets (always: rejected; never: a warning during the roll-out).\n"
        ));
        report.push_str(&match (self.dry_run, created) {
            (true, n) => format!("dry run: {n} file(s) would be created, nothing written\n"),
            (false, 0) => "nothing to do: every file exists\n".to_string(),
            (false, n) => format!("{n} file(s) created\n"),
        });
        report
    }
}
