#!/usr/bin/env python3
"""Parity harness: `vercy check` (ours, Rust) against the reference checker `vercy==0.2.0`.

    python3 tests/parity/parity.py [--vercy-bin target/debug/vercy] [--ref-bin /work/venv/bin/vercy]
                                   [--count 300] [--seed 1] [--jobs N] [--quirks] [--keep] [--no-fixtures]

It runs both checkers with `--json` on every store under fixtures/ (except fixtures/bad, and
fixtures/quirks unless --quirks) and on --count randomly generated stores, and compares the exit
code and every key of the reference's report (ours may add keys; they are ignored). A file
`STORE.args` next to a fixture holds extra argument sets, one per line, each run as well as the
bare run. When both checkers exit 2 only the exit code is compared. Mismatching stores are kept in
a temp dir for inspection. Exit 0 when everything matches (or the reference is missing), 1 on any
mismatch, 2 when our binary cannot be run. Standard library only.

--python-count N adds N stores in the classes where Python's reading differs from plain JSON
(whitespace str.strip() drops, line breaks str.splitlines() splits on, NaN/Infinity, lone
surrogates, --min-level as int() reads it, --map whitespace, abbreviated and repeated options,
nesting) and in each deliberate difference of the README's table. Each store ends as one of
`identical / deliberate / reference crash / mismatch`: deliberate only where the store was made
for a difference the table names and vercy behaves as the table says; any mismatch fails.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
REPORT_KEYS = ["report", "profile", "profile_version", "scope", "scope_note", "store", "records", "level",
               "min_level", "pass", "mapping", "policy_outside_records", "findings"]
FINDING_KEYS = ["field", "requirement", "count", "offenders"]
TIMEOUT = 120


# --------------------------------------------------------------------------- running

def run(binary: str, store: str, args: list[str]) -> tuple[int, str, str]:
    cmd = [binary, "check", store, *args, "--json"]
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return -1, "", f"timed out after {TIMEOUT}s"
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def short(v, limit=300) -> str:
    s = json.dumps(v, ensure_ascii=False)
    return s if len(s) <= limit else s[:limit] + f"... ({len(s)} chars)"


def compare(ref: tuple[int, str, str], ours: tuple[int, str, str]) -> list[str]:
    """Differences, empty when the two agree. A reference crash is reported by the caller."""
    rc_r, out_r, _ = ref
    rc_o, out_o, err_o = ours
    diffs = []
    if rc_r != rc_o:
        diffs.append(f"exit code: reference {rc_r}, ours {rc_o}" + (f" (stderr: {err_o.strip()[:300]})" if err_o.strip() else ""))
    if rc_r == 2 or rc_o == 2:
        return diffs                    # input rejected: only the exit code counts
    try:
        rep_r = json.loads(out_r)
    except ValueError:
        return diffs + ["reference printed no JSON report"]
    try:
        rep_o = json.loads(out_o)
    except ValueError:
        return diffs + [f"ours printed no JSON report: {out_o[:200]!r}"]
    if not isinstance(rep_o, dict):
        return diffs + ["ours: report is not a JSON object"]
    for key in rep_r:                   # the reference's keys, ours may add more
        if key not in rep_o:
            diffs.append(f"key {key!r} missing in ours (reference: {short(rep_r[key])})")
            continue
        if key == "findings":
            diffs += compare_findings(rep_r[key], rep_o[key])
        elif rep_r[key] != rep_o[key] or type(rep_r[key]) is not type(rep_o[key]):
            diffs.append(f"{key}: reference {short(rep_r[key])}, ours {short(rep_o[key])}")
    return diffs


def compare_findings(fr, fo) -> list[str]:
    if not isinstance(fo, list):
        return [f"findings: ours is not a list: {short(fo)}"]
    diffs = []
    if len(fr) != len(fo):
        diffs.append(f"findings: reference has {len(fr)} {[f.get('field') for f in fr]}, "
                     f"ours {len(fo)} {[f.get('field') if isinstance(f, dict) else f for f in fo]}")
    for i, (a, b) in enumerate(zip(fr, fo)):
        if not isinstance(b, dict):
            diffs.append(f"findings[{i}]: ours is not an object")
            continue
        for k in a:
            if a[k] != b.get(k) or type(a[k]) is not type(b.get(k)):
                diffs.append(f"findings[{i}] ({a.get('field')}).{k}: reference {short(a[k])}, ours {short(b.get(k))}")
    return diffs


# --------------------------------------------------------------------------- random stores

ROLES = ["record_id", "valid_from", "valid_to", "source", "concept_owner", "owner_role", "supersedes",
         "release_to", "conflict_policy", "applies_to", "does_not_apply_to"]
MARKERS = ["policy", "rule", "classification", "confidential", "restricted"]
RENAMES = {
    "record_id": ["uuid", "id", "memory_id", "Record ID", "rid.key"],
    "valid_from": ["valid_at", "from", "start", "t0"],
    "valid_to": ["invalid_at", "to", "end", "t1"],
    "source": ["episode", "src", "metadata.source", "origin"],
    "concept_owner": ["owner", "steward", "Owner"],
    "owner_role": ["role", "accountable"],
    "supersedes": ["replaces", "prev"],
    "release_to": ["visible_to", "audience"],
    "conflict_policy": ["cp", "tie_break"],
    "applies_to": ["scope", "covers"],
    "does_not_apply_to": ["excludes", "not_scope"],
    "policy": ["pol"], "rule": ["rules"], "classification": ["class", "label"],
    "confidential": ["conf"], "restricted": ["secret"],
}
BLANKS = ["", " ", "  ", "\t", "\n", " \r\n ", "\u00a0", "\u3000", "\u2003", "\x1f", "\x1c", "\u0085",
          "\u2028", "\u202f", "\x0b\x0c"]
NOT_BLANK = ["\u200b", "\ufeff", "x", "\u180e"]
WORDS = ["finance", "legal", "hr", "audit", "ops", "Head of Finance", "later valid_from wins",
         "LEG-POL-04", "FIN-POL-04", "café", "記録", "Ω", "a,b", "a|b", "~", "back\\slash", "2025-01-01",
         "2026-03-31T00:00:00Z", "null", "0", "false"]
NUMBERS = [0, 1, 17, -3, 2.5, 0.0, -0.0, 1e20, 1e-7, 12345678901234567890, 100.0, 3.14159]


def rand_value(rng: random.Random, kind_bias: str = "") -> object:
    r = rng.random()
    if r < 0.40:
        if kind_bias == "list":
            return rng.sample(["finance", "audit", "hr", "legal", "ops"], rng.randint(1, 3))
        if kind_bias == "date":
            return rng.choice(["2025-01-01", "2025-06-30", "2026-03-31T00:00:00Z", "2024-12-31"])
        return rng.choice(WORDS)
    if r < 0.50:
        return None
    if r < 0.62:
        return rng.choice(BLANKS)
    if r < 0.66:
        return rng.choice(NOT_BLANK)
    if r < 0.72:
        return []
    if r < 0.76:
        return {}
    if r < 0.84:
        return rng.choice(NUMBERS)
    if r < 0.90:
        return rng.choice([True, False])
    if r < 0.96:
        return rng.choice([[""], [None], ["  "], [0], ["finance"], ["a", "b"], [[]]])
    return rng.choice([{"a": 1}, {"": None}, {"k": [1, 2]}])


def rand_id(rng: random.Random, i: int) -> object:
    r = rng.random()
    if r < 0.70:
        return rng.choice([f"D-{100 + i}", f"R{i}", f"id-{i}", f"記録-{i}", f"rec {i}"])
    if r < 0.78:
        return rng.choice([i, 0, -i, 17, 12345678901234567890])
    if r < 0.82:
        return rng.choice([1.5, 2.0, 1e20, 0.0, -0.0, 1e-7, 0.1])
    if r < 0.86:
        return rng.choice([True, False])
    if r < 0.90:
        return rng.choice(BLANKS + ["0", "false"])
    if r < 0.93:
        return rng.choice([[], {}, ["a", "b"], {"k": "v"}, [1, None, True]])
    return None


def rand_record(rng: random.Random, i: int, keys: dict[str, str], density: float) -> dict:
    rec: dict = {}
    order = ROLES + MARKERS + ["concept", "value", "created_at", "meta"]
    if rng.random() < 0.3:
        rng.shuffle(order)
    for role in order:
        key = keys.get(role, role)
        if role == "record_id":
            p = density + 0.15
        elif role in ("valid_from", "valid_to", "source", "concept_owner"):
            p = density + 0.1
        elif role in ("conflict_policy", "applies_to", "does_not_apply_to") + tuple(MARKERS):
            p = density * 0.25
        else:
            p = density * 0.6
        if rng.random() >= p:
            continue
        if role == "record_id":
            rec[key] = rand_id(rng, i)
        elif role in ("valid_from", "valid_to"):
            rec[key] = None if (role == "valid_to" and rng.random() < 0.5) else rand_value(rng, "date")
        elif role in ("release_to", "applies_to", "does_not_apply_to"):
            rec[key] = rand_value(rng, "list")
        elif role == "meta":
            rec[key] = {"source": rand_value(rng), "n": rng.randint(0, 9)}
        else:
            rec[key] = rand_value(rng)
        if rng.random() < 0.03:   # the unmapped name too, which the map must ignore
            rec[role] = rand_value(rng)
    return rec


UNSAFE_RAW = ("\u0085", "\u2028", "\u2029", "\x1c", "\x1d", "\x1e", "\x1f", "\x0b", "\x0c")


def dump(obj, rng: random.Random, **kw) -> str:
    text = json.dumps(obj, ensure_ascii=False, **kw)
    # the reference splits lines inside strings on these; keep them escaped
    if any(c in text for c in UNSAFE_RAW) or rng.random() < 0.3:
        text = json.dumps(obj, ensure_ascii=True, **kw)
    return text


def rand_store(rng: random.Random) -> tuple[str, list[str], str]:
    """(file text, extra args, suffix)."""
    args: list[str] = []
    keys: dict[str, str] = {}
    if rng.random() < 0.45:
        pairs = []
        for role in rng.sample(ROLES + MARKERS, rng.randint(1, 6)):
            keys[role] = rng.choice(RENAMES[role])
            pairs.append(f"{role}={keys[role]}")
        if rng.random() < 0.1:
            pairs.append(rng.choice(["concept=topic", "value=text", "expected_concepts=register"]))
        sep = "," if rng.random() < 0.8 else " , "
        args += ["--map", sep.join(pairs) + ("," if rng.random() < 0.1 else "")]
    if rng.random() < 0.3:
        args.append("--policy")
    if rng.random() < 0.7:
        args += ["--min-level", str(rng.randint(1, 3))]
    n = rng.choice([0] + [rng.randint(1, 12)] * 12 + [rng.randint(13, 40)])
    density = rng.choice([0.55, 0.8, 0.9, 0.97, 1.0])
    records = [rand_record(rng, i, keys, density) for i in range(n)]
    # a realistic share of stores that reach a level: fill level fields on every record
    if rng.random() < 0.55:
        slip = rng.choice([0.0, 0.0, 0.02, 0.08])       # chance that one field stays random
        strip_rules = rng.choice([0.85, 1.0, 1.0])
        strip_restr = rng.choice([0.6, 1.0])
        for i, rec in enumerate(records):
            for role in ("record_id", "valid_from", "valid_to", "source", "concept_owner"):
                k = keys.get(role, role)
                if rng.random() < slip:
                    continue
                if role == "valid_to":
                    rec.setdefault(k, None)
                elif role == "record_id":
                    rec[k] = f"D-{i}"
                else:
                    rec[k] = "2025-01-01" if role == "valid_from" else "x"
            if rng.random() < strip_rules:
                for role in ("conflict_policy", "policy", "rule", "applies_to", "does_not_apply_to"):
                    rec.pop(keys.get(role, role), None)
            if rng.random() < strip_restr:
                for role in ("classification", "confidential", "restricted"):
                    rec.pop(keys.get(role, role), None)
            k = keys.get("release_to", "release_to")
            if k in rec and rng.random() < 0.7:
                rec[k] = ["finance", "audit"]
        if records and rng.random() < 0.3:             # one restricted record, maybe without release_to
            rec = rng.choice(records)
            rec[keys.get("classification", "classification")] = rng.choice(["secret", True, 0, " "])
    if records and rng.random() < 0.5:
        rec = rng.choice(records)
        rec[keys.get("conflict_policy", "conflict_policy")] = rng.choice(
            ["newest wins"] * 4 + [0, False, True, " ", "x", [], ["owner decides"]])
        if rng.random() < 0.7:
            rec[keys.get("applies_to", "applies_to")] = ["same-date disagreements"]
            rec[keys.get("does_not_apply_to", "does_not_apply_to")] = ["history"]
    if rng.random() < 0.2:
        indent = rng.choice([None, 1, 2])
        text = rng.choice(["", " ", "\n", "\r\n"]) + dump(records, rng, indent=indent) + rng.choice(["", "\n", " \n\n"])
        return text, args, ".json"
    nl = "\r\n" if rng.random() < 0.2 else "\n"
    lines = []
    for rec in records:
        while rng.random() < 0.1:
            lines.append(rng.choice(["", " ", "\t", "  \t "]))
        lines.append(dump(rec, rng) + (rng.choice([" ", "\t"]) if rng.random() < 0.05 else ""))
    if rng.random() < 0.1:
        lines.append("")
    if lines and rng.random() < 0.03:           # a broken line: both must refuse the store (exit 2)
        at = rng.randrange(len(lines))
        lines[at] = rng.choice(["{", "not json", "[1, 2]", "42", '{"record_id": "x",}', lines[at][:-1] or "{"])
    text = nl.join(lines) + (nl if rng.random() < 0.85 else "")
    if not records and rng.random() < 0.5:
        text = rng.choice(["", "\n", " \n\t\n", "\r\n\r\n"])
    return text, args, ".jsonl"



# --------------------------------------------------------------------------- Python's reading

# Whitespace str.strip() drops (str.isspace), and the breaks str.splitlines() splits on.
PY_SPACE = ["\u00a0", "\u3000", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\u1680",
            "\u2000", "\u2005", "\u200a", "\u205f", "\u202f", "\u2028", "\u2029", " ", "\t", "\n", "\r"]
PY_BREAKS = ["\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\r\n", "\n"]
LITERALS = [float("nan"), float("inf"), float("-inf")]
MIN_LEVELS = [" 1", "\t2", "2 ", "\u00a03\u3000", "\uff11", "\u0661", "\u0968", "+2", "1_0", "0", "4", "-1",
              "1__0", "2\x1f", "\uff12_\uff13", "01"]
ABBREVIATIONS = [["--pol"], ["--poli"], ["--js"], ["--jso"], ["--quie"], ["--qu"], ["--min", "2"], ["--min-l", "3"],
                 ["--policy", "--policy"], ["--json", "--json"], ["--min-level", "1", "--min-level", "3"]]


def level_record(rng: random.Random, i: int) -> dict:
    rec = {"record_id": f"D-{i}", "valid_from": "2025-01-01", "valid_to": None}
    if rng.random() < 0.6:
        rec.update(source="S", concept_owner="finance")
    return rec


def py_line(rec: dict, rng: random.Random) -> str:
    # ensure_ascii: a lone surrogate can only be written escaped; else either, as stores are
    return json.dumps(rec, ensure_ascii=rng.random() < 0.5 or has_surrogate(rec))


def has_surrogate(obj) -> bool:
    if isinstance(obj, str):
        return any(0xD800 <= ord(c) < 0xE000 for c in obj)
    if isinstance(obj, list):
        return any(has_surrogate(v) for v in obj)
    if isinstance(obj, dict):
        return any(has_surrogate(k) or has_surrogate(v) for k, v in obj.items())
    return False


def python_store(rng: random.Random, k: int) -> tuple[str, list[str], str, str]:
    """(file text, args, suffix, class): stores in the classes where the reference's Python
    reads what plain JSON does not, or reads options argparse's way. The class names a
    deliberate difference ("deliberate:…") where the README's table says vercy differs."""
    n = rng.randint(1, 6)
    records = [level_record(rng, i) for i in range(n)]
    args: list[str] = []
    kind = k % 9
    cls = ["whitespace", "line breaks", "literals", "surrogates", "option spellings",
           "map whitespace", "deliberate", "nesting", "abbreviations"][kind]
    sep = "\n"
    head = tail = ""
    if kind == 0:
        head = "".join(rng.choice(PY_SPACE) for _ in range(rng.randint(0, 3)))
        tail = "".join(rng.choice(PY_SPACE) for _ in range(rng.randint(1, 3)))
        if rng.random() < 0.2:     # whitespace str.strip() keeps: before a later record
            sep = "\n" + rng.choice(["\u00a0", "\u3000", "\x1f"])
    elif kind == 1:
        sep = rng.choice(PY_BREAKS)
        if rng.random() < 0.5:
            sep = sep + rng.choice(["", "\u00a0", " ", "\t"]) + rng.choice(PY_BREAKS)
        tail = rng.choice(["", sep])
    elif kind == 2:
        for rec in records:
            if rng.random() < 0.5:
                rec[rng.choice(["record_id", "source", "note", "valid_to", "conflict_policy"])] = rng.choice(
                    LITERALS + [[rng.choice(LITERALS), "x"], {"v": rng.choice(LITERALS)}])
    elif kind == 3:
        for rec in records:
            if rng.random() < 0.6:
                rec[rng.choice(["note", "meta", "\ud800key"])] = rng.choice(["\ud800", "a\udfffb", "\udc00\ud800"])
        if rng.random() < 0.3:     # in a field the reference prints: it crashes printing it
            records[0]["record_id"] = "\ud800"
            records[0].pop("valid_from", None)
    elif kind == 4:
        args += ["--min-level", rng.choice(MIN_LEVELS)]
    elif kind == 5:
        for rec in records:
            rec["uuid"] = rec.pop("record_id")
        ws = rng.choice(PY_SPACE[:17])
        args += ["--map", rng.choice([f"record_id=uuid{ws}", f"{ws}record_id{ws}={ws}uuid", f"{ws},record_id=uuid,{ws}"])]
    elif kind == 6:
        which = rng.randrange(6)
        if which == 0:             # a raw separator inside a string: text to vercy
            records[0]["note"] = "a" + rng.choice(["\u2028", "\u2029", "\x85"]) + "b"
            return "\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n", args, ".jsonl", "deliberate:separator in a string"
        if which == 1:             # a raw CR between an object's members
            text = "\n".join(json.dumps(r).replace(", ", ",\r", 1) for r in records) + "\n"
            return text, args, ".jsonl", "deliberate:raw CR in an object"
        if which == 2:             # a map path into nested data
            for rec in records:
                rec["meta"] = {"source": "S"}
            return "\n".join(map(json.dumps, records)) + "\n", ["--map", "source=meta.source"], ".jsonl", "deliberate:map path"
        if which == 3:             # repeated --map: merged
            for rec in records:
                rec["uuid"] = rec.pop("record_id")
                rec["start"] = rec.pop("valid_from")
            return ("\n".join(map(json.dumps, records)) + "\n", ["--map", "record_id=uuid", "--map", "valid_from=start"],
                    ".jsonl", "deliberate:repeated map")
        if which == 4:             # a one-line envelope
            return json.dumps({"results": records}) + "\n", args, ".json", "deliberate:envelope"
        return "\ufeff" + "\n".join(map(json.dumps, records)) + "\n", args, ".jsonl", "deliberate:byte-order mark"
    elif kind == 7:
        depth = rng.choice([120, 129, 500, 900, 980, 995, 999, 1200])
        records[-1]["deep"] = "@@DEEP@@"      # written as text: too deep for json.dumps
        cls = "nesting" if depth < 985 else "deliberate:nesting limit"
    else:
        args += rng.choice(ABBREVIATIONS)
    suffix = ".jsonl"
    if rng.random() < 0.25 and kind in (0, 2, 3, 7):
        body = json.dumps(records, ensure_ascii=True)
        suffix = ".json"
    else:
        body = sep.join(py_line(r, rng) for r in records)
    if kind == 7:
        body = body.replace('"@@DEEP@@"', "[" * depth + "]" * depth)
    return head + body + tail, args, suffix, cls


def deliberate_holds(cls: str, ref: tuple[int, str, str], ours: tuple[int, str, str]) -> bool:
    """The README's table says what each deliberate difference is: hold vercy to it."""
    what = cls.split(":", 1)[1]
    if what in ("separator in a string", "raw CR in an object", "byte-order mark"):
        return ref[0] == 2 and ours[0] in (0, 1)          # the reference refuses, vercy reads
    if what in ("map path", "repeated map"):
        return ref[0] in (0, 1) and ours[0] in (0, 1)    # both read; the map reads differently
    if what == "envelope":
        return ours[0] in (0, 1) and json.loads(ours[1]).get("records", 0) >= 1
    if what == "nesting limit":      # the reference crashes (RecursionError); vercy reads to 1,000
        return ref[0] == 1 and "RecursionError" in ref[2] and ours[0] in (0, 1, 2)
    return False

# --------------------------------------------------------------------------- main

# Characters Python's str.splitlines() breaks on besides \n and \r\n: the reference splits a
# JSON line at them even inside a string, vercy does not (README, "Deliberate differences").
SPLITLINES_EXTRA = "\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"


def documented_difference(path: Path) -> bool:
    """A fixture written for another command that hits a documented difference on purpose:
    a raw line separator inside a string, a byte-order mark, or an envelope object."""
    data = path.read_bytes()
    if data.startswith(b"\xef\xbb\xbf"):
        return True
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    if any(c in text.replace("\r\n", "\n") for c in SPLITLINES_EXTRA):
        return True
    stripped = text.strip()
    if stripped.startswith("{") and "\n" not in stripped:
        try:
            obj = json.loads(stripped)
        except ValueError:
            return False
        envelopes = ("results", "facts", "edges", "memories", "items", "data")
        return isinstance(obj, dict) and any(isinstance(obj.get(k), list) for k in envelopes)
    return False


def fixture_cases(root: Path, quirks: bool) -> list[tuple[str, list[str]]]:
    cases = []
    for p in sorted(root.rglob("*")):
        if not p.is_file() or p.suffix not in (".json", ".jsonl"):
            continue
        rel = p.relative_to(root).parts
        if rel[0] == "bad" or (rel[0] == "quirks" and not quirks):
            continue
        if not quirks and documented_difference(p):
            continue
        cases.append((str(p), []))
        side = p.with_name(p.name + ".args")
        if side.is_file():
            for line in side.read_text(encoding="utf-8").splitlines():
                if line.strip() and not line.lstrip().startswith("#"):
                    cases.append((str(p), shlex.split(line)))
    return cases


def resolve(binary: str) -> str | None:
    p = Path(binary)
    for cand in (p, REPO / p):
        if cand.is_file() and os.access(cand, os.X_OK):
            return str(cand)
    found = shutil.which(binary) if os.sep not in binary else None
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vercy-bin", default="target/debug/vercy", help="our binary (default target/debug/vercy)")
    ap.add_argument("--ref-bin", default="/work/venv/bin/vercy", help="the reference checker (vercy 0.2.0)")
    ap.add_argument("--count", type=int, default=300, help="random stores to generate (default 300)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--python-count", type=int, default=0,
                    help="stores in the classes of Python's reading to generate (default 0)")
    ap.add_argument("--jobs", type=int, default=min(8, os.cpu_count() or 2))
    ap.add_argument("--fixtures", default=str(REPO / "fixtures"), help="fixtures folder")
    ap.add_argument("--no-fixtures", action="store_true", help="only the random stores")
    ap.add_argument("--quirks", action="store_true", help="also run fixtures/quirks (known reference oddities)")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir even when everything passes")
    ap.add_argument("--max-report", type=int, default=50, help="mismatches printed in full (default 50)")
    opts = ap.parse_args(argv)

    ref_bin = resolve(opts.ref_bin)
    if not ref_bin:
        print(f"parity: reference checker not found at {opts.ref_bin}; skipping (pip install vercy==0.2.0)")
        return 0
    our_bin = resolve(opts.vercy_bin)
    if not our_bin:
        print(f"parity: our binary not found at {opts.vercy_bin} (run cargo build first)", file=sys.stderr)
        return 2

    cases: list[tuple[str, list[str], str]] = []
    if not opts.no_fixtures:
        cases += [(p, a, "fixture") for p, a in fixture_cases(Path(opts.fixtures), opts.quirks)]
    tmp = Path(tempfile.mkdtemp(prefix="vercy-parity-"))
    rng = random.Random(opts.seed)
    for k in range(opts.count):
        text, args, suffix = rand_store(rng)
        path = tmp / f"gen-{opts.seed}-{k:04d}{suffix}"
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        (tmp / (path.name + ".args")).write_text(shlex.join(args) + "\n", encoding="utf-8")
        cases.append((str(path), args, "generated"))
    for k in range(opts.python_count):
        text, args, suffix, cls = python_store(rng, k)
        path = tmp / f"py-{opts.seed}-{k:04d}{suffix}"
        with open(path, "w", encoding="utf-8", errors="surrogatepass", newline="") as f:
            f.write(text)
        (tmp / (path.name + ".args")).write_text(shlex.join(args) + "\n", encoding="utf-8")
        cases.append((str(path), args, cls))

    def one(case):
        store, args, _ = case
        ref = run(ref_bin, store, args)
        ours = run(our_bin, store, args)
        return case, ref, ours

    counts = {"identical": 0, "deliberate": 0, "reference crash": 0, "mismatch": 0}
    by_class: dict[str, dict[str, int]] = {}
    keep_paths = set()
    with ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as pool:
        for (store, args, cls), ref, ours in pool.map(one, cases):
            label = f"{store} {shlex.join(args)}".strip()
            diffs = compare(ref, ours)
            if not diffs:
                verdict = "identical"
            elif cls.startswith("deliberate:") and deliberate_holds(cls, ref, ours):
                verdict = "deliberate"
            elif ref[0] not in (0, 1, 2) or (ref[0] == 1 and "Traceback" in ref[2]):
                verdict = "reference crash"
                print(f"SKIP {label}: the reference crashed ({ref[2].strip().splitlines()[-1:] or ref[0]})")
            else:
                verdict = "mismatch"
            counts[verdict] += 1
            by_class.setdefault(cls.split(":")[0], {}).setdefault(verdict, 0)
            by_class[cls.split(":")[0]][verdict] += 1
            if verdict != "identical":
                keep_paths.add(store)
            if verdict == "mismatch" and counts["mismatch"] <= opts.max_report:
                print(f"FAIL {label} [{cls}]")
                for d in diffs:
                    print(f"    {d}")
    for cls, c in sorted(by_class.items()):
        print(f"  {cls}: " + ", ".join(f"{v} {k}" for k, v in c.items()))
    passed, failed, crashed = counts["identical"] + counts["deliberate"], counts["mismatch"], counts["reference crash"]
    print(", ".join(f"{v} {k}" for k, v in counts.items()))
    print(f"{passed} passed, {failed} failed" + (f", {crashed} skipped (reference crashed)" if crashed else ""))
    if failed or crashed or opts.keep:
        print(f"stores kept in {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
