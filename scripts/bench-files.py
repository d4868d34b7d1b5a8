#!/usr/bin/env python3
"""Writes the benchmarks' generated source tree into the current directory.

    scripts/bench-files.py FILES LINES_PER_FILE

FILES files spread over pkgNN/modN folders, in eight languages, each with ten head and
ten tail lines around LINES_PER_FILE realistic source lines (a few per file hit content
rules: env vars, routes). Run it with 0 for the base and again with N for the head, so
the head inserts N lines into the middle of every file and every line goes through a
real diff. Used by scripts/bench-classify.sh and benches/check.sh.
"""
import os
import sys

files, per_file = int(sys.argv[1]), int(sys.argv[2])
templates = [
    "    total = compute_total(items, discount={i})",
    "    log.info('processed %s records', count_{i})",
    "def handler_{i}(request, context):",
    "    if user.is_active and value_{i} > threshold:",
    "        return render(request, 'page_{i}.html', {{'items': items}})",
    "    port = os.environ.get('PORT_{i}', '8080')",
    "    result = [x * {i} for x in range(limit) if x % 3]",
    "    # keep the cache warm for module {i}",
]
exts = ["py", "js", "go", "rs", "rb", "java", "ts", "sql"]
for f in range(files):
    d = f"pkg{f % 50:02d}/mod{f % 7}"
    os.makedirs(d, exist_ok=True)
    head = [f"# file {f} line {n}" for n in range(10)]
    tail = [f"# file {f} end {n}" for n in range(10)]
    body = [templates[(f + n) % len(templates)].format(i=n) for n in range(per_file)]
    with open(f"{d}/file_{f:05d}.{exts[f % len(exts)]}", "w") as out:
        out.write("\n".join(head + body + tail) + "\n")
