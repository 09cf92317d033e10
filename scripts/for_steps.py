"""What a step's own Python is handed: the one object (this module) that scripts/step_plugins.py
passes as the first argument, `shared`, of every function a step declares (its tables, charts,
prose values, sweeps and pictures). The step's module imports only the standard library and
matplotlib; what it needs of the repository comes from here, named as it is where it lives:

  the results and the programs (scripts/ladder.py): ROOT, DISTS, RANGE_DISTS, REFERENCE_NAMES,
      label, slug, read_results, merge_results, result_row, record, now_stamp, text_table,
      describe, step_binary, program_command, require_tool, require_gpu, run_csv, skip_reason,
      build_variant, arch_flags, EXIT_USAGE, EXIT_NO_GPU
  the tables (scripts/tables_shared.py): e, f, table, sweep_cells
  the runner (scripts/experiment.py): Run, measure, Log, log_header, results_path
  the drawing library (plots/drawing.py): drawing (matplotlib set up to write the same bytes)

The runner and the drawing library are loaded when first asked for (the drawing library needs
matplotlib, which the tables do not).
"""
import importlib.util
import os
import sys

from ladder import (DISTS, EXIT_NO_GPU, EXIT_USAGE, RANGE_DISTS, REFERENCE_NAMES, ROOT, arch_flags,  # noqa: F401
                    build_variant, describe, label, merge_results, now_stamp, program_command, read_results,
                    record, require_gpu, require_tool, result_row, run_csv, skip_reason, slug, step_binaries,
                    text_table)
from tables_shared import e, f, sweep_cells, table  # noqa: F401

RUNNER_NAMES = ("Run", "measure", "Log", "log_header", "results_path")


def step_binary(program):
    """A step's program ("stepNN_name/stepNN") from its name ("stepNN")."""
    return next(b for b in step_binaries() if os.path.basename(b) == program)


def _drawing():
    """plots/drawing.py, once: the module the charts import, or loaded here by its path."""
    if "drawing" not in sys.modules:
        spec = importlib.util.spec_from_file_location("drawing", os.path.join(ROOT, "plots", "drawing.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules["drawing"] = module
        spec.loader.exec_module(module)
    return sys.modules["drawing"]


def __getattr__(name):
    if name == "drawing":
        return _drawing()
    if name in RUNNER_NAMES:
        import experiment  # here, not above: the runner loads the steps' sweeps through this module
        return getattr(experiment, name)
    raise AttributeError(f"for_steps has no '{name}': a step's Python gets what scripts/for_steps.py lists")
