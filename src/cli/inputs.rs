//! Turning the command line's `FILE|-|DIR` arguments into documents.
//!
//! A directory stands for every `.md` / `.markdown` file below it, in sorted order, so
//! `handoff lint examples/` checks a whole folder; symbolic links to directories below it
//! are not followed (a link back up the tree would list every file over and over). `-` (or no argument) is standard input.

use handoff::record::{read_input, read_stdin, InputError};
use std::path::{Path, PathBuf};

/// One document to read: a file, or standard input.
#[derive(Debug, Clone)]
pub enum Input {
    /// Standard input, named `-`.
    Stdin,
    /// A file.
    File(PathBuf),
}

impl Input {
    /// The name diagnostics use.
    pub fn name(&self) -> String {
        match self {
            Input::Stdin => "-".to_string(),
            Input::File(path) => path.display().to_string(),
        }
    }

    /// The document's text.
    pub fn read(&self) -> Result<String, InputError> {
        match self {
            Input::Stdin => read_stdin(),
            Input::File(path) => read_input(path),
        }
    }
}

/// Expands arguments: `-` is standard input, a directory its Markdown files; none means `-`.
pub fn expand(arguments: &[PathBuf]) -> Vec<Input> {
    if arguments.is_empty() {
        return vec![Input::Stdin];
    }
    let mut inputs = Vec::new();
    for argument in arguments {
        if argument.as_os_str() == "-" {
            inputs.push(Input::Stdin);
        } else if argument.is_dir() {
            let mut files = Vec::new();
            markdown_files(argument, &mut files);
            files.sort();
            inputs.extend(files.into_iter().map(Input::File));
        } else {
            inputs.push(Input::File(argument.clone()));
        }
    }
    inputs
}

fn markdown_files(directory: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(directory) else {
        files.push(directory.to_path_buf());
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(file_type) = entry.file_type() else {
            files.push(path);
            continue;
        };
        // A symbolic link to a directory is not followed: it may point back up the tree.
        if file_type.is_dir() {
            markdown_files(&path, files);
        } else if file_type.is_symlink() && path.is_dir() {
            continue;
        } else if path.extension().is_some_and(|ext| {
            ext.eq_ignore_ascii_case("md") || ext.eq_ignore_ascii_case("markdown")
        }) {
            files.push(path);
        }
    }
}
