#!/usr/bin/env python3
"""Two versions of one messy store, for `vercy diff` (standard library only).

  SRC-base.jsonl  SRC with every repeated record_id dropped (its first record kept): a
                  diff matches records by id, and refuses a side with an id twice. Every
                  other line is SRC's, byte for byte.
  SRC-edited.jsonl  the base as an editor changed it: 1 % of the records have their value
                  edited in place, 0.5 % are deleted, 2 % are ended by hand (valid_to written)
                  with a new record superseding each appended at the end, as the profile's
                  benchmarks saw it done. The rest is the base's lines, byte for byte.

The same SRC always gives the same files (a seeded generator). Lines that are not JSON objects
with a record_id are kept as they are in both.

Usage: bench/gen_diff.py SRC.jsonl [--out DIR]
"""
import json
import os
import random
import sys


def main():
    args = sys.argv[1:]
    out = "/work/bench-data"
    if "--out" in args:
        i = args.index("--out")
        out = args[i + 1]
        del args[i : i + 2]
    src = args[0]
    stem = os.path.join(out, os.path.basename(src).rsplit(".", 1)[0])
    rnd = random.Random(52)
    seen = set()
    appended = []
    counts = {"records": 0, "edited": 0, "deleted": 0, "ended": 0}
    with open(src, encoding="utf-8") as f, open(stem + "-base.jsonl", "w", encoding="utf-8") as base, open(
        stem + "-edited.jsonl", "w", encoding="utf-8"
    ) as head:
        for line in f:
            try:
                rec = json.loads(line)
                rid = rec.get("record_id") if isinstance(rec, dict) else None
            except ValueError:
                rec, rid = None, None
            if isinstance(rid, str):
                if rid in seen:
                    continue
                seen.add(rid)
            base.write(line)
            if not isinstance(rid, str):
                head.write(line)
                continue
            counts["records"] += 1
            roll = rnd.random()
            if roll < 0.01:
                rec["value"] = str(rec.get("value", "")) + " (edited)"
                head.write(json.dumps(rec) + "\n")
                counts["edited"] += 1
            elif roll < 0.015:
                counts["deleted"] += 1
            elif roll < 0.035:
                end = "2026-06-01"
                rec["valid_to"] = end
                head.write(json.dumps(rec) + "\n")
                new = dict(rec)
                new["record_id"] = rid + "-v2"
                new["value"] = "the new value"
                new["valid_from"] = end
                new["valid_to"] = None
                new["supersedes"] = rid
                appended.append(json.dumps(new) + "\n")
                counts["ended"] += 1
            else:
                head.write(line)
        head.writelines(appended)
    print(stem + "-base.jsonl", stem + "-edited.jsonl", counts)


if __name__ == "__main__":
    main()
