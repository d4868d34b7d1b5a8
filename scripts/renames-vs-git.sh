#!/usr/bin/env bash
# Differential check of rename detection: the renames `handoff classify` finds on a range
# of a real repository against `git diff -M --name-status` on the same range.
#
#   scripts/renames-vs-git.sh REPO BASE HEAD [--copies]
#
# REPO is a path to a repository (bare or not); BASE and HEAD are revisions in it. It never
# fetches. With --copies, handoff runs with --copies and git with -C. Prints, for renames
# (and copies) by (old path, new path): how many each found, how many both found, and the
# agreement (both / either); then whether every file's status agrees, listing the first
# differences. Exit 0 when both lists are identical, 1 otherwise. HANDOFF=path/to/handoff
# uses that binary instead of building the release one.
set -euo pipefail

if [ $# -lt 3 ]; then
    echo "usage: $0 REPO BASE HEAD [--copies]" >&2
    exit 2
fi
repo=$1 base=$2 head=$3
copies=${4:-}
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${HANDOFF:-}" ]; then
    cargo build --release --locked --quiet --manifest-path "$root/Cargo.toml"
    HANDOFF="$root/target/release/handoff"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

git_flag=-M
handoff_flags=()
if [ "$copies" = "--copies" ]; then
    git_flag=-C
    handoff_flags=(--copies)
fi

git -C "$repo" diff --no-ext-diff --name-status -z "$git_flag" "$base" "$head" > "$work/git.txt"
"$HANDOFF" classify --repo "$repo" --base "$base" --head "$head" --format json \
    "${handoff_flags[@]}" > "$work/handoff.json"

python3 - "$work/git.txt" "$work/handoff.json" <<'PY'
import json, sys

letters = {"added": "A", "modified": "M", "deleted": "D", "renamed": "R",
           "copied": "C", "type-change": "T"}
# `-z`: a status, then one path (two for R and C), each ended by a NUL.
fields = open(sys.argv[1], "rb").read().decode("utf-8", "replace").split("\0")
git_rows = set()
index = 0
while index + 1 < len(fields):
    status = fields[index][0]
    if status in "RC":
        git_rows.add((status, fields[index + 1], fields[index + 2]))
        index += 3
    else:
        git_rows.add((status, "", fields[index + 1]))
        index += 2
ours = json.load(open(sys.argv[2], encoding="utf-8"))
handoff_rows = {(letters[f["status"]], f.get("old_path") or "", f["path"])
                for f in ours["files"]}

def pairs(rows):
    return {(old, new, status) for status, old, new in rows if status in "RC"}

g, h = pairs(git_rows), pairs(handoff_rows)
both = g & h
either = g | h
agreement = 100.0 * len(both) / len(either) if either else 100.0
print(f"renames/copies: git {len(g)}, handoff {len(h)}, both {len(both)}, "
      f"agreement {agreement:.2f}% ({len(both)}/{len(either)})")
if ours.get("rename_search_skipped"):
    print(f"handoff skipped the similarity search: {ours['rename_search_skipped']}")
only_git = sorted(git_rows - handoff_rows)
only_handoff = sorted(handoff_rows - git_rows)
print(f"files: git {len(git_rows)}, handoff {len(handoff_rows)}, "
      f"identical: {'yes' if not only_git and not only_handoff else 'no'}")
for label, rows in (("only git", only_git), ("only handoff", only_handoff)):
    for row in rows[:20]:
        print(f"  {label}: {row[0]} {row[1] + ' -> ' if row[1] else ''}{row[2]}")
    if len(rows) > 20:
        print(f"  {label}: … and {len(rows) - 20} more")
sys.exit(0 if not only_git and not only_handoff else 1)
PY
