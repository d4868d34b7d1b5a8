#!/usr/bin/env bash
# Whole-process timing of `handoff check` (release build), never asserted by tests.
#
#   benches/check.sh [RUNS]
#
# 1. A one-file change (a docs typo, low risk): mean wall-clock and CPU time per run.
# 2. A 5,000-file change (every file of a generated repository modified): one run's wall
#    time and peak memory (`/usr/bin/time -v`), when GNU time is installed.
# Timings on a loaded machine are inflated; compare CPU time (user + sys) across runs.
set -euo pipefail

runs=${1:-50}
root=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release --quiet --manifest-path "$root/Cargo.toml"
handoff=$root/target/release/handoff
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

records() { # records SCOPE FILES
  cat <<MD
## Task Assignment

| Field | Value |
|---|---|
| Task ID | BENCH-1 |
| Assigned to | docs-writer |
| Expected file scope | [$1] |
| Risk Class | low |

## Interaction Record

| Field | Value |
|---|---|
| Task ID | BENCH-1 |
| Type | handoff |
| From | docs-writer |
| To | orchestrator |

### Evidence Bundle

- **Files changed**: $2
- **Description**: A benchmark change.
- **Test mapping**: AC1 → \`bench\`
- **Before/after**: Before: old text. After: new text.
- **Migrations**: none
MD
}

new_repo() { # new_repo DIR
  git init -q -b main "$1"
  git -C "$1" config user.email bench@example.com
  git -C "$1" config user.name bench
  git -C "$1" config commit.gpgsign false
}

# Mean milliseconds per run of "$@" over $runs runs: wall, and user+sys CPU.
measure() {
  local start end cpu
  start=$(date +%s%N)
  cpu=$( { TIMEFORMAT='%U %S'; time (for _ in $(seq "$runs"); do "$@" >/dev/null || true; done); } 2>&1 )
  end=$(date +%s%N)
  awk -v wall=$((end - start)) -v n="$runs" -v cpu="$cpu" 'BEGIN {
    split(cpu, t, " ");
    printf "  wall %.1f ms/run, cpu %.1f ms/run (%d runs)\n", wall / n / 1e6, (t[1] + t[2]) * 1000 / n, n }'
}

echo "== one-file change"
one=$work/one
new_repo "$one"
mkdir -p "$one/docs" "$one/.handoff"
printf '# Guide\n\nHelo.\n' > "$one/docs/guide.md"
git -C "$one" add -A && git -C "$one" commit -q -m base && git -C "$one" checkout -q -b change
printf '# Guide\n\nHello.\n' > "$one/docs/guide.md"
records "docs/" '`docs/guide.md`' > "$one/.handoff/bench.md"
git -C "$one" add -A && git -C "$one" commit -q -m change
(cd "$one" && "$handoff" check --base main --head HEAD | tail -n 1)
(cd "$one" && measure "$handoff" check --base main --head HEAD)
echo "  for comparison, process start-up alone (handoff explain):"
(cd "$one" && measure "$handoff" explain)

echo "== 5,000-file change"
big=$work/big
new_repo "$big"
mkdir -p "$big/.handoff"
for d in $(seq 0 49); do
  mkdir -p "$big/src/m$d"
  for f in $(seq 0 99); do printf 'pub fn f%d() -> u32 { %d }\n' "$f" "$f" > "$big/src/m$d/f$f.rs"; done
done
git -C "$big" add -A && git -C "$big" commit -q -m base && git -C "$big" checkout -q -b change
for file in "$big"/src/m*/f*.rs; do printf '// touched\n' >> "$file"; done
records "src/" '`src/`' > "$big/.handoff/bench.md"
git -C "$big" add -A && git -C "$big" commit -q -m change
(cd "$big" && "$handoff" check --base main --head HEAD | tail -n 1)
if [ -x /usr/bin/time ]; then
  (cd "$big" && /usr/bin/time -v "$handoff" check --base main --head HEAD 2>&1 >/dev/null |
    grep -E 'Elapsed|Maximum resident|User time|System time' | sed 's/^\s*/  /')
else
  (runs=3 && cd "$big" && measure "$handoff" check --base main --head HEAD)
fi
