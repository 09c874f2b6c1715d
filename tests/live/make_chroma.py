"""Build the Chroma store the tests read, with the real chromadb (run by scripts/live-stores.sh).

    make_chroma.py FIXTURES_DIR OUT_DIR

OUT_DIR/chroma/ is a PersistentClient folder holding three collections:

  facts  FIXTURES_DIR/facts.jsonl, a line an embedding: its id, document and metadata
  mem0   FIXTURES_DIR/mem0.jsonl, a line a memory: its id and the payload mem0 writes
         (mem0ai 2.2.1, mem0/memory/main.py), added as mem0's own Chroma store adds them
         (mem0/vector_stores/chroma.py: collection.add(ids, embeddings, metadatas=payloads),
         no documents)
  empty  made, never written to

Each embedding is given (three numbers from its place), so no embedding model is loaded.
OUT_DIR/chroma-COLLECTION.api.jsonl is what chromadb's own API gives back for each
(collection.get()), a line an embedding, in vercy's order (the collection, the id, the
document, then the metadata keys sorted), for the tests to compare vercy's reading with.
"""

import json
import os
import sys

import chromadb


def lines(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def vector(i):
    return [i / 10, 1.0, 0.5]


def api_dump(collection, out):
    got = collection.get(include=["metadatas", "documents"])
    with open(out, "w", encoding="utf-8") as f:
        for id_, doc, meta in zip(got["ids"], got["documents"], got["metadatas"]):
            line = {"chroma:collection": collection.name, "chroma:id": id_}
            if doc is not None:
                line["chroma:document"] = doc
            for key in sorted(meta or {}, key=lambda k: k.encode("utf-8")):
                line[key] = meta[key]
            f.write(json.dumps(line, ensure_ascii=False) + "\n")


def main():
    fixtures, out = sys.argv[1], sys.argv[2]
    client = chromadb.PersistentClient(path=os.path.join(out, "chroma"))

    facts = client.create_collection("facts")
    for i, e in enumerate(lines(os.path.join(fixtures, "facts.jsonl"))):
        facts.add(
            ids=[e["id"]],
            embeddings=[vector(i)],
            documents=[e["document"]] if "document" in e else None,
            metadatas=[e["metadata"]] if "metadata" in e else None,
        )

    memories = lines(os.path.join(fixtures, "mem0.jsonl"))
    mem0 = client.create_collection("mem0")
    mem0.add(
        ids=[m["id"] for m in memories],
        embeddings=[vector(i) for i in range(len(memories))],
        metadatas=[m["payload"] for m in memories],
    )

    client.create_collection("empty")

    for collection in (facts, mem0):
        api_dump(collection, os.path.join(out, f"chroma-{collection.name}.api.jsonl"))


if __name__ == "__main__":
    main()
