#!/usr/bin/env bash
# Renders the example audit as an HTML page and screenshots it with headless Chromium.
# Not part of CI: it needs a browser (`apt-get install -y chromium` on Debian/Ubuntu).
#
#   scripts/audit-screenshot.sh [OUT.png]
set -euo pipefail
cd "$(dirname "$0")/.."

out="${1:-target/audit-screenshot.png}"
browser="$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)"
if [ -z "$browser" ]; then
  echo "error: no Chromium found; install it (apt-get install -y chromium)" >&2
  exit 2
fi

cargo build --quiet --locked
mkdir -p "$(dirname "$out")"
page="$(mktemp --suffix=.html)"
profile="$(mktemp -d)"
trap 'rm -rf "$page" "$profile"' EXIT

# The example records hold a finding of every kind, so audit exits 1: that is expected.
target/debug/handoff audit examples/registry/records --registry examples/registry --format html >"$page" || [ $? -eq 1 ]

"$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
  --disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
  --screenshot="$(realpath -m "$out")" --window-size=1280,1600 "file://$page" 2>/dev/null
echo "$out"
