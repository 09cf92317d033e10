#!/usr/bin/env python3
"""Rewrite the result tables in the READMEs from results/*.csv.

Tables sit between marker comments, e.g.
    <!-- BEGIN table:ladder -->  ...  <!-- END table:ladder -->
    <!-- BEGIN table:step05 -->  ...  <!-- END table:step05 -->
and are regenerated here, never typed. Standard library only.
Usage: scripts/readme_tables.py [--check]   (--check: exit 1 if a README is stale)
"""
import csv
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STEPS = ["step01", "step02", "step03", "step04", "step05", "step06"]
STEP_DIRS = {"step01": "step01_naive", "step02": "step02_kahan", "step03": "step03_shared_row",
             "step04": "step04_pitch", "step05": "step05_tiled", "step06": "step06_padded"}
LESSONS = {"step01": "naive: one thread per element", "step02": "Kahan summation",
           "step03": "row of A in shared memory", "step04": "cudaMallocPitch",
           "step05": "16x16 shared-memory tiles", "step06": "padded allocation, no bounds checks"}
ARTICLE = "article_8800gt.csv"


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def device_results():
    """{device: {(program, n): row}} from every measured CSV in results/."""
    out = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "results", "*.csv"))):
        if os.path.basename(path) == ARTICLE or path.endswith("-cpu.csv") or path.endswith("-transpose.csv"):
            continue
        for row in read_rows(path):
            out.setdefault(row["device"], {})[(row["program"], int(row["n"]))] = row
    return out


def article():
    return {r["program"]: r for r in read_rows(os.path.join(ROOT, "results", ARTICLE))}


def f(x, digits=2):
    return "" if x in (None, "") else f"{float(x):.{digits}f}"


def e(x):
    return "" if x in (None, "") else f"{float(x):.2e}"


def table(header, rows, text_columns=2):
    """A Markdown table: the first text_columns left-aligned, numbers right-aligned."""
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" if i < text_columns else "---:" for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def ladder_table(devices, art):
    parts = []
    for device, res in devices.items():
        for n in sorted({k[1] for k in res}):
            if not all((s, n) in res for s in STEPS):
                continue
            base = float(res[("step01", n)]["kernel_ms"])
            rows = []
            for s in STEPS:
                r = res[(s, n)]
                a = art.get(s) if n == 1000 else None
                row = [f"[{s}]({STEP_DIRS[s]}/)", LESSONS[s], f(r["kernel_ms"], 3), f(r["gflops"], 0),
                       f(base / float(r["kernel_ms"])) + "x", f(r["total_ms"], 2), f(r["e2e_gflops"], 0),
                       e(r["max_rel_err"])]
                if n == 1000:
                    row += [f(a["total_ms"], 0), f(a["e2e_gflops"]), f(a["kernel_ms"], 0) or "n/a", e(a["max_rel_err"])]
                rows.append(row)
            header = ["step", "lesson", "kernel ms", "kernel GFLOPS", "speedup (kernel)", "end-to-end ms",
                      "end-to-end GFLOPS", "max rel. error"]
            if n == 1000:
                header += ["8800GT end-to-end ms", "8800GT end-to-end GFLOPS", "8800GT kernel ms", "8800GT max rel. error"]
            dates = sorted({res[(s, n)]["date"][:10] for s in STEPS})
            parts.append(f"**{device}, n = {n}** (measured {', '.join(dates)}; 8800GT columns: the article's own figures)\n\n"
                         + table(header, rows) if n == 1000 else
                         f"**{device}, n = {n}** (measured {', '.join(dates)})\n\n" + table(header, rows))
    return "\n\n".join(parts)


def step_table(step, devices, art):
    prev = STEPS[STEPS.index(step) - 1] if step != "step01" else None
    rows = []
    for device, res in devices.items():
        for n in sorted({k[1] for k in res if k[0] == step}):
            for s in ([prev] if prev else []) + [step]:
                r = res.get((s, n))
                if not r:
                    continue
                label = f"{s} (this step)" if s == step else f"{s} (before)"
                rows.append([device, label, str(n), f(r["kernel_ms"], 3), f(r["gflops"], 0), f(r["total_ms"], 2),
                             f(r["e2e_gflops"], 0), e(r["max_rel_err"]), e(r["avg_rel_err"])])
    for s in ([prev] if prev else []) + [step]:
        a = art.get(s)
        label = f"{s} (this step)" if s == step else f"{s} (before)"
        rows.append(["8800GT, the article's figures", label, "1000", f(a["kernel_ms"], 0) or "n/a",
                     f(a["gflops"], 0) or "n/a", f(a["total_ms"], 0), f(a["e2e_gflops"]), e(a["max_rel_err"]),
                     e(a["avg_rel_err"])])
    return table(["device", "program", "n", "kernel ms", "kernel GFLOPS", "end-to-end ms", "end-to-end GFLOPS",
                  "max rel. error", "avg rel. error"], rows)


def rewrite(path, tables, check):
    with open(path) as fh:
        text = fh.read()
    new = text
    for name, body in tables.items():
        pat = re.compile(r"(<!-- BEGIN table:%s -->\n).*?(<!-- END table:%s -->)" % (name, name), re.S)
        new = pat.sub(lambda m: m.group(1) + body + "\n" + m.group(2), new)
    if new != text:
        if check:
            print(f"{os.path.relpath(path, ROOT)}: tables are stale (run scripts/readme_tables.py)")
            return False
        with open(path, "w") as fh:
            fh.write(new)
        print(f"rewrote the tables of {os.path.relpath(path, ROOT)}")
    return True


def main():
    args = sys.argv[1:]
    if "--help" in args or "-h" in args:
        print(__doc__.strip())
        return
    unknown = [a for a in args if a != "--check"]
    if unknown:
        print(f"readme_tables.py: unknown argument '{unknown[0]}' (try --help)", file=sys.stderr)
        sys.exit(2)
    check = "--check" in args
    devices, art = device_results(), article()
    tables = {"ladder": ladder_table(devices, art)}
    tables.update({s: step_table(s, devices, art) for s in STEPS})
    readmes = [os.path.join(ROOT, "README.md")] + [os.path.join(ROOT, d, "README.md") for d in STEP_DIRS.values()]
    ok = all([rewrite(p, tables, check) for p in readmes if os.path.exists(p)])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
