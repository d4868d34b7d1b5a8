#!/usr/bin/env python3
"""Check `handoff trail export --format otlp-json` with OpenTelemetry's own protobuf types.

Usage: check-otlp.py EXPORT.json EXPECTED_RECORDS

Parses the document with the official `opentelemetry-proto` package's JSON mapping
(pip install opentelemetry-proto) into an ExportLogsServiceRequest, the message an
OpenTelemetry Collector's OTLP/HTTP receiver reads, strictly (an unknown field is an
error). Then checks what a backend relies on: the record count, times in nanoseconds,
severities, and the attributes every record carries. Exit 0 valid, 1 not (printed).
"""
import sys

from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

REQUIRED = ["event.name", "gen_ai.agent.name", "handoff.handoff_id", "handoff.event_type",
            "handoff.from_agent", "handoff.to_agent", "handoff.seq", "handoff.hash"]


def main(path, expected):
    with open(path, encoding="utf-8") as export:
        request = json_format.Parse(export.read(), ExportLogsServiceRequest())
    problems = []
    records = [record for resource in request.resource_logs
               for scope in resource.scope_logs for record in scope.log_records]
    if len(records) != expected:
        problems.append(f"{len(records)} log records, expected {expected}")
    for index, record in enumerate(records):
        keys = {attribute.key: attribute.value for attribute in record.attributes}
        missing = [key for key in REQUIRED if key not in keys]
        if missing:
            problems.append(f"record {index}: no {', '.join(missing)}")
            continue
        if record.time_unix_nano < 10**18 or record.observed_time_unix_nano < 10**18:
            problems.append(f"record {index}: times are not nanoseconds since the epoch")
        if record.severity_number not in (9, 13, 17):
            problems.append(f"record {index}: severity {record.severity_number}")
        if keys["handoff.seq"].int_value != index and expected == len(records):
            problems.append(f"record {index}: handoff.seq is {keys['handoff.seq'].int_value}")
        if not keys["event.name"].string_value.startswith("handoff."):
            problems.append(f"record {index}: event.name {keys['event.name'].string_value}")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2])))
