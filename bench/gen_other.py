#!/usr/bin/env python3
"""A messy store written unlike gen_messy.py (standard library only): to see that what holds on
the bench's own messy store is not an accident of its generator.

  other-<N>.jsonl  N records with ids like `mem_62f24a789cb3` (random), 100,000 concepts per
                   million records, each record's owner one of forty teams (so a concept has
                   up to ten), valid_to inverted on one record in twenty and unreadable on one
                   in a hundred (`someday`), valid_from unreadable on one in a hundred, one id
                   in a hundred repeating a recent one, supersedes on three records in ten (one
                   in ten of them a record that does not exist, some the record itself), no
                   source on one in twenty, an empty does_not_apply_to on every record, and
                   text in several scripts.

The same N and seed always give the same bytes (Python's random.Random).

Usage: bench/gen_other.py [--out DIR] [--seed N] [--force] [SIZE ...]   (sizes like 100k, 1m)
"""

import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_store import arguments, label, size_arg, write_once  # noqa: E402

OWNERS = ["team-%d" % i for i in range(40)]
ROLES = ["Owner", "Steward", "Editor", None]
PARTIES = ["hr", "eng", "all", "legal"]
POLICIES = ["latest wins", "owner decides", "manual"]


def write(path, n, seed):
    rng = random.Random(seed)
    ids = []
    with open(path, "w", encoding="utf-8") as out:
        for k in range(n):
            rid = "mem_%012x" % rng.getrandbits(48)
            if ids and rng.random() < 0.01:
                rid = rng.choice(ids[-1000:])
            ids.append(rid)
            year = rng.randrange(2019, 2027)
            day = lambda y: "%d-%02d-%02d" % (y, rng.randrange(1, 13), rng.randrange(1, 29))  # noqa: E731
            r = rng.random()
            if r < 0.05:
                valid_to = day(year - 1)
            elif r < 0.5:
                valid_to = None
            elif r < 0.51:
                valid_to = "someday"
            else:
                valid_to = day(year + 1) + "T10:00:00Z"
            valid_from = day(year) if rng.random() > 0.01 else "yesterday"
            rec = {
                "record_id": rid,
                "concept": "concept/%d" % rng.randrange(max(n // 10, 1)),
                "text": "fact número %d über alles" % k,
                "valid_from": valid_from,
                "valid_to": valid_to,
                "source": "doc-%d" % rng.randrange(100000),
                "concept_owner": rng.choice(OWNERS),
                "owner_role": rng.choice(ROLES),
                "conflict_policy": rng.choice(POLICIES),
                "applies_to": ["x"],
                "does_not_apply_to": [],
                "release_to": rng.sample(PARTIES, 2),
            }
            if rng.random() < 0.3:
                rec["supersedes"] = (rng.choice(ids[-5000:]) if rng.random() < 0.9
                                     else "mem_missing_%d" % k)
            if rng.random() < 0.05:
                del rec["source"]
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")


def main():
    p = arguments(__doc__, ["1m"])
    p.add_argument("--seed", type=int, default=11)
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for n in map(size_arg, args.sizes):
        path = os.path.join(args.out, "other-%s.jsonl" % label(n))
        write_once(path, lambda tmp: write(tmp, n, args.seed), args.force)


if __name__ == "__main__":
    main()
