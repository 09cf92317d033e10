#!/usr/bin/env python3
"""make compare: run every ladder step and cuBLAS on the GPU at the given sizes, print
one progress line per run and the comparison table, and record the rows in
results/<device-slug>.csv (replacing earlier rows of the same program, n and device).

Each run's errors come with its inputs' distribution: the article's uniform [0, 1) and the
signed, wide-ranged inputs (--dist wide), on which TF32 shows its 10-bit mantissa.

Usage: scripts/compare.py [--sizes "1000 4096"] [--reps R] [--programs "PROGRAM ..."]
                          [--dists "uniform wide"]  (or the range families: subnormal tiny
                          rowscale mixed huge)
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ladder  # noqa: E402


def parse_args(argv):
    p = argparse.ArgumentParser(prog="compare.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", type=ladder.sizes_arg, default="1000 4096",
                   help="matrix sizes, space-separated (default: 1000 4096)")
    p.add_argument("--reps", type=ladder.positive_int, default=10, help="timed kernel launches per run (default 10)")
    p.add_argument("--programs", help="programs to run (default: every one built here: each step folder's, cuBLAS's "
                   "rows, and CUTLASS's where it is built)")
    p.add_argument("--dists", default=" ".join(ladder.DISTS), help="input distributions (default: uniform wide)")
    p.add_argument("--reported", default="", help="programs whose FAIL is recorded and reported, not an error "
                   "(a peer on inputs it is not made for)")
    p.add_argument("--results", default=os.path.join(ladder.ROOT, "results"), help="results folder")
    p.add_argument("--list", action="store_true", help="list the programs it would run, with their lessons, "
                   "and stop (no GPU needed)")
    a = p.parse_args(argv)
    found = ladder.discover()
    a.programs = a.programs.split() if a.programs is not None else list(found)
    unknown = [x for x in a.programs if x not in ladder.LADDER]
    if unknown:
        p.error(f"unknown program '{unknown[0]}' (known: {' '.join(ladder.LADDER)})")
    a.dists = a.dists.split()
    a.reported = a.reported.split()
    bad = [d for d in a.dists if d not in ladder.DISTS + ladder.RANGE_DISTS]
    if bad or not a.dists:
        p.error(f"bad --dists: expected some of {' '.join(ladder.DISTS + ladder.RANGE_DISTS)}")
    return a


def fmt_table(rows, n, dist):
    """The comparison table for one size and input distribution: step, lesson, kernel ms,
    GFLOPS, speedup over the first step, % of cuBLAS, end-to-end ms, max and average relative
    error, max componentwise error, verdict."""
    by = {r["program"]: r for r in rows
          if int(r["n"]) == n and r["dist"] == dist and not r["status"].startswith("skipped")}
    first = ladder.STEPS[0] if ladder.STEPS else None  # speedups are over the first step
    base = float(by[first]["kernel_ms"]) if first in by else None
    ceiling = float(by["cublas"]["gflops"]) if "cublas" in by else None
    head = ["program", "lesson", "kernel ms", "GFLOPS", f"x {first}", "% cuBLAS", "end-to-end ms", "max rel err",
            "avg rel err", "comp err", "class", "config"]
    body = []
    for prog in ladder.LADDER:
        r = by.get(prog)
        if not r:
            continue
        k = float(r["kernel_ms"])
        body.append([prog, ladder.LADDER[prog][1], f"{k:.3f}", f"{float(r['gflops']):.0f}",
                     f"{base / k:.2f}" if base else "", f"{100 * float(r['gflops']) / ceiling:.1f}" if ceiling else "",
                     f"{float(r['total_ms']):.2f}", f"{float(r['max_rel_err']):.2e}", f"{float(r['avg_rel_err']):.2e}",
                     f"{float(r['max_comp_err']):.2e}", f"{r['precision']} {r['status']}", r.get("config") or ""])
    return ladder.text_table(head, body, left=(0, 1, len(head) - 1))


def main(argv):
    a = parse_args(argv)
    if a.list:
        for prog in a.programs:
            d = ladder.PROGRAMS[prog]
            print(f"{prog:16s} {d['precision']}  {' '.join(ladder.program_command(prog)):32s} {d['lesson']}")
        return 0
    device = ladder.require_gpu("compare")
    if device is None:
        return ladder.EXIT_NO_GPU
    total = len(a.sizes) * len(a.programs) * len(a.dists)
    rows, failed, reported, skipped, i = [], [], [], {}, 0
    for n in a.sizes:
        for prog, dist in [(p, d) for p in a.programs for d in a.dists]:
            i += 1
            cmd = ladder.program_command(prog) + ["-n", str(n), "--dist", dist, "--reps", str(a.reps), "--csv"]
            print(f"[{i:2d}/{total}] {prog} n={n} {dist} ...", end=" ", flush=True)
            r, code, err = ladder.run_csv(cmd)
            why = ladder.skip_reason(code, err)
            if why:  # recorded, so that the tables say why the program has no figures on this GPU
                skipped[prog] = why
                print(f"skipped: {why}")
                rows.append(ladder.result_row(cmd, {"program": prog, "n": str(n), "device": device, "dist": dist,
                                                    "status": f"skipped: {why}"}))
                continue
            if r is None:
                print(f"exit {code}: {err}")
                failed.append(" ".join(cmd))
                continue
            rows.append(ladder.result_row(cmd, r))
            if code == 1 and prog in a.reported:
                reported.append(" ".join(cmd))
            elif code == 1:
                failed.append(" ".join(cmd))
            print(f"{float(r['kernel_ms']):.3f} ms, {float(r['gflops']):.0f} GFLOPS, "
                  f"max rel err {float(r['max_rel_err']):.2e}, comp err {float(r['max_comp_err']):.2e}, "
                  f"{r['precision']} {r['status']}"
                  + (f", config {r['config']}" if r["config"] else ""), flush=True)
    recorded = ladder.record(os.path.join(a.results, ladder.slug(device) + ".csv"), rows)
    ladder.record_catalogue([ladder.PROGRAMS[p] for p in a.programs], os.path.join(a.results, "programs.csv"))
    for n in a.sizes:
        for dist in a.dists:
            print(f"\n{device}, n = {n}, {dist} inputs\n" + fmt_table(rows, n, dist))
    print(f"\n{recorded}")
    for prog, why in skipped.items():
        print(f"skipped {prog}: {why}")
    if reported:
        print("FAIL, recorded and reported (--reported): " + "; ".join(reported))
    if failed:
        print("FAILED: " + "; ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
