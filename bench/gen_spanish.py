#!/usr/bin/env python3
"""A messy store unlike the ones check was tuned on (standard library only): written apart
from gen_store.py and gen_messy.py, to see whether what holds on those holds on a store no one
measured before. In Spanish, like the seeds.

  - ids: an integer in three records, `mem-0000002a` in the others; one record in 150 reuses
    an earlier id
  - concepts: paths with accents (`política/área-12/concepto_0000042`), four records each
  - owners: twelve teams with spaces and accents, up to four per concept; a role or none
  - dates: mostly days, some with a UTC offset, and one in 300 that does not parse as the
    profile's date (`mañana`, `2024-02-30`, a Unix integer); one interval in 45 inverted
  - supersedes: a third of the records, as a string or a list of two, one in a hundred
    dangling, and three-cycles every 7,000 records
  - a nested `metadata` object, `release_to` lists, and now and then a blank line

With --ascii, written as Python's json.dumps writes by default (ensure_ascii): every
character past ASCII as a `\\u` escape (`pol\\u00edtica`), as stores written by Python
programs that do not ask otherwise hold them.

Usage: bench/gen_spanish.py [--ascii] OUT RECORDS [SEED]   (RECORDS as 1000000 or 1m; seed 2026
unless given)
  bench/gen_spanish.py /tmp/spanish-1m.jsonl 1m
"""

import argparse
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_store import size_arg, write_once  # noqa: E402

OWNERS = ["Ventas", "Finanzas", "Atención al cliente", "Personas", "Legal", "Ingeniería",
          "Producto", "Operaciones", "Marketing", "Seguridad", "Compras", "Dirección"]
ROLES = ["Responsable", "Directora", "Analista", None]
POLICIES = ["latest valid_from wins", "owner decides", "newest record wins", "manual review"]
WORDS = ("el la de política precio cliente contrato plazo revisión equipo mensual oficina "
         "región factura").split()


def record_id(i):
    return i if i % 3 == 0 else f"mem-{i:08x}"


def date(rng):
    y, m, d = 2015 + rng.randrange(11), 1 + rng.randrange(12), 1 + rng.randrange(28)
    k = rng.randrange(300)
    if k == 0:
        return "mañana"
    if k == 1:
        return "2024-02-30"
    if k == 2:
        return 1700000000
    if k < 60:
        return f"{y:04}-{m:02}-{d:02}T{rng.randrange(24):02}:{rng.randrange(60):02}:00+02:00"
    return f"{y:04}-{m:02}-{d:02}"


def record(i, rng, concepts):
    c = rng.randrange(concepts)
    rec = {"record_id": record_id(i if rng.randrange(150) else rng.randrange(max(i, 1))),
           "concept": f"política/área-{c % 97}/concepto_{c:07d}",
           "text": " ".join(rng.choice(WORDS) for _ in range(8 + rng.randrange(20))),
           "valid_from": date(rng)}
    if rng.randrange(4):
        rec["valid_to"] = None
    if rng.randrange(45) == 0:
        rec["valid_from"], rec["valid_to"] = "2024-06-01", "2023-01-01"
    elif rng.randrange(6) == 0:
        rec["valid_to"] = "2026-01-01"
    if rng.randrange(30):
        rec["source"] = f"docs/manual-{rng.randrange(9999)}.md#L{rng.randrange(500)}"
    rec["concept_owner"] = OWNERS[(c + rng.randrange(4) * 3) % len(OWNERS)]
    role = rng.choice(ROLES)
    if role:
        rec["owner_role"] = role
    rec["conflict_policy"] = (POLICIES[rng.randrange(len(POLICIES))] if rng.randrange(3) == 0
                              else POLICIES[c % 2])
    if rng.randrange(2):
        rec["applies_to"] = [rng.choice(["es", "mx", "ar", "*"])]
    if rng.randrange(4) == 0:
        rec["does_not_apply_to"] = [rng.choice(["es", "mx", "cl"])]
    if rng.randrange(3) == 0:
        rec["release_to"] = rng.sample(["hr", "finance", "all", "legal"], 2)
    if rng.randrange(3) == 0 and i > 0:
        target = record_id(rng.randrange(i)) if rng.randrange(100) else f"mem-missing-{i}"
        rec["supersedes"] = target if rng.randrange(4) else [target, record_id(rng.randrange(i))]
    # a three-cycle: i supersedes i+2, i+1 supersedes i, i+2 supersedes i+1
    if i % 7000 == 2 and i > 2:
        rec["supersedes"] = record_id(i + 2)
    if i % 7000 in (3, 4) and i > 4:
        rec["supersedes"] = record_id(i - 1)
    rec["metadata"] = {"created_at": "2025-01-01T00:00:00Z", "tags": ["x", "y"]}
    return rec


def main():
    p = argparse.ArgumentParser(description="Write a messy store in Spanish, unlike the bench's "
                                "others (see the module's docstring).",
                                epilog="example: bench/gen_spanish.py /tmp/spanish-1m.jsonl 1m")
    p.add_argument("--ascii", action="store_true",
                   help="escape every character past ASCII, as json.dumps does by default")
    p.add_argument("out", help="the store to write")
    p.add_argument("records", type=size_arg, help="how many records: 1000000, 1m, 100k")
    p.add_argument("seed", type=int, nargs="?", default=2026, help="the random seed (2026)")
    args = p.parse_args()
    out, n, ascii_only = args.out, args.records, args.ascii
    rng = random.Random(args.seed)

    def write(path):
        with open(path, "w", encoding="utf-8") as f:
            for i in range(n):
                f.write(json.dumps(record(i, rng, n // 4), ensure_ascii=ascii_only) + "\n")
                if rng.randrange(50000) == 0:
                    f.write("\n")

    # the records are this file's own; only the writing through a temporary file is shared
    write_once(out, write, force=True)


if __name__ == "__main__":
    main()
