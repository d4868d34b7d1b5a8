//! The YAML shapes the registry files share, and errors that point at file and line.
//!
//! `yaml_serde` keeps no spans in its values, but it attaches the position of the node
//! being read to any error raised while deserializing. So every check that needs a line
//! number (a duplicate agent, a capability item with two domains, a qualifier that is a
//! map) is made inside a `Deserialize` implementation here, and [`parse`] turns the
//! error's location into a [`RegistryError`] that names the file and the line, shifted by
//! where the YAML starts in the file (front matter starts on line 2).

use super::normalise::normalise_term;
use crate::record::Capability;
use regex::Regex;
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor,
};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A problem with a registry or aliases file: which file, where, and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct RegistryError {
    /// The file (or directory) at fault.
    pub path: PathBuf,
    /// The 1-based line and column, when the problem has a place.
    pub position: Option<(usize, usize)>,
    /// What is wrong and, where it helps, how to fix it.
    pub message: String,
}

impl RegistryError {
    /// An error about `path`, optionally at a line and column.
    pub fn new(path: &Path, position: Option<(usize, usize)>, message: impl Into<String>) -> Self {
        RegistryError {
            path: path.to_path_buf(),
            position,
            message: message.into(),
        }
    }
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some((line, column)) => write!(
                f,
                "{}:{line}:{column}: {}",
                self.path.display(),
                self.message
            ),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

/// Deserializes `text`, the YAML found at line `first_line` of the file at `path`.
pub(crate) fn parse<T: DeserializeOwned>(
    path: &Path,
    text: &str,
    first_line: usize,
) -> Result<T, RegistryError> {
    yaml_serde::from_str(text).map_err(|error| located_error(path, &error, first_line))
}

fn located_error(path: &Path, error: &yaml_serde::Error, first_line: usize) -> RegistryError {
    let raw = error.to_string();
    let Some(location) = error.location() else {
        return RegistryError::new(path, None, raw);
    };
    let own_position = format!(" at line {} column {}", location.line(), location.column());
    let message = shift_line_numbers(&raw.replacen(&own_position, "", 1), first_line - 1);
    let line = location.line() + first_line - 1;
    RegistryError::new(path, Some((line, location.column())), message)
}

/// Adds `offset` to every position a libyaml message mentions ("while parsing a flow
/// sequence at line 3 column 11"); names and keys quoted in the message are left alone.
fn shift_line_numbers(message: &str, offset: usize) -> String {
    static LINE: OnceLock<Option<Regex>> = OnceLock::new();
    let Some(pattern) = LINE.get_or_init(|| Regex::new(r"at line (\d+) column").ok()) else {
        return message.to_string();
    };
    pattern
        .replace_all(message, |captures: &regex::Captures<'_>| {
            let line: usize = captures[1].parse().unwrap_or(0);
            format!("at line {} column", line + offset)
        })
        .into_owned()
}

/// A normalised term: a string (or a number written without quotes, like `2`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Term(pub String);

impl<'de> Deserialize<'de> for Term {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        CheckedTerm(|_: &str| Ok(()))
            .deserialize(deserializer)
            .map(Term)
    }
}

/// Reads a [`Term`] and runs a check on it while the parser still points at the
/// scalar, so a failed check is reported at the term's own line and column.
struct CheckedTerm<F>(F);

impl<'de, F: FnOnce(&str) -> Result<(), String>> DeserializeSeed<'de> for CheckedTerm<F> {
    type Value = String;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<F: FnOnce(&str) -> Result<(), String>> Visitor<'_> for CheckedTerm<F> {
    type Value = String;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a name (a string)")
    }
    fn visit_str<E: de::Error>(self, text: &str) -> Result<String, E> {
        let term = normalise_term(text);
        if term.is_empty() {
            return Err(E::custom("a name is empty"));
        }
        (self.0)(&term).map_err(E::custom)?;
        Ok(term)
    }
    fn visit_i64<E: de::Error>(self, number: i64) -> Result<String, E> {
        self.visit_str(&number.to_string())
    }
    fn visit_u64<E: de::Error>(self, number: u64) -> Result<String, E> {
        self.visit_str(&number.to_string())
    }
}

/// A key checker for [`CheckedTerm`]: refuses a key already seen.
fn new_key(
    seen: &mut BTreeSet<String>,
) -> CheckedTerm<impl FnOnce(&str) -> Result<(), String> + '_> {
    CheckedTerm(move |key: &str| match seen.insert(key.to_string()) {
        true => Ok(()),
        false => Err(format!("`{key}` appears twice")),
    })
}

/// A mapping whose keys are normalised terms and must be unique after normalisation;
/// entries stay in file order.
#[derive(Debug, Clone)]
pub(crate) struct UniqueMap<V>(pub Vec<(String, V)>);

impl<V> Default for UniqueMap<V> {
    fn default() -> Self {
        UniqueMap(Vec::new())
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for UniqueMap<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MapVisitor<V>(PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for MapVisitor<V> {
            type Value = UniqueMap<V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a mapping of `name: value` entries")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(UniqueMap::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut seen = BTreeSet::new();
                let mut entries = Vec::new();
                while let Some(key) = map.next_key_seed(new_key(&mut seen))? {
                    entries.push((key, map.next_value()?));
                }
                Ok(UniqueMap(entries))
            }
        }
        deserializer.deserialize_any(MapVisitor(PhantomData))
    }
}

/// A list of qualifiers: `[oauth2, pkce]`, a comma-separated string, or nothing.
#[derive(Debug, Clone, Default)]
pub(crate) struct QualifierList(pub Vec<String>);

impl<'de> Deserialize<'de> for QualifierList {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ListVisitor;
        impl<'de> Visitor<'de> for ListVisitor {
            type Value = QualifierList;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of qualifiers, e.g. `[oauth2, pkce]`")
            }
            fn visit_unit<E: de::Error>(self) -> Result<QualifierList, E> {
                Ok(QualifierList::default())
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<QualifierList, E> {
                let terms = text
                    .split(',')
                    .map(normalise_term)
                    .filter(|q| !q.is_empty());
                Ok(QualifierList(terms.collect()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<QualifierList, A::Error> {
                let mut terms = Vec::new();
                while let Some(Term(term)) = seq.next_element()? {
                    terms.push(term);
                }
                Ok(QualifierList(terms))
            }
        }
        deserializer.deserialize_any(ListVisitor)
    }
}

/// One item of a `capabilities:` list: `- auth: [oauth2, pkce]` or a bare `- backend`.
struct CapabilityItem(Capability);

impl<'de> Deserialize<'de> for CapabilityItem {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ItemVisitor;
        impl<'de> Visitor<'de> for ItemVisitor {
            type Value = CapabilityItem;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`domain: [qualifier, …]` or a bare `domain`")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<CapabilityItem, E> {
                let Term(domain) = Term::deserialize(de::value::StrDeserializer::<E>::new(text))?;
                Ok(CapabilityItem(Capability::new(domain, [])))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CapabilityItem, A::Error> {
                let Some((Term(domain), QualifierList(qualifiers))) = map.next_entry()? else {
                    return Err(de::Error::custom("a capability item is an empty mapping"));
                };
                if map.next_key::<Term>()?.is_some() {
                    return Err(de::Error::custom(
                        "a capability item names more than one domain; write one `- domain: [qualifiers]` per line",
                    ));
                }
                Ok(CapabilityItem(Capability::new(domain, qualifiers)))
            }
        }
        deserializer.deserialize_any(ItemVisitor)
    }
}

/// An agent's `capabilities:`, either a list of items (front matter, capability index)
/// or a `domain: [qualifiers]` mapping (plain registry).
#[derive(Debug, Clone, Default)]
pub(crate) struct Capabilities(pub Vec<Capability>);

impl<'de> Deserialize<'de> for Capabilities {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CapabilitiesVisitor;
        impl<'de> Visitor<'de> for CapabilitiesVisitor {
            type Value = Capabilities;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a list of `- domain: [qualifiers]` items or a `domain: [qualifiers]` mapping",
                )
            }
            fn visit_unit<E: de::Error>(self) -> Result<Capabilities, E> {
                Ok(Capabilities::default())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Capabilities, A::Error> {
                let mut items = Vec::new();
                while let Some(CapabilityItem(capability)) = seq.next_element()? {
                    items.push(capability);
                }
                Ok(Capabilities(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Capabilities, A::Error> {
                let entries: UniqueMap<QualifierList> =
                    Deserialize::deserialize(de::value::MapAccessDeserializer::new(map))?;
                let items = entries
                    .0
                    .into_iter()
                    .map(|(domain, QualifierList(q))| Capability::new(domain, q));
                Ok(Capabilities(items.collect()))
            }
        }
        deserializer.deserialize_any(CapabilitiesVisitor)
    }
}

/// One agent as the front matter of its Markdown file, or an item of a plain registry's
/// `agents:` list, declares it.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct AgentEntry {
    /// The agent's name, e.g. `security-engineer`.
    pub name: Term,
    /// The agent's department, when it declares one.
    #[serde(default)]
    pub department: Option<Term>,
    /// What the agent can do.
    #[serde(default)]
    pub capabilities: Capabilities,
    /// How many handoffs it takes at once (002 §5.2).
    #[serde(default)]
    pub max_concurrent_tasks: Option<u32>,
}

/// One agent of a 004-style `capabilities.yaml`: `agents: {name: {accepts, produces}}`.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct AcceptsEntry {
    /// The kinds of work it accepts: its capabilities, as bare domains.
    #[serde(default)]
    pub accepts: QualifierList,
    /// What it produces.
    #[serde(default)]
    pub produces: QualifierList,
    /// Its department, when it declares one.
    #[serde(default)]
    pub department: Option<Term>,
    /// How many handoffs it takes at once.
    #[serde(default)]
    pub max_concurrent_tasks: Option<u32>,
}

/// A registry file's `agents:`: a list (the plain layout) or a mapping of agent to
/// `accepts`/`produces` (004's `capabilities.yaml`).
#[derive(Debug, Clone)]
pub(crate) enum AgentsSection {
    /// `agents: [{name, department, capabilities}]`.
    List(AgentList),
    /// `agents: {name: {accepts, produces}}`.
    Accepts(UniqueMap<AcceptsEntry>),
}

impl<'de> Deserialize<'de> for AgentsSection {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SectionVisitor;
        impl<'de> Visitor<'de> for SectionVisitor {
            type Value = AgentsSection;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of agents `[{name, capabilities}]` or a mapping `name: {accepts, produces}`")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<AgentsSection, A::Error> {
                AgentList::deserialize(de::value::SeqAccessDeserializer::new(seq))
                    .map(AgentsSection::List)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<AgentsSection, A::Error> {
                UniqueMap::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(AgentsSection::Accepts)
            }
        }
        deserializer.deserialize_any(SectionVisitor)
    }
}

/// The agents of one department, added to agent → department; an agent already in
/// another department is an error that points at it.
struct Members<'a> {
    department: &'a str,
    by_agent: &'a mut BTreeMap<String, String>,
}

impl<'de> DeserializeSeed<'de> for Members<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Members<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of agents, e.g. `[backend-engineer, security-engineer]`")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq
            .next_element_seed(Member {
                department: self.department,
                by_agent: &mut *self.by_agent,
            })?
            .is_some()
        {}
        Ok(())
    }
}

/// One agent of a department's list.
struct Member<'a> {
    department: &'a str,
    by_agent: &'a mut BTreeMap<String, String>,
}

impl<'de> DeserializeSeed<'de> for Member<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        let Member {
            department,
            by_agent,
        } = self;
        let check = |agent: &str| match by_agent.get(agent) {
            Some(other) if other != department => Err(format!(
                "agent `{agent}` is listed in departments `{other}` and `{department}`"
            )),
            _ => Ok(()),
        };
        let agent = CheckedTerm(check).deserialize(deserializer)?;
        by_agent.insert(agent, department.to_string());
        Ok(())
    }
}

/// A plain registry's `agents:` list; two entries with the same name are an error.
#[derive(Debug, Clone, Default)]
pub(crate) struct AgentList(pub Vec<AgentEntry>);

impl<'de> Deserialize<'de> for AgentList {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ListVisitor;
        impl<'de> Visitor<'de> for ListVisitor {
            type Value = AgentList;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of agents, each `{name, department, capabilities}`")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<AgentList, A::Error> {
                let mut seen = BTreeSet::new();
                let mut agents = Vec::new();
                while let Some(agent) = seq.next_element::<AgentEntry>()? {
                    if !seen.insert(agent.name.0.clone()) {
                        let name = &agent.name.0;
                        return Err(de::Error::custom(format!("agent `{name}` is listed twice")));
                    }
                    agents.push(agent);
                }
                Ok(AgentList(agents))
            }
        }
        deserializer.deserialize_seq(ListVisitor)
    }
}

/// A `departments:` mapping, `department: [agent, …]`, read as agent → department; an
/// agent listed under two departments is an error.
#[derive(Debug, Clone, Default)]
pub(crate) struct Departments(pub BTreeMap<String, String>);

impl<'de> Deserialize<'de> for Departments {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct DepartmentsVisitor;
        impl<'de> Visitor<'de> for DepartmentsVisitor {
            type Value = Departments;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a mapping `department: [agent, …]`")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Departments, E> {
                Ok(Departments::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Departments, A::Error> {
                let mut seen = BTreeSet::new();
                let mut by_agent = BTreeMap::new();
                while let Some(department) = map.next_key_seed(new_key(&mut seen))? {
                    map.next_value_seed(Members {
                        department: &department,
                        by_agent: &mut by_agent,
                    })?;
                }
                Ok(Departments(by_agent))
            }
        }
        deserializer.deserialize_any(DepartmentsVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[derive(Debug, Deserialize)]
    struct Holder {
        capabilities: Capabilities,
    }

    fn read(text: &str) -> Result<Vec<Capability>, RegistryError> {
        parse::<Holder>(&PathBuf::from("agents/x.md"), text, 2).map(|h| h.capabilities.0)
    }

    #[test]
    fn lists_bare_domains_and_mappings_read_alike() {
        let list = read("capabilities:\n  - Auth: [OAuth2, 'PKCE']\n  - backend\n");
        let map = read("capabilities:\n  auth: [oauth2, pkce]\n  backend:\n");
        let expected = vec![
            Capability::new("auth", ["oauth2".into(), "pkce".into()]),
            Capability::new("backend", []),
        ];
        assert_eq!(list.ok(), Some(expected.clone()));
        assert_eq!(map.ok(), Some(expected));
    }

    #[test]
    fn errors_name_the_file_line_shifted_by_where_the_yaml_starts() {
        let error = read("capabilities:\n  - auth: [oauth2]\n  - {auth: [a], backend: [b]}\n")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(error.starts_with("agents/x.md:4:5: "), "{error}");
        assert!(error.contains("more than one domain"), "{error}");
        let error = read("capabilities:\n  - auth: [oauth2\n")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(error.starts_with("agents/x.md:4:"), "{error}");
        assert!(error.contains("flow sequence at line 3"), "{error}");
    }

    #[test]
    fn duplicate_keys_are_errors_after_normalisation() {
        let error = read("capabilities:\n  auth: [a]\n  ' AUTH': [b]\n")
            .err()
            .map(|e| e.to_string());
        assert!(
            error.is_some_and(
                |e| e.contains("`auth` appears twice") && e.starts_with("agents/x.md:4:")
            )
        );
    }
}
