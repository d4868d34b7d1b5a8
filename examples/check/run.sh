#!/usr/bin/env bash
# A worked example of `handoff check`, the pull-request gate.
#
# It builds a throw-away git repository in a temporary directory, where an agent was
# asked to fix a typo in the docs (Task Assignment: scope `docs/`, low risk) but also
# touched `src/greet.py`. The gate rejects the change and prints the fix; the script then
# runs that fix (a scope-expansion record), the orchestrator approves it, and the gate
# passes.
#
#   examples/check/run.sh             # uses `handoff` from PATH
#   HANDOFF=target/debug/handoff examples/check/run.sh
set -euo pipefail

handoff=${HANDOFF:-handoff}
if [[ $handoff == */* ]]; then handoff=$(cd "$(dirname "$handoff")" && pwd)/$(basename "$handoff"); fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

step "A repository with a main branch"
git init -q -b main
git config user.email agent@example.com
git config user.name agent
git config commit.gpgsign false
mkdir -p docs src .handoff
printf '# Guide\n\nHelo, world.\n' > docs/guide.md
printf 'def greet():\n    return "Helo"\n' > src/greet.py
git add -A && git commit -q -m "base"
git checkout -q -b fix-typo

step "The orchestrator's Task Assignment and the agent's review record"
cat > .handoff/eng-42.md <<'MD'
## Task Assignment

| Field | Value |
|---|---|
| Task ID | ENG-42 |
| Assigned to | docs-writer |
| Expected file scope | [docs/] |
| Risk Class | low |

## Interaction Record

| Field | Value |
|---|---|
| Task ID | ENG-42 |
| Type | review |
| From | docs-writer |
| To | orchestrator |

### Context

Fixed the "Helo" typo in the guide, and in the greeting it quotes.

### Evidence Bundle

- **Files changed**: `docs/guide.md`, `src/greet.py`
- **Description**: Fix the "Helo" typo in the guide and in the greeting.
MD
cat .handoff/eng-42.md

step "The change: the docs, and one file outside the declared scope"
printf '# Guide\n\nHello, world.\n' > docs/guide.md
printf 'def greet():\n    return "Hello"\n' > src/greet.py
git add -A && git commit -q -m "Fix the Helo typo"
run git diff --stat main

step "The gate rejects it (exit 1) and says how to fix it"
set +e
run "$handoff" check --base main --head HEAD
echo "exit code: $?"
set -e

step "The fix it printed: file the scope-expansion record"
run "$handoff" new scope-expansion --task ENG-42 --from docs-writer --to enterprise-orchestrator \
  --path src/greet.py --output .handoff/eng-42-scope-src-greet-py.md
# The agent gives the reason; the orchestrator (the record's To) fills the Decision.
sed -i.bak -e 's/because \[reason\]/because the guide quotes its greeting./' \
  -e 's/^\[Filled by the receiver.*\]$/Approved: a one-word string fix./' \
  .handoff/eng-42-scope-src-greet-py.md
rm .handoff/eng-42-scope-src-greet-py.md.bak
sed -n '/### Request/,$p' .handoff/eng-42-scope-src-greet-py.md
git add -A && git commit -q -m "Scope expansion for src/greet.py"

step "The gate passes (exit 0)"
run "$handoff" check --base main --head HEAD
echo "exit code: $?"
