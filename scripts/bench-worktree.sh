#!/usr/bin/env bash
# Benchmark of working-tree mode (`handoff classify` without `--head`, as an agent runs it
# before committing) on a real checkout, against `git status --porcelain` plus
# `git diff -M -U0 HEAD`, with a small and a larger uncommitted change.
#
#   scripts/bench-worktree.sh REPO [REV] [SMALL] [LARGE]      (defaults: HEAD 2 40)
#
# REPO is a repository you already have (a bare mirror will do); it is never fetched or
# written to. A temporary checkout of REV borrows its objects (`git clone --shared`), then
# two changes are measured in turn with scripts/bench-real.sh CHECKOUT HEAD WORKTREE:
# SMALL tracked files edited; then LARGE tracked files edited and LARGE/4 new untracked
# files (copies of tracked ones). The edited files are spread through the tree (every
# k-th tracked file), each given one line at its end. The checkout is deleted at the end.
# RUNS and HANDOFF are passed on to scripts/bench-real.sh.
set -euo pipefail

if [ $# -lt 1 ]; then
    echo "usage: $0 REPO [REV] [SMALL] [LARGE]" >&2
    exit 2
fi
repo=$(cd "$1" && pwd)
rev=${2:-HEAD}
small=${3:-2}
large=${4:-40}
root=$(cd "$(dirname "$0")/.." && pwd)
checkout=$(mktemp -d)
trap 'rm -rf "$checkout"' EXIT

git clone --quiet --shared --no-checkout "$repo" "$checkout"
git -C "$checkout" checkout --quiet --detach "$rev"
mapfile -t tracked < <(git -C "$checkout" ls-files -- '*.java' '*.kt' '*.rb' '*.rs' '*.go' \
    '*.py' '*.ts' '*.js' '*.c' '*.h' '*.md' '*.yml' '*.yaml' '*.toml' '*.json')
if [ "${#tracked[@]}" -lt "$large" ]; then
    echo "$repo at $rev has ${#tracked[@]} source files, fewer than $large" >&2
    exit 2
fi

# Edits the first COUNT files of every k-th tracked source file.
edit() {
    local count=$1 step=$((${#tracked[@]} / $1)) index
    for ((index = 0; index < count; index++)); do
        printf '\nedited for the benchmark\n' >> "$checkout/${tracked[index * step]}"
    done
}

echo "== small change: $small tracked files edited"
edit "$small"
"$root/scripts/bench-real.sh" "$checkout" HEAD WORKTREE

git -C "$checkout" checkout --quiet -- .
echo "== larger change: $large tracked files edited, $((large / 4)) new untracked files"
edit "$large"
mkdir -p "$checkout/benchmark-new"
for ((index = 0; index < large / 4; index++)); do
    file=${tracked[index * 7 + 3]}
    cp "$checkout/$file" "$checkout/benchmark-new/$index-${file##*/}"
done
"$root/scripts/bench-real.sh" "$checkout" HEAD WORKTREE
