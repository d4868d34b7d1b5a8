#!/usr/bin/env bash
# The trail views' speed goals (issue 14): `show`, `list` and `history` of one task on a
# generated trail of 1M events, and the audit page of 10,000 records with a trail of
# 100,000 events, with peak RSS and the page's size.
#
#   benches/views.sh            # builds the release binary, prints the figures
#   ROUNDS=5 benches/views.sh
#
# The trail is scripts/trail-messages.py's (3 events per handoff, all completed), plus
# 3,000 handoffs left open at the end so `list` has something to list. The records are
# generated Interaction Records: 10,000 files, handoffs and reviews of 1,000 tasks, a
# tenth of them with a filled Decision. Check `uptime` first: other builds skew wall time.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
cargo build --release --quiet -j 2
BIN=$PWD/target/release/handoff
WORK=${WORK:-$(mktemp -d)}
KEEP=${KEEP:-}
[ -n "$KEEP" ] || trap 'rm -rf "$WORK"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

measure() {
  local name=$1; shift
  local walls=() cpus=() rss=0
  for _ in $(seq "$ROUNDS"); do
    /usr/bin/time -f "%e %U %S %M" -o "$WORK/time" "$@" >"$WORK/out" 2>"$WORK/err" || true
    # A command that exits non-zero (audit with findings) gets a line before the figures.
    read -r wall user sys kb < <(tail -n 1 "$WORK/time")
    walls+=("$wall"); cpus+=("$(echo "$user + $sys" | bc)")
    (( kb > rss )) && rss=$kb
  done
  printf '%-46s wall %6ss  cpu %6ss  peak RSS %7s KB  out %s bytes\n' "$name" \
    "$(printf '%s\n' "${walls[@]}" | median)" "$(printf '%s\n' "${cpus[@]}" | median)" "$rss" \
    "$(wc -c < "$WORK/out")"
}

echo "uptime: $(uptime)"
if [ ! -f "$WORK/t1m/HEAD" ]; then
  for i in $(seq 0 9); do
    python3 scripts/trail-messages.py 100000 $((i * 33333)) > "$WORK/chunk.jsonl"
    "$BIN" trail append "$WORK/chunk.jsonl" --trail "$WORK/t1m" >/dev/null
  done
  python3 scripts/trail-messages.py 9000 900000 | awk 'NR % 3 != 0' > "$WORK/open.jsonl"
  "$BIN" trail append "$WORK/open.jsonl" --trail "$WORK/t1m" >/dev/null
fi
echo "1M trail: $(du -sh "$WORK/t1m" | cut -f1) on disk"
measure "show one handoff (1M)" "$BIN" trail show ho_00300000 --trail "$WORK/t1m"
measure "history --task (1M, 12 handoffs)" "$BIN" trail history --task ENG-27777 --trail "$WORK/t1m"
measure "history --task, mermaid (1M)" "$BIN" trail history --task ENG-27777 --format mermaid --trail "$WORK/t1m"
measure "list, open handoffs (1M)" "$BIN" trail list --trail "$WORK/t1m"
measure "export otlp-json --since (1M, last 3k)" "$BIN" trail export --format otlp-json --since 2026-01-11T23:59:00Z --trail "$WORK/t1m"

if [ ! -d "$WORK/records" ]; then
  mkdir -p "$WORK/records"
  python3 - "$WORK/records" <<'PY'
import os, sys
out = sys.argv[1]
for n in range(10000):
    task = f"ENG-{n // 10}"
    kind = "review" if n % 2 else "handoff"
    minute = n % 1440
    decision = "Approved: the criteria are met." if n % 10 == 0 else "[Filled by the receiver]"
    with open(os.path.join(out, f"r{n:05d}.md"), "w") as f:
        f.write(f"""## Interaction Record

| Field | Value |
|---|---|
| Task ID | {task} |
| Type | {kind} |
| From | agent-{n % 40} |
| To | agent-{(n * 7 + 3) % 40} |
| Transport | orchestrator-mediated |
| Risk Class | {("low", "medium", "high")[n % 3]} |
| Timestamp | 2026-01-12T{minute // 60:02d}:{minute % 60:02d}:00Z |

### Context

Step {n} of {task}.

### Request

Carry step {n} forward.

### Decision

{decision}
""")
PY
  python3 scripts/trail-messages.py 100000 0 > "$WORK/chunk.jsonl"
  "$BIN" trail append "$WORK/chunk.jsonl" --trail "$WORK/t100k" >/dev/null
fi
measure "audit --format html, 10k records + 100k events" "$BIN" audit "$WORK/records" --trail "$WORK/t100k" --format html
measure "trail import of 10k records (first)" bash -c "rm -rf '$WORK/timp' && '$BIN' trail import '$WORK/records' --trail '$WORK/timp'"
measure "trail import of 10k records (again: nothing)" "$BIN" trail import "$WORK/records" --trail "$WORK/timp"
