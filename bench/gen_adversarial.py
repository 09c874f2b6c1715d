#!/usr/bin/env python3
"""Adversarial 1M-record stores: the shapes that push check's memory and its settle hardest
(standard library only). Each is messier than any real store on one axis, to find where a
bound gives way before a user's store does.

  adv-pairs.jsonl     500,000 concepts of two records each, every record owned by a name of its
                      own (`owner-0000000@example.org`), long concepts
                      (`org.example.knowledge/NNN/concept-NNNNNNN`), UUID ids, overlapping
                      intervals: a concept with several owners and a conflict every other
                      record, and as many owners kept as text as records.
  adv-pointers.jsonl  a concept a record, each record superseding two others (one at random
                      in the store, one that does not exist), a date that does not parse in
                      three, every interval inverted, UUID ids: every record in a supersedes
                      graph whose every node reaches a cycle, and two million pointers.
  adv-dups.jsonl      every id written twice (31-byte paths), each record superseding the
                      other id of its pair (cycles of two), eight owners on 125,000 concepts,
                      a thousand conflict policies: half a million duplicate ids and a million
                      pointers.
  adv-owners.jsonl    200,000 concepts of five records, every record owned by a name of its own
                      160 bytes long: more owners than are interned, so each is kept as text,
                      and a book of shared concepts holding 160 MB of owners' names.
  adv-concepts.jsonl  500,000 concepts of two records, 175 bytes each, two owners taking turns:
                      concepts past what the pass holds, and a book of 87 MB of concepts.
  adv-ids.jsonl       every record named by a path of 255 bytes (255 MB of ids), a tenth by the
                      next record's, a third superseding one (half of them dangling), four
                      owners a concept, a date that does not parse in fifty: ids past what the
                      pass holds, read back to be matched, and a JSON report naming them by
                      the million.
  adv-targets.jsonl   every record superseding two records no record is, named by paths of
                      255 bytes: two million dangling pointers, 520 MB of texts sought.
  adv-skew.jsonl      a tenth of the records named by ids of 3,000 bytes, and only they with
                      a date that does not parse: short names on average, and a warning
                      naming only the long ones.

The UUIDs are not random: `UUID(int=i * 0x9E3779B97F4A7C15 + 12345)`, so they share their
first bytes (the ones a sort by name looks at first). The same kind always gives the same bytes.

Usage: bench/gen_adversarial.py [--out DIR] [--force] [--records N] [KIND ...]
       (kinds: pairs pointers dups owners concepts ids targets skew; --records: the same shapes
       at another size, as adv-KIND-N.jsonl, for the differentials)
"""

import argparse
import json
import os
import random
import uuid

N = 1_000_000
KINDS = ("pairs", "pointers", "dups", "owners", "concepts", "ids", "targets", "skew")


def uid(i):
    return str(uuid.UUID(int=(i * 0x9E3779B97F4A7C15 + 12345) % (1 << 128)))


def path(k):
    """A record's name as a path of 255 or 256 bytes."""
    return f"store://tenant-{k % 97}/" + "segment/" * 28 + f"record-{k:07d}"


def record(kind, i, rng, N=N):
    r = {"record_id": uid(i)}
    if kind == "pairs":
        c = i // 2
        r.update(concept=f"org.example.knowledge/{c % 1000}/concept-{c:07d}", value="v" * 40,
                 valid_from="2024-01-%02d" % (1 + i % 2), valid_to=None, source="s",
                 concept_owner=f"owner-{i:07d}@example.org", owner_role="r")
    elif kind == "pointers":
        r.update(concept=f"org.example.knowledge/concept-{i:07d}", value="v" * 40,
                 valid_from="2024-02-30" if i % 3 == 0 else "2024-01-01",
                 valid_to="2023-01-01", source="s", concept_owner=f"p{i}@ex.org",
                 supersedes=[uid(rng.randrange(N)), uid(N + i)], release_to=[f"r{i}"])
    elif kind == "owners":
        r.update(concept=f"c{i % 200000}", value=f"v{i % 7}", valid_from="2024-01-01",
                 valid_to=None, source="s", owner_role="r",
                 concept_owner=f"owner {i} of a concept, with a long name for the owner" * 3)
    elif kind == "concepts":
        r.update(concept=f"org.example/long/concept/name/{i // 2:07d}/" * 5, value=f"v{i % 7}",
                 valid_from="2024-01-01", valid_to=None, source="s", owner_role="r",
                 concept_owner=f"team-{i % 2}")
    elif kind == "skew":
        long = i % 10 == 0
        r.update(record_id=f"{i:07d}" + "x" * 2993 if long else f"r{i}", concept=f"c{i // 4}",
                 value=f"v{i % 3}", valid_from="2024-13-01" if long else "2024-01-01",
                 valid_to=None, source="s", concept_owner="o", owner_role="r")
    elif kind == "targets":
        r.update(record_id=f"r{i}", concept=f"c{i // 4}", value=f"v{i % 3}",
                 valid_from="2024-01-01", valid_to=None, source="s",
                 concept_owner=f"o{i % 4}", owner_role="r",
                 supersedes=[path(N + 2 * i), path(N + 2 * i + 1)])
    elif kind == "ids":
        r["record_id"] = path(i + 1 if i % 10 == 0 else i)
        r.update(concept=f"c{i // 4}", value=f"v{i % 3}",
                 valid_from="2024-13-01" if i % 50 == 0 else "2024-01-%02d" % (1 + i % 28),
                 valid_to="2023-01-01" if i % 3 == 0 else None, source="s",
                 concept_owner=f"o{i % 4}", owner_role="r")
        if i % 3 == 0:
            r["supersedes"] = [path(rng.randrange(N) if i % 2 else N + i)]
    else:
        j = i // 2
        r["record_id"] = f"org.example/records/{j:09d}/x"
        r.update(concept=f"c{i % 125000}", value="x", valid_from="2024-01-01",
                 valid_to="2025-01-01", source="s", concept_owner=f"o{i % 8}",
                 supersedes=f"org.example/records/{(j ^ 1):09d}/x",
                 conflict_policy=f"policy {i % 1000}")
    return r


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", default=os.path.join(here, "out"))
    p.add_argument("--force", action="store_true", help="rewrite files that already exist")
    p.add_argument("--records", type=int, default=N, help="records a store (default: 1,000,000)")
    # kinds checked here: Python 3.11's argparse checks an empty list against `choices` as
    # one value, and so refuses no kinds at all
    p.add_argument("kinds", nargs="*", help="pairs, pointers, dups, owners, concepts, ids, targets or skew (default: all of them)")
    args = p.parse_args()
    for kind in args.kinds:
        if kind not in KINDS:
            p.error(f"unknown kind {kind!r}: choose from {', '.join(KINDS)}")
    os.makedirs(args.out, exist_ok=True)
    for kind in args.kinds or KINDS:
        n = args.records
        name = f"adv-{kind}.jsonl" if n == N else f"adv-{kind}-{n}.jsonl"
        path = os.path.join(args.out, name)
        if os.path.exists(path) and not args.force:
            print(f"exists {path}")
            continue
        rng = random.Random(7)
        with open(path + ".tmp", "w") as f:
            for i in range(n):
                f.write(json.dumps(record(kind, i, rng, n)) + "\n")
        os.replace(path + ".tmp", path)
        print(f"wrote  {path} ({os.path.getsize(path)} bytes)")


if __name__ == "__main__":
    main()
