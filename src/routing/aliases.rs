//! The controlled vocabulary: valid domains, qualifier aliases and departments.
//!
//! A registry's `capability-aliases.yaml` has two parts: `domains:`, the only valid
//! first-level capabilities, and `qualifiers:`, each canonical qualifier with the
//! variant spellings that mean it (`oauth2: [oauth-2.0, oauth 2, oauth]`). Matching
//! uses canonical forms only, so `OAuth 2` asked for and `oauth2` declared match.
//!
//! A variant listed under two canonical forms (the real registry lists `tf` under both
//! `terraform` and `tensorflow`) cannot be mapped without guessing; it is left as
//! written and reported by [`Aliases::ambiguous_variants`]. An optional `departments:`
//! mapping (`department: [agent, …]`) gives agents a department for the
//! department-affinity rule.

use super::normalise::normalise_term;
use super::yaml::RegistryError;
use super::yaml::{self, Departments, QualifierList, Term, UniqueMap};
use crate::record::Capability;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The file name a registry's aliases are looked for under.
pub const ALIASES_FILE_NAME: &str = "capability-aliases.yaml";

/// The vocabulary capabilities are normalised against. The default is empty: any
/// domain is accepted and qualifiers are only normalised as text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Aliases {
    domains: BTreeSet<String>,
    canonical: BTreeMap<String, String>,
    ambiguous: BTreeMap<String, Vec<String>>,
    departments: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
struct AliasesFile {
    #[serde(default)]
    domains: Vec<Term>,
    #[serde(default)]
    qualifiers: UniqueMap<QualifierList>,
    #[serde(default)]
    departments: Departments,
}

/// A registry and its controlled vocabulary: the aliases file `aliases`, else the one
/// that belongs to the registry ([`Aliases::discover`]), else none; each agent's
/// department is assigned from the vocabulary's departments.
pub fn load_registry(
    registry: &Path,
    aliases: Option<&Path>,
) -> Result<(super::Registry, Aliases), RegistryError> {
    let mut loaded = super::Registry::load(registry)?;
    let aliases = match aliases
        .map(Path::to_path_buf)
        .or_else(|| Aliases::discover(registry))
    {
        Some(path) => Aliases::load(&path)?,
        None => Aliases::default(),
    };
    loaded.assign_departments(aliases.departments());
    Ok((loaded, aliases))
}

impl Aliases {
    /// Reads an aliases file.
    pub fn load(path: &Path) -> Result<Aliases, RegistryError> {
        let text = super::registry::read_text(path)?;
        Aliases::from_yaml(path, &text)
    }

    /// Reads the aliases YAML `text`; `path` names it in errors.
    pub fn from_yaml(path: &Path, text: &str) -> Result<Aliases, RegistryError> {
        let file: AliasesFile = yaml::parse(path, text, 1)?;
        let (canonical, ambiguous) = alias_table(file.qualifiers.0);
        Ok(Aliases {
            domains: file
                .domains
                .into_iter()
                .map(|Term(domain)| domain)
                .collect(),
            canonical,
            ambiguous,
            departments: file.departments.0,
        })
    }

    /// The aliases file that belongs to a registry, when there is one: a
    /// `capability-aliases.yaml` inside the registry directory, else next to the registry.
    pub fn discover(registry: &Path) -> Option<PathBuf> {
        let inside = registry.is_dir().then(|| registry.join(ALIASES_FILE_NAME));
        let beside = registry
            .parent()
            .map(|parent| parent.join(ALIASES_FILE_NAME));
        inside
            .into_iter()
            .chain(beside)
            .find(|candidate| candidate.is_file())
    }

    /// Whether the file declared a controlled list of domains.
    pub fn has_vocabulary(&self) -> bool {
        !self.domains.is_empty()
    }

    /// Whether `domain` (normalised) is valid: it is in the vocabulary, or there is none.
    pub fn knows_domain(&self, domain: &str) -> bool {
        !self.has_vocabulary() || self.domains.contains(domain)
    }

    /// The controlled domains, sorted.
    pub fn domains(&self) -> impl Iterator<Item = &str> {
        self.domains.iter().map(String::as_str)
    }

    /// The canonical form of a qualifier: normalised, then mapped through the aliases.
    pub fn canonical_qualifier(&self, qualifier: &str) -> String {
        let term = normalise_term(qualifier);
        self.canonical.get(&term).cloned().unwrap_or(term)
    }

    /// The capability with its domain normalised and its qualifiers canonical.
    pub fn canonical(&self, capability: &Capability) -> Capability {
        let qualifiers = capability
            .qualifiers
            .iter()
            .map(|q| self.canonical_qualifier(q));
        Capability::new(normalise_term(&capability.domain), qualifiers)
    }

    /// Variants listed under more than one canonical qualifier, each with those forms;
    /// they are left as written.
    pub fn ambiguous_variants(&self) -> &BTreeMap<String, Vec<String>> {
        &self.ambiguous
    }

    /// The departments the file assigns, agent → department.
    pub fn departments(&self) -> &BTreeMap<String, String> {
        &self.departments
    }
}

type AliasTable = (BTreeMap<String, String>, BTreeMap<String, Vec<String>>);

/// Builds variant → canonical, setting aside variants that two canonical forms claim.
/// Canonical forms always map to themselves.
fn alias_table(entries: Vec<(String, QualifierList)>) -> AliasTable {
    let canonical_forms: BTreeSet<String> = entries.iter().map(|(key, _)| key.clone()).collect();
    let mut claims: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (canonical, QualifierList(variants)) in entries {
        for variant in variants
            .into_iter()
            .filter(|v| !canonical_forms.contains(v))
        {
            claims.entry(variant).or_default().insert(canonical.clone());
        }
    }
    let mut table: BTreeMap<String, String> = canonical_forms
        .iter()
        .map(|c| (c.clone(), c.clone()))
        .collect();
    let mut ambiguous = BTreeMap::new();
    for (variant, owners) in claims {
        match owners.len() {
            1 => {
                table.insert(variant, owners.into_iter().collect());
            }
            _ => {
                ambiguous.insert(variant, owners.into_iter().collect());
            }
        }
    }
    (table, ambiguous)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "# Capability Qualifier Aliases\ndomains:\n  - auth        # sessions, OAuth\n  - Backend\nqualifiers:\n  # Auth\n  oauth2: [oauth-2.0, oauth 2, oauth]\n  pkce: [proof-key-code-exchange]\n  terraform: [tf, iac-terraform]\n  tensorflow: [tf, tensorflow2]\nnormalization:\n  case: lowercase\ndepartments:\n  engineering: [backend-engineer, security-engineer]\n";

    fn aliases() -> Aliases {
        match Aliases::from_yaml(Path::new("capability-aliases.yaml"), FILE) {
            Ok(aliases) => aliases,
            Err(error) => panic!("{error}"),
        }
    }

    #[test]
    fn variants_map_to_their_canonical_form() {
        let aliases = aliases();
        assert_eq!(aliases.canonical_qualifier(" OAuth  2 "), "oauth2");
        assert_eq!(aliases.canonical_qualifier("oauth2"), "oauth2");
        assert_eq!(aliases.canonical_qualifier("saml"), "saml");
        let asked = Capability::new("AUTH", ["oauth".into(), "proof-key-code-exchange".into()]);
        assert_eq!(
            aliases.canonical(&asked).to_string(),
            "auth: [oauth2, pkce]"
        );
    }

    #[test]
    fn a_variant_claimed_twice_is_left_as_written_and_reported() {
        let aliases = aliases();
        assert_eq!(aliases.canonical_qualifier("tf"), "tf");
        let expected = vec!["tensorflow".to_string(), "terraform".to_string()];
        assert_eq!(aliases.ambiguous_variants().get("tf"), Some(&expected));
    }

    #[test]
    fn domains_and_departments_are_read() {
        let aliases = aliases();
        assert!(aliases.knows_domain("backend") && !aliases.knows_domain("payments"));
        assert_eq!(aliases.domains().collect::<Vec<_>>(), ["auth", "backend"]);
        assert_eq!(
            aliases
                .departments()
                .get("security-engineer")
                .map(String::as_str),
            Some("engineering")
        );
        assert!(Aliases::default().knows_domain("anything"));
    }

    #[test]
    fn malformed_files_name_the_line() {
        let cases = [
            (
                "domains: [auth]\nqualifiers:\n  oauth2: [oauth]\n  oauth2: [oauth-2]\n",
                "a.yaml:4:",
                "appears twice",
            ),
            (
                "departments:\n  eng: [a]\n  sales: [a]\n",
                "a.yaml:3:",
                "`eng` and `sales`",
            ),
        ];
        for (text, location, message) in cases {
            let error = Aliases::from_yaml(Path::new("a.yaml"), text)
                .err()
                .map(|e| e.to_string());
            assert!(
                error
                    .as_deref()
                    .is_some_and(|e| e.starts_with(location) && e.contains(message)),
                "{error:?}"
            );
        }
    }
}
