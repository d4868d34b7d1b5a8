#!/usr/bin/env bash
# The workflows and the Action must pass actionlint and zizmor with no findings: the
# release workflow, the Action (action.yml), and the workflow `handoff init` writes
# (templates/init/workflow.yml, the same as examples/check/github-actions.yml).
#
#   scripts/check-workflows.sh          # exit 0 clean, 1 findings, 2 a tool is missing
#
# Install: `pip install zizmor`; actionlint from https://github.com/rhysd/actionlint
# (`go install github.com/rhysd/actionlint/cmd/actionlint@latest`, or a release binary).
# zizmor runs offline (no GitHub API calls); its one inline ignore is the placeholder
# `OWNER/handoff@v0.1.0` a user replaces with the release's commit SHA.
set -uo pipefail
cd "$(dirname "$0")/.."

workflows=(.github/workflows/*.yml templates/init/workflow.yml examples/check/github-actions.yml)
status=0
for tool in actionlint zizmor; do
  if ! command -v "$tool" > /dev/null; then
    echo "error: $tool is not installed (see the top of $0)" >&2
    status=2
  fi
done
[ "$status" -eq 0 ] || exit "$status"

cmp -s templates/init/workflow.yml examples/check/github-actions.yml \
  || { echo "error: templates/init/workflow.yml and examples/check/github-actions.yml differ" >&2; status=1; }
actionlint "${workflows[@]}" || status=1
zizmor --offline action.yml "${workflows[@]}" || status=1
exit "$status"
