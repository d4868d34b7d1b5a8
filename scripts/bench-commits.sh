#!/usr/bin/env bash
# Benchmark of small changes on a real history: `handoff classify` and `handoff check` on
# each of the last N commits (one commit against its parent, as a pull request of one
# commit is gated) against `git diff -M -U0` on the same commits, whole processes.
#
#   scripts/bench-commits.sh REPO [N] [REV]      (defaults: 20 HEAD)
#
# REPO is a path to a repository you already have; it is never fetched or written to.
# The commits are the N first-parent, non-merge commits reachable from REV. One round runs
# each command on all N commits, one after the other, and is timed as a whole; the
# commands take turns, RUNS rounds (default 11). Prints the medians of the rounds' wall
# and CPU time, the largest peak RSS of any one process, and the ratios to git. `check`
# runs as in scripts/bench-real.sh: in a temporary repository that borrows REPO's objects,
# each commit given a child that adds the Task Assignment (meta-data), and git is timed
# there too. HANDOFF=path/to/handoff measures that binary instead of building one.
set -euo pipefail

if [ $# -lt 1 ]; then
    echo "usage: $0 REPO [N] [REV]" >&2
    exit 2
fi
repo=$(cd "$1" && pwd)
count=${2:-20}
rev=${3:-HEAD}
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

mapfile -t commits < <(git -C "$repo" rev-list --first-parent --no-merges -n "$count" "$rev")
echo "repository: $repo"
echo "commits: ${#commits[@]} first-parent non-merge commits from $rev (${commits[0]:0:12} …)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
files=0
for commit in "${commits[@]}"; do
    files=$((files + $(git -C "$repo" diff --name-only "$commit^" "$commit" | wc -l)))
done
echo "size: $files changed files in all"

check_repo=$(make_check_repo "$repo")
: > "$work/classify.sh" && : > "$work/git.sh" && : > "$work/check.sh" && : > "$work/gitcheck.sh"
for commit in "${commits[@]}"; do
    check_head=$(add_task_assignment "$check_repo" "$commit")
    echo "\"\$H\" classify --repo \"$repo\" --base $commit^ --head $commit --format json > /dev/null" >> "$work/classify.sh"
    echo "git -C \"$repo\" diff -M -U0 $commit^ $commit > /dev/null" >> "$work/git.sh"
    echo "\"\$H\" check --repo \"$check_repo\" --base $commit^ --head $check_head --format json > /dev/null || true" >> "$work/check.sh"
    echo "git -C \"$check_repo\" diff -M -U0 $commit^ $check_head > /dev/null" >> "$work/gitcheck.sh"
done
export H="$HANDOFF"
classify_cmd=(sh "$work/classify.sh")
git_cmd=(sh "$work/git.sh")
check_cmd=(sh "$work/check.sh")
gitcheck_cmd=(sh "$work/gitcheck.sh")
for var in classify git check gitcheck; do
    eval "${var}_walls=() ${var}_cpus=() ${var}_rsss=()"
done
"${git_cmd[@]}" && "${classify_cmd[@]}"
for ((run = 0; run < runs; run++)); do
    for var in classify git check gitcheck; do
        sample "$var"
    done
done

echo "medians of $runs rounds of ${#commits[@]} commits each, the commands taking turns:"
report "handoff classify" classify
report "git diff -M -U0" git
report "handoff check (check repository)" check
report "git diff -M -U0 (check repository)" gitcheck
ratio "classify / git:" classify git
ratio "check / git:" check gitcheck
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
