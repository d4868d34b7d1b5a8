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
use handoff::init_repository;
use std::path::PathBuf;

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
    let done = init_repository(&root, args.dry_run).map_err(Failure)?;
    write_stdout(&done.text())?;
    Ok(Outcome::Ok)
}
