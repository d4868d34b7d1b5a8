#!/usr/bin/env bash
# The gate's documented caps, measured: `handoff check` on generated repositories at each
# cap (300,000 scope-expansion paths, 200,000 file-scope patterns and `Files changed`
# entries, 20,000 acceptance criteria) and one past it (refused: limit-exceeded).
#
#   scripts/bench-trust-caps.sh [HANDOFF] [RUNS]
#
# HANDOFF defaults to target/release/handoff; SPECS="KIND:COUNT ..." picks the inputs
# (default: every cap and one past it). Prints, per input and run, the exit code,
# the wall time and the CPU time (user + system) in seconds, and the peak memory in MB
# (GNU time). On a shared machine the CPU time is the figure to read: wall time grows
# with the load. Generated inputs are
# for shapes no real repository has: these are the adversary's inputs, not real ones.
set -euo pipefail
HANDOFF=${1:-target/release/handoff}
RUNS=${2:-3}
HANDOFF=$(realpath "$HANDOFF")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# make_repo DIR KIND COUNT: a repository whose feature branch stresses one cap.
make_repo() {
  local dir=$1 kind=$2 count=$3
  mkdir -p "$dir" && cd "$dir"
  git init -q -b main . && git config user.email b@example.com && git config user.name b
  python3 - "$kind" "$count" <<'PY'
import os, sys
kind, count = sys.argv[1], int(sys.argv[2])
os.makedirs(".handoff", exist_ok=True)
os.makedirs("lib", exist_ok=True)
files = [f"lib/f{i}.py" for i in range(3000)]
for f in files:
    open(f, "w").write("x = 1\n")
scope = "lib/"
criteria = "- AC1: it works\n"
if kind == "scope":
    scope = ", ".join([f"lib/f{i}.py" for i in range(count // 2)] +
                      [f"src/d{i}/" for i in range(count - count // 2)])
if kind == "criteria":
    criteria = "".join(f"- AC{i}: behaviour number {i} holds\n" for i in range(1, count + 1))
open(".handoff/eng-1-task.md", "w").write(
    "## Task Assignment\n\n| Task ID | ENG-1 |\n| Assigned to | backend-engineer |\n"
    f"| Expected file scope | [{scope}] |\n| Risk Class | low |\n\n"
    f"### Acceptance Criteria\n\n{criteria}")
PY
  git add -A && git commit -qm base
  git checkout -q -b feature
  python3 - "$kind" "$count" <<'PY'
import sys
kind, count = sys.argv[1], int(sys.argv[2])
for i in range(3000):
    open(f"lib/f{i}.py", "w").write("x = 2\n")
listed = "`lib/`"
mapping = "AC1 → `test_it` passes"
if kind == "files":
    listed = ", ".join(f"`lib/f{i}.py`" for i in range(count))
if kind == "criteria":
    mapping = "\n".join(f"  - AC{i} → `test_{i}` passes" for i in range(1, count + 1))
open(".handoff/eng-1.md", "w").write(
    "## Interaction Record\n\n| Task ID | ENG-1 |\n| Type | handoff |\n| From | backend-engineer |\n"
    "| To | enterprise-orchestrator |\n\n### Evidence Bundle\n\n"
    f"- **Files changed**: {listed}\n- **Description**: Bump.\n- **Test mapping**:\n{mapping}\n")
if kind == "expansion":
    # The task's scope is lib/ already; the expansion asks for other paths, so every one
    # is read and compiled, and the 3,000 changed files are matched against them.
    items = "".join(f"- `src/m{i}/f.py`\n" for i in range(count))
    open(".handoff/eng-1-scope.md", "w").write(
        "## Interaction Record\n\n| Task ID | ENG-1 |\n| Type | consultation |\n"
        "| From | backend-engineer |\n| To | enterprise-orchestrator |\n\n### Request\n\n"
        f"Scope expansion: these files.\n\n{items}\n### Decision\n\nApproved.\n\n"
        "Reviewer: enterprise-orchestrator\n")
PY
  git add -A && git commit -qm work
  cd - > /dev/null
}

SPECS=${SPECS:-expansion:300000 expansion:300001 scope:200000 scope:200001 \
files:200000 files:200001 criteria:20000 criteria:20001}
for spec in $SPECS; do
  kind=${spec%%:*}; count=${spec##*:}
  dir="$WORK/$kind-$count"
  make_repo "$dir" "$kind" "$count"
  for run in $(seq "$RUNS"); do
    set +e
    /usr/bin/time -f "%e %U %S %M" -o "$WORK/time" \
      "$HANDOFF" check --repo "$dir" --base main --head HEAD --format json > "$WORK/out" 2>&1
    code=$?
    set -e
    read -r secs user sys kb < <(tail -n 1 "$WORK/time")
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
    limit=$(grep -c '"limit-exceeded"' "$WORK/out" || true)
    echo "$kind $count run $run: exit $code, ${secs} s wall, ${cpu} s CPU, $((kb / 1024)) MB," \
      "limit-exceeded: $limit"
  done
done
