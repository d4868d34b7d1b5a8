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
# neither counted, scoped nor classified; scripts/bench-check-repo.sh); git diff is timed
# on the same two commits in that repository, so both see the same objects the same way.
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
. "$root/scripts/bench-check-repo.sh"

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
    check_repo=$(make_check_repo "$repo")
    check_head=$(add_task_assignment "$check_repo" "$head_id")
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
