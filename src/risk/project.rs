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
//! Maven files (whose dependency names are what matters, wherever they are declared), and
//! a .NET project file named after its folder (`API/API.csproj`: its SDK and references).
//! The base is read, never the head, so a change cannot switch off its own rules by
//! editing a manifest.
//!
//! The root's compose file is read for one more thing: the files its services name under
//! `env_file:` are env files whatever their names (see [`compose_env_files`]).

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
    "csharp",
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
        name: "Directory.Build.props",
        stack: Some("csharp"),
        read: Read::Words,
    },
    Manifest {
        name: "global.json",
        stack: Some("csharp"),
        read: Read::Nothing,
    },
    Manifest {
        name: "nuget.config",
        stack: Some("csharp"),
        read: Read::Nothing,
    },
    Manifest {
        name: "NuGet.Config",
        stack: Some("csharp"),
        read: Read::Nothing,
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
    ("microsoft.net.sdk.web", "aspnetcore"),
    ("microsoft.aspnetcore.app", "aspnetcore"),
];

/// The stacks of a repository, read directory by directory as changed files ask.
#[derive(Debug, Default)]
pub(crate) struct ProjectModel {
    /// What each directory's manifests show (`""` is the root).
    dirs: HashMap<String, BTreeSet<&'static str>>,
    /// Every stack found so far.
    found: BTreeSet<&'static str>,
    /// The files the root's compose files name under `env_file:`.
    env_files: BTreeSet<String>,
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

    /// Whether `stack` was found for the file (not merely enabled by finding no framework).
    pub fn found(&self, stack: &str) -> bool {
        self.stacks.contains(stack)
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
                let found = read_dir(repo, base, &dir, &mut self.env_files)?;
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

    /// The files the root's compose files name under `env_file:` at the base (read with
    /// the root's manifests, so only once a changed file asked for its stacks).
    pub fn env_files(&self) -> &BTreeSet<String> {
        &self.env_files
    }
}

/// What the manifests directly in `dir` show. Below the root only manifests that name
/// dependencies are read: the stacks of the others (`docker`, `compose`, `kubernetes`,
/// `terraform`) are enabled by file names anyway, so looking for them in every directory
/// would only cost lookups.
fn read_dir(
    repo: &Repo,
    base: &Head,
    dir: &str,
    env_files: &mut BTreeSet<String>,
) -> Result<BTreeSet<&'static str>, GitError> {
    let mut stacks = BTreeSet::new();
    let manifests = MANIFESTS
        .iter()
        .filter(|manifest| dir.is_empty() || !matches!(manifest.read, Read::Nothing));
    // At a commit the directory's names are known: look up only the manifests whose name
    // (or first directory, `requirements/` of `requirements/base.txt`) is there.
    let first = |manifest: &Manifest| manifest.name.split('/').next().unwrap_or(manifest.name);
    let present = repo.names_present_at(
        base,
        dir.trim_end_matches('/'),
        manifests.clone().map(first),
    )?;
    for manifest in manifests {
        if let Some(present) = &present {
            if !present.contains(&first(manifest)) {
                continue;
            }
        }
        let path = format!("{dir}{}", manifest.name);
        let Some(bytes) = repo.read_file_at(base, &path)? else {
            continue;
        };
        if manifest.stack == Some("compose") {
            env_files.extend(compose_env_files(&path, &bytes));
        }
        stacks.extend(manifest.stack);
        read_manifest(&mut stacks, manifest.read, &bytes);
    }
    // A .NET project file is named after its folder (`API/API.csproj`,
    // `src/Web/Web.csproj`): that name is looked up as a manifest's, and its SDK and
    // references name the framework (`Microsoft.NET.Sdk.Web`: ASP.NET Core).
    if let Some(name) = dir.trim_end_matches('/').rsplit('/').next() {
        if !name.is_empty() {
            let project = format!("{name}.csproj");
            let present =
                repo.names_present_at(base, dir.trim_end_matches('/'), [project.as_str()])?;
            if present.is_none_or(|present| !present.is_empty()) {
                if let Some(bytes) = repo.read_file_at(base, &format!("{dir}{project}"))? {
                    stacks.insert("csharp");
                    read_manifest(&mut stacks, Read::Words, &bytes);
                }
            }
        }
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

/// The names of compose files, looked for in a folder.
pub(crate) const COMPOSE_NAMES: [&str; 4] = [
    "docker-compose.yml",
    "docker-compose.yaml",
    "compose.yml",
    "compose.yaml",
];

/// Whether `path` is named like a compose file (`docker-compose*.yml`, `compose*.yaml`):
/// the names the `compose` rules read.
pub(crate) fn is_compose_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    (name.starts_with("docker-compose") || name.starts_with("compose"))
        && (name.ends_with(".yml") || name.ends_with(".yaml"))
}

/// The files the services of the compose file at `path` name under `env_file:` (a string,
/// a list of strings, or a list of `path:` entries), as repository paths: relative to the
/// compose file's folder, normalised. An entry that is absolute or leaves the repository
/// names nothing, and so does a file that is not YAML.
pub(crate) fn compose_env_files(path: &str, bytes: &[u8]) -> Vec<String> {
    use yaml_serde::Value;
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Vec::new();
    };
    let Ok(compose) = yaml_serde::from_str::<Value>(text) else {
        return Vec::new();
    };
    let Some(services) = compose.get("services").and_then(Value::as_mapping) else {
        return Vec::new();
    };
    let dir = path.rsplit_once('/').map_or("", |(dir, _)| dir);
    let entries = services
        .values()
        .filter_map(|service| service.get("env_file"))
        .flat_map(|entry| match entry {
            Value::Sequence(items) => items.iter().collect(),
            other => vec![other],
        });
    entries
        .filter_map(|entry| entry.as_str().or_else(|| entry.get("path")?.as_str()))
        .chain(commented_env_files(text))
        .filter_map(|name| joined(dir, name))
        .collect()
}

/// The entries of `env_file:` lists that are commented out (`# - ./docker/php/xdebug`
/// under "uncomment to enable Xdebug"), and commented `# env_file: ./x` keys: the compose
/// file still names them as env files, one uncomment away from being read. A block ends
/// at the first key no deeper than its `env_file:`, or at a commented-out key.
fn commented_env_files(text: &str) -> Vec<&str> {
    let mut names = Vec::new();
    // The indentation of the `env_file:` key whose block the line is in.
    let mut block: Option<usize> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let commented = trimmed.starts_with('#');
        let uncommented = trimmed.trim_start_matches('#').trim_start();
        if let Some(value) = uncommented.strip_prefix("env_file:") {
            block = Some(indent);
            if commented {
                names.extend(env_file_name(value));
            }
        } else if commented && is_key(uncommented) {
            block = None;
        } else if commented {
            if let Some(item) = uncommented.strip_prefix("- ").filter(|_| block.is_some()) {
                let item = item.trim_start();
                names.extend(env_file_name(item.strip_prefix("path:").unwrap_or(item)));
            }
        } else if !trimmed.is_empty()
            && !trimmed.starts_with('-')
            && block.is_some_and(|key| indent <= key)
        {
            block = None;
        }
    }
    names
}

/// Whether a line starts with a YAML key (`volumes:`, `ports: [8307]`).
fn is_key(line: &str) -> bool {
    let name_end = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(line.len());
    name_end > 0 && line[name_end..].starts_with(':')
}

/// The path of a commented-out entry: its first word, unquoted; none for anything else
/// (`KEY=value`, `host:container`, an empty value).
fn env_file_name(value: &str) -> Option<&str> {
    let word = value.split_whitespace().next()?;
    let word = word.trim_matches(|c| c == '"' || c == '\'');
    let path_like = !word.is_empty() && !word.contains([':', '=', '{', '[', '$']);
    path_like.then_some(word)
}

/// `name` read from the folder `dir` of the repository, `.` and `..` resolved; none when
/// it is absolute or climbs out of the repository.
fn joined(dir: &str, name: &str) -> Option<String> {
    if name.starts_with('/') || name.starts_with('~') {
        return None;
    }
    let mut parts: Vec<&str> = dir.split('/').filter(|part| !part.is_empty()).collect();
    for part in name.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
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
        let web = br#"<Project Sdk="Microsoft.NET.Sdk.Web"><ItemGroup><PackageReference Include="Microsoft.NET.Sdk.Web.Extras" /></ItemGroup></Project>"#;
        assert_eq!(read(Read::Words, web), ["aspnetcore"]);
        let library = br#"<Project Sdk="Microsoft.NET.Sdk"><ItemGroup><PackageReference Include="Microsoft.AspNetCore.App.Ref" /></ItemGroup></Project>"#;
        assert!(read(Read::Words, library).is_empty());
    }

    #[test]
    fn compose_env_files_are_read_relative_to_the_compose_file() {
        let compose = b"services:
  php:
    env_file: ./docker/php/xdebug
  db:
    env_file:
      - ../db.env
      - path: ./local
        required: false
      - ../../../outside
      - /etc/secrets
      # Uncomment to enable Xdebug:
      # - ./docker/php/xdebug
  web: {}
  # cache:
  #   env_file: cache.env
  #   volumes:
  #     - ../data
";
        assert_eq!(
            compose_env_files("deploy/compose.yaml", compose),
            [
                "deploy/docker/php/xdebug",
                "db.env",
                "deploy/local",
                "deploy/docker/php/xdebug",
                "deploy/cache.env"
            ]
        );
        assert!(compose_env_files("compose.yaml", b"services: [unclosed").is_empty());
        assert!(
            compose_env_files("compose.yaml", b"services:\n  a:\n    env_file: ../x\n").is_empty()
        );
        assert!(compose_env_files("compose.yaml", b"services: 3\n").is_empty());
        assert!(
            is_compose_file("docker/docker-compose.dev.yml") && is_compose_file("compose.yaml")
        );
        assert!(!is_compose_file("composer.json") && !is_compose_file("docker/php/xdebug"));
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
