#!/usr/bin/env bash
# The audit page in a real browser. Builds a trail (the 004 example chain, and the
# example records imported), renders `handoff audit --format html` with it, and takes
# screenshots of the first screen at 1280x800 (desktop) and 390x844 (phone) with
# headless Chromium, with the page's script on and off. Not part of CI: it needs a
# browser (`apt-get install -y chromium` on Debian).
#
#   scripts/audit-screenshot.sh [OUT_DIR]        (default: target/audit-screenshots)
set -euo pipefail
cd "$(dirname "$0")/.."

out="${1:-target/audit-screenshots}"
browser="$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)"
if [ -z "$browser" ]; then
  echo "error: no Chromium found; install it (apt-get install -y chromium)" >&2
  exit 2
fi

cargo build --quiet --locked
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
trail="$work/trail"
handoff=target/debug/handoff

"$handoff" trail append tests/fixtures/trail/chain-004.jsonl --trail "$trail" >/dev/null
# Records without a timestamp are skipped (exit 1): expected for the templates.
"$handoff" trail import examples --trail "$trail" >/dev/null || [ $? -eq 1 ]
# The example records hold a finding of every kind, so audit exits 1: that is expected.
"$handoff" audit examples/registry/records --registry examples/registry --trail "$trail" \
  --format html >"$out/audit.html" || [ $? -eq 1 ]

# The same page without its script: it must be complete without it.
sed '/^<script>$/,/^<\/script>$/d' "$out/audit.html" >"$out/audit-without-script.html"
for size in 1280x800 390x844; do
  for script in on off; do
    page="$out/audit.html"
    [ "$script" = off ] && page="$out/audit-without-script.html"
    "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
      --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
      --user-data-dir="$work/profile-$size-$script" \
      --screenshot="$(realpath -m "$out/audit-$size-script-$script.png")" \
      --window-size="${size/x/,}" "file://$(realpath "$page")" 2>/dev/null
  done
done
ls "$out"
