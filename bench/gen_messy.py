#!/usr/bin/env python3
"""A messy benchmark store: what a CI gate exists to find, at any size (standard library only).

  messy-<N>.jsonl  N records shaped like gen_store.py's store-<N>.jsonl (same fields, about the
                   same size), but with the problems real stores have, at fixed rates:
                   - several owners per concept: about N/4 concepts, each record's owner drawn
                     from the eight owners, so nearly every concept has two to four owners;
                   - inverted intervals: one record in fifty has valid_to before valid_from;
                   - dates that do not parse: one in two hundred (`2021-13-45`, `last tuesday`);
                   - duplicate ids: one in two hundred reuses an earlier record's id;
                   - supersedes on about a third: mostly an earlier record of the concept, one in
                     a hundred of them a record that does not exist (dangling), and one pair in
                     five thousand records superseding each other (a cycle);
                   - one record in forty lacks `source`, one in ten `owner_role`; policies
                     differ (three texts), so the reference's findings list many offenders.

  messy-uuid-<N>.jsonl  (--long-ids) the same store with the ids a UUID each (36 bytes, as
                   Graphiti, Zep and mem0 write them) and concepts named like
                   `org.example.knowledge/565/concept-111565` (38 bytes): what a check keeps
                   per record grows with its ids and concepts, so this is the shape that
                   measures memory.

  messy-path-<N>.jsonl  (--path-ids) the same store with ids and concepts named by path, as
                   catalogues and document stores name them:
                   `org.example.knowledge.base/records/2025/R-0000000` (47 bytes) and
                   `org.example.knowledge.base/handbook/section-long-namespace/concept_111565`
                   (73 bytes): past every amount a check holds in memory, so this is the
                   shape that measures its temporary file.

  messy-people-<N>.jsonl  (--person-owners) the same store with each record owned by a person
                   of its own (`person.0000000@example.org`), as stores that name a user or an
                   author for the owner do: a distinct owner a record, so the shape that
                   measures the owners a check keeps.

The same N always gives the same bytes (the xorshift generator of gen_store.py, its own seed).

Usage: bench/gen_messy.py [--out DIR] [--force] [--long-ids | --path-ids | --person-owners]
                         [SIZE ...]
       (sizes like 100k, 1m)
"""

import hashlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_store import (OWNERS, PARTIES, ROLES, Rng, arguments, date, label, sentence,  # noqa: E402
                       size_arg, stamp, write_once)

BAD_DATES = ["2021-13-45", "last tuesday", "31/02/2022", "2023-02-30T25:00:00Z", "soon"]
POLICIES = ["latest valid_from wins", "owner decides", "newest record wins"]


def uuid_of(prefix, k):
    """A UUID-shaped id, the same for the same prefix and number."""
    h = hashlib.md5(b"%s%d" % (prefix.encode(), k)).hexdigest()
    return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:32])


def messy_store(path, n, seed=7, names="short"):
    rng = Rng(seed)
    if names == "uuid":
        def rid_of(prefix, k):
            return uuid_of(prefix, k)

        def concept_of(c):
            return "org.example.knowledge/%03d/concept-%06d" % (c % 1000, c)
    elif names == "path":
        def rid_of(prefix, k):
            return "org.example.knowledge.base/records/2025/%s-%07d" % (prefix, k)

        def concept_of(c):
            return "org.example.knowledge.base/handbook/section-long-namespace/concept_%06d" % c
    else:
        def rid_of(prefix, k):
            return "%s-%07d" % (prefix, k)

        def concept_of(c):
            return "concept_%06d" % c
    concepts = max(1, n // 4)
    last_of = {}
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        out = []
        for i in range(n):
            c = rng.below(concepts)
            owner = OWNERS[rng.below(len(OWNERS))]
            owner_name = "person.%07d@example.org" % i if names == "people" else owner
            day = rng.below(2000)
            secs = rng.below(86400)
            rid = rid_of("R", i)
            if i > 10 and rng.below(200) == 0:
                rid = rid_of("R", rng.below(i))  # an earlier record's id again
            valid_from = date(day)
            if rng.below(200) == 0:
                valid_from = BAD_DATES[rng.below(len(BAD_DATES))]
            parts = ['{"record_id": "%s", "concept": "%s", "value": "%s", '
                     '"valid_from": "%s", ' % (rid, concept_of(c), sentence(rng), valid_from)]
            if rng.below(50) == 0:
                parts.append('"valid_to": "%s", ' % date(max(0, day - 1 - rng.below(300))))
            elif rng.below(20) == 0:
                parts.append('"valid_to": "%s", ' % date(day + 30 + rng.below(600)))
            else:
                parts.append('"valid_to": null, ')
            if rng.below(40) != 0:
                parts.append('"source": "handbook/DOC-%05d#s%d", ' % (rng.below(100000),
                                                                      1 + rng.below(9)))
            parts.append('"concept_owner": "%s", ' % owner_name)
            if rng.below(10) != 0:
                parts.append('"owner_role": "%s", ' % ROLES[owner])
            if i % 5000 == 1:
                # a cycle: this record and the next supersede each other
                parts.append('"supersedes": "%s", ' % rid_of("R", i + 1))
            elif i % 5000 == 2:
                parts.append('"supersedes": "%s", ' % rid_of("R", i - 1))
            elif rng.below(3) == 0:
                if rng.below(100) == 0:
                    parts.append('"supersedes": "%s", ' % rid_of("X", rng.below(10000000)))
                elif c in last_of:
                    parts.append('"supersedes": "%s", ' % last_of[c])
            if i % 10 == 0:
                a = PARTIES[rng.below(len(PARTIES))]
                parts.append('"release_to": ["%s"], ' % a)
            if i % 1000 == 0:
                parts.append('"conflict_policy": "%s", "applies_to": ["every concept"], '
                             '"does_not_apply_to": ["legal hold"], '
                             % POLICIES[rng.below(len(POLICIES))])
            created = day + 1 + rng.below(30)
            parts.append('"created_at": "%s", "updated_at": "%s"}\n'
                         % (stamp(created, secs), stamp(created + rng.below(90), secs)))
            out.append("".join(parts))
            last_of[c] = rid
            if len(out) >= 10000:
                f.write("".join(out))
                out.clear()
        f.write("".join(out))


def main():
    p = arguments(__doc__, ["10k", "100k", "1m"])
    names = p.add_mutually_exclusive_group()
    names.add_argument("--long-ids", action="store_const", dest="names", const="uuid",
                       default="short",
                       help="UUID ids and long concept names (messy-uuid-<N>.jsonl)")
    names.add_argument("--path-ids", action="store_const", dest="names", const="path",
                       help="ids and concepts named by path (messy-path-<N>.jsonl)")
    names.add_argument("--person-owners", action="store_const", dest="names", const="people",
                       help="a distinct owner a record (messy-people-<N>.jsonl)")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    name = {"short": "messy-%s.jsonl", "uuid": "messy-uuid-%s.jsonl",
            "path": "messy-path-%s.jsonl", "people": "messy-people-%s.jsonl"}[args.names]
    for n in map(size_arg, args.sizes):
        path = os.path.join(args.out, name % label(n))
        write_once(path, lambda tmp: messy_store(tmp, n, names=args.names), args.force)


if __name__ == "__main__":
    main()
