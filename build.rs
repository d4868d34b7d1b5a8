//! Sets `HANDOFF_VERSION` for `handoff --version`: the package version, and the commit
//! and its date when built from a git checkout (`0.1.0 (3f2a9c1d0b4e 2026-11-23)`), or
//! `HANDOFF_COMMIT` when a packager sets it. Outside git (a crates.io or sdist build, git
//! missing) it is the package version alone.
//!
//! Reads the built-in policy, `src/policy/defaults.yaml`, once, here, and writes it as
//! JSON to `OUT_DIR/defaults.json`, which the program embeds: parsing the YAML cost every
//! run about 6.5 M instructions, three times git's whole diff of a one-line commit, and
//! the same data as JSON costs a few hundred thousand. The YAML file stays the source;
//! a test holds the policy read from the JSON equal to the one the YAML loader reads.

use std::path::Path;
use std::process::Command;

fn main() {
    write_defaults_json();
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
            if Path::new(&path).exists() {
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

/// Converts `src/policy/defaults.yaml` to `OUT_DIR/defaults.json` (same data, no
/// comments). A file that is not YAML stops the build at its line and column.
fn write_defaults_json() {
    let source = "src/policy/defaults.yaml";
    println!("cargo:rerun-if-changed={source}");
    let text = std::fs::read_to_string(source)
        .unwrap_or_else(|error| panic!("{source} cannot be read: {error}"));
    let value: yaml_serde::Value = yaml_serde::from_str(&text)
        .unwrap_or_else(|error| panic!("{source} is not valid YAML: {error}"));
    let json = serde_json::to_string(&value)
        .unwrap_or_else(|error| panic!("{source} has no JSON form: {error}"));
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let path = Path::new(&out).join("defaults.json");
    std::fs::write(&path, json)
        .unwrap_or_else(|error| panic!("{} cannot be written: {error}", path.display()));
}
