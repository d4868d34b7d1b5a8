//! Settings classes bound through another file: the class is an env setting because a
//! settings class beside it binds it.
//!
//! `AttachmentProperties.java` names no loader: no `@ConfigurationProperties`, no
//! environment read. Spring binds it all the same when `HaloProperties`, in the same
//! package and annotated `@ConfigurationProperties(prefix = "halo")`, holds a field of its
//! type, or when a configuration class beside it names it in
//! `@EnableConfigurationProperties(AttachmentProperties.class)`: each of its fields is then
//! a variable (`HALO_ATTACHMENT_…`). So is a pydantic `BaseModel` that a `BaseSettings`
//! class beside it uses as a field's type (`db: DatabaseSettings`, read from `DB__HOST`).
//!
//! For each changed Java, Kotlin or Python file with a changed line of code that declares a
//! class (Java and Kotlin: a file named for properties, settings, configuration or options,
//! `ThemeProperties.java`, holding no `@ConfigurationProperties` of its own; Python: a
//! class deriving `BaseModel`), the files of the same folder at the base
//! whose names say they hold settings or configuration (`*Properties`, `*Config`,
//! `*Configuration`, `*Application`, `*Settings` for the JVM; `*settings*`, `*config*`,
//! `conf.py`, `__init__.py` for Python), at most [`MAX_SIBLINGS`] of them, are read: one
//! that binds (`@ConfigurationProperties`/`@EnableConfigurationProperties`, or
//! `BaseSettings`) and names one of the classes as a word makes the file `env-var`
//! ([`BOUND_SETTINGS_RULE`]), reported on the class's line.
//!
//! Not read: a binder in another folder (`@Bean @ConfigurationProperties("x") Foo foo()`
//! in a configuration package, `@ConfigurationPropertiesScan` of a whole package, a
//! `Settings` class importing the model from elsewhere): finding it means reading the
//! whole tree for the class's name, which no other rule does. The cheap path: only when
//! the env-var trigger's class is above what the other findings reached, only for changed
//! files where env-var has not fired, and only one folder listing and a few small files
//! for each.

use super::callbacks::split_lines;
use super::comments::CommentStyle;
use super::enclosing::Reading;
use super::finding::Finding;
use super::project::ProjectModel;
use crate::git::{GitError, LineSide};

/// The id of a settings class bound through another file.
pub(crate) const BOUND_SETTINGS_RULE: &str = "env-var.file.bound-settings";

/// The trigger it reports.
const ENV_VAR: &str = "env-var";

/// How many files beside a changed file are read for a binder.
const MAX_SIBLINGS: usize = 16;

/// The languages read: the JVM's settings classes and pydantic's models.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Language {
    Jvm,
    Python,
}

impl Language {
    fn of(path: &str) -> Option<Language> {
        let (_, extension) = path.rsplit_once('.')?;
        match extension {
            "java" | "kt" => Some(Language::Jvm),
            "py" => Some(Language::Python),
            _ => None,
        }
    }

    /// The stack a finding names.
    fn stack(self) -> &'static str {
        match self {
            Language::Jvm => "java",
            Language::Python => "python",
        }
    }

    /// Whether a file named `name` (no folder) could hold a settings class bound from
    /// beside it: a JVM file named for properties, settings, configuration or options
    /// (Spring's convention: `ThemeProperties`); any Python file (its `BaseModel` classes
    /// are looked for).
    fn may_be_bound(self, name: &str) -> bool {
        let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
        match self {
            Language::Jvm => ["Properties", "Settings", "Config", "Options"]
                .iter()
                .any(|end| stem.ends_with(end)),
            Language::Python => true,
        }
    }

    /// Whether a file named `name` (no folder) could bind settings classes.
    fn may_bind(self, name: &str) -> bool {
        let Some((stem, extension)) = name.rsplit_once('.') else {
            return false;
        };
        match self {
            Language::Jvm => {
                matches!(extension, "java" | "kt")
                    && [
                        "Properties",
                        "Config",
                        "Configuration",
                        "Application",
                        "Settings",
                    ]
                    .iter()
                    .any(|end| stem.ends_with(end))
            }
            Language::Python => {
                let stem = stem.to_ascii_lowercase();
                extension == "py"
                    && (stem.contains("settings")
                        || stem.contains("config")
                        || stem == "conf"
                        || stem == "__init__")
            }
        }
    }

    /// Whether `text` binds settings classes.
    fn binds(self, text: &[u8]) -> bool {
        let has = |needle: &str| memchr::memmem::find(text, needle.as_bytes()).is_some();
        match self {
            Language::Jvm => {
                has("@ConfigurationProperties") || has("@EnableConfigurationProperties")
            }
            Language::Python => has("BaseSettings"),
        }
    }

    /// The classes `lines` declares that a binder could bind, with their line numbers:
    /// every class of a JVM file that has no `@ConfigurationProperties` of its own (it
    /// would bind itself, read by `env-var.file.env-config`); the `BaseModel` classes of a
    /// Python file.
    fn classes(self, lines: &[&[u8]]) -> Vec<(usize, String)> {
        let comments = match self {
            Language::Jvm => CommentStyle::Slash,
            Language::Python => CommentStyle::Hash,
        };
        if self == Language::Jvm && self.binds(&lines.concat()) {
            return Vec::new();
        }
        let mut classes = Vec::new();
        for (index, line) in lines.iter().enumerate() {
            if comments.is_comment(line) {
                continue;
            }
            let text = String::from_utf8_lossy(line);
            let Some(name) = declared_class(&text) else {
                continue;
            };
            let models = self == Language::Jvm || derives_base_model(&text);
            if models {
                classes.push((index + 1, name));
            }
        }
        classes
    }
}

/// The name of the class `line` declares: `public class AttachmentProperties {`,
/// `data class Thumbnail(`, `class Db(BaseModel):` → the name.
fn declared_class(line: &str) -> Option<String> {
    let mut words = line.split_whitespace();
    words.find(|word| *word == "class")?;
    let name: String = words
        .next()?
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    name.starts_with(|c: char| c.is_ascii_uppercase())
        .then_some(name)
}

/// Whether a Python class line derives pydantic's `BaseModel`.
fn derives_base_model(line: &str) -> bool {
    line.split_once('(').is_some_and(|(_, bases)| {
        bases
            .split([',', ')'])
            .any(|base| base.trim().rsplit('.').next() == Some("BaseModel"))
    })
}

/// Whether `text` names `name` as a word.
fn names(text: &[u8], name: &str) -> bool {
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    memchr::memmem::find_iter(text, name.as_bytes()).any(|at| {
        let before = at.checked_sub(1).map(|i| text[i]);
        let after = text.get(at + name.len()).copied();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

/// The `env-var` findings of settings classes bound by a file beside them (see the
/// module's documentation). `risk` is the class the other findings reached.
pub(crate) fn bound_settings_findings(
    reading: Reading<'_>,
    _project: &mut ProjectModel,
) -> Result<Vec<Finding>, GitError> {
    let Reading {
        repo,
        sides: (base, head),
        matcher,
        candidates,
        findings,
        risk,
    } = reading;
    let mut found = Vec::new();
    let Some(trigger) = matcher.triggers.iter().find(|t| t.name == ENV_VAR) else {
        return Ok(found);
    };
    if trigger.class <= risk {
        return Ok(found);
    }
    for candidate in candidates {
        let path = candidate.path.to_string_lossy();
        let Some(language) = Language::of(&path) else {
            continue;
        };
        let fired = findings
            .iter()
            .any(|f| f.trigger == ENV_VAR && f.path.as_ref() == Some(&candidate.path));
        if fired {
            continue;
        }
        let old_path = candidate.old_path.as_ref().unwrap_or(&candidate.path);
        let (side, at, side_path) = if candidate.added.is_empty() {
            (LineSide::Removed, base, old_path.to_string_lossy())
        } else {
            (LineSide::Added, head, path.clone())
        };
        if candidate.added.is_empty() && candidate.removed.is_empty() {
            continue;
        }
        let (folder, own) = side_path.rsplit_once('/').unwrap_or(("", &side_path));
        if folder.is_empty() || !language.may_be_bound(own) {
            continue;
        }
        let Some(text) = repo.read_file_at(at, &side_path)? else {
            continue;
        };
        let lines = split_lines(&text);
        let classes = language.classes(&lines);
        if classes.is_empty() {
            continue;
        }
        let Some(siblings) = repo.file_names_at(base, folder)? else {
            continue;
        };
        let binders = siblings
            .iter()
            .filter(|name| *name != own && language.may_bind(name))
            .take(MAX_SIBLINGS);
        let mut bound = None;
        for name in binders {
            let Some(binder) = repo.read_file_at(base, &format!("{folder}/{name}"))? else {
                continue;
            };
            if !language.binds(&binder) {
                continue;
            }
            bound = classes
                .iter()
                .find(|(_, class)| names(&binder, class))
                .cloned();
            if bound.is_some() {
                break;
            }
        }
        if let Some((number, _)) = bound {
            let line = lines.get(number - 1).copied().unwrap_or_default();
            found.push(Finding {
                trigger: trigger.name.to_string(),
                class: trigger.class,
                path: Some(candidate.path.clone()),
                line: Some(number),
                side: Some(side),
                rule: BOUND_SETTINGS_RULE.to_string(),
                stack: language.stack().to_string(),
                excerpt: Some(matcher.excerpt(line)),
            });
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_are_read_by_their_declarations() {
        assert_eq!(
            declared_class("public class AttachmentProperties {").as_deref(),
            Some("AttachmentProperties")
        );
        assert_eq!(
            declared_class("data class Thumbnail(val quality: Int)").as_deref(),
            Some("Thumbnail")
        );
        assert_eq!(declared_class("val x = y.class"), None);
        assert!(derives_base_model("class Db(BaseModel):"));
        assert!(derives_base_model(
            "class Db(pydantic.BaseModel, Generic[T]):"
        ));
        assert!(!derives_base_model("class Db(BaseModelMixin):"));
        let jvm: Vec<&[u8]> = vec![b"@ConfigurationProperties(\"x\")", b"public class P {"];
        assert!(Language::Jvm.classes(&jvm).is_empty());
        let py: Vec<&[u8]> = vec![
            b"class A(BaseModel):",
            b"# class B(BaseModel):",
            b"class C:",
        ];
        assert_eq!(Language::Python.classes(&py), [(1, "A".to_string())]);
    }

    #[test]
    fn binders_are_found_by_name_and_content() {
        assert!(Language::Jvm.may_be_bound("ThemeProperties.java"));
        assert!(Language::Jvm.may_be_bound("MailSettings.kt"));
        assert!(!Language::Jvm.may_be_bound("ThemeService.java"));
        assert!(Language::Python.may_be_bound("db.py"));
        assert!(Language::Jvm.may_bind("HaloProperties.java"));
        assert!(Language::Jvm.may_bind("PluginAutoConfiguration.kt"));
        assert!(!Language::Jvm.may_bind("AttachmentService.java"));
        assert!(Language::Python.may_bind("settings.py"));
        assert!(Language::Python.may_bind("__init__.py"));
        assert!(!Language::Python.may_bind("models.py"));
        assert!(names(
            b"private AttachmentProperties attachment;",
            "AttachmentProperties"
        ));
        assert!(!names(
            b"private AttachmentPropertiesX a;",
            "AttachmentProperties"
        ));
        assert!(!names(b"MyAttachmentProperties a;", "AttachmentProperties"));
    }
}
