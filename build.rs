//! Sets `HANDOFF_VERSION` for `handoff --version`: the package version, and the commit
//! and its date when built from a git checkout (`0.1.0 (3f2a9c1d0b4e 2026-11-23)`), or
//! `HANDOFF_COMMIT` when a packager sets it. Outside git (a crates.io or sdist build, git
//! missing) it is the package version alone.

use std::process::Command;

fn main() {
    let version = env!("CARGO_PKG_VERSION");
    let full = match commit() {
        Some(commit) => format!("{version} ({commit})"),
        None => version.to_string(),
    };
    println!("cargo:rustc-env=HANDOFF_VERSION={full}");
    println!("cargo:rerun-if-env-changed=HANDOFF_COMMIT");
    // A new commit moves HEAD or the branch it names (loose or packed).
    let reference = git(&["symbolic-ref", "-q", "HEAD"]);
    for name in ["HEAD", "packed-refs"]
        .into_iter()
        .chain(reference.as_deref())
    {
        if let Some(path) = git(&["rev-parse", "--git-path", name]) {
            if std::path::Path::new(&path).exists() {
                println!("cargo:rerun-if-changed={path}");
            }
        }
    }
}

/// `HANDOFF_COMMIT` when a packager sets it, else the checkout's commit and date.
fn commit() -> Option<String> {
    if let Ok(commit) = std::env::var("HANDOFF_COMMIT") {
        return Some(commit).filter(|c| !c.trim().is_empty());
    }
    // Only the package's own repository counts, not one it happens to sit in.
    let top = git(&["rev-parse", "--show-toplevel"])?;
    let manifest = std::env::var("CARGO_MANIFEST_DIR").ok()?;
    let same = |a: &str, b: &str| std::fs::canonicalize(a).ok() == std::fs::canonicalize(b).ok();
    if !same(&top, &manifest) {
        return None;
    }
    git(&["log", "-1", "--format=%h %cs", "--abbrev=12"])
}

/// The trimmed output of a successful git command, run in the package's directory.
fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
}
