//! The project model: which stacks a repository is built on, read from its manifests at
//! the base revision.
//!
//! A rule that only means something in one framework (a tRPC procedure, a Ktor route, a
//! Laravel `env()` call) names that framework as its stack, and applies only where the
//! framework is: a manifest at the root of the repository, or in a directory above one of
//! the changed files (a monorepo's `apps/web/package.json` speaks for `apps/web/…`), says
//! it is there. Rules of a language or a file format (`python`, `go`, `docker`, `kubernetes`,
//! …) are enabled by the file's own name and rules of no stack (`any`) everywhere. A repository whose manifests name no
//! framework at all applies every rule: a gate does not go quiet because it could not
//! read the project.
//!
//! Manifests are read as data, not grepped as text where their format allows: the
//! dependency tables of `package.json` and `composer.json`; one dependency a line in
//! `requirements*.txt`, `Gemfile`, `go.mod`, `pyproject.toml`, `Cargo.toml`, `mix.exs`, Gradle and
//! Maven files (whose dependency names are what matters, wherever they are declared).
//! The base is read, never the head, so a change cannot switch off its own rules by
//! editing a manifest.

use crate::git::{GitError, Head, Repo};
use std::collections::{BTreeSet, HashMap};

/// How deep below the root manifests are looked for (`apps/web/` is depth 2).
const MAX_DEPTH: usize = 3;

/// Stacks enabled by a file's own name (a language, a file format, a platform's files),
/// not by a manifest; `any` is every file.
pub(crate) const FILE_STACKS: &[&str] = &[
    "any",
    "python",
    "ruby",
    "php",
    "javascript",
    "typescript",
    "go",
    "rust",
    "java",
    "kotlin",
    "elixir",
    "sql",
    "xml",
    "ci",
    "docker",
    "compose",
    "kubernetes",
    "terraform",
    "config",
];

/// A manifest: its file name and the stacks it shows.
struct Manifest {
    name: &'static str,
    /// The stack the manifest's presence shows.
    stack: Option<&'static str>,
    /// How its dependencies are read.
    read: Read,
}

/// How a manifest names its dependencies.
#[derive(Clone, Copy)]
enum Read {
    /// Presence only.
    Nothing,
    /// JSON objects of dependency names (`package.json`, `composer.json`).
    Json(&'static [&'static str]),
    /// Dependency names anywhere in the text, at word boundaries.
    Words,
}

const PACKAGE_JSON: &[&str] = &["dependencies", "devDependencies", "peerDependencies"];
const COMPOSER_JSON: &[&str] = &["require", "require-dev"];

const MANIFESTS: &[Manifest] = &[
    Manifest {
        name: "package.json",
        stack: Some("javascript"),
        read: Read::Json(PACKAGE_JSON),
    },
    Manifest {
        name: "composer.json",
        stack: Some("php"),
        read: Read::Json(COMPOSER_JSON),
    },
    Manifest {
        name: "Gemfile",
        stack: Some("ruby"),
        read: Read::Words,
    },
    Manifest {
        name: "pyproject.toml",
        stack: Some("python"),
        read: Read::Words,
    },
    Manifest {
        name: "requirements.txt",
        stack: Some("python"),
        read: Read::Words,
    },
    Manifest {
        name: "requirements/base.txt",
        stack: Some("python"),
        read: Read::Words,
    },
    Manifest {
        name: "Pipfile",
        stack: Some("python"),
        read: Read::Words,
    },
    Manifest {
        name: "setup.py",
        stack: Some("python"),
        read: Read::Words,
    },
    Manifest {
        name: "go.mod",
        stack: Some("go"),
        read: Read::Words,
    },
    Manifest {
        name: "Cargo.toml",
        stack: Some("rust"),
        read: Read::Words,
    },
    Manifest {
        name: "pom.xml",
        stack: Some("java"),
        read: Read::Words,
    },
    Manifest {
        name: "build.gradle",
        stack: Some("java"),
        read: Read::Words,
    },
    Manifest {
        name: "build.gradle.kts",
        stack: Some("kotlin"),
        read: Read::Words,
    },
    Manifest {
        name: "mix.exs",
        stack: Some("elixir"),
        read: Read::Words,
    },
    Manifest {
        name: "gradle/libs.versions.toml",
        stack: None,
        read: Read::Words,
    },
    Manifest {
        name: "Dockerfile",
        stack: Some("docker"),
        read: Read::Nothing,
    },
    Manifest {
        name: "docker-compose.yml",
        stack: Some("compose"),
        read: Read::Nothing,
    },
    Manifest {
        name: "docker-compose.yaml",
        stack: Some("compose"),
        read: Read::Nothing,
    },
    Manifest {
        name: "compose.yml",
        stack: Some("compose"),
        read: Read::Nothing,
    },
    Manifest {
        name: "compose.yaml",
        stack: Some("compose"),
        read: Read::Nothing,
    },
    Manifest {
        name: "Chart.yaml",
        stack: Some("kubernetes"),
        read: Read::Nothing,
    },
    Manifest {
        name: "kustomization.yaml",
        stack: Some("kubernetes"),
        read: Read::Nothing,
    },
    Manifest {
        name: "main.tf",
        stack: Some("terraform"),
        read: Read::Nothing,
    },
];

/// A dependency name and the framework it shows.
const FRAMEWORKS: &[(&str, &str)] = &[
    ("next", "nextjs"),
    ("@remix-run/node", "remix"),
    ("@remix-run/react", "remix"),
    ("@react-router/dev", "remix"),
    ("@trpc/server", "trpc"),
    ("express", "express"),
    ("koa", "koa"),
    ("fastify", "fastify"),
    ("@nestjs/core", "nestjs"),
    ("typescript", "typescript"),
    ("laravel/framework", "laravel"),
    ("symfony/framework-bundle", "symfony"),
    ("rails", "rails"),
    ("django", "django"),
    ("flask", "flask"),
    ("fastapi", "fastapi"),
    ("alembic", "alembic"),
    ("pydantic-settings", "pydantic"),
    ("pydantic", "pydantic"),
    ("spring-boot", "spring"),
    ("spring-boot-starter-parent", "spring"),
    ("spring-boot-starter-web", "spring"),
    ("spring-boot-starter-security", "spring"),
    ("org.springframework.boot", "spring"),
    ("ktor-server-core", "ktor"),
    ("ktor-server", "ktor"),
    ("io.ktor", "ktor"),
    ("activitypub_federation", "activitypub"),
    ("actix-web", "actix"),
    ("axum", "axum"),
    ("rocket", "rocket"),
    ("phoenix", "phoenix"),
    ("github.com/gin-gonic/gin", "gin"),
    ("github.com/labstack/echo", "echo"),
];

/// The stacks of a repository, read directory by directory as changed files ask.
#[derive(Debug, Default)]
pub(crate) struct ProjectModel {
    /// What each directory's manifests show (`""` is the root).
    dirs: HashMap<String, BTreeSet<&'static str>>,
    /// Every stack found so far.
    found: BTreeSet<&'static str>,
}

/// The stacks that speak for one file: the root's and those of the directories above it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FileStacks {
    stacks: BTreeSet<&'static str>,
}

impl FileStacks {
    /// Whether a rule of `stack` applies to the file: a language or `any`, a framework
    /// found, or no framework found at all.
    pub fn enables(&self, stack: &str) -> bool {
        FILE_STACKS.contains(&stack)
            || self.stacks.contains(stack)
            || !self.stacks.iter().any(|found| is_framework(found))
    }
}

impl ProjectModel {
    /// The stacks for the file at `path`, reading the manifests of the root and of the
    /// directories above it at `base` (each directory once).
    pub fn file_stacks(
        &mut self,
        repo: &Repo,
        base: &Head,
        path: &str,
    ) -> Result<FileStacks, GitError> {
        let mut stacks = BTreeSet::new();
        let parts: Vec<&str> = path.split('/').collect();
        let depth = parts.len().saturating_sub(1).min(MAX_DEPTH);
        let mut dir = String::new();
        for part in std::iter::once("").chain(parts[..depth].iter().copied()) {
            if !part.is_empty() {
                dir.push_str(part);
                dir.push('/');
            }
            if !self.dirs.contains_key(&dir) {
                let found = read_dir(repo, base, &dir)?;
                self.found.extend(found.iter().copied());
                self.dirs.insert(dir.clone(), found);
            }
            stacks.extend(self.dirs[&dir].iter().copied());
        }
        Ok(FileStacks { stacks })
    }

    /// Every stack found so far, sorted.
    pub fn stacks(&self) -> Vec<String> {
        self.found.iter().map(|stack| stack.to_string()).collect()
    }
}

/// What the manifests directly in `dir` show. Below the root only manifests that name
/// dependencies are read: the stacks of the others (`docker`, `compose`, `kubernetes`,
/// `terraform`) are enabled by file names anyway, so looking for them in every directory
/// would only cost lookups.
fn read_dir(repo: &Repo, base: &Head, dir: &str) -> Result<BTreeSet<&'static str>, GitError> {
    let mut stacks = BTreeSet::new();
    let manifests = MANIFESTS
        .iter()
        .filter(|manifest| dir.is_empty() || !matches!(manifest.read, Read::Nothing));
    for manifest in manifests {
        let Some(bytes) = repo.read_file_at(base, &format!("{dir}{}", manifest.name))? else {
            continue;
        };
        stacks.extend(manifest.stack);
        read_manifest(&mut stacks, manifest.read, &bytes);
    }
    Ok(stacks)
}

/// Adds the frameworks a manifest's dependencies show.
fn read_manifest(stacks: &mut BTreeSet<&'static str>, read: Read, bytes: &[u8]) {
    match read {
        Read::Nothing => {}
        Read::Json(tables) => {
            let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes) else {
                return;
            };
            for table in tables {
                let Some(names) = value.get(table).and_then(|t| t.as_object()) else {
                    continue;
                };
                for name in names.keys() {
                    let known = FRAMEWORKS.iter().find(|(known, _)| known == name);
                    stacks.extend(known.map(|(_, stack)| *stack));
                }
            }
        }
        Read::Words => {
            let text = String::from_utf8_lossy(bytes).to_ascii_lowercase();
            for (name, stack) in FRAMEWORKS {
                if contains_word(&text, name) {
                    stacks.insert(stack);
                }
            }
        }
    }
}

/// Whether `stack` is a framework or platform (found in manifests), not a language.
fn is_framework(stack: &str) -> bool {
    !FILE_STACKS.contains(&stack) && !matches!(stack, "typescript" | "docker" | "compose")
}

/// Whether `text` holds `word` with no name character (letter, digit, `-`, `_`, `.`,
/// `/`) on either side.
fn contains_word(text: &str, word: &str) -> bool {
    let is_name = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/');
    // memchr's searcher: the std one cost more than reading the manifest.
    memchr::memmem::find_iter(text.as_bytes(), word).any(|start| {
        let before = text[..start].chars().next_back();
        let after = text[start + word.len()..].chars().next();
        !before.is_some_and(is_name) && !after.is_some_and(is_name)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(read: Read, bytes: &[u8]) -> Vec<&'static str> {
        let mut stacks = BTreeSet::new();
        read_manifest(&mut stacks, read, bytes);
        stacks.into_iter().collect()
    }

    #[test]
    fn dependency_names_count_at_word_boundaries_only() {
        assert_eq!(
            read(Read::Words, b"Django==5.0\nflask-cors==4\ndjango-environ\n"),
            ["django"]
        );
        let package =
            br#"{"name": "next-app", "dependencies": {"next": "15", "@trpc/server": "11"}}"#;
        assert_eq!(read(Read::Json(PACKAGE_JSON), package), ["nextjs", "trpc"]);
        assert!(read(Read::Json(PACKAGE_JSON), b"{ not json").is_empty());
    }

    #[test]
    fn framework_rules_apply_where_their_framework_is_or_when_none_is_known() {
        let of = |stacks: &[&'static str]| FileStacks {
            stacks: stacks.iter().copied().collect(),
        };
        let laravel = of(&["php", "laravel"]);
        assert!(laravel.enables("laravel") && laravel.enables("php") && laravel.enables("any"));
        assert!(!laravel.enables("trpc"));
        assert!(of(&["docker"]).enables("trpc"));
    }
}
