//! `handoff init [--dry-run]`: set a repository up for the gate.
//!
//! Writes what a repository needs and does not have yet: a commented `.handoff.yaml`
//! (every key documented, the defaults as values, valid for the loader), the records
//! directory with a README, and the workflow `.github/workflows/handoff.yml`; then prints
//! the CODEOWNERS lines the trust model depends on. A file that exists is never touched
//! (it is reported as kept); `--dry-run` writes nothing and says what it would write.

use super::change_args::discover_repo;
use super::output::write_stdout;
use super::{Failure, Outcome};
use handoff::{create_new, default_policy, POLICY_FILE};
use std::path::{Path, PathBuf};

/// The commented policy file.
const POLICY: &str = include_str!("../../templates/init/handoff.yaml");
/// The records directory's README.
const RECORDS_README: &str = include_str!("../../templates/init/records-readme.md");
/// The workflow (also `examples/check/github-actions.yml`).
const WORKFLOW: &str = include_str!("../../templates/init/workflow.yml");
/// Where the workflow goes.
const WORKFLOW_PATH: &str = ".github/workflows/handoff.yml";

/// Arguments of `handoff init`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The repository to set up (default: the one containing the current directory, or
    /// the current directory outside a repository).
    #[arg(long, value_name = "DIR")]
    repo: Option<PathBuf>,
    /// Write nothing: print what would be written.
    #[arg(long)]
    dry_run: bool,
}

/// Writes the missing files and prints what it did and the CODEOWNERS lines.
pub fn run(args: Args) -> Result<Outcome, Failure> {
    let root = match discover_repo(args.repo.as_deref()) {
        Ok(repo) => repo.root().to_path_buf(),
        Err(_) => match args.repo {
            Some(dir) => dir,
            None => std::env::current_dir()?,
        },
    };
    let records_dir = default_policy()
        .records_dir
        .trim_end_matches('/')
        .to_string();
    let files = [
        (POLICY_FILE.to_string(), POLICY),
        (format!("{records_dir}/README.md"), RECORDS_README),
        (WORKFLOW_PATH.to_string(), WORKFLOW),
    ];
    let mut report = String::new();
    let mut created = 0;
    for (path, text) in &files {
        let verb = write_new(&root.join(path), text, args.dry_run)?;
        created += usize::from(verb != "kept");
        let why = match verb {
            "kept" => " (it exists; not overwritten)",
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
    report.push_str(&match (args.dry_run, created) {
        (true, n) => format!("dry run: {n} file(s) would be created, nothing written\n"),
        (false, 0) => "nothing to do: every file exists\n".to_string(),
        (false, n) => format!("{n} file(s) created\n"),
    });
    write_stdout(&report)?;
    Ok(Outcome::Ok)
}

/// Writes `text` to `path` unless it exists; returns what was (or would be) done.
fn write_new(path: &Path, text: &str, dry_run: bool) -> Result<&'static str, Failure> {
    if path.symlink_metadata().is_ok() {
        return Ok("kept");
    }
    if dry_run {
        return Ok("would create");
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|error| Failure(format!("{}: cannot create: {error}", parent.display())))?;
    }
    match create_new(path, text.as_bytes()) {
        Ok(()) => Ok("created"),
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => Ok("kept"),
        Err(error) => Err(Failure(format!(
            "{}: cannot write: {error}",
            path.display()
        ))),
    }
}
