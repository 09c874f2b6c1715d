#!/usr/bin/env python3
"""Time vercy side by side with what a user has today, on the stores gen_store.py writes.

For each size (10k, 100k, 1m by default), in one run on this machine:

  read floor   wc -l STORE                         the cost of reading the file at all
  check        vercy check STORE                   vs the reference vercy==0.2.0 `vercy check`
  compact      vercy compact STORE                 vs bench/compact.jq (`jq -rn`), same bytes out
  import       vercy import DUMP --into NEW.jsonl  engrama NDJSON dump into a new JSONL store
  export       vercy export NEW.jsonl --to engrama the imported store back to engrama NDJSON
  formats      vercy check in every format (human, --quiet, json, github, sarif) on the clean
               store, the messy one (bench/gen_messy.py: several owners per concept,
               inverted intervals, dangling and cyclic supersedes, duplicate ids, bad dates)
               the messy one with UUID ids (gen_messy.py --long-ids) and with ids and
               concepts named by path (--path-ids) and with an owner a record
               (--person-owners), and the messy one as a JSON array (a record a line, and
               pretty-printed as json.dump(records, f, indent=2) writes it) and as a
               pretty-printed envelope object, and the engrama dump gen_store.py writes, and
               a store written apart from those generators (bench/gen_spanish.py, as it is and with
               every character past ASCII escaped, as json.dumps writes), and a mem0-shaped
               export with embeddings (bench/gen_mem0.py), side by side with
               `vercy==0.2.0 check --json` on the same store; with the human report's line
               count, the GitHub annotations and the SARIF results, and the reader alone on
               each store (vercy compact with a concept none holds: every record read and
               scanned, nothing checked) beside the 30x the check is asked for

Each command runs --runs times (after one warm-up run that fills the page cache) under
/usr/bin/time -v; `wc -l`, vercy check and the reference run in alternating rounds, so that a
busy spell of a shared machine weighs on each of them alike; the table gives the median wall time, the ratio to the alternative and to
`wc -l`, and the peak resident set size the operating system reports ("Maximum resident set
size"). Outputs are checked once: vercy compact and the jq program must write the same bytes,
and vercy check must reach the reference's level and verdict.

Environment: VERCY (default target/release/vercy), REF_VERCY (default target/ref-venv/bin/vercy,
then /work/venv/bin/vercy), JQ (default jq). Results go to stdout and bench/out/results.md.
"""

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(HERE, "out")
sys.path.insert(0, HERE)
import gen_store  # noqa: E402
import gen_messy  # noqa: E402

# a concept no bench store holds: `vercy compact --concept` with it reads every record and
# writes none
NO_CONCEPT = "vercy-bench: no such concept"

FORMATS = [("human", []), ("--quiet", ["--quiet"]), ("json", ["--format", "json"]),
           ("github", ["--format", "github"]), ("sarif", ["--format", "sarif"])]


def find_ref():
    for cand in (os.environ.get("REF_VERCY"), os.path.join(ROOT, "target/ref-venv/bin/vercy"),
                 "/work/venv/bin/vercy"):
        if cand and os.path.exists(cand):
            return cand
    return None


def timed(cmd, stdout, prepare=None):
    """One run: (wall seconds, peak RSS in KiB, exit code)."""
    if prepare:
        prepare()
    tv = ["/usr/bin/time", "-v"] + cmd
    with open(stdout, "wb") as out:
        t0 = time.perf_counter()
        p = subprocess.run(tv, stdout=out, stderr=subprocess.PIPE)
        wall = time.perf_counter() - t0
    rss = 0
    err = p.stderr.decode("utf-8", "replace")
    for line in err.splitlines():
        if "Maximum resident set size" in line:
            rss = int(line.rsplit(":", 1)[1])
    return wall, rss, p.returncode, err


class Timing:
    """One command to time: its runs, what exit codes are fine, whether it is warmed up."""

    def __init__(self, name, cmd, runs, ok_codes=(0,), stdout=os.devnull, prepare=None,
                 warm=True):
        self.name, self.cmd, self.runs, self.ok_codes = name, cmd, runs, ok_codes
        self.stdout, self.prepare, self.warm = stdout, prepare, warm
        self.walls, self.rsss = [], []

    def run(self):
        wall, rss, rc, err = timed(self.cmd, self.stdout, self.prepare)
        if rc not in self.ok_codes:
            tail = "\n".join(err.splitlines()[-15:])
            sys.exit("%s failed (exit %d): %s\n%s" % (self.name, rc, " ".join(self.cmd), tail))
        self.walls.append(wall)
        self.rsss.append(rss)

    def result(self):
        res = {"name": self.name, "cmd": " ".join(self.cmd),
               "median": statistics.median(self.walls), "min": min(self.walls),
               "runs": self.runs, "rss_kib": max(self.rsss)}
        print("  %-28s %9.3f s  %8.1f MiB   (%s)" % (self.name, res["median"],
                                                    res["rss_kib"] / 1024, res["cmd"]),
              flush=True)
        return res


def side_by_side(*timings):
    """Time commands in alternating rounds, so that a busy spell of a shared machine falls on
    all of them alike rather than on one command's consecutive runs. A command with fewer
    runs than the others runs in rounds spread evenly over the whole. Returns the results."""
    for t in timings:
        if t.warm:
            timed(t.cmd, t.stdout, t.prepare)  # warm-up: page cache, dynamic loading
    rounds = max(t.runs for t in timings)
    for r in range(rounds):
        for t in timings:
            # runs r*runs/rounds .. (r+1)*runs/rounds of this command fall in round r
            for _ in range((r + 1) * t.runs // rounds - r * t.runs // rounds):
                t.run()
    return [t.result() for t in timings]


def bench(name, cmd, runs, ok_codes=(0,), stdout=os.devnull, prepare=None, warm=True):
    return side_by_side(Timing(name, cmd, runs, ok_codes, stdout, prepare, warm))[0]


def verify(vercy, ref, jq, store, scratch):
    """The outputs the timings compare must agree."""
    notes = []
    ours_c, jq_c = os.path.join(scratch, "ours.compact"), os.path.join(scratch, "jq.compact")
    subprocess.run([vercy, "compact", store], stdout=open(ours_c, "wb"), check=True)
    subprocess.run([jq, "-rn", "-f", os.path.join(HERE, "compact.jq"), store],
                   stdout=open(jq_c, "wb"), check=True)
    same = open(ours_c, "rb").read() == open(jq_c, "rb").read()
    notes.append("compact output identical to the jq program's: %s" % ("yes" if same else "NO"))
    if not same:
        sys.exit("vercy compact and bench/compact.jq disagree on %s" % store)
    if ref:
        a = json.loads(subprocess.run([vercy, "check", "--json", store], capture_output=True).stdout)
        b = json.loads(subprocess.run([ref, "check", "--json", store], capture_output=True).stdout)
        key = lambda r: (r["level"], r["pass"], [(f["field"], f["count"]) for f in r["findings"]])
        agree = key(a) == key(b)
        notes.append("check agrees with the reference (level %s, pass %s, findings %s): %s"
                     % (a["level"], a["pass"], [(f["field"], f["count"]) for f in a["findings"]],
                        "yes" if agree else "NO"))
        if not agree:
            sys.exit("vercy check and the reference disagree on %s" % store)
    return notes


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("sizes", nargs="*", default=["10k", "100k", "1m"])
    p.add_argument("--runs", type=int, default=None,
                   help="timed runs per command (default 5)")
    p.add_argument("--ref-runs", type=int, default=None,
                   help="timed runs of the reference and jq (default as --runs; 3 at a million records)")
    p.add_argument("--fresh", action="store_true", help="regenerate the stores first")
    p.add_argument("--formats-only", action="store_true",
                   help="time only check in every format, on the clean and the messy store")
    p.add_argument("--jq-max", default="100k",
                   help="run the jq program only on stores up to this size (default 100k: "
                        "it takes minutes on a million records)")
    args = p.parse_args()

    vercy = os.environ.get("VERCY", os.path.join(ROOT, "target/release/vercy"))
    if not os.path.exists(vercy):
        sys.exit("no %s: run `cargo build --release` first (bench/run.sh does)" % vercy)
    ref = find_ref()
    jq = os.environ.get("JQ", shutil.which("jq") or "")
    os.makedirs(OUT, exist_ok=True)
    scratch = os.path.join(OUT, "scratch")
    os.makedirs(scratch, exist_ok=True)

    results = []
    if args.formats_only:
        rows = [formats_row(vercy, ref, size, args) for size in args.sizes]
        text = render_formats(rows, vercy, ref)
        print("\n" + text)
        with open(os.path.join(OUT, "formats.md"), "w") as f:
            f.write(text)
        return
    for size in args.sizes:
        n = gen_store.size_arg(size)
        label = gen_store.label(n)
        gen = [sys.executable, os.path.join(HERE, "gen_store.py"), "--out", OUT, label]
        subprocess.run(gen + (["--force"] if args.fresh else []), check=True)
        # the stores just written go to disk now, not during the timed runs
        os.sync()
        store = os.path.join(OUT, "store-%s.jsonl" % label)
        dump = os.path.join(OUT, "engrama-%s.ndjson" % label)
        runs = args.runs or 5
        # the reference takes seconds a run at a million records: three runs there
        ref_runs = args.ref_runs or args.runs or (3 if n >= 1000000 else 5)
        mb = os.path.getsize(store) / 1e6
        print("\n%s records: store %.0f MB, engrama dump %.0f MB, %d runs"
              % (label, mb, os.path.getsize(dump) / 1e6, runs), flush=True)
        row = {"size": label, "records": n, "store_mb": mb,
               "dump_mb": os.path.getsize(dump) / 1e6, "runs": runs}
        # the read floor, vercy and the reference in alternating rounds: their ratios are
        # taken under the same conditions
        timings = [Timing("wc -l store", ["wc", "-l", store], runs),
                   Timing("vercy check", [vercy, "check", store], runs, ok_codes=(0, 1))]
        if ref:
            # slow: no separate warm-up (the store is in the page cache by now)
            timings.append(Timing("vercy==0.2.0 check", [ref, "check", store], ref_runs,
                                  ok_codes=(0, 1), warm=n < 1000000))
        measured = side_by_side(*timings)
        row["wc"], row["check"] = measured[0], measured[1]
        if ref:
            row["ref_check"] = measured[2]
        row["compact"] = bench("vercy compact", [vercy, "compact", store], runs)
        if jq and n <= gen_store.size_arg(args.jq_max):
            row["jq_compact"] = bench("jq compact", [jq, "-rn", "-f",
                                                     os.path.join(HERE, "compact.jq"), store],
                                      ref_runs, warm=False)
        imported = os.path.join(scratch, "imported-%s.jsonl" % label)

        def fresh_target():
            if os.path.exists(imported):
                os.remove(imported)
        row["wc_dump"] = bench("wc -l dump", ["wc", "-l", dump], runs)
        row["import"] = bench("vercy import", [vercy, "import", dump, "--into", imported], runs,
                              prepare=fresh_target)
        row["export"] = bench("vercy export --to engrama",
                              [vercy, "export", imported, "--to", "engrama", "-o",
                               os.path.join(scratch, "exported-%s.ndjson" % label)], runs)
        row["notes"] = verify(vercy, ref, jq, store, scratch) if jq and n <= 100000 else []
        for note in row["notes"]:
            print("  " + note)
        results.append(row)

    text = render(results, vercy, ref, jq)
    print("\n" + text)
    with open(os.path.join(OUT, "results.md"), "w") as f:
        f.write(text)
    with open(os.path.join(OUT, "results.json"), "w") as f:
        json.dump(results, f, indent=1)


def output_facts(vercy, store, scratch):
    """What each format wrote on this store: lines, annotations, results."""
    facts = {}
    for name, flags in FORMATS:
        path = os.path.join(scratch, "out-%s" % name.strip("-"))
        with open(path, "wb") as out:
            subprocess.run([vercy, "check", store] + flags, stdout=out,
                           stderr=subprocess.DEVNULL)
        data = open(path, "rb").read()
        fact = {"bytes": len(data), "lines": data.count(b"\n")}
        if name == "github":
            for kind in ("error", "warning", "notice"):
                fact[kind] = sum(1 for l in data.splitlines() if l.startswith(b"::%s " % kind.encode()))
        if name == "sarif":
            fact["results"] = sum(len(r["results"]) for r in json.loads(data)["runs"])
        facts[name] = fact
    return facts


def reshaped(lines_path, out_path, kind, fresh):
    """The JSON lines store at `lines_path` written again as another shape a user keeps: a JSON
    array with a record a line (`array`: `json.dump` of a list, one element a line), an array
    pretty-printed (`pretty`: `json.dump(records, f, indent=2)`), or an envelope pretty-printed
    with keys around its list (`envelope`: `json.dump({...}, indent=2)`)."""
    opening, indent, closing = {
        "array": ("[\n", None, "\n]\n"),
        "pretty": ("[\n", "  ", "\n]\n"),
        "envelope": ('{\n  "total": null,\n  "data": [\n', "    ", '\n  ],\n  "next": null\n}\n'),
    }[kind]

    def write(path):
        with open(lines_path) as src, open(path, "w") as out:
            out.write(opening)
            first = True
            for line in src:
                line = line.strip()
                if not line:
                    continue
                if not first:
                    out.write(",\n")
                first = False
                if indent:
                    text = json.dumps(json.loads(line), indent=2, ensure_ascii=False)
                    out.write(indent + text.replace("\n", "\n" + indent))
                else:
                    out.write(line)
            out.write(closing)

    gen_store.write_once(out_path, write, fresh)


def formats_row(vercy, ref, size, args):
    n = gen_store.size_arg(size)
    label = gen_store.label(n)
    subprocess.run([sys.executable, os.path.join(HERE, "gen_store.py"), "--out", OUT, label]
                   + (["--force"] if args.fresh else []), check=True)
    for names in ([], ["--long-ids"], ["--path-ids"], ["--person-owners"]):
        subprocess.run([sys.executable, os.path.join(HERE, "gen_messy.py"), "--out", OUT, label]
                       + names + (["--force"] if args.fresh else []), check=True)
    for kind, flags in (("spanish", []), ("spanish-ascii", ["--ascii"])):
        spanish = os.path.join(OUT, "%s-%s.jsonl" % (kind, label))
        if args.fresh or not os.path.exists(spanish):
            subprocess.run([sys.executable, os.path.join(HERE, "gen_spanish.py")] + flags
                           + [spanish, str(n)], check=True)
    subprocess.run([sys.executable, os.path.join(HERE, "gen_mem0.py"), "--out", OUT, label]
                   + (["--force"] if args.fresh else []), check=True)
    messy = os.path.join(OUT, "messy-%s.jsonl" % label)
    for kind in ("array", "pretty", "envelope"):
        reshaped(messy, os.path.join(OUT, "messy-%s-%s.json" % (kind, label)), kind, args.fresh)
    os.sync()
    runs = args.runs or 5
    ref_runs = args.ref_runs or args.runs or (3 if n >= 1000000 else 5)
    row = {"size": label, "shapes": {}}
    scratch = os.path.join(OUT, "scratch")
    os.makedirs(scratch, exist_ok=True)
    for shape, store in (("clean", "store-%s.jsonl" % label), ("messy", "messy-%s.jsonl" % label),
                         ("messy, UUID ids", "messy-uuid-%s.jsonl" % label),
                         ("messy, path ids", "messy-path-%s.jsonl" % label),
                         ("messy, an owner a record", "messy-people-%s.jsonl" % label),
                         ("messy, a JSON array", "messy-array-%s.json" % label),
                         ("messy, a JSON array pretty-printed", "messy-pretty-%s.json" % label),
                         ("messy, a pretty envelope", "messy-envelope-%s.json" % label),
                         ("an engrama dump", "engrama-%s.ndjson" % label),
                         ("Spanish, unlike the others", "spanish-%s.jsonl" % label),
                         ("Spanish, escaped as json.dumps writes it",
                          "spanish-ascii-%s.jsonl" % label),
                         ("a mem0-shaped export (bench/gen_mem0.py)", "mem0-%s.jsonl" % label)):
        store = os.path.join(OUT, store)
        print("\n%s %s store: %.0f MB, %d runs" % (label, shape, os.path.getsize(store) / 1e6, runs),
              flush=True)
        timings = [Timing("vercy check %s" % name, [vercy, "check", store] + flags, runs,
                          ok_codes=(0, 1)) for name, flags in FORMATS]
        # the reader alone, each record scanned and none selected: what no check can go under
        timings.append(Timing("vercy compact, nothing selected",
                              [vercy, "compact", store, "--concept", NO_CONCEPT], runs))
        # the reference refuses an envelope spread over lines (exit 2): nothing to time
        with_ref = ref and "envelope" not in shape
        if with_ref:
            timings.append(Timing("vercy==0.2.0 check --json", [ref, "check", "--json", store],
                                  ref_runs, ok_codes=(0, 1), warm=False))
        measured = side_by_side(*timings)
        row["shapes"][shape] = {
            "store_mb": os.path.getsize(store) / 1e6,
            "formats": dict(zip([name for name, _ in FORMATS], measured)),
            "reading": measured[len(FORMATS)],
            "ref": measured[len(FORMATS) + 1] if with_ref else None,
            "outputs": output_facts(vercy, store, scratch),
        }
    return row


def render_formats(rows, vercy, ref):
    lines = [
        "# vercy check in every format, clean and messy stores",
        "",
        "%s, %d cores; %s; load average before: %s. Median wall time after one warm-up run, in "
        "alternating rounds with the reference (`%s check --json`); peak RSS from `/usr/bin/time -v`."
        % (platform.system(), os.cpu_count() or 0,
           time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           " ".join(open("/proc/loadavg").read().split()[:3]) if os.path.exists("/proc/loadavg") else "?",
           ref or "reference not found"),
        "",
        "Reading alone is `vercy compact STORE --concept '%s'`, timed in the same rounds: the "
        "reader and its scan of every record, nothing checked, nothing written. 30× is the "
        "reference's time over 30: what the whole check has to take for issue 21's target."
        % NO_CONCEPT,
        "",
        "| records | store | format | vercy | peak RSS | vercy==0.2.0 --json | faster | output |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    floors = []
    for row in rows:
        for shape, d in row["shapes"].items():
            r = d["ref"]
            floors.append("| %s | %s | %.3f s | %s |" % (
                row["size"], shape, d["reading"]["median"],
                "%.3f s" % (r["median"] / 30) if r else "–"))
            for name, res in d["formats"].items():
                out = d["outputs"][name]
                what = "%d lines, %.1f MB" % (out["lines"], out["bytes"] / 1e6)
                if name == "github":
                    what = "%d error / %d warning / %d notice" % (out["error"], out["warning"],
                                                                  out["notice"])
                if name == "sarif":
                    what = "%d results, %.2f MB" % (out["results"], out["bytes"] / 1e6)
                r = d["ref"]
                lines.append("| %s | %s | %s | %.3f s | %.0f MiB | %s | %s | %s |" % (
                    row["size"], shape, name, res["median"], res["rss_kib"] / 1024,
                    "%.2f s" % r["median"] if r else "–",
                    "%.1f×" % (r["median"] / res["median"]) if r else "–", what))
    lines += ["", "| records | store | reading alone | 30× |", "| --- | --- | --- | --- |"] + floors
    return "\n".join(lines) + "\n"


def render(results, vercy, ref, jq):
    def s(r):
        return "%.3f s" % r["median"] if r else "–"

    def mib(r):
        return "%.0f MiB" % (r["rss_kib"] / 1024) if r else "–"

    def ratio(a, b):
        return "%.1f×" % (a["median"] / b["median"]) if a and b else "–"

    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    lines = [
        "# vercy benchmark",
        "",
        "%s, %d cores, %s; %s. Median wall time of the runs after one warm-up run (files in the "
        "page cache; `wc -l`, vercy check and the reference in alternating rounds); peak RSS is the "
        "largest \"Maximum resident set size\" `/usr/bin/time -v` reported. Reference: `%s`; jq: `%s`."
        % (platform.system(), os.cpu_count() or 0, cpu, time.strftime("%Y-%m-%d %H:%M UTC",
                                                                         time.gmtime()),
           ref or "not found", jq or "not found"),
        "",
        "## check",
        "",
        "| records | store | `wc -l` | vercy check | vercy==0.2.0 check | faster than 0.2.0 | × `wc -l` | vercy RSS | 0.2.0 RSS |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in results:
        lines.append("| %s | %.0f MB | %s | %s | %s | %s | %s | %s | %s |" % (
            r["size"], r["store_mb"], s(r["wc"]), s(r["check"]), s(r.get("ref_check")),
            ratio(r.get("ref_check"), r["check"]), ratio(r["check"], r["wc"]),
            mib(r["check"]), mib(r.get("ref_check"))))
    lines += ["", "## compact", "",
              "| records | vercy compact | jq -rn -f bench/compact.jq | faster than jq | vercy RSS | jq RSS |",
              "| --- | --- | --- | --- | --- | --- |"]
    for r in results:
        lines.append("| %s | %s | %s | %s | %s | %s |" % (
            r["size"], s(r["compact"]), s(r.get("jq_compact")),
            ratio(r.get("jq_compact"), r["compact"]), mib(r["compact"]),
            mib(r.get("jq_compact"))))
    lines += ["", "## import and export (engrama NDJSON v1, one relation line per five nodes)", "",
              "| nodes | dump | `wc -l` dump | vercy import (new store) | import RSS | vercy export --to engrama | export RSS |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in results:
        lines.append("| %s | %.0f MB | %s | %s | %s | %s | %s |" % (
            r["size"], r["dump_mb"], s(r["wc_dump"]), s(r["import"]), mib(r["import"]),
            s(r["export"]), mib(r["export"])))
    notes = [n for r in results for n in ("%s: %s" % (r["size"], x) for x in r["notes"])]
    if notes:
        lines += ["", "Checks of the outputs compared:", ""] + ["- " + n for n in notes]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
