//! Dependency choices the README's "Dependencies" section records, held here so that a
//! `cargo update` or a new schema cannot undo them unnoticed.

use serde_json::Value;
use std::path::Path;

fn repository_file(path: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The versions `Cargo.lock` resolves a package to.
fn locked_versions(lock: &str, package: &str) -> Vec<String> {
    let name = format!("name = \"{package}\"");
    lock.split("[[package]]")
        .filter(|block| block.lines().any(|line| line.trim() == name))
        .filter_map(|block| {
            block
                .lines()
                .find_map(|line| line.trim().strip_prefix("version = \""))
                .map(|rest| rest.trim_end_matches('"').to_string())
        })
        .collect()
}

/// `idna` (through `boon`'s `url`) is built without a Unicode back end: `idna_adapter`
/// 1.0 in `Cargo.lock` instead of 1.2, which brings ICU4X (21 crates, four of them proc
/// macros). `cargo update` picks 1.2 again; `cargo update -p idna_adapter --precise
/// 1.0.0` restores the choice.
#[test]
fn the_lock_builds_idna_without_icu4x() {
    let lock = repository_file("Cargo.lock");
    let versions = locked_versions(&lock, "idna_adapter");
    assert!(
        !versions.is_empty() && versions.iter().all(|v| v.starts_with("1.0.")),
        "Cargo.lock has idna_adapter {versions:?}, not 1.0.x: run `cargo update -p \
         idna_adapter --precise 1.0.0` (the README's \"Dependencies\" says why)"
    );
    for icu in ["icu_normalizer", "icu_properties", "zerovec"] {
        let versions = locked_versions(&lock, icu);
        assert!(
            versions.is_empty(),
            "{icu} {versions:?} is back in Cargo.lock"
        );
    }
}

/// What makes that choice safe: without a Unicode back end `idna` refuses non-ASCII
/// domain names, and the schemas never hand `boon` one. Every URL they name (`$id`,
/// `$schema`, `$ref`) is ASCII, and no schema asks for a format checked through IDNA
/// (`boon` does not assert formats under draft 2020-12 anyway; this keeps a schema that
/// turns them on honest).
#[test]
fn the_schemas_ask_for_no_internationalised_name() {
    const THROUGH_IDNA: [&str; 4] = ["idn-hostname", "idn-email", "iri", "iri-reference"];
    let mut urls = 0;
    let mut schemas = 0;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema");
    for entry in std::fs::read_dir(&dir).expect("the schemas ship in schema/") {
        let path = entry.expect("a directory entry").path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".schema.json") {
            continue;
        }
        schemas += 1;
        let schema: Value = serde_json::from_str(&repository_file(&format!("schema/{name}")))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut stack = vec![&schema];
        while let Some(value) = stack.pop() {
            match value {
                Value::Object(members) => {
                    for (key, member) in members {
                        if let ("$id" | "$schema" | "$ref", Value::String(url)) =
                            (key.as_str(), member)
                        {
                            urls += 1;
                            assert!(url.is_ascii(), "{name}: {key} {url:?} is not ASCII");
                        }
                        if let ("format", Value::String(format)) = (key.as_str(), member) {
                            assert!(
                                !THROUGH_IDNA.contains(&format.as_str()),
                                "{name}: format {format:?} is checked through IDNA"
                            );
                        }
                        stack.push(member);
                    }
                }
                Value::Array(items) => stack.extend(items),
                _ => {}
            }
        }
    }
    assert!(schemas >= 8, "{schemas} schemas found in schema/");
    assert!(urls >= 2 * schemas, "{urls} URLs in {schemas} schemas");
}
