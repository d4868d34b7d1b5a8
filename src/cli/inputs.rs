//! Turning the command line's `FILE|-|DIR` arguments into documents to read.
//!
//! A directory stands for every Markdown file below it ([`handoff::markdown_files`]),
//! so `handoff lint examples/` checks a whole folder; `-` is standard input. With no
//! argument, the commands that read records (`lint`, `fmt`, `parse`, `audit`) read the
//! records directory (the policy's `records_dir`, `.handoff/` by default) rather than wait
//! on a terminal; the commands that read one document (`render`, `contract`, `message
//! check`) read standard input only when it is not a terminal.

use super::Failure;
use handoff::{markdown_files, Depth, Policy, Repo, Source, WalkError, POLICY_FILE};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// Expands arguments: `-` is standard input, a directory its Markdown files; none means
/// the records directory ([`records_dir`]). A directory that cannot be listed is an
/// error in its place.
pub fn expand(arguments: &[PathBuf]) -> Result<Vec<Result<Source, WalkError>>, Failure> {
    let defaulted;
    let arguments = match arguments.is_empty() {
        true => {
            defaulted = [records_dir()?];
            &defaulted[..]
        }
        false => arguments,
    };
    let mut inputs = Vec::new();
    for argument in arguments {
        if argument.is_dir() {
            match markdown_files(argument, Depth::All) {
                Ok(files) => inputs.extend(files.into_iter().map(|file| Ok(Source::File(file)))),
                Err(error) => inputs.push(Err(error)),
            }
        } else {
            inputs.push(Ok(Source::from_argument(argument)));
        }
    }
    Ok(inputs)
}

/// The records directory of the repository holding the current directory: the
/// `records_dir` of its `.handoff.yaml` (as checked out), `.handoff/` by default; outside a
/// repository, `.handoff/` here. An error when there is none, saying what to pass instead.
pub fn records_dir() -> Result<PathBuf, Failure> {
    let here = std::env::current_dir()?;
    let root = Repo::discover(&here).map_or(here, |repo| repo.root().to_path_buf());
    let policy_file = root.join(POLICY_FILE);
    let name = match policy_file.is_file() {
        true => Policy::read_file(&policy_file)?.records_dir,
        false => handoff::default_policy().records_dir.clone(),
    };
    let dir = root.join(name.trim_end_matches('/'));
    if dir.is_dir() {
        return Ok(relative_to_here(dir));
    }
    Err(Failure(format!(
        "no records directory: {} does not exist; pass record files or directories, or `-` \
         to read standard input (`handoff init` creates the directory)",
        dir.display()
    )))
}

/// `dir` relative to the current directory when it is below it, so that reports name
/// files as a user would type them.
fn relative_to_here(dir: PathBuf) -> PathBuf {
    match std::env::current_dir() {
        Ok(here) => match dir.strip_prefix(&here) {
            Ok(relative) if relative.as_os_str().is_empty() => PathBuf::from("."),
            Ok(relative) => relative.to_path_buf(),
            Err(_) => dir,
        },
        Err(_) => dir,
    }
}

/// The one document a command reads: the file named, `-` for standard input, or standard
/// input when no argument is given and it is not a terminal (a pipe or a file). On a
/// terminal with no argument it is an error rather than a silent wait.
pub fn single(argument: Option<&Path>, what: &str) -> Result<Source, Failure> {
    match argument {
        Some(path) => Ok(Source::from_argument(path)),
        None if std::io::stdin().is_terminal() => Err(Failure(format!(
            "no input: pass {what} as a file, or `-` to read it from standard input"
        ))),
        None => Ok(Source::Stdin),
    }
}
