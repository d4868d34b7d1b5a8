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

# Each run times every command once, in turn, so that a change in the machine's load
# touches them all alike. Wall and CPU (user + system) time come from bash's `time`, in
# milliseconds; peak RSS from /usr/bin/time. Sets ${var}_walls, ${var}_cpus, ${var}_rsss.
TIMEFORMAT='%3R %3U %3S'
sample() {
    local var=$1 times real user sys
    local -n command="${var}_cmd" walls="${var}_walls" cpus="${var}_cpus" rsss="${var}_rsss"
    times=$( { time /usr/bin/time -f '%M' -o "$work/rss.txt" "${command[@]}" > /dev/null 2>&1; } 2>&1 )
    read -r real user sys <<< "$times"
    walls+=("$real")
    cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')")
    rsss+=("$(cat "$work/rss.txt")")
}

# Reports the medians of a command's runs and sets ${var}_wall, ${var}_cpu, ${var}_rss.
report() {
    local name=$1 var=$2 wall cpu rss
    local -n walls="${var}_walls" cpus="${var}_cpus" rsss="${var}_rsss"
    wall=$(median "${walls[@]}"); cpu=$(median "${cpus[@]}"); rss=$(median "${rsss[@]}")
    printf '%-28s wall %7.3f s   cpu %7.3f s   peak RSS %8d KiB\n' "$name" "$wall" "$cpu" "$rss"
    eval "${var}_wall=$wall; ${var}_cpu=$cpu; ${var}_rss=$rss"
}

median() {
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

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

awk -v c="$classify_wall" -v a="$plain_wall" -v b="$renames_wall" \
    -v cc="$classify_cpu" -v ac="$plain_cpu" -v bc="$renames_cpu" \
    -v cr="$classify_rss" -v ar="$plain_rss" -v br="$renames_rss" 'BEGIN {
    printf "classify / git diff --no-renames: wall %.2fx, cpu %.2fx, memory %.2fx\n", c / a, cc / ac, cr / ar
    printf "classify / git diff -M:           wall %.2fx, cpu %.2fx, memory %.2fx\n", c / b, cc / bc, cr / br
}'
if [ -n "${BASELINE:-}" ]; then
    awk -v c="$classify_wall" -v a="$baseline_wall" -v cc="$classify_cpu" -v ac="$baseline_cpu" \
        -v cr="$classify_rss" -v ar="$baseline_rss" 'BEGIN {
        printf "classify / baseline:              wall %.2fx, cpu %.2fx, memory %.2fx\n", c / a, cc / ac, cr / ar
    }'
fi
