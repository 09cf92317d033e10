#!/usr/bin/env python3
"""The charts, from results/*.csv (make plots), each from where it belongs: the ladder's from
charts_ladder.py (speedup, GFLOPS against n, accuracy, accuracy against speed, where the
end-to-end time goes: of one device), a chapter's from its charts_<chapter>.py here (each
module's charts(): cpu_<host>.png, transpose_<device>.png, multigpu_<device>.png), a step's
from its folder (its experiments.json's "charts": the function in the step's Python that draws
them). Each is written as PNG and SVG, the same bytes from the same results (plots/drawing.py).
Usage: plots/charts.py [--results DIR] [--out DIR] [--device NAME]
"""
import csv
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
        print(f"charts.py: no results folder {a.results}" + (" (it is a file)" if os.path.exists(a.results) else ""),
              file=sys.stderr)
        return 2
    files = sorted(glob.glob(os.path.join(a.results, "*.csv")))
    if not files:
        print(f"charts.py: no results in {a.results} (no .csv file): make compare, make cpu and the other "
              "measurements record theirs into results/local/", file=sys.stderr)
        return 2
    if os.path.exists(a.out) and not os.path.isdir(a.out):
        print(f"charts.py: --out {a.out} is a file, not a folder", file=sys.stderr)
        return 2
    # Every file read whole before anything is drawn: one that is not UTF-8 CSV, or holds a
    # word where a number belongs, is named with its line (ladder.read_results); a column a
    # chart asks of a file that lacks it, when the chart asks (ladder.MissingColumn).
    try:
        for path in files:
            ladder.read_results(path)
        devices = tables_shared.device_results(a.results)
        # Without a GPU's rows (a CPU chapter's run alone, say) the ladder's charts are left out.
        device = a.device or (max(devices, key=lambda d: len(devices[d])) if devices else None)
        if device is not None and device not in devices:
            print(f"charts.py: no results for device '{device}' in {a.results}", file=sys.stderr)
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
    except ladder.ResultsError as err:
        print(f"charts.py: {err}", file=sys.stderr)
        return 2
    except KeyError as err:
        lacking = files_lacking(err, files)
        if not lacking:
            raise
        print(f"charts.py: a chart reads the column '{err.args[0]}', which {', '.join(lacking)} "
              f"{'lacks' if len(lacking) == 1 else 'lack'}", file=sys.stderr)
        return 2
    return 0


def header(path):
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        return next(csv.reader(f), [])


def files_lacking(err, files):
    """The results files that lack the column a chart asked for, where the chart copied rows into
    dicts of its own (a bare KeyError, not ladder.MissingColumn); None where the key is no
    recorded results file's column: a fault of the chart, whose traceback should show."""
    column = err.args[0] if err.args else None
    recorded = {c for path in glob.glob(os.path.join(ladder.REFERENCE_RESULTS, "*.csv")) for c in header(path)}
    if not isinstance(column, str) or column not in recorded:
        return None
    return [path for path in files if column not in header(path)] or None


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
