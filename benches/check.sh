#!/usr/bin/env bash
# Whole-process timing of `handoff check` (release build), never asserted by tests.
#
#   benches/check.sh [RUNS]
#
# 1. A one-file change (a docs typo, low risk): mean wall-clock and CPU time per run.
# 2. A 5,000-file change with 500,000 added lines (the shape of the classify benchmark):
#    wall time, CPU time and peak memory of three runs (`/usr/bin/time -v`, GNU time).
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

echo "== 5,000-file change, 500,000 added lines (the classify benchmark's shape)"
big=$work/big
new_repo "$big"
# Every file exists in the base with a short body; the head inserts 100 realistic lines
# (a few fire content rules: env vars, routes) into each, so every line is diffed.
generate() { (cd "$big" && python3 "$root/scripts/bench-files.py" 5000 "$1"); }
generate 0
git -C "$big" add -A && git -C "$big" commit -q -m base && git -C "$big" checkout -q -b change
generate 100
mkdir -p "$big/.handoff"
records "pkg*/" '`pkg*/`' | sed -e 's/| Risk Class | low |/| Risk Class | high |/' \
  -e 's/| Type | handoff |/| Type | review |/' -e 's/| To | orchestrator |/| To | reality-checker |/' \
  > "$big/.handoff/bench.md"
cat >> "$big/.handoff/bench.md" <<'MD'
- **Security implications**: ports now come from the environment; no new attack surface.
- **Rollback plan**: `git revert HEAD`

### Decision

Approved.
Reviewer: reality-checker
MD
git -C "$big" add -A && git -C "$big" commit -q -m change && git -C "$big" repack -adq
(cd "$big" && "$handoff" check --base main --head HEAD | tail -n 1)
if [ -x /usr/bin/time ]; then
  for _ in 1 2 3; do
    (cd "$big" && { /usr/bin/time -v "$handoff" check --base main --head HEAD || true; } 2>&1 >/dev/null |
      awk -F': ' '/Elapsed/ {w=$2} /Maximum resident/ {m=$2} /User time|System time/ {c+=$2}
        END {printf "  wall %s, cpu %.2f s, peak RSS %d KiB\n", w, c, m}')
  done
else
  (runs=3 && cd "$big" && measure "$handoff" check --base main --head HEAD)
fi
