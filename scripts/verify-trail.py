#!/usr/bin/env python3
"""Verify a handoff trail without `handoff`: the recipe of docs/trail.md, in Python.

Usage: verify-trail.py TRAIL_DIR

Needs the `rfc8785` package (pip install rfc8785), an RFC 8785 (JCS) implementation
independent of the Rust crate the tool uses. Exit 0 intact, 1 a break (printed).
"""
import hashlib
import json
import os
import re
import sys

import rfc8785


def main(directory):
    breaks = []
    expected, prev = 0, "0" * 64
    anchor_path = os.path.join(directory, "ANCHOR")
    if os.path.exists(anchor_path):
        with open(anchor_path, encoding="utf-8") as anchor_file:
            anchor = json.load(anchor_file)
        expected, prev = anchor["seq"] + 1, anchor["hash"]
    segments = sorted(n for n in os.listdir(directory) if re.fullmatch(r"\d{4}-\d\d-\d\d\.jsonl", n))
    last = None
    for name in segments:
        with open(os.path.join(directory, name), "rb") as segment:
            for number, raw in enumerate(segment, start=1):
                where = f"{name}:{number}"
                if not raw.endswith(b"\n"):
                    breaks.append(f"{where}: torn line")
                    continue
                event = json.loads(raw)
                if event["seq"] <= expected - 1 and last is None and os.path.exists(anchor_path):
                    continue  # left by an interrupted prune
                stored = event.pop("hash")
                computed = hashlib.sha256(rfc8785.dumps(event)).hexdigest()
                if computed != stored:
                    breaks.append(f"{where}: seq {event['seq']}: edited (hash {computed}, line says {stored})")
                if event["seq"] != expected:
                    breaks.append(f"{where}: seq {event['seq']} where {expected} was due")
                elif event["prev"] != prev:
                    breaks.append(f"{where}: seq {event['seq']}: prev is not the hash of the event before")
                expected, prev = event["seq"] + 1, stored
                last = (event["seq"], stored)
    head_path = os.path.join(directory, "HEAD")
    if os.path.exists(head_path):
        with open(head_path, encoding="utf-8") as head_file:
            head = json.load(head_file)
        if last is None or head["seq"] > last[0]:
            breaks.append(f"HEAD: seq {head['seq']} but the chain ends at {last and last[0]}: truncated")
        elif head["seq"] == last[0] and head["hash"] != last[1]:
            breaks.append("HEAD: hash differs from the last event's")
    elif last is not None:
        breaks.append("HEAD: missing")
    for found in breaks:
        print(found)
    print(f"{'intact' if not breaks else 'broken'}: last {last}")
    return 1 if breaks else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
