#!/usr/bin/env bash
# Evaluation of `handoff classify` on a labelled corpus of real commits.
#
#   scripts/eval-classify.sh MIRRORS_DIR [CORPUS]
#
# CORPUS (default tests/corpus/classify.tsv) is a TSV file with the header
# `repo commit stack class triggers reason`; tests/corpus/README.md says how it was made.
# MIRRORS_DIR holds one clone (bare or not) per repository, named `OWNER+NAME` (a
# `repo` directory inside it is used when present) or `OWNER/NAME`. Nothing is ever
# fetched: a repository or commit that is missing is reported and left out of the figures.
#
# Each commit is classified against its first parent:
#   handoff classify --repo MIRROR --base COMMIT^ --head COMMIT --format json
# and the computed class is compared with the label. Prints agreement, missed high (labelled
# high, classified lower), false high (classified high, labelled lower), precision and
# recall of high, the confusion matrix, the same figures per stack, how often each trigger
# fired where it was labelled, and every disagreement with the rule ids that fired.
#
# HANDOFF=path/to/handoff evaluates that binary instead of building the release one;
# RESULTS=FILE also writes one JSON line per commit (label, class, findings) to FILE.
# Not part of `cargo test`.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 MIRRORS_DIR [CORPUS]" >&2
    exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
mirrors=$(cd "$1" && pwd)
corpus=${2:-$root/tests/corpus/classify.tsv}
[ -f "$corpus" ] || { echo "no corpus at $corpus" >&2; exit 2; }
if [ -z "${HANDOFF:-}" ]; then
    cargo build --release --locked --quiet --manifest-path "$root/Cargo.toml"
    HANDOFF="$root/target/release/handoff"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One JSON line per commit: the label's columns, then the tool's answer (or an error).
tail -n +2 "$corpus" | while IFS=$'\t' read -r repo commit stack class triggers reason; do
    [ -n "$repo" ] || continue
    mirror=""
    for candidate in "$mirrors/${repo/\//+}/repo" "$mirrors/${repo/\//+}" "$mirrors/$repo"; do
        if [ -d "$candidate" ] && git -C "$candidate" rev-parse --git-dir > /dev/null 2>&1; then
            mirror=$candidate
            break
        fi
    done
    out="$work/out.json"
    if [ -z "$mirror" ]; then
        echo "no mirror of $repo" > "$out.err"
        status=missing
    elif ! git -C "$mirror" cat-file -e "$commit^{commit}" 2> /dev/null; then
        echo "commit $commit is not in $mirror" > "$out.err"
        status=missing
    elif "$HANDOFF" classify --repo "$mirror" --base "$commit^" --head "$commit" \
        --format json > "$out" 2> "$out.err"; then
        status=ok
    else
        status=error
    fi
    python3 - "$status" "$out" "$repo" "$commit" "$stack" "$class" "$triggers" "$reason" <<'PY'
import json, sys
status, out, repo, commit, stack, label, triggers, reason = sys.argv[1:]
row = {"repo": repo, "commit": commit, "stack": stack, "label": label,
       "label_triggers": [] if triggers == "-" else triggers.split(","), "reason": reason,
       "status": status}
if status == "ok":
    result = json.load(open(out))
    row["class"] = result["risk"]
    row["findings"] = result["findings"]
    if "stacks" in result:
        row["stacks"] = result["stacks"]
else:
    row["error"] = open(out + ".err").read().strip()
print(json.dumps(row))
PY
done > "$work/results.jsonl"

[ -z "${RESULTS:-}" ] || cp "$work/results.jsonl" "$RESULTS"

python3 - "$work/results.jsonl" "$corpus" "$HANDOFF" <<'PY'
import collections, json, sys

rows = [json.loads(line) for line in open(sys.argv[1])]
print(f"corpus: {sys.argv[2]} ({len(rows)} commits); tool: {sys.argv[3]}")
skipped = [r for r in rows if r["status"] != "ok"]
rows = [r for r in rows if r["status"] == "ok"]
for r in skipped:
    print(f"  not evaluated ({r['status']}): {r['repo']} {r['commit']}: {r['error']}")
CLASSES = ["low", "medium", "high"]


def figures(rows):
    n = len(rows)
    agree = sum(r["class"] == r["label"] for r in rows)
    missed = sum(r["label"] == "high" and r["class"] != "high" for r in rows)
    false_high = sum(r["label"] != "high" and r["class"] == "high" for r in rows)
    high = sum(r["class"] == "high" for r in rows)
    labelled_high = sum(r["label"] == "high" for r in rows)
    true_high = high - false_high
    return {
        "n": n, "agree": agree, "missed": missed, "false_high": false_high,
        "agreement": 100.0 * agree / n if n else 0.0,
        "precision": 100.0 * true_high / high if high else 100.0,
        "recall": 100.0 * true_high / labelled_high if labelled_high else 100.0,
    }


def line(name, f):
    return (f"{name:<16} {f['n']:>4} {f['agree']:>6} {f['agreement']:>9.1f}% "
            f"{f['missed']:>7} {f['false_high']:>6} {f['precision']:>11.1f}% {f['recall']:>8.1f}%")


header = (f"{'':<16} {'n':>4} {'agree':>6} {'agreement':>10} {'missed':>7} "
          f"{'false':>6} {'precision':>12} {'recall':>9}")
print()
print("class agreement (missed = labelled high, classified lower; false = classified high,")
print("labelled lower; precision and recall of high):")
print(header)
print(line("all", figures(rows)))
for stack in sorted({r["stack"] for r in rows}):
    print(line(stack, figures([r for r in rows if r["stack"] == stack])))

print()
print("confusion (rows: label, columns: classified):")
print(f"{'':<8}" + "".join(f"{c:>8}" for c in CLASSES))
for label in CLASSES:
    counts = collections.Counter(r["class"] for r in rows if r["label"] == label)
    print(f"{label:<8}" + "".join(f"{counts[c]:>8}" for c in CLASSES))

print()
print("triggers (labelled: commits labelled with it; fired: commits where it fired;")
print("both: where it was labelled and fired):")
print(f"{'trigger':<12} {'labelled':>9} {'fired':>6} {'both':>5}")
names = ["file-count", "test-file", "api-route", "auth", "migration", "payment", "env-var",
         "credential", "policy"]
fired_by_row = [{f["trigger"] for f in r["findings"]} for r in rows]
for name in names + sorted({t for s in fired_by_row for t in s} - set(names)):
    labelled = sum(name in r["label_triggers"] for r in rows)
    fired = sum(name in s for s in fired_by_row)
    both = sum(name in r["label_triggers"] and name in s for r, s in zip(rows, fired_by_row))
    if labelled or fired:
        print(f"{name:<12} {labelled:>9} {fired:>6} {both:>5}")

disagreements = [r for r in rows if r["class"] != r["label"]]
print()
print(f"disagreements ({len(disagreements)}):")
for r in disagreements:
    kind = ("MISSED HIGH" if r["label"] == "high" else
            "FALSE HIGH" if r["class"] == "high" else "class differs")
    print(f"- {r['repo']} {r['commit'][:12]} [{r['stack']}] {kind}: labelled {r['label']} "
          f"({','.join(r['label_triggers']) or '-'}), classified {r['class']}")
    print(f"    label: {r['reason']}")
    if "stacks" in r:
        print(f"    stacks: {', '.join(s['name'] if isinstance(s, dict) else s for s in r['stacks']) or '-'}")
    seen = set()
    for f in r["findings"]:
        key = (f["rule"], f.get("path"))
        if key in seen:
            continue
        seen.add(key)
        where = f.get("path") or ""
        if f.get("line"):
            where += f":{f['line']}"
        excerpt = f" {f['excerpt']!r}" if f.get("excerpt") and f.get("line") else ""
        print(f"    fired {f['rule']} ({f['class']}) {where}{excerpt}"[:220])
PY
