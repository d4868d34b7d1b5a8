//! The arguments `handoff check` and `handoff classify` share: the repository, the base
//! and head of the change, and a policy file to use instead of the base's.

use super::Failure;
use handoff::{Head, Repo};
use std::path::{Path, PathBuf};

/// Which change a command looks at, and under which policy.
#[derive(Debug, clap::Args)]
pub struct ChangeArgs {
    /// The repository (default: the one containing the current directory).
    #[arg(long, value_name = "DIR")]
    pub repo: Option<PathBuf>,
    /// The base revision; a branch name means its merge base with the head (default:
    /// for `check` the Task Assignment's Baseline SHA, else the merge base with the
    /// default branch).
    #[arg(long, value_name = "REV")]
    pub base: Option<String>,
    /// The head revision (default: the working tree, untracked files included).
    #[arg(long, value_name = "REV")]
    pub head: Option<String>,
    /// A policy file to use instead of `.handoff.yaml` from the base revision.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// A SARIF log of an earlier run (`--format sarif`): the risk findings it lists are
    /// not counted again, only reported as baselined. A file of the repository, read from
    /// the base revision: a baseline the change adds or edits does not count, and
    /// editing it fires the `policy` trigger.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Detect copies too (git's -C), not only renames (the policy key `copies: true`
    /// does the same).
    #[arg(long)]
    pub copies: bool,
}

/// The repository containing `dir`, or the current directory when `dir` is `None`.
pub fn discover_repo(dir: Option<&Path>) -> Result<Repo, Failure> {
    let repo = match dir {
        Some(path) => Repo::discover(path)?,
        None => Repo::discover(&std::env::current_dir()?)?,
    };
    Ok(repo)
}

/// `--head` as a [`Head`]: the working tree when it is not given.
pub fn head(rev: Option<String>) -> Head {
    rev.map_or(Head::WorkTree, Head::Rev)
}
