#!/usr/bin/env python3
"""engrama 0.18.1's own read-time recency for every node of an NDJSON dump, at a fixed time.

The reference for `vercy recency`: nothing here re-implements engrama's rules.
  * the graph is built by engrama itself: `engrama.migrate.import_graph` into an in-memory
    SQLite store, so endpoints resolve and edges deduplicate exactly as engrama does;
  * the degree is engrama's own SQL (`SqliteGraphStore.node_degree`'s count: edges at either
    end, not counting those whose other end is a system Insight);
  * the settings are read by engrama's own `HybridConfig` (ENGRAMA_RECENCY_* from the
    environment, fail-fast on bad values), unless given on the command line;
  * the score is `engrama.core.temporal.recency`, with the clock fixed at --as-of.
Timestamps come from the dump lines (engrama's importer re-stamps last_activity_at of every
node with an edge, the flaw `vercy import` does not copy).

Usage: engrama_reference.py DUMP --as-of 2026-12-01T00:00:00+00:00 [--half-life D]
       [--insight-half-life D] [--no-degree]
Prints a JSON array of {line, label, key_value, degree, recency} in dump order.
"""

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

import engrama.core.temporal as temporal
from engrama.backends.null import NullVectorStore
from engrama.backends.sqlite.store import SqliteGraphStore
from engrama.core.search import HybridConfig
from engrama.migrate import import_graph

DEGREE_SQL = (
    "SELECT COUNT(*) FROM edges e JOIN nodes m ON m.id = CASE WHEN e.from_id = :id "
    "THEN e.to_id ELSE e.from_id END WHERE (e.from_id = :id OR e.to_id = :id) "
    "AND NOT (m.label = 'Insight' AND json_extract(m.props, '$.source_query') IS NOT NULL)"
)


def frozen_clock(at: datetime):
    class Frozen(datetime):
        @classmethod
        def now(cls, tz=None):
            return at if tz is None else at.astimezone(tz)

    return Frozen


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dump")
    ap.add_argument("--as-of", required=True)
    ap.add_argument("--half-life", type=float)
    ap.add_argument("--insight-half-life", type=float)
    ap.add_argument("--no-degree", action="store_true")
    args = ap.parse_args()

    config = HybridConfig()  # engrama's own reading of ENGRAMA_RECENCY_*
    half_life = args.half_life or config.recency_half_life
    insight_half_life = args.insight_half_life or config.insight_recency_half_life
    degree_factor = config.recency_degree_factor and not args.no_degree

    as_of = datetime.fromisoformat(args.as_of.replace("Z", "+00:00"))
    if as_of.tzinfo is None:
        as_of = as_of.replace(tzinfo=UTC)
    temporal.datetime = frozen_clock(as_of)

    store = SqliteGraphStore(":memory:")
    import_graph(store, NullVectorStore(), Path(args.dump))
    rows = store._conn.execute("SELECT id, label, key_value, props FROM nodes ORDER BY id").fetchall()

    out = []
    node_lines = []
    with open(args.dump, encoding="utf-8") as f:
        for number, text in enumerate(f, start=1):
            rec = json.loads(text) if text.strip() else {}
            if rec.get("type") == "node":
                node_lines.append((number, rec))
    if len(rows) != len(node_lines):
        print(f"engrama merged {len(node_lines)} node lines into {len(rows)} nodes", file=sys.stderr)
        return 1
    for row, (number, rec) in zip(rows, node_lines):
        props = rec.get("properties") or {}
        if (row["label"], row["key_value"]) != (rec["label"], rec["key_value"]):
            print(f"line {number}: node order differs", file=sys.stderr)
            return 1
        degree = store._conn.execute(DEGREE_SQL, {"id": row["id"]}).fetchone()[0]
        score = temporal.recency(
            rec["label"],
            {**props, "degree": degree},
            half_life=half_life,
            insight_half_life=insight_half_life,
            degree_factor=degree_factor,
        )
        out.append(
            {
                "line": number,
                "label": rec["label"],
                "key_value": rec["key_value"],
                "degree": degree,
                "recency": score,
            }
        )
    json.dump(out, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
