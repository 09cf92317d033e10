"""The steps' pictures (make plots): each step that has pictures draws them in its own folder's
pictures.py (its draw(shared, out)), from the rules its kernel uses, written there as index
formulas (nothing placed by hand), with the drawing library plots/drawing.py, which it is handed
(shared.drawing: scripts/step_plugins.py loads the step's module). This finds them
(step*/pictures.py) and draws them all into plots/, as PNG and SVG, the same bytes every run.
No results are read.

Usage: plots/tensor_pictures.py [--out DIR] [--step FOLDER]   (--step: that step's pictures alone)
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))
import ladder  # noqa: E402  (one-line refusals, matplotlib's check)
import step_plugins  # noqa: E402  (finds and loads each step's pictures.py)


def main(argv):
    p = ladder.ArgumentParser(prog="tensor_pictures.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=HERE)
    p.add_argument("--step", help="only this step folder's pictures (stepNN_name)")
    a = p.parse_args(argv)
    if os.path.exists(a.out) and not os.path.isdir(a.out):
        p.error(f"--out {a.out} is a file, not a folder")
    ladder.require_matplotlib()  # the pictures.py files draw with it (plots/drawing.py)
    found = [(folder, module) for folder, module in step_plugins.step_pictures() if a.step in (None, folder)]
    if a.step and not found:
        p.error(f"no pictures.py in a step folder '{a.step}'")
    os.makedirs(a.out, exist_ok=True)
    for _, module in found:
        step_plugins.draw_pictures(module, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
