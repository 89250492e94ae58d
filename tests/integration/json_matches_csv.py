#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""json_matches_csv.py - checks memwatch's JSON API against its CSV feed,
with Python's own JSON parser (test_page.c runs it).

  json_matches_csv.py snapshot SNAPSHOT.json FEED.csv
      every target of /api/snapshot is the CSV row with its pid and
      timestamp: the same columns, no more, the same values (an empty
      field is null, a number is a JSON number)
  json_matches_csv.py history HISTORY.json FEED.csv N
      /api/history is N rows, oldest first, timestamps increasing, and
      they are the last N rows of the feed, column for column

Prints one line, "ok: ..." and exits 0, or says what differs and exits 1.
"""
import csv
import json
import re
import sys


def fail(msg):
    print(msg)
    sys.exit(1)


def same(column, text, value):
    if text == "":
        return value is None
    if column in ("timestamp", "heap_since"):  # RFC 3339 strings
        return value == text
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, int):
        return re.fullmatch(r"-?[0-9]+", text) is not None and int(text) == value
    if isinstance(value, float):
        return float(text) == value
    return False


def compare(obj, header, row, what):
    if not isinstance(obj, dict):
        fail(f"{what}: not an object: {obj!r}")
    if sorted(obj) != sorted(header):
        fail(f"{what}: members {sorted(set(obj) ^ set(header))} differ from the CSV columns")
    for column, text in zip(header, row):
        if not same(column, text, obj[column]):
            fail(f"{what}: {column} is {obj[column]!r} in JSON, {text!r} in the CSV")


def feed(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def snapshot(json_path, csv_path):
    with open(json_path) as f:
        doc = json.load(f)
    header, rows = feed(csv_path)
    ts, pid = header.index("timestamp"), header.index("pid")
    if not doc["targets"]:
        fail("no target in the snapshot")
    for t in doc["targets"]:
        match = [r for r in rows if r[ts] == t["timestamp"] and int(r[pid]) == t["pid"]]
        if len(match) != 1:
            fail(f"pid {t['pid']}: {len(match)} CSV rows at {t['timestamp']}")
        compare(t, header, match[0], f"pid {t['pid']} at {t['timestamp']}")
    print(f"ok: {len(doc['targets'])} target(s), {len(header)} columns each, "
          f"as the CSV row of {doc['targets'][0]['timestamp']}")


def history(json_path, csv_path, n):
    with open(json_path) as f:
        doc = json.load(f)
    header, rows = feed(csv_path)
    if not isinstance(doc, list) or len(doc) != n:
        fail(f"the history has {len(doc)} rows, not {n}")
    stamps = [o["timestamp"] for o in doc]
    if any(a >= b for a, b in zip(stamps, stamps[1:])):
        fail(f"timestamps not increasing: {stamps}")
    if len(rows) < n:
        fail(f"the feed has only {len(rows)} rows")
    for i, (obj, row) in enumerate(zip(doc, rows[len(rows) - n:])):
        compare(obj, header, row, f"history row {i}")
    print(f"ok: {n} rows, oldest first, from {stamps[0]} to {stamps[-1]}, as the feed's last {n}")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "snapshot":
        snapshot(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "history":
        history(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        fail(__doc__)
