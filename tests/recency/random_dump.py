#!/usr/bin/env python3
"""Write a seeded random engrama NDJSON v1 dump that exercises what decides a recency score:
every label (anchors, Person, system and hand-written Insights, source_query "" too), the same
name under several owners (and the shared `__entity__` user), relation lines with and without an
owner, endpoints in another case, duplicate and self edges, dangling endpoints, missing, empty,
offset, future timestamps.

Usage: random_dump.py SEED NODES RELATIONS > dump.ndjson
"""

import json
import random
import sys

LABELS = ["Concept", "Technology", "Insight", "Project", "Domain", "Decision", "Person", "Client", "Course"]
OWNERS = [("o", "u"), ("o", "u"), ("o2", "u2"), ("o", "__entity__")]


def stamp(rng: random.Random) -> str:
    return (
        f"2026-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:"
        f"{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}.{rng.randint(0, 999999):06d}+00:00"
    )


def main() -> int:
    seed, n_nodes, n_rels = (int(a) for a in sys.argv[1:4])
    rng = random.Random(seed)
    out = sys.stdout
    header = {"engrama_export": 1, "version": "0.18.1", "exported_at": "2026-11-29T00:00:00+00:00",
              "source_backend": "sqlite", "embedding_model": "", "embedding_dimensions": 0}
    out.write(json.dumps(header) + "\n")
    names = max(1, n_nodes * 4 // 5)
    nodes, seen = [], set()
    for i in range(n_nodes):
        label = rng.choice(LABELS)
        org, user = rng.choice(OWNERS)
        name = f"Node {i % names}"
        if (label, name, org, user) in seen:
            continue
        seen.add((label, name, org, user))
        nodes.append((label, name, org, user))
        props = {"name": name, "org_id": org, "user_id": user}
        if label == "Insight" and rng.random() < 0.6:
            props["source_query"] = rng.choice(["concept_clustering", ""])
        if rng.random() < 0.85:
            props["updated_at"] = stamp(rng)
        if rng.random() < 0.5:
            props["last_activity_at"] = rng.choice(
                ["", f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T00:00:00+02:00",
                 "2027-03-01T00:00:00+00:00", stamp(rng)])
        out.write(json.dumps({"type": "node", "label": label, "key_field": "name",
                              "key_value": name, "properties": props}) + "\n")
    for _ in range(n_rels):
        a, b = rng.choice(nodes), rng.choice(nodes)
        if rng.random() < 0.05:
            b = a
        to_value = b[1] if rng.random() < 0.97 else "nobody"
        rel = {"type": "relation", "from_label": a[0], "from_key": "name",
               "from_value": a[1] if rng.random() < 0.8 else a[1].upper(),
               "rel_type": rng.choice(["RELATED_TO", "USES"]), "to_label": b[0], "to_key": "name",
               "to_value": to_value}
        if rng.random() < 0.8:
            rel["org_id"], rel["user_id"] = a[2], a[3]
        out.write(json.dumps(rel) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
