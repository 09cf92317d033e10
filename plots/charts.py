#!/usr/bin/env python3
"""The charts, from results/*.csv (make plots), each from where it belongs: the ladder's from
charts_ladder.py (speedup, GFLOPS against n, accuracy, accuracy against speed, where the
end-to-end time goes: of one device), a chapter's from its charts_<chapter>.py here (each
module's charts(): cpu_<host>.png, transpose_<device>.png, multigpu_<device>.png), a step's
from its folder (its experiments.json's "charts": the function in the step's Python that draws
them). Each is written as PNG and SVG, the same bytes from the same results (plots/drawing.py).
Usage: plots/charts.py [--results DIR] [--out DIR] [--device NAME]
"""
import glob
import importlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))
import ladder  # noqa: E402
import step_plugins  # noqa: E402
import tables_shared  # noqa: E402


def main(argv):
    p = ladder.ArgumentParser(prog="charts.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--results", default=os.path.join(ladder.ROOT, "results"))
    p.add_argument("--out", default=HERE)
    p.add_argument("--device", help="which device's results the ladder's charts draw (default: the one with the "
                   "most rows)")
    a = p.parse_args(argv)
    if not os.path.isdir(a.results):
        print(f"charts.py: no results folder {a.results}", file=sys.stderr)
        return 2
    devices = tables_shared.device_results(a.results)
    # Without a GPU's rows (a CPU chapter's run alone, say) the ladder's charts are left out.
    device = a.device or (max(devices, key=lambda d: len(devices[d])) if devices else None)
    if device is not None and device not in devices:
        print(f"charts.py: no results for device '{device}' in {a.results}", file=sys.stderr)
        return 2
    if os.path.exists(a.out) and not os.path.isdir(a.out):
        print(f"charts.py: --out {a.out} is a file, not a folder", file=sys.stderr)
        return 2
    ladder.require_matplotlib()
    try:
        os.makedirs(a.out, exist_ok=True)
    except OSError as err:
        print(f"charts.py: --out {a.out}: {(err.strerror or str(err)).lower()}", file=sys.stderr)
        return 2
    import drawing  # noqa: F401  (matplotlib set up before any chart module draws)
    for path in sorted(glob.glob(os.path.join(HERE, "charts_*.py"))):
        importlib.import_module(os.path.basename(path)[:-3]).charts(a.results, a.out, device)
    for _, _, draw in step_plugins.step_functions("charts"):
        draw(a.results, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
