#!/usr/bin/env python3
"""Handoff messages for the trail benchmarks: COUNT events' worth, as JSON lines.

Usage: trail-messages.py COUNT [FIRST]

Each handoff is three messages (002 handoff, acceptance, return), so COUNT events are
COUNT/3 handoffs numbered from FIRST; 50 agents, 12 handoffs per task, 100 per workflow.
"""
import json
import sys

count = int(sys.argv[1])
first = int(sys.argv[2]) if len(sys.argv) > 2 else 0
out = sys.stdout
for n in range(first, first + count // 3):
    hid = f"ho_{n:08d}"
    minute = n % 1440
    stamp = f"2026-01-11T{minute // 60:02d}:{minute % 60:02d}:00Z"
    done = f"2026-01-11T{minute // 60:02d}:{minute % 60:02d}:30Z"
    handoff = {"handoff": {
        "id": hid, "timestamp": stamp,
        "from_agent": f"agent-{n % 50}", "to_agent": f"agent-{(n * 7 + 1) % 50}",
        "type": "delegation", "reason": f"subtask {n} of the auth module",
        "workflow_id": f"wf_{n // 100}",
        "context": {"task_id": f"ENG-{n // 12}", "context_variables": {"task_status": "in_progress", "step": n}},
        "return_protocol": {"expected": True, "timeout": "30m", "on_timeout": "retry"},
        "audit": {"decision_rationale": "specialist needed", "risk_level": "medium"}}}
    out.write(json.dumps(handoff, separators=(",", ":")) + "\n")
    out.write(json.dumps({"handoff_id": hid, "status": "accepted", "acknowledged_at": stamp}, separators=(",", ":")) + "\n")
    ret = {"return": {"handoff_id": hid, "status": "success",
                      "audit": {"completion_time": done, "tokens_consumed": 1000 + n % 500, "notes": "done"}}}
    out.write(json.dumps(ret, separators=(",", ":")) + "\n")
