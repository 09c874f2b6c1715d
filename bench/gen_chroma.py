#!/usr/bin/env python3
"""A Chroma store of N embeddings for the `chroma:` source's benchmark, written through
chromadb's own API (run it with a Python that has chromadb, e.g. the venv scripts/test
makes: target/live-chroma-venv/bin/python).

  chroma-<N>/          a PersistentClient folder with one collection, `bench`: the first N
                       records of store-<N>.jsonl (bench/gen_store.py) as embeddings, each
                       record's value its document, the rest its metadata (Chroma keeps no
                       null: valid_to null is left out; release_to a list, as chromadb >= 1.3
                       keeps lists), its embedding three numbers from its place, so no model
                       is loaded. Added in batches of chromadb's largest (5,461).
  chroma-<N>.jsonl     the same records as JSON lines, as vercy reads them from the store:
                       written by `vercy export chroma:chroma-<N>#bench --to jsonl` when
                       --vercy names a vercy (the benchmark checks both).

Writing 1M embeddings took chromadb 19 minutes on the bench machine (2 cores, shared).

Usage: bench/gen_chroma.py [--out DIR] [--store store-<N>.jsonl] [--vercy PATH] [SIZE]
       (SIZE like 100k or 1m; 1m unless given)
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_store import label, size_arg  # noqa: E402


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(here, "out"))
    ap.add_argument("--store", help="the JSON lines store to take records from")
    ap.add_argument("--vercy", help="a vercy binary: write chroma-<N>.jsonl with it")
    ap.add_argument("size", nargs="?", default="1m", type=size_arg)
    args = ap.parse_args()

    import chromadb

    n = args.size
    name = label(n)
    source = args.store or os.path.join(args.out, f"store-{name}.jsonl")
    folder = os.path.join(args.out, f"chroma-{name}")
    shutil.rmtree(folder, ignore_errors=True)
    client = chromadb.PersistentClient(path=folder)
    collection = client.create_collection("bench")
    batch_size = client.get_max_batch_size()
    started = time.time()
    ids, docs, metas, vectors = [], [], [], []

    def flush():
        collection.add(ids=ids, documents=docs, metadatas=metas, embeddings=vectors)
        ids.clear(), docs.clear(), metas.clear(), vectors.clear()

    with open(source, encoding="utf-8") as f:
        for i, line in enumerate(f):
            if i == n:
                break
            record = json.loads(line)
            docs.append(record.pop("value"))
            metas.append({k: v for k, v in record.items() if v is not None})
            ids.append("e-%07d" % i)
            vectors.append([i / n, 1.0, 0.5])
            if len(ids) == batch_size:
                flush()
                if i % 100_000 < batch_size:
                    print(f"{i + 1} embeddings, {time.time() - started:.0f} s", file=sys.stderr)
    if ids:
        flush()
    print(f"{folder}: {collection.count()} embeddings in {time.time() - started:.0f} s", file=sys.stderr)

    if args.vercy:
        out = os.path.join(args.out, f"chroma-{name}.jsonl")
        with open(out, "w", encoding="utf-8") as f:
            subprocess.run(
                [args.vercy, "export", f"chroma:{folder}#bench", "--to", "jsonl"], stdout=f, check=True
            )
        print(out, file=sys.stderr)


if __name__ == "__main__":
    main()
