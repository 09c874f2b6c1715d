#!/usr/bin/env python3
"""A messy store shaped like a Python memory layer's export (mem0, Graphiti, LangMem), written
as such a program writes it (standard library only): to measure what the bench's own stores do
not hold.

  mem0-<N>.jsonl   N records: a UUID `record_id`, a `memory` sentence with accents, a dash,
                   a check mark and now and then an emoji, a `metadata` object, an `embedding`
                   of --dims floats (12 unless given), and the profile's fields. Written by
                   json.dumps with its defaults, so every character past ASCII is a `\\u`
                   escape (an emoji a surrogate pair). Messy at the issue's rates: about N/4
                   concepts with owners drawn from eight, one interval in fifty inverted, one
                   date in two hundred that does not parse, one id in 250 repeated, a third of
                   the records superseding an earlier one (one in fifty a record not in the
                   store, a few themselves), source missing on one in thirty.

  --shuffled       each record's keys in an order of their own (a program that writes a set
                   of fields, or merges maps), where the others keep one order.
  --ensure-ascii=no  raw UTF-8, as json.dumps(ensure_ascii=False) writes.

The same arguments always give the same bytes (Python's random.Random, a fixed seed).

Usage: bench/gen_mem0.py [--out DIR] [--dims N] [--shuffled] [--ensure-ascii=no] [--force]
                         [SIZE ...]   (sizes like 20k, 1m; 1m unless given)
  bench/gen_mem0.py --dims 1536 20k     # mem0-d1536-20k.jsonl, 640 MB of vectors
"""

import json
import os
import random
import sys
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_store import arguments, label, size_arg, write_once  # noqa: E402

OWNERS = ["finance", "sales", "support", "people", "legal", "eng", "ops", "data"]
PHRASES = ["prefiere el café", "über alles", "ünïcode — ✓", "réunion à 9 h", "休暇は金曜",
           "likes 🍣", "plain ascii note"]


def record(k, n, ids, rng, dims):
    rid = str(uuid.UUID(int=rng.getrandbits(128)))
    if ids and rng.random() < 0.004:
        rid = ids[rng.randrange(max(0, len(ids) - 5000), len(ids))]
    ids.append(rid)
    year = rng.randrange(2018, 2027)
    valid_from = "%d-%02d-%02dT%02d:00:00+02:00" % (
        year, rng.randrange(1, 13), rng.randrange(1, 29), rng.randrange(24))
    if rng.random() < 0.005:
        valid_from = rng.choice(["2021-13-45", "last tuesday", ""])
    r = rng.random()
    valid_to = None
    if r >= 0.5:
        valid_to = "%d-%02d-01" % (year - 1 if r < 0.52 else year + 2, rng.randrange(1, 13))
    rec = {
        "record_id": rid,
        "memory": "user %d: %s %s" % (k, rng.choice(PHRASES), "x" * rng.randrange(0, 60)),
        "concept": "pref/%06d" % rng.randrange(max(n // 4, 1)),
        "valid_from": valid_from,
        "valid_to": valid_to,
        "source": "chat/%d" % rng.randrange(10 ** 6),
        "concept_owner": rng.choice(OWNERS),
        "owner_role": rng.choice(["lead", "steward", "editor"]),
        "conflict_policy": rng.choice(["latest wins", "owner decides"]),
        "applies_to": ["all"],
        "does_not_apply_to": [],
        "release_to": rng.sample(["hr", "eng", "all"], rng.randrange(1, 3)),
        "metadata": {"agent": "a%d" % rng.randrange(50), "score": rng.random(),
                     "tags": ["t1", "t2"]},
        "embedding": [rng.uniform(-1, 1) for _ in range(dims)],
    }
    if rng.random() < 0.033:
        del rec["source"]
    if k > 0 and rng.random() < 0.33:
        if rng.random() < 0.02:
            rec["supersedes"] = [str(uuid.UUID(int=rng.getrandbits(128)))]
        else:
            rec["supersedes"] = [ids[rng.randrange(max(0, k - 2000), k)]]
    if k > 0 and rng.random() < 0.0003:
        rec["supersedes"] = [rid]
    return rec


def write(path, n, dims, shuffled, ensure_ascii):
    rng = random.Random(20261204)
    ids = []
    with open(path, "w", encoding="utf-8") as out:
        for k in range(n):
            rec = record(k, n, ids, rng, dims)
            if shuffled:
                keys = list(rec)
                rng.shuffle(keys)
                rec = {key: rec[key] for key in keys}
            out.write(json.dumps(rec, ensure_ascii=ensure_ascii) + "\n")


def main():
    p = arguments(__doc__, ["1m"])
    p.add_argument("--dims", type=int, default=12)
    p.add_argument("--shuffled", action="store_true")
    p.add_argument("--ensure-ascii", choices=["yes", "no"], default="yes")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for size in args.sizes:
        n = size_arg(size)
        name = "mem0%s%s%s-%s.jsonl" % (
            "" if args.dims == 12 else "-d%d" % args.dims,
            "-shuffled" if args.shuffled else "",
            "-utf8" if args.ensure_ascii == "no" else "",
            label(n))
        write_once(os.path.join(args.out, name),
                   lambda tmp: write(tmp, n, args.dims, args.shuffled, args.ensure_ascii == "yes"),
                   args.force)


if __name__ == "__main__":
    main()
