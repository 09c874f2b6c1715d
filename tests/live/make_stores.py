"""Build the live stores the tests read, with the real packages (run by scripts/live-stores.sh).

    make_stores.py langgraph-sqlite ITEMS.jsonl OUT.db API.jsonl
    make_stores.py langgraph-postgres ITEMS.jsonl CONNINFO API.jsonl
    make_stores.py memories-postgres RECORDS.jsonl CONNINFO
    make_stores.py mem0-pgvector MEM0.jsonl CONNINFO

Each LangGraph item is written with the store's own put(); API.jsonl is what the store's
own API gives back (Item.dict() per item, search order by namespace then key): the same
data as a dump, for the tests to compare vercy's reading of the database with.

mem0-pgvector writes each memory (id and payload) into a table `mem0` as mem0's pgvector
store does (mem0/vector_stores/pgvector.py in mem0ai 2.2.1: id UUID, vector, payload JSONB
holding json.dumps(payload)). Without the pgvector extension on the server the vector
column is a real[]: vercy's recipe reads only id and payload.
"""

import json
import sqlite3
import sys


def items(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def api_dump(store, records, out):
    got = []
    for ns in sorted({tuple(r["namespace"]) for r in records}):
        for item in store.search(ns, limit=1000):
            if tuple(item.namespace) == ns:
                got.append(item.dict())
    got.sort(key=lambda d: (".".join(d["namespace"]), d["key"]))
    with open(out, "w", encoding="utf-8") as f:
        for d in got:
            f.write(json.dumps(d, ensure_ascii=False, default=str) + "\n")


def put_all(store, records):
    for r in records:
        store.put(tuple(r["namespace"]), r["key"], r["value"])


def main():
    kind = sys.argv[1]
    if kind == "langgraph-sqlite":
        from langgraph.store.sqlite import SqliteStore

        records = items(sys.argv[2])
        conn = sqlite3.connect(sys.argv[3], check_same_thread=False, isolation_level=None)
        store = SqliteStore(conn)
        store.setup()
        put_all(store, records)
        api_dump(store, records, sys.argv[4])
        conn.close()
    elif kind == "langgraph-postgres":
        from langgraph.store.postgres import PostgresStore

        records = items(sys.argv[2])
        with PostgresStore.from_conn_string(sys.argv[3]) as store:
            store.setup()
            put_all(store, records)
            api_dump(store, records, sys.argv[4])
    elif kind == "memories-postgres":
        import psycopg

        records = items(sys.argv[2])
        with psycopg.connect(sys.argv[3], autocommit=True) as conn:
            conn.execute("DROP TABLE IF EXISTS memories, docs")
            conn.execute(
                "CREATE TABLE memories (n serial, record_id text, valid_from text, "
                "valid_to date, source text, recorded_at timestamptz, meta jsonb)"
            )
            conn.execute("CREATE TABLE docs (n serial, doc jsonb)")
            for i, r in enumerate(records):
                conn.execute(
                    "INSERT INTO memories (record_id, valid_from, valid_to, source, recorded_at, meta) "
                    "VALUES (%s, %s, %s, %s, %s, %s)",
                    (
                        r["record_id"],
                        r.get("valid_from"),
                        r.get("valid_to") if r.get("valid_to") != "not a date" else None,
                        r.get("source"),
                        f"2026-0{i + 1}-01T12:00:00.5+00:00",
                        json.dumps(r.get("meta")) if "meta" in r else None,
                    ),
                )
                conn.execute("INSERT INTO docs (doc) VALUES (%s)", (json.dumps(r),))
    elif kind == "mem0-pgvector":
        import psycopg

        memories = items(sys.argv[2])
        with psycopg.connect(sys.argv[3], autocommit=True) as conn:
            conn.execute("DROP TABLE IF EXISTS mem0")
            try:
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
                vector_type = "vector(3)"
            except psycopg.Error:
                vector_type = "real[]"
            conn.execute(f"CREATE TABLE mem0 (id UUID PRIMARY KEY, vector {vector_type}, payload JSONB)")
            for i, m in enumerate(memories):
                vector = [i / 10, 1.0, 0.5]
                conn.execute(
                    "INSERT INTO mem0 (id, vector, payload) VALUES (%s, %s, %s)",
                    (m["id"], str(vector) if vector_type != "real[]" else vector, json.dumps(m["payload"])),
                )
    else:
        sys.exit(f"unknown store kind {kind}")


if __name__ == "__main__":
    main()
