//! What a path finding waiting for a line of code (`needs_code_change`) may be released
//! by, beyond the comment test of single lines (see `comments`): the inside of a block
//! comment a changed line opens, and the packaging instructions of a container build file.
//!
//! **Block comments.** The comment test reads one line: `/*` and ` * …` are comment lines,
//! but the lines between a block comment's opener and its `*/` need not start with a
//! marker (PHP's route-file banners, `|----------`). When a changed line opens a block
//! comment and the next changed lines of the same side follow it without closing it, a
//! line the comment test calls code is *held*: it releases nothing while it streams.
//! Held lines are confirmed by the file's grammar when the file ends (each must lie whole
//! in one comment node); a line that is code, a file without a grammar, or one that cannot
//! be read or parsed releases the findings (fail closed). Line and scope rules still read
//! held lines as code: holding changes only whether a path finding counts.
//! A changed line that starts with `*` is held the same way even with no opener before
//! it: the comment test calls it a comment, but `* rate;` continuing a multiplication is
//! code, and only the grammar can tell it from a doc comment's ` * Returns…`.
//!
//! **Container build files.** A `Dockerfile` in a folder an auth or payment path rule
//! names (`src/Identity/Dockerfile`, `src/Billing/Dockerfile`) packages the service the
//! folder holds; its labels, ports, stop signal and a health probe switched off decide
//! nothing about who signs in or what is paid. A changed line that is one of
//! those instructions (at the line's start, as written at the top level) releases the
//! file's other waiting findings but not the built-in auth and payment ones; any other
//! changed line of code (`RUN`, `COPY`, `ENV`, `USER`, `ENTRYPOINT`, a continuation line)
//! releases them all, and a rule a policy adds (`auth.path.policy-N`) is always released.
//! A base image (`FROM`: other code runs the service) and a health probe's command
//! (`HEALTHCHECK CMD`: it runs in the service's container, beside its keys) are code, and
//! so is a working folder (`WORKDIR`: a relative entry point or copy runs or lands
//! elsewhere).
//! Such lines are confirmed when the file ends, as held lines are: one that continues the
//! instruction before it (a `\` or `` ` `` at the end of the line before, past comment and
//! blank lines) or a file with a heredoc (`<<`) releases them all (fail closed). A parser
//! directive (`# syntax=`, `# escape=`, `# check=`), though written as a comment, releases
//! them all: it picks the frontend that builds the image and how its lines join.

use crate::git::{ChangedFile, GitError, Head, LineSide, Repo, RepoPath};
use crate::risk::comments::CommentStyle;
use crate::risk::finding::Finding;
use crate::risk::syntax::lines_in_comments;

/// Instructions that describe the image, not what runs in it.
const PACKAGING_INSTRUCTIONS: &[&[u8]] = &[b"LABEL", b"MAINTAINER", b"EXPOSE", b"STOPSIGNAL"];

/// The triggers whose built-in path rules a packaging instruction does not release.
const PACKAGED_TRIGGERS: &[&str] = &["auth", "payment"];

/// The state of the current file's waiting findings.
#[derive(Default)]
pub(super) struct Waiting {
    /// For each side (removed, added): the number of the last changed line after which a
    /// block comment is open, when the file's comments are `/* … */`.
    open_block: [Option<usize>; 2],
    /// Whether the file is a container build file.
    container: bool,
    /// Held lines: inside a block comment, code by the comment test; and the file they
    /// are of (its path in the head, and in the base when renamed).
    held: Vec<(LineSide, usize)>,
    /// Packaging instructions, confirmed when the file ends (see the module's essay).
    packaged: Vec<(LineSide, usize)>,
    file: Option<(RepoPath, Option<RepoPath>)>,
}

/// What a changed line of code does to the waiting findings.
pub(super) enum Release {
    /// All of them count.
    All,
    /// None yet: the line is held for the grammar.
    Held,
    /// All but the built-in auth and payment ones.
    AllButPackaged,
}

impl Waiting {
    /// The state for a file at `path`.
    pub fn for_path(path: &str) -> Waiting {
        let name = path.rsplit('/').next().unwrap_or(path);
        let container = name == "Dockerfile"
            || name == "Containerfile"
            || name.starts_with("Dockerfile.")
            || name.to_ascii_lowercase().ends_with(".dockerfile");
        Waiting {
            container,
            ..Waiting::default()
        }
    }

    /// Reads a changed line (`comment`: whether the comment test calls it a comment) and
    /// says what it releases: nothing for a blank or comment line.
    pub fn read(
        &mut self,
        style: CommentStyle,
        file: &ChangedFile,
        (side, number, line): (LineSide, usize, &[u8]),
        comment: bool,
    ) -> Option<Release> {
        let held = style == CommentStyle::Slash && self.track(side, number, line, comment);
        if self.container && is_parser_directive(line) {
            return Some(Release::All);
        }
        // `* rate;` continues an expression as often as ` * Returns…` continues a doc
        // comment, and the comment test reads one line: the grammar decides.
        let star =
            comment && style == CommentStyle::Slash && line.trim_ascii_start().starts_with(b"*");
        if (comment && !star) || line.trim_ascii().is_empty() {
            return None;
        }
        if held || star {
            self.file
                .get_or_insert_with(|| (file.path.clone(), file.old_path.clone()));
            self.held.push((side, number));
            return Some(Release::Held);
        }
        if self.container && is_packaging_instruction(line) {
            self.file
                .get_or_insert_with(|| (file.path.clone(), file.old_path.clone()));
            self.packaged.push((side, number));
            return Some(Release::AllButPackaged);
        }
        Some(Release::All)
    }

    /// Follows block comments over consecutive changed lines of one side; whether `line`
    /// is inside one that a line before it opened.
    fn track(&mut self, side: LineSide, number: usize, line: &[u8], comment: bool) -> bool {
        let index = usize::from(side == LineSide::Added);
        let inside = number > 1 && self.open_block[index] == Some(number - 1);
        let text = line.trim_ascii();
        let closes = memchr::memmem::find(text, b"*/").is_some();
        let open_after = if inside {
            !closes
        } else {
            comment
                && (text.starts_with(b"/*") || text.starts_with(b"*"))
                && memchr::memmem::find(text.get(1..).unwrap_or_default(), b"*/").is_none()
        };
        self.open_block[index] = open_after.then_some(number);
        inside && !text.is_empty()
    }

    /// Whether the held lines are all comments by the file's grammar and the packaging
    /// instructions all stand alone. No such line: true.
    pub fn held_are_confirmed(
        &self,
        repo: &Repo,
        (base, head): (&Head, &Head),
    ) -> Result<bool, GitError> {
        let Some((path, old_path)) = &self.file else {
            return Ok(true);
        };
        for (side, at, side_path) in [
            (LineSide::Removed, base, old_path.as_ref().unwrap_or(path)),
            (LineSide::Added, head, path),
        ] {
            let lines: Vec<usize> = self
                .held
                .iter()
                .filter(|(held_side, _)| *held_side == side)
                .map(|&(_, number)| number)
                .collect();
            if !lines.is_empty() && !lines_in_comments(repo, at, side_path, &lines)? {
                return Ok(false);
            }
            let packaged: Vec<usize> = self
                .packaged
                .iter()
                .filter(|(packaged_side, _)| *packaged_side == side)
                .map(|&(_, number)| number)
                .collect();
            if !packaged.is_empty() {
                let Some(name) = side_path.as_str() else {
                    return Ok(false);
                };
                match repo.read_file_at(at, name)? {
                    Some(bytes) if instructions_stand_alone(&bytes, &packaged) => {}
                    _ => return Ok(false),
                }
            }
        }
        Ok(true)
    }

    /// Whether any line is held or any packaging instruction waits for confirmation.
    pub fn holds(&self) -> bool {
        !self.held.is_empty() || !self.packaged.is_empty()
    }
}

/// Moves the waiting findings `release` lets count into `findings`.
pub(super) fn release(release: &Release, pending: &mut Vec<Finding>, findings: &mut Vec<Finding>) {
    match release {
        Release::All => findings.append(pending),
        Release::Held => {}
        Release::AllButPackaged => {
            let (kept, counted): (Vec<Finding>, Vec<Finding>) =
                pending.drain(..).partition(is_packaged);
            findings.extend(counted);
            *pending = kept;
        }
    }
}

/// Whether a waiting finding is one a packaging instruction does not release: a built-in
/// path rule of auth or payment.
fn is_packaged(finding: &Finding) -> bool {
    PACKAGED_TRIGGERS.contains(&finding.trigger.as_str()) && !finding.rule.contains(".policy-")
}

/// Whether `line` of a container build file is written as a parser directive
/// (`# syntax=…`, `# escape=…`, `# check=…`, any case and spacing): a comment to the comment
/// test, but it picks the frontend that builds the image, how lines join, or which checks
/// run. Read wherever it stands (Docker reads it only at the top: fail closed).
fn is_parser_directive(line: &[u8]) -> bool {
    let Some(rest) = line.trim_ascii().strip_prefix(b"#") else {
        return false;
    };
    let Some(equals) = rest.iter().position(|&b| b == b'=') else {
        return false;
    };
    let name = rest[..equals].trim_ascii();
    [&b"syntax"[..], b"escape", b"check"]
        .iter()
        .any(|directive| name.eq_ignore_ascii_case(directive))
}

/// Whether each of `lines` (1-based) of the container build file `bytes` starts an
/// instruction: the file has no heredoc (`<<`), and the last line before it that is neither
/// blank nor a comment (Docker skips those inside a continued instruction) does not end in
/// an escape character (`\\`, or `` ` `` as a parser directive may set it).
fn instructions_stand_alone(bytes: &[u8], lines: &[usize]) -> bool {
    if memchr::memmem::find(bytes, b"<<").is_some() {
        return false;
    }
    let rows: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    lines.iter().all(|&number| {
        let Some(before) = number.checked_sub(1).and_then(|row| rows.get(..row)) else {
            return false;
        };
        if number > rows.len() {
            return false;
        }
        let last = before
            .iter()
            .rev()
            .map(|row| row.trim_ascii())
            .find(|row| !row.is_empty() && !row.starts_with(b"#"));
        !last.is_some_and(|row| row.ends_with(b"\\") || row.ends_with(b"`"))
    })
}

/// Whether `line` is a packaging instruction written at its start (`EXPOSE …`,
/// `HEALTHCHECK NONE`, case-insensitive as Docker reads it), not a continuation line.
fn is_packaging_instruction(line: &[u8]) -> bool {
    let word_end = line
        .iter()
        .position(|b| !b.is_ascii_alphabetic())
        .unwrap_or(line.len());
    let (word, rest) = line.split_at(word_end);
    if word.eq_ignore_ascii_case(b"HEALTHCHECK") {
        return rest.trim_ascii().eq_ignore_ascii_case(b"NONE")
            && (rest[0] == b' ' || rest[0] == b'\t');
    }
    (rest.is_empty() || rest[0] == b' ' || rest[0] == b'\t')
        && PACKAGING_INSTRUCTIONS
            .iter()
            .any(|instruction| word.eq_ignore_ascii_case(instruction))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packaging_instructions_are_read_at_the_line_s_start_only() {
        assert!(is_packaging_instruction(b"HEALTHCHECK NONE"));
        assert!(is_packaging_instruction(b"expose 8080"));
        assert!(is_packaging_instruction(b"LABEL team=identity\r"));
        assert!(!is_packaging_instruction(
            b"HEALTHCHECK CMD wget -Y off -q -O- http://localhost:5000/alive || exit 1"
        ));
        assert!(!is_packaging_instruction(b"HEALTHCHECK"));
        assert!(!is_packaging_instruction(
            b"FROM mcr.microsoft.com/dotnet/aspnet:8.0"
        ));
        assert!(!is_packaging_instruction(b"    HEALTHCHECK CMD true"));
        assert!(!is_packaging_instruction(
            b"RUN chmod 600 /etc/identity.pfx"
        ));
        assert!(!is_packaging_instruction(b"ENV IDENTITY_SERVER_KEY=x"));
        assert!(!is_packaging_instruction(b"FROMAGE x"));
        assert!(!is_packaging_instruction(b"  && apt-get install -y curl"));
    }

    #[test]
    fn packaging_lines_stand_alone_unless_they_continue_an_instruction() {
        let file = b"FROM a\nRUN x \\\n# note\n\nEXPOSE 1\nLABEL b=c\r\nEXPOSE 2 `\nEXPOSE 3\n";
        assert!(instructions_stand_alone(file, &[1, 6, 7]));
        assert!(!instructions_stand_alone(file, &[5]));
        assert!(!instructions_stand_alone(file, &[8]));
        assert!(!instructions_stand_alone(file, &[0]));
        assert!(!instructions_stand_alone(file, &[10]));
        assert!(!instructions_stand_alone(
            b"RUN <<EOF\nx\nEOF\nEXPOSE 1\n",
            &[4]
        ));
        assert!(is_parser_directive(b"#  Syntax = x"));
        assert!(is_parser_directive(b"# escape=`"));
        assert!(!is_parser_directive(b"# see the syntax"));
        assert!(!is_parser_directive(b"LABEL syntax=x"));
    }

    fn read_all(path: &str, lines: &[(LineSide, usize, &str, bool)]) -> (Waiting, Vec<bool>) {
        let style = CommentStyle::for_path(path);
        let mut waiting = Waiting::for_path(path);
        let file = ChangedFile {
            path: RepoPath::from(path),
            old_path: None,
            status: crate::git::ChangeStatus::Modified,
            binary: false,
            submodule: false,
        };
        let releases = lines
            .iter()
            .map(|&(side, number, text, comment)| {
                let line = (side, number, text.as_bytes());
                let release = waiting.read(style, &file, line, comment);
                matches!(release, Some(Release::All))
            })
            .collect();
        (waiting, releases)
    }

    #[test]
    fn lines_inside_a_block_comment_a_changed_line_opens_are_held() {
        let removed = LineSide::Removed;
        let (waiting, releases) = read_all(
            "routes/web.php",
            &[
                (removed, 23, "/*", true),
                (removed, 24, "|------------------", false),
                (removed, 25, "| Frontend Routes", false),
                (removed, 26, "", false),
                (removed, 27, "*/", true),
                (removed, 28, "Route::get('/a', A::class);", false),
            ],
        );
        assert_eq!(releases, [false, false, false, false, false, true]);
        // The closer starts with `*`: the grammar confirms it too.
        assert_eq!(waiting.held, [(removed, 24), (removed, 25), (removed, 27)]);
        // Not consecutive, another side, or a closed opener: nothing is held.
        let added = LineSide::Added;
        let (waiting, _) = read_all(
            "routes/web.php",
            &[
                (removed, 23, "/*", true),
                (added, 24, "| Frontend Routes", false),
                (removed, 25, "| Frontend Routes", false),
                (added, 30, "/* one line */", true),
                (added, 31, "Route::get('/a', A::class);", false),
            ],
        );
        assert!(!waiting.holds());
        // A file whose comments are not `/* */` holds nothing.
        let (waiting, _) = read_all(
            "app/auth.py",
            &[(added, 1, "/*", false), (added, 2, "| x", false)],
        );
        assert!(!waiting.holds());
    }
}
