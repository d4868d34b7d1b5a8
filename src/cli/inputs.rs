//! Turning the command line's `FILE|-|DIR` arguments into documents to read.
//!
//! A directory stands for every Markdown file below it ([`handoff::markdown_files`]),
//! so `handoff lint examples/` checks a whole folder. `-` (or no argument) is standard
//! input.

use handoff::{markdown_files, Depth, Source, WalkError};
use std::path::PathBuf;

/// Expands arguments: `-` is standard input, a directory its Markdown files; none means
/// `-`. A directory that cannot be listed is an error in its place.
pub fn expand(arguments: &[PathBuf]) -> Vec<Result<Source, WalkError>> {
    if arguments.is_empty() {
        return vec![Ok(Source::Stdin)];
    }
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
    inputs
}
