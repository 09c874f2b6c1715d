#!/usr/bin/env python3
"""Deterministic benchmark stores for vercy (Python standard library only).

For each size N (default 10k, 100k and 1,000,000) this writes, into bench/out/:

  store-<N>.jsonl    N profile-shaped records, about 450 bytes each: record_id, concept, a value
                     sentence of 8-24 words, valid_from / valid_to, source, concept_owner,
                     owner_role, created_at / updated_at; release_to on one record in ten,
                     supersedes on about one in six (always naming an earlier record of the same
                     concept), and one policy record (conflict_policy, applies_to,
                     does_not_apply_to). One owner per concept, so the store reaches level 3.
  engrama-<N>.ndjson an engrama NDJSON v1 dump with N node lines (the shape `engrama export`
                     0.18.1 writes: envelope line, node lines, then relation lines, one per five
                     nodes), key order and separators as Python's json.dumps writes them.

The same N always gives the same bytes: the only randomness is a fixed-seed xorshift generator
written out here, so the files do not depend on the Python version's `random` module.

Usage: bench/gen_store.py [--out DIR] [SIZE ...]   (sizes like 10000, 100k, 1m)
"""

import argparse
import os
import sys

WORDS = (
    "the a policy record store agent memory finance travel meal allowance budget approval "
    "review quarterly annual contract vendor invoice payment limit threshold manager team "
    "department region office remote hybrid schedule deadline report audit compliance risk "
    "customer support escalation priority ticket release version feature rollout incident "
    "owner decision rule exception applies covers excludes requires allows forbids before after "
    "during within every each most some new old current previous updated revised approved "
    "pending rejected draft final weekly monthly daily hourly senior junior lead staff intern "
    "contractor partner supplier client account data privacy retention deletion backup archive "
    "access read write admin guest public internal confidential restricted legal hold notice"
).split()

OWNERS = ["finance", "people", "legal", "security", "operations", "engineering", "sales", "support"]
ROLES = {
    "finance": "Head of Finance",
    "people": "People Partner",
    "legal": "General Counsel",
    "security": "Security Officer",
    "operations": "Operations Lead",
    "engineering": "Engineering Manager",
    "sales": "Sales Director",
    "support": "Support Lead",
}
PARTIES = ["finance", "audit", "legal", "hr", "board", "security"]
LABELS = ["Concept", "Decision", "Technology", "Project", "Person", "Insight"]
RELATIONS = ["USES", "APPLIES", "RELATES_TO", "DEPENDS_ON", "ABOUT"]
ORG = "202bae62-755b-4e36-9e47-155ab5552f9f"


class Rng:
    """xorshift64*: small, fast enough, and the same on every Python."""

    def __init__(self, seed):
        self.s = (seed * 0x9E3779B97F4A7C15 + 1) & 0xFFFFFFFFFFFFFFFF or 1

    def next(self):
        s = self.s
        s ^= (s >> 12)
        s ^= (s << 25) & 0xFFFFFFFFFFFFFFFF
        s ^= (s >> 27)
        self.s = s
        return (s * 0x2545F4914F6CDD1D) & 0xFFFFFFFFFFFFFFFF

    def below(self, n):
        return (self.next() >> 11) % n


def sentence(rng):
    n = 8 + rng.below(17)  # 8..24 words
    words = [WORDS[rng.below(len(WORDS))] for _ in range(n)]
    words[0] = words[0].capitalize()
    return " ".join(words) + "."


def date(day):
    """Day number since 2020-01-01 -> YYYY-MM-DD (proleptic Gregorian, no datetime import cost)."""
    y = 2020
    while True:
        days = 366 if (y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)) else 365
        if day < days:
            break
        day -= days
        y += 1
    months = [31, 29 if days == 366 else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    m = 0
    while day >= months[m]:
        day -= months[m]
        m += 1
    return "%04d-%02d-%02d" % (y, m + 1, day + 1)


def stamp(day, secs):
    return "%sT%02d:%02d:%02d.%03dZ" % (
        date(day), secs // 3600, secs // 60 % 60, secs % 60, (day * 7919 + secs) % 1000)


def profile_store(path, n, seed=1):
    rng = Rng(seed)
    concepts = max(1, n // 4)
    # the last record of each concept, so supersedes always names an existing record
    last_of = {}
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(
            '{"record_id": "R-0000000", "concept": "conflict_policy", '
            '"value": "When two records disagree the one with the later valid_from wins.", '
            '"valid_from": "2020-01-01", "valid_to": null, "source": "GOV-POL-01", '
            '"concept_owner": "operations", "owner_role": "Operations Lead", '
            '"conflict_policy": "latest valid_from wins", '
            '"applies_to": ["every concept in this store"], '
            '"does_not_apply_to": ["records under legal hold"], '
            '"created_at": "2020-01-01T00:00:00Z", "updated_at": "2020-01-01T00:00:00Z"}\n'
        )
        out = []
        for i in range(1, n):
            c = rng.below(concepts)
            owner = OWNERS[c % len(OWNERS)]
            day = rng.below(2000)
            secs = rng.below(86400)
            rid = "R-%07d" % i
            parts = [
                '{"record_id": "%s", "concept": "%s.concept_%06d", "value": "%s", '
                '"valid_from": "%s", ' % (rid, owner, c, sentence(rng), date(day))
            ]
            prev = last_of.get(c)
            supersedes = prev is not None and rng.below(2) == 0
            # a superseded record's end is derived, so only records that nothing supersedes
            # may carry a written valid_to; keep those rare (one in twenty) and after valid_from
            if not supersedes and rng.below(20) == 0:
                parts.append('"valid_to": "%s", ' % date(day + 30 + rng.below(600)))
                closed = True
            else:
                parts.append('"valid_to": null, ')
                closed = False
            parts.append(
                '"source": "handbook/DOC-%05d#s%d", "concept_owner": "%s", "owner_role": "%s", '
                % (rng.below(100000), 1 + rng.below(9), owner, ROLES[owner])
            )
            if supersedes:
                parts.append('"supersedes": "%s", ' % prev)
            if i % 10 == 0:
                a = PARTIES[rng.below(len(PARTIES))]
                b = PARTIES[rng.below(len(PARTIES))]
                parties = [a] if a == b else [a, b]
                parts.append('"release_to": [%s], ' % ", ".join('"%s"' % p for p in parties))
            created = day + 1 + rng.below(30)
            parts.append(
                '"created_at": "%s", "updated_at": "%s"}\n'
                % (stamp(created, secs), stamp(created + rng.below(90), secs))
            )
            out.append("".join(parts))
            # only an open record may be superseded later (see above)
            if not closed:
                last_of[c] = rid
            if len(out) >= 10000:
                f.write("".join(out))
                out.clear()
        f.write("".join(out))


def uuid(rng):
    h = "%016x%016x" % (rng.next(), rng.next())
    return "%s-%s-4%s-a%s-%s" % (h[0:8], h[8:12], h[13:16], h[17:20], h[20:32])


def iso(day, secs, micros):
    return "%sT%02d:%02d:%02d.%06d+00:00" % (
        date(day), secs // 3600, secs // 60 % 60, secs % 60, micros)


def engrama_dump(path, n, seed=2):
    rng = Rng(seed)
    keys = []
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(
            '{"engrama_export": 1, "version": "0.18.1", '
            '"exported_at": "2026-11-29T21:20:01.797531+00:00", "source_backend": "sqlite", '
            '"embedding_model": "", "embedding_dimensions": 0}\n'
        )
        out = []
        for i in range(n):
            label = LABELS[rng.below(len(LABELS))]
            name = "node-%07d" % i
            keys.append((label, name))
            day = rng.below(2000)
            secs = rng.below(86400)
            created = iso(day, secs, rng.below(1000000))
            active = iso(day + rng.below(60), rng.below(86400), rng.below(1000000))
            props = (
                '"notes": "%s", "source": "sdk", "trust_level": 0.8, '
                '"org_id": "%s", "user_id": "%s", "name": "%s", "valid_from": "%s", '
                '"confidence": 1.0, "engrama_id": "%s", "last_activity_at": "%s", '
                '"created_at": "%s", "updated_at": "%s"'
                % (sentence(rng), ORG, ORG, name, created, uuid(rng), active, created, created)
            )
            out.append(
                '{"type": "node", "label": "%s", "key_field": "name", "key_value": "%s", '
                '"properties": {%s}}\n' % (label, name, props)
            )
            if len(out) >= 10000:
                f.write("".join(out))
                out.clear()
        f.write("".join(out))
        out.clear()
        for _ in range(n // 5):
            a = keys[rng.below(n)]
            b = keys[rng.below(n)]
            out.append(
                '{"type": "relation", "from_label": "%s", "from_key": "name", "from_value": "%s", '
                '"rel_type": "%s", "to_label": "%s", "to_key": "name", "to_value": "%s", '
                '"org_id": "%s", "user_id": "%s"}\n'
                % (a[0], a[1], RELATIONS[rng.below(len(RELATIONS))], b[0], b[1], ORG, ORG)
            )
            if len(out) >= 10000:
                f.write("".join(out))
                out.clear()
        f.write("".join(out))


def size_arg(text):
    t = text.lower().replace(",", "").replace("_", "")
    mult = 1
    if t.endswith("k"):
        mult, t = 1000, t[:-1]
    elif t.endswith("m"):
        mult, t = 1000000, t[:-1]
    return int(t) * mult


def label(n):
    if n % 1000000 == 0:
        return "%dm" % (n // 1000000)
    if n % 1000 == 0:
        return "%dk" % (n // 1000)
    return str(n)


def arguments(doc, sizes):
    """The options every generator of bench/ takes (--out, --force, the sizes; `sizes` when
    none are given), for a generator to add its own to."""
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=doc.split("\n")[0])
    p.add_argument("--out", default=os.path.join(here, "out"))
    p.add_argument("--force", action="store_true", help="rewrite files that already exist")
    p.add_argument("sizes", nargs="*", default=sizes)
    return p


def write_once(path, write, force):
    """Write the store at `path` by write(PATH) through a temporary file beside it, unless it
    exists (and `force` is not given): a store is never left half written."""
    if os.path.exists(path) and not force:
        print("kept   %s" % path, file=sys.stderr)
        return
    tmp = path + ".tmp"
    write(tmp)
    os.replace(tmp, path)
    print("wrote  %s (%d bytes)" % (path, os.path.getsize(path)), file=sys.stderr)


def main():
    args = arguments(__doc__, ["10k", "100k", "1m"]).parse_args()
    os.makedirs(args.out, exist_ok=True)
    for n in map(size_arg, args.sizes):
        for kind, fn, ext in (("store", profile_store, "jsonl"), ("engrama", engrama_dump, "ndjson")):
            path = os.path.join(args.out, "%s-%s.%s" % (kind, label(n), ext))
            write_once(path, lambda tmp: fn(tmp, n), args.force)


if __name__ == "__main__":
    main()
