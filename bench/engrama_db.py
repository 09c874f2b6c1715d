#!/usr/bin/env python3
"""An engrama SQLite database from an engrama dump, in bulk, for benchmarks.

engrama's own `engrama import` merges node by node (a commit each), hours at 1M nodes; this
writes the same rows in one transaction instead: the schema is made by engrama itself
(`SqliteGraphStore(path)`, run with engrama's Python), each node line becomes a `nodes` row as
engrama's merge_node stores it (`json.dumps(props)` without created_at / updated_at, which
live in their columns), each relation an `edges` row. `engrama export` of the result is the
dump to compare with (bench/NOTES.md).

Usage: /work/ref-venv/bin/python bench/engrama_db.py DUMP.ndjson OUT.db
"""

import json
import os
import sys

from engrama.backends.sqlite import SqliteGraphStore


def main():
    dump, out = sys.argv[1], sys.argv[2]
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(out + suffix):
            os.remove(out + suffix)
    store = SqliteGraphStore(out)
    conn = store._conn
    ids = {}
    nodes, edges = [], []
    with open(dump, encoding="utf-8") as f:
        f.readline()
        for line in f:
            rec = json.loads(line)
            if rec.get("type") == "node":
                props = dict(rec["properties"])
                created = props.pop("created_at", None) or "2026-01-01T00:00:00+00:00"
                updated = props.pop("updated_at", None) or created
                ids[(rec["label"], rec["key_value"])] = len(ids) + 1
                nodes.append((len(ids), rec["label"], rec["key_field"], rec["key_value"],
                              json.dumps(props), created, updated))
            elif rec.get("type") == "relation":
                a = ids.get((rec["from_label"], rec["from_value"]))
                b = ids.get((rec["to_label"], rec["to_value"]))
                if a and b:
                    edges.append((a, rec["rel_type"], b, "2026-01-01T00:00:00+00:00",
                                  rec.get("org_id"), rec.get("user_id")))
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO nodes (id, label, key_field, key_value, props, created_at, "
                     "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)", nodes)
    conn.executemany("INSERT OR IGNORE INTO edges (from_id, rel_type, to_id, created_at, org_id, "
                     "user_id) VALUES (?, ?, ?, ?, ?, ?)", edges)
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    print("wrote %s: %d nodes, %d edges" % (out, len(nodes), len(edges)), file=sys.stderr)


if __name__ == "__main__":
    main()
