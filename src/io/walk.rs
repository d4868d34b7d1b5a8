//! Listing the Markdown files under a directory, for every command that takes one.
//!
//! A Markdown file is one named `*.md` or `*.markdown` (any case). The walk is sorted, so
//! every command reads the same files in the same order; a symbolic link to a file counts,
//! a symbolic link to a directory is not followed (it may point back up the tree, which
//! would list every file over and over, or out of it).

use std::path::{Path, PathBuf};

/// How deep a walk goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Depth {
    /// The directory's own files only.
    Top,
    /// Every directory below it too.
    All,
}

/// A directory that could not be listed.
#[derive(Debug, thiserror::Error)]
#[error("{}: cannot list the directory: {source}", path.display())]
pub struct WalkError {
    /// The directory.
    pub path: PathBuf,
    /// The operating system's error.
    pub source: std::io::Error,
}

/// Whether `path` names a Markdown file by its extension (`.md`, `.markdown`, any case).
pub fn is_markdown_file(path: &Path) -> bool {
    path.extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("md") || ext.eq_ignore_ascii_case("markdown"))
}

/// The Markdown files in `directory` (and below it, for [`Depth::All`]), sorted.
pub fn markdown_files(directory: &Path, depth: Depth) -> Result<Vec<PathBuf>, WalkError> {
    let mut files = Vec::new();
    walk(directory, depth, &mut files)?;
    files.sort();
    Ok(files)
}

fn walk(directory: &Path, depth: Depth, files: &mut Vec<PathBuf>) -> Result<(), WalkError> {
    let failure = |source| WalkError {
        path: directory.to_path_buf(),
        source,
    };
    for entry in std::fs::read_dir(directory).map_err(failure)? {
        let entry = entry.map_err(failure)?;
        let path = entry.path();
        let file_type = entry.file_type().map_err(failure)?;
        if file_type.is_dir() {
            if depth == Depth::All {
                walk(&path, depth, files)?;
            }
        } else if is_markdown_file(&path) && !(file_type.is_symlink() && path.is_dir()) {
            files.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walk_is_sorted_and_takes_only_markdown() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root = dir.path();
        for name in [
            "b.md",
            "a.MARKDOWN",
            "notes.txt",
            "sub/c.md",
            "sub/deeper/d.Md",
        ] {
            let path = root.join(name);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(path, "x").expect("write");
        }
        let names = |depth| {
            markdown_files(root, depth)
                .expect("a walk")
                .iter()
                .map(|path| {
                    path.strip_prefix(root)
                        .expect("below")
                        .display()
                        .to_string()
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(names(Depth::Top), ["a.MARKDOWN", "b.md"]);
        assert_eq!(
            names(Depth::All),
            ["a.MARKDOWN", "b.md", "sub/c.md", "sub/deeper/d.Md"]
        );
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(root, root.join("sub/loop.md")).expect("symlink");
            assert_eq!(
                names(Depth::All).len(),
                4,
                "a link to a directory is not followed"
            );
        }
        assert!(markdown_files(&root.join("absent"), Depth::All)
            .err()
            .is_some_and(|e| e.to_string().contains("cannot list the directory")));
    }
}
