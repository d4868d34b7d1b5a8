#!/usr/bin/env bash
# Builds the PyPI wheel with maturin (pyproject.toml: bindings = "bin"), installs it with
# pip into a fresh virtual environment, and runs the installed `handoff` on the examples:
# what `pip install handoff-records` gives a user without a Rust toolchain.
#
#   scripts/wheel-test.sh        # needs maturin (pip install maturin) and a Rust toolchain
#
# A release build: run it before a release, not in every CI run. It prints the wheel's
# size and the installed binary's size.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m maturin build --release --locked --out "$work/dist"
wheel=$(ls "$work"/dist/handoff_records-*.whl)
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet "$wheel"
handoff="$work/venv/bin/handoff"

"$handoff" --version
"$handoff" lint examples/ > /dev/null
"$handoff" parse examples/review.md --format json > /dev/null
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
"$handoff" --version | grep -q "^handoff $version" || { echo "wrong version" >&2; exit 1; }
echo "wheel: $(basename "$wheel"), $(du -k "$wheel" | cut -f1) KiB"
echo "installed binary: $(du -k "$handoff" | cut -f1) KiB"
