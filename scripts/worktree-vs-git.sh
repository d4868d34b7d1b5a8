#!/usr/bin/env bash
# Differential check of working-tree mode (`handoff classify` without `--head`) against git,
# on a temporary checkout of a real repository, through many kinds of working-tree edits.
#
#   scripts/worktree-vs-git.sh REPO [REV] [SCENARIO...]
#
# REPO is a repository you already have (a bare mirror will do); it is never fetched or
# written to. A checkout of REV (default HEAD) borrows its objects (`git clone --shared`)
# and is deleted at the end. Each scenario starts from a clean checkout of REV, makes its
# edits (some commit a small setup first, which becomes the base), then compares the files
# `handoff classify --base HEAD --format json` reports with git's view of the same change:
# `git diff -M --name-status HEAD` (tracked files, staged or not) plus the untracked files
# of `git status --porcelain=v2 --untracked-files=all`. Renames are compared as a deletion
# and an addition (handoff also pairs untracked files, git's diff does not see them); a
# rename git finds that handoff does not pair is listed too. A path git shows as deleted
# and untracked (`git rm --cached`) is a deletion, as handoff reports it; a nested
# repository git shows as the untracked `dir/` is the path `dir`. Prints one line a
# scenario, the differences under it; exit 0 when every scenario agrees, 1 otherwise.
# HANDOFF=path/to/handoff uses that binary instead of building the debug one.
set -euo pipefail

if [ $# -lt 1 ]; then
    echo "usage: $0 REPO [REV] [SCENARIO...]" >&2
    exit 2
fi
repo=$(cd "$1" && pwd)
rev=${2:-HEAD}
shift $(($# < 2 ? $# : 2))
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${HANDOFF:-}" ]; then
    cargo build --locked --quiet --manifest-path "$root/Cargo.toml"
    HANDOFF="$root/target/debug/handoff"
fi
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
co="$work/checkout"
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com \
    GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
unset GIT_INDEX_FILE GIT_DIR GIT_WORK_TREE

git clone --quiet --shared --no-checkout "$repo" "$co"
rev=$(git -C "$co" rev-parse --verify "$rev^{commit}")
git -C "$co" checkout --quiet --detach "$rev"
cp "$co/.git/config" "$work/config"
cp "$co/.git/index" "$work/index"
g() { git -C "$co" "$@"; }

# Tracked regular files of 10 bytes to 64 KiB with no carriage return, from several
# directories: the files the scenarios edit.
mapfile -t files < <(cd "$co" && git ls-files -s -z | python3 -c '
import os, sys
seen = []
for record in sys.stdin.buffer.read().split(b"\0"):
    if not record.startswith(b"100644 "):
        continue
    path = record.split(b"\t", 1)[1]
    try:
        data = open(path, "rb").read()
    except OSError:
        continue
    if 10 <= len(data) <= 65536 and b"\r" not in data and b"$Id" not in data and b"/" in path:
        seen.append(path.decode("utf-8", "replace"))
step = max(1, len(seen) // 40)
print("\n".join(seen[::step][:40]))')
if [ "${#files[@]}" -lt 20 ]; then
    echo "$repo at $rev has fewer than 20 small text files in directories" >&2
    exit 2
fi
f() { echo "${files[$1]}"; }
# A tracked directory holding at least two files, none of them the ones above.
dir_of() { dirname "$(f "$1")"; }

reset_checkout() {
    # The index and settings as the checkout left them, then its files.
    cp "$work/index" "$co/.git/index"
    cp "$work/config" "$co/.git/config"
    rm -rf "$co/.git/info/sparse-checkout" "$co/.git/info/attributes" "$co/.git/sharedindex."* \
        "$co/.git/hooks/fsmonitor" "$co/.git/modules" "$co/.git/config.worktree" "$co/sub"
    chmod -R u+w "$co" 2>/dev/null || true
    # Repositories a scenario made inside tracked directories (`git clean` keeps them).
    find "$co" -mindepth 2 -name .git -prune -exec rm -rf {} +
    g reset --quiet --hard "$rev"
    g clean --quiet -ffdx
    # A symbolic link or directory a scenario left where the index has a file.
    g checkout --quiet --force "$rev" -- . 2>/dev/null || true
}

commit_setup() { g add -A && g commit --quiet --no-verify -m setup; }

# Writes the index again with a change made by Python to its parsed form, and a valid
# trailing checksum: the index a tool (or an agent) could leave. $1 is the Python code,
# run with `entries` (dicts: path, flags, the other fields by name), `extensions` (a list
# of (signature, body)) and `version`.
rewrite_index() {
    python3 - "$co/.git/index" "$1" <<'PY'
import hashlib, struct, sys
path, code = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()
assert data[:4] == b"DIRC"
version, count = struct.unpack(">II", data[4:12])
assert version in (2, 3), "rewrite_index handles versions 2 and 3"
at, entries = 12, []
names = "ctime ctime_ns mtime mtime_ns dev ino mode uid gid size".split()
for _ in range(count):
    start = at
    fields = dict(zip(names, struct.unpack(">10I", data[at:at + 40])))
    fields["id"] = data[at + 40:at + 60]
    (fields["flags"],) = struct.unpack(">H", data[at + 60:at + 62])
    at += 62
    fields["extended"] = None
    if fields["flags"] & 0x4000:
        (fields["extended"],) = struct.unpack(">H", data[at:at + 2])
        at += 2
    end = data.index(b"\0", at)
    fields["path"] = data[at:end]
    at = end + 1
    while (at - start) % 8:
        at += 1
    entries.append(fields)
extensions = []
while at < len(data) - 20:
    signature, size = data[at:at + 4], struct.unpack(">I", data[at + 4:at + 8])[0]
    extensions.append((signature, data[at + 8:at + 8 + size]))
    at += 8 + size
exec(code)
out = bytearray(b"DIRC" + struct.pack(">II", version, len(entries)))
for e in entries:
    start = len(out)
    out += struct.pack(">10I", *(e[n] for n in names)) + e["id"] + struct.pack(">H", e["flags"])
    if e["extended"] is not None:
        out += struct.pack(">H", e["extended"])
    out += e["path"] + b"\0"
    while (len(out) - start) % 8:
        out += b"\0"
for signature, body in extensions:
    out += signature + struct.pack(">I", len(body)) + body
out += hashlib.sha1(out).digest()
open(path, "wb").write(out)
PY
}

compare() {
    local name=$1 out="$work/$1"
    mkdir -p "$out"
    if ! "$HANDOFF" classify --repo "$co" --base HEAD --format json >"$out/handoff.json" \
        2>"$out/handoff.err"; then
        echo "$name: handoff failed: $(head -c 300 "$out/handoff.err")"
        failed=1
        return
    fi
    if ! g diff --no-ext-diff --name-status -z -M HEAD >"$out/diff" 2>"$out/git.err" ||
        ! g status --porcelain=v2 -z --untracked-files=all >"$out/status" 2>>"$out/git.err"; then
        echo "$name: git failed: $(head -c 300 "$out/git.err")"
        failed=1
        return
    fi
    python3 - "$name" "$out" <<'PY' || failed=1
import json, sys
name, out = sys.argv[1], sys.argv[2]
def text(raw):
    return raw.decode("utf-8", "replace")
fields = open(f"{out}/diff", "rb").read().split(b"\0")
git, git_renames, i = set(), set(), 0
while i + 1 < len(fields):
    status = text(fields[i])[0]
    if status in "RC":
        old, new = text(fields[i + 1]), text(fields[i + 2])
        git_renames.add((old, new))
        git |= {("D", old), ("A", new)} if status == "R" else {("A", new)}
        i += 3
    else:
        git.add((status, text(fields[i + 1])))
        i += 2
for record in open(f"{out}/status", "rb").read().split(b"\0"):
    if record.startswith(b"? "):
        # A nested repository is one untracked entry, `dir/`.
        path = text(record[2:]).rstrip("/")
        if ("D", path) not in git:
            git.add(("A", path))
letters = {"added": "A", "modified": "M", "deleted": "D", "type-change": "T"}
ours, our_renames = set(), set()
for f in json.load(open(f"{out}/handoff.json"))["files"]:
    if f["status"] in ("renamed", "copied"):
        our_renames.add((f["old_path"], f["path"]))
        ours |= {("D", f["old_path"]), ("A", f["path"])} if f["status"] == "renamed" else {("A", f["path"])}
    else:
        ours.add((letters[f["status"]], f["path"]))
only_git, only_ours = sorted(git - ours), sorted(ours - git)
missed_renames = sorted(git_renames - our_renames)
same = not only_git and not only_ours and not missed_renames
print(f"{name}: {'ok' if same else 'DIFFERENT'} (git {len(git)}, handoff {len(ours)})")
for label, rows in (("only git", only_git), ("only handoff", only_ours)):
    for status, path in rows[:10]:
        print(f"    {label}: {status} {path[:120]}")
for old, new in missed_renames[:10]:
    print(f"    rename git finds, handoff does not: {old} -> {new}")
sys.exit(0 if same else 1)
PY
}

# --- The scenarios: each edits the clean checkout of REV. ---

s_modify() { echo "// edit" >>"$co/$(f 0)"; echo "x" >>"$co/$(f 1)"; }
s_racy_same_size_same_mtime() {
    # Staged, then rewritten in the same second with the same size and its old mtime.
    local file="$co/$(f 2)"
    echo "aaaa" >>"$file"
    g add -- "$(f 2)"
    local stamp
    stamp=$(stat -c %y "$file")
    python3 -c 'import sys; p = sys.argv[1]; d = open(p, "rb").read(); open(p, "wb").write(d[:-5] + b"bbbb\n")' "$file"
    touch -d "$stamp" "$file"
}
s_same_size_same_mtime_old_index() {
    local file="$co/$(f 3)" stamp
    stamp=$(stat -c %y "$file")
    sleep 1.1
    python3 -c 'import sys; p = sys.argv[1]; d = bytearray(open(p, "rb").read()); d[0] = ord("#") if d[0] != ord("#") else ord("%"); open(p, "wb").write(d)' "$file"
    touch -d "$stamp" "$file"
}
s_trustctime_off() { g config core.trustctime false; s_same_size_same_mtime_old_index; }
s_touch_only() { touch "$co/$(f 4)" "$co/$(f 5)"; }
s_rewrite_same_content() { cp "$co/$(f 4)" "$work/copy" && cat "$work/copy" >"$co/$(f 4)"; }
s_chmod_x() { chmod +x "$co/$(f 6)"; }
s_chmod_x_staged_then_reverted() { chmod +x "$co/$(f 6)"; g add -- "$(f 6)"; chmod -x "$co/$(f 6)"; }
s_file_to_symlink() { rm "$co/$(f 7)"; ln -s "$(basename "$(f 8)")" "$co/$(f 7)"; }
s_symlink_to_file() {
    ln -s "$(basename "$(f 8)")" "$co/$(dir_of 8)/link-under-test"
    commit_setup
    rm "$co/$(dir_of 8)/link-under-test"
    echo "now a file" >"$co/$(dir_of 8)/link-under-test"
}
s_symlink_retargeted() {
    ln -s "$(basename "$(f 8)")" "$co/$(dir_of 8)/link-under-test"
    commit_setup
    ln -sfn "elsewhere" "$co/$(dir_of 8)/link-under-test"
}
s_file_to_directory() { rm "$co/$(f 9)"; mkdir "$co/$(f 9)"; echo inner >"$co/$(f 9)/inner.txt"; }
s_directory_to_file() { local d; d=$(dir_of 10); rm -rf "${co:?}/$d"; echo "now a file" >"$co/$d"; }
s_directory_to_symlink() { local d; d=$(dir_of 10); rm -rf "${co:?}/$d"; ln -s . "$co/$d"; }
s_delete() { rm "$co/$(f 11)" "$co/$(f 12)"; }
s_rm_cached() { g rm --quiet --cached -- "$(f 13)"; }
s_rm_cached_and_edited() { g rm --quiet --cached -- "$(f 13)"; echo more >>"$co/$(f 13)"; }
s_intent_to_add() { echo new >"$co/intent.txt"; g add -N intent.txt; }
s_intent_to_add_empty() { : >"$co/intent-empty.txt"; g add -N intent-empty.txt; }
s_staged_then_reverted() {
    cp "$co/$(f 14)" "$work/orig"
    echo staged >>"$co/$(f 14)"
    g add -- "$(f 14)"
    cp "$work/orig" "$co/$(f 14)"
}
s_staged_then_unstaged() { echo staged >>"$co/$(f 14)"; g add -- "$(f 14)"; g reset --quiet -- "$(f 14)"; }
s_staged_then_deleted() { echo new >"$co/staged-new.txt"; g add staged-new.txt; rm "$co/staged-new.txt"; }
s_staged_and_edited_again() { echo one >>"$co/$(f 15)"; g add -- "$(f 15)"; echo two >>"$co/$(f 15)"; }
s_staged_rename() { g mv -- "$(f 16)" "$(f 16).renamed"; }
s_unstaged_rename() { mv "$co/$(f 17)" "$co/$(f 17).moved"; }
s_case_only_rename() {
    local file
    file=$(f 18)
    g mv -- "$file" "$(dirname "$file")/$(basename "$file" | tr '[:lower:]' '[:upper:]')X"
    mv "$co/$(f 19)" "$co/$(dirname "$(f 19)")/$(basename "$(f 19)" | tr '[:lower:]' '[:upper:]')"
}
s_crlf_eol_attributes() {
    printf '*.crlf text eol=crlf\n*.bin -text\n*.auto text=auto\n' >>"$co/.gitattributes"
    printf 'one\ntwo\n' >"$co/a.crlf"
    printf 'raw\r\nbytes\r\n' >"$co/b.bin"
    printf 'auto\r\n' >"$co/c.auto"
    commit_setup
    rm -f "$co/a.crlf" "$co/b.bin" "$co/c.auto"
    g checkout --quiet -- a.crlf b.bin c.auto
    sleep 1.1
    printf 'one\ntwo\n' >"$co/a.crlf"              # LF where git wrote CRLF: clean
    printf 'raw\nbytes\r\n' >"$co/b.bin"            # binary: a real change
    printf 'auto\n' >"$co/c.auto"                   # normalised: clean
}
s_crlf_autocrlf() {
    printf 'x\n' >"$co/auto.txt"
    commit_setup
    g config core.autocrlf true
    printf 'x\r\n' >"$co/auto.txt"
    echo "edit" >>"$co/$(f 20)"
}
s_filter_driver() {
    printf '*.up filter=upper\n' >>"$co/.gitattributes"
    printf 'HELLO\n' >"$co/a.up"
    commit_setup
    g config filter.upper.clean 'tr a-z A-Z'
    g config filter.upper.smudge cat
    sleep 1.1
    printf 'hello\n' >"$co/a.up"                    # cleans to the committed content
}
s_ident() {
    printf '*.id ident\n' >>"$co/.gitattributes"
    printf '$Id$\n' >"$co/a.id"
    commit_setup
    rm "$co/a.id"
    g checkout --quiet -- a.id
}
s_ignored_but_tracked() {
    printf '%s\n' "$(f 21)" '*.ignored-ext' >>"$co/.gitignore"
    echo edit >>"$co/$(f 21)"
    echo ignored >"$co/untracked.ignored-ext"
    mkdir -p "$co/ignored-dir"
    echo x >"$co/ignored-dir/x"
    printf 'ignored-dir/\n' >>"$co/.gitignore"
}
s_untracked_everywhere() {
    echo new >"$co/$(dir_of 22)/untracked-a.txt"
    mkdir -p "$co/brand/new/deep"
    echo new >"$co/brand/new/deep/b.txt"
    : >"$co/empty-untracked"
    mkdir -p "$co/empty-dir/inner"
}
s_nested_repository() {
    mkdir -p "$co/nested"
    git -C "$co/nested" init --quiet
    echo x >"$co/nested/a.txt"
    echo edit >>"$co/$(f 23)"
}
s_nested_repository_in_tracked_dir() {
    git -C "$co/$(dir_of 23)" init --quiet 2>/dev/null || true
    mkdir -p "$co/$(dir_of 23)/inner"
    git -C "$co/$(dir_of 23)/inner" init --quiet
    echo x >"$co/$(dir_of 23)/inner/file"
}
s_submodule() {
    local sub="$work/sub"
    rm -rf "$sub"
    git init --quiet "$sub"
    echo one >"$sub/a"
    git -C "$sub" add a && git -C "$sub" commit --quiet -m one
    g -c protocol.file.allow=always submodule --quiet add "$sub" sub
    g commit --quiet --no-verify -m "setup: submodule"
    echo two >>"$co/sub/a"
    git -C "$co/sub" commit --quiet -am two
    echo edit >>"$co/$(f 24)"
}
s_submodule_dirty() {
    s_submodule
    git -C "$co/sub" reset --quiet --hard HEAD~1
    echo dirty >>"$co/sub/a"
}
s_non_utf8_names() {
    printf 'x\n' >"$co/$(printf 'caf\xe9.txt')"
    printf 'y\n' >"$co/$(printf 'tracked-\xff.txt')"
    commit_setup
    printf 'edit\n' >>"$co/$(printf 'tracked-\xff.txt')"
    printf 'z\n' >"$co/$(printf 'untracked-\xfe.txt')"
    rm "$co/$(printf 'caf\xe9.txt')"
}
s_long_path() {
    local long=long
    while [ ${#long} -lt 3900 ]; do long="$long/abcdefghijklmnopqrstuvwxyz0123456789"; done
    mkdir -p "$co/$long"
    echo x >"$co/$long/file.txt"
    echo y >"$co/$long/staged.txt"
    (cd "$co" && git add "$long/staged.txt")
}
index_version() { g update-index --index-version "$1"; echo edit >>"$co/$(f 25)"; g add -- "$(f 25)"; echo again >>"$co/$(f 25)"; rm "$co/$(f 26)"; echo n >"$co/new-$1.txt"; }
s_index_version_2() { index_version 2; }
s_index_version_3() { index_version 3; }
s_index_version_4() { index_version 4; }
s_split_index() { g update-index --split-index; echo edit >>"$co/$(f 27)"; g add -- "$(f 27)"; echo again >>"$co/$(f 28)"; }
s_untracked_cache() {
    g config core.untrackedCache true
    g update-index --untracked-cache
    echo a >"$co/$(dir_of 29)/cached-a.txt"
    g status --porcelain >/dev/null
    echo b >"$co/$(dir_of 29)/cached-b.txt"
    echo edit >>"$co/$(f 29)"
}
# A hook (protocol 2) that says everything may have changed, installed and run once.
install_fsmonitor_hook() {
    printf '#!/bin/sh\nprintf "token\\0/\\0"\n' >"$co/.git/hooks/fsmonitor"
    chmod +x "$co/.git/hooks/fsmonitor"
    g config core.fsmonitor .git/hooks/fsmonitor
    g config core.fsmonitorHookVersion 2
    g status --porcelain >/dev/null
}
s_fsmonitor_hook_honest() {
    install_fsmonitor_hook
    echo edit >>"$co/$(f 30)"
}
s_fsmonitor_hook_lying() {
    # Then the hook says nothing changed: git trusts it and misses the edit.
    install_fsmonitor_hook
    printf '#!/bin/sh\nprintf "token\\0"\n' >"$co/.git/hooks/fsmonitor"
    echo edit >>"$co/$(f 30)"
}
s_sparse_checkout() {
    g sparse-checkout set --no-cone "/$(dir_of 31)/" 2>/dev/null
    echo edit >>"$co/$(f 31)"
}
s_sparse_index() {
    g sparse-checkout set --cone --sparse-index "$(dir_of 31)" 2>/dev/null
    echo edit >>"$co/$(f 31)"
}
s_skip_worktree() { g update-index --skip-worktree -- "$(f 32)"; echo edit >>"$co/$(f 32)"; }
s_assume_unchanged() { g update-index --assume-unchanged -- "$(f 33)"; echo edit >>"$co/$(f 33)"; }
s_read_tree_other_commit() {
    # The index of an older commit (a cache-tree for it), the files of REV on disk.
    g read-tree "HEAD~1" 2>/dev/null || g read-tree --empty
}
s_cache_tree_forged() {
    # A staged edit under a directory, then the cache-tree put back as it was before it:
    # the index now claims the directory's staged tree is still the base's.
    g read-tree HEAD
    rewrite_index 'open(path + ".tree", "wb").write(dict(extensions)[b"TREE"])'
    echo staged >>"$co/$(f 34)"
    g add -- "$(f 34)"
    rewrite_index 'extensions = [(s, open(path + ".tree", "rb").read() if s == b"TREE" else b) for s, b in extensions]'
}
s_cache_tree_forged_count() {
    # The same with a file added under the directory: the old entry count is one short.
    g read-tree HEAD
    rewrite_index 'open(path + ".tree", "wb").write(dict(extensions)[b"TREE"])'
    echo new >"$co/$(dir_of 34)/zz-added-under.txt"
    echo new >"$co/$(dir_of 34)/00-added-under.txt"
    g add -- "$(dir_of 34)/zz-added-under.txt" "$(dir_of 34)/00-added-under.txt"
    rewrite_index 'extensions = [(s, open(path + ".tree", "rb").read() if s == b"TREE" else b) for s, b in extensions]'
    rm -f "$co/.git/index.tree"
}
s_name_length_field() {
    # An entry whose name-length field is shorter than its NUL-terminated name: git reads
    # the name by the field.
    echo staged >"$co/$(dir_of 35)/abcdef.txt"
    g add -- "$(dir_of 35)/abcdef.txt"
    rewrite_index '
for e in entries:
    if e["path"].endswith(b"/abcdef.txt"):
        size = lambda n: (62 + n + 8) // 8
        n = len(e["path"])
        short = min(k for k in range(1, n) if size(k) == size(n))
        e["flags"] = (e["flags"] & ~0xFFF) | short'
}
s_fifo_where_file_was() { rm "$co/$(f 37)"; mkfifo "$co/$(f 37)"; }
s_unreadable_file() { chmod 000 "$co/$(f 36)"; touch "$co/$(f 36)"; }
s_executable_removed() {
    echo '#!/bin/sh' >"$co/run-me.sh" && chmod +x "$co/run-me.sh"
    commit_setup
    chmod -x "$co/run-me.sh"
}

all=$(declare -F | awk '{print $3}' | grep '^s_' | sed 's/^s_//')
wanted=("$@")
[ ${#wanted[@]} -gt 0 ] || mapfile -t wanted <<<"$all"
failed=0
for scenario in "${wanted[@]}"; do
    reset_checkout
    if ! ("s_$scenario") >"$work/setup.log" 2>&1; then
        echo "$scenario: the edit failed: $(tail -c 300 "$work/setup.log")"
        failed=1
        continue
    fi
    compare "$scenario"
done
exit "$failed"
