#!/usr/bin/env bash
# Benchmark on a real history: `handoff classify` and `handoff check` against
# `git diff -M -U0` on the same range, the commands taking turns.
#
#   scripts/bench-real.sh REPO BASE HEAD
#
# REPO is a path to a repository you already have (bare or not); it is never fetched and
# never written to. BASE and HEAD are revisions in it; HEAD may be `WORKTREE` to measure
# working-tree mode (`--head` omitted) against `git status --porcelain` plus
# `git diff -M -U0 BASE` in REPO's working tree.
#
# `check` needs a Task Assignment, and a change can only bring its own in its records
# directory (records given with --records may not assign a task). So check runs in a
# temporary bare repository that borrows REPO's objects (objects/info/alternates, nothing
# copied) and whose head is one commit on top of HEAD adding `.handoff/bench.md` (meta-data:
# neither counted, scoped nor classified); git diff is timed on the same two commits in
# that repository, so both see the same objects the same way.
#
# Prints the medians of RUNS rounds (default 11) of wall and CPU time and peak RSS, the
# ratios to git, and the machine's load before and after. HANDOFF=path/to/handoff measures
# that binary instead of building the release one. Not part of `cargo test`.
set -euo pipefail

if [ $# -ne 3 ]; then
    echo "usage: $0 REPO BASE HEAD   (HEAD may be WORKTREE)" >&2
    exit 2
fi
repo=$(cd "$1" && pwd)
base=$2
head=$3
runs=${RUNS:-11}
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${HANDOFF:-}" ]; then
    cargo build --release --locked --quiet --manifest-path "$root/Cargo.toml"
    HANDOFF="$root/target/release/handoff"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$root/scripts/bench-lib.sh"

base_id=$(git -C "$repo" rev-parse --verify "$base^{commit}")
echo "repository: $repo"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"

if [ "$head" = WORKTREE ]; then
    # Working-tree mode: what an agent runs before committing.
    classify_cmd=("$HANDOFF" classify --repo "$repo" --base "$base_id" --format json)
    git_cmd=(sh -c 'git -C "$1" status --porcelain > /dev/null && git -C "$1" diff -M -U0 "$2"' - "$repo" "$base_id")
    echo "range: $base_id..working tree"
    echo "size: $(git -C "$repo" status --porcelain | wc -l) paths in git status;" \
        "$(git -C "$repo" diff -M --shortstat "$base_id")"
    commands=(classify git)
    git_name="git status + git diff -M -U0"
else
    head_id=$(git -C "$repo" rev-parse --verify "$head^{commit}")
    classify_cmd=("$HANDOFF" classify --repo "$repo" --base "$base_id" --head "$head_id" --format json)
    git_cmd=(git -C "$repo" diff -M -U0 "$base_id" "$head_id")
    echo "range: $base ($base_id)..$head ($head_id)"
    echo "size: $(git -C "$repo" diff -M --shortstat "$base_id" "$head_id");" \
        "patch $(git -C "$repo" diff -M -U0 "$base_id" "$head_id" | wc -c) bytes"

    # The check repository: REPO's objects, plus one commit adding the Task Assignment.
    check_repo="$work/check.git"
    git init -q --bare "$check_repo"
    objects=$(cd "$repo" && cd "$(git rev-parse --git-path objects)" && pwd)
    echo "$objects" > "$check_repo/objects/info/alternates"
    cat > "$work/bench.md" <<'MD'
## Task Assignment

| Field | Value |
|---|---|
| Task ID | BENCH-1 |
| Assigned to | backend-engineer |
| Expected file scope | [**] |
| Risk Class | high |

## Interaction Record

| Field | Value |
|---|---|
| Task ID | BENCH-1 |
| Type | review |
| From | backend-engineer |
| To | reality-checker |

### Evidence Bundle

- **Files changed**: `**`
- **Description**: The range under measurement.
- **Test mapping**: AC1 → `bench`
- **Before/after**: Before: the base. After: the head.
- **Security implications**: none.
- **Rollback plan**: `git revert HEAD`
MD
    export GIT_DIR="$check_repo" GIT_INDEX_FILE="$work/index"
    blob=$(git hash-object -w "$work/bench.md")
    git read-tree "$head_id"
    git update-index --add --cacheinfo "100644,$blob,.handoff/bench.md"
    tree=$(git write-tree)
    check_head=$(GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com \
        GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com \
        git commit-tree "$tree" -p "$head_id" -m "bench: task assignment")
    unset GIT_DIR GIT_INDEX_FILE
    check_cmd=("$HANDOFF" check --repo "$check_repo" --base "$base_id" --head "$check_head" --format json)
    gitcheck_cmd=(git -C "$check_repo" diff -M -U0 "$base_id" "$check_head")
    "${check_cmd[@]}" > "$work/check.json" || [ $? -eq 1 ]
    commands=(classify git check gitcheck)
    git_name="git diff -M -U0"
fi

for var in classify git check gitcheck; do
    eval "${var}_walls=() ${var}_cpus=() ${var}_rsss=()"
done
# Warm the page cache once so every measurement sees the same state.
"${git_cmd[@]}" > /dev/null
"${classify_cmd[@]}" > "$work/classify.json"
for ((run = 0; run < runs; run++)); do
    for var in "${commands[@]}"; do
        sample "$var"
    done
done

echo "medians of $runs rounds, the commands taking turns:"
report "handoff classify" classify
report "$git_name" git
if [ "$head" != WORKTREE ]; then
    report "handoff check (check repository)" check
    report "git diff -M -U0 (check repository)" gitcheck
fi
ratio "classify / git:" classify git
if [ "$head" != WORKTREE ]; then
    ratio "check / git:" check gitcheck
fi
python3 - "$work/classify.json" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))
statuses = {}
for file in result["files"]:
    statuses[file["status"]] = statuses.get(file["status"], 0) + 1
print("classify found:", ", ".join(f"{n} {s}" for s, n in sorted(statuses.items())),
      f"; risk {result['risk']}, {len(result['findings'])} findings")
if result.get("rename_search_skipped"):
    print("rename search skipped:", result["rename_search_skipped"])
PY
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
