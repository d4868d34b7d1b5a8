#!/usr/bin/env bash
# Benchmark: `handoff classify` on a generated change of 5,000 files and 500,000 added
# lines, next to git's own patch output on the same repository in the same run.
#
#   scripts/bench-classify.sh [FILES] [LINES_PER_FILE]     (defaults: 5000 100)
#
# Prints wall and CPU time (s) and peak RSS (KiB) for:
#   handoff classify --base BASE --head HEAD --format json > /dev/null
#   git diff -U0 --no-renames BASE HEAD > /dev/null
#   git diff -M -U0 BASE HEAD > /dev/null
# (medians of RUNS runs, default 11, the commands taking turns) and the ratios classify /
# git. Memory must not grow with the number of changed lines: run with LINES_PER_FILE=20
# and 100 to compare peak RSS. KEEP=1 keeps the generated repository. BASELINE=/path/to/an/older/handoff also
# measures that binary, in the same run, for before/after figures. Not part of `cargo test`.
set -euo pipefail

files=${1:-5000}
lines_per_file=${2:-100}
runs=${RUNS:-11}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

cargo build --release --locked --quiet --manifest-path "$root/Cargo.toml"
handoff="$root/target/release/handoff"

repo="$work/repo"
git init -q -b main "$repo"
cd "$repo"
git config user.email bench@example.com
git config user.name bench
git config commit.gpgsign false
# Realistic source lines (scripts/bench-files.py); the base holds every file with a short
# body, the head inserts LINES_PER_FILE lines into the middle of each.
generate() { python3 "$root/scripts/bench-files.py" "$files" "$1"; }
generate 0
git add -A && git commit -q -m base
base=$(git rev-parse HEAD)
generate "$lines_per_file"
git add -A && git commit -q -m head
head=$(git rev-parse HEAD)
git repack -adq  # packed, as in a clone
echo "repository: $files files, $((files * lines_per_file)) added lines"

. "$root/scripts/bench-lib.sh"

classify_args=(classify --repo "$repo" --base "$base" --head "$head" --format json)
baseline_cmd=("${BASELINE:-}" "${classify_args[@]}")
classify_cmd=("$handoff" "${classify_args[@]}")
plain_cmd=(git diff -U0 --no-renames "$base" "$head")
renames_cmd=(git diff -M -U0 "$base" "$head")
commands=(classify plain renames)
[ -n "${BASELINE:-}" ] && commands=(baseline "${commands[@]}")
baseline_walls=() baseline_cpus=() baseline_rsss=()
classify_walls=() classify_cpus=() classify_rsss=()
plain_walls=() plain_cpus=() plain_rsss=()
renames_walls=() renames_cpus=() renames_rsss=()

# Warm the page cache once so every measurement sees the same state.
git diff -U0 --no-renames "$base" "$head" > /dev/null
for ((run = 0; run < runs; run++)); do
    for var in "${commands[@]}"; do
        sample "$var"
    done
done
[ -n "${BASELINE:-}" ] && report "baseline classify" baseline
report "handoff classify" classify
report "git diff -U0 --no-renames" plain
report "git diff -M -U0" renames

ratio "classify / git diff --no-renames:" classify plain
ratio "classify / git diff -M:" classify renames
if [ -n "${BASELINE:-}" ]; then
    ratio "classify / baseline:" classify baseline
fi
