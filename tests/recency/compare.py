#!/usr/bin/env python3
"""Compare `vercy recency --format json` with engrama 0.18.1's own recency (engrama_reference.py)
on every dump given, at fixed times, with default and changed settings (flags and environment).

Usage: compare.py VERCY_BINARY DUMP... ; prints one line per case and the max abs difference.
Exit 1 when any score differs by more than 1e-9 or any degree or unknown differs.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PYTHON = sys.executable
TIMES = ["2026-11-29T21:21:47Z", "2026-12-01T00:00:00Z", "2027-06-30T12:00:00.5+02:00", "2025-01-01"]
CASES = [
    ("defaults", [], {}),
    ("flags", ["--half-life", "90", "--insight-half-life", "7.5"], {}),
    ("no degree", ["--no-degree"], {}),
    ("env", [], {"ENGRAMA_RECENCY_HALF_LIFE": "45.25", "ENGRAMA_RECENCY_INSIGHT_HALF_LIFE": "3",
                 "ENGRAMA_RECENCY_DEGREE": "off"}),
    ("env + flag", ["--half-life", "365"], {"ENGRAMA_RECENCY_HALF_LIFE": "10",
                                            "ENGRAMA_RECENCY_DEGREE": "YES"}),
]


def run(cmd, env):
    full = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAMA_RECENCY_")}
    full.update(env)
    out = subprocess.run(cmd, env=full, capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def main() -> int:
    vercy, dumps = sys.argv[1], sys.argv[2:]
    worst = 0.0
    failed = False
    for dump in dumps:
        for when in TIMES:
            for name, flags, env in CASES:
                ref = run([PYTHON, str(HERE / "engrama_reference.py"), dump, "--as-of", when, *flags], env)
                got = run([vercy, "recency", dump, "--as-of", when, "--format", "json", *flags], env)
                by_line = {g["line"]: g for g in got}
                diff = 0.0
                for r in ref:
                    g = by_line[r["line"]]
                    if (g["label"], g["key_value"], g["degree"]) != (r["label"], r["key_value"], r["degree"]):
                        print(f"  {dump}:{r['line']}: {g} vs {r}")
                        failed = True
                    if (g["recency"] is None) != (r["recency"] is None):
                        print(f"  {dump}:{r['line']}: unknown differs: {g['recency']} vs {r['recency']}")
                        failed = True
                    elif r["recency"] is not None:
                        diff = max(diff, abs(g["recency"] - r["recency"]))
                if len(got) != len(ref):
                    print(f"  {dump}: {len(got)} rows vs {len(ref)}")
                    failed = True
                worst = max(worst, diff)
                print(f"{Path(dump).name:40} {when:28} {name:11} nodes={len(ref):3} max|diff|={diff:.3e}")
    print(f"max abs difference over all cases: {worst:.3e}")
    return 1 if failed or worst > 1e-9 else 0


if __name__ == "__main__":
    sys.exit(main())
