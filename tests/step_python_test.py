"""Runs a step's own Python test (stepNN_name/tests/NAME_test.py, which the step's NAME.t hands
here: tests/lib.pl's exec_step_python_test). The test imports what it tests as modules: tap and
pictures_lib from tests/ (this script's folder, first on the import path, as Python puts it) and
the scripts from scripts/ (put there here), and loads the step's own Python as the machinery does
(scripts/step_plugins.py): so nothing in a step's folder edits the import path.

Usage: tests/step_python_test.py STEP_FOLDER/tests/NAME_test.py
"""
import os
import runpy
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if len(sys.argv) != 2 or not os.path.isfile(sys.argv[1]):
    print("usage: tests/step_python_test.py STEP_FOLDER/tests/NAME_test.py (a file)", file=sys.stderr)
    sys.exit(2)
sys.path.insert(1, os.path.join(ROOT, "scripts"))
runpy.run_path(sys.argv[1], run_name="__main__")
