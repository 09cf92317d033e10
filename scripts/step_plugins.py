"""A step's own Python, loaded as a plug-in: the functions its experiments.json names ("sweeps",
"tables", "charts", "prose": each {"function": "module.function"}, module.py in the step's folder)
and its pictures (pictures.py's draw). Each module is imported here by its path, never found on
sys.path, and imports nothing of the repository's: what it needs of the machinery comes in as
every function's first argument, `shared` (scripts/for_steps.py). So nothing in a step's folder
edits sys.path, and no step module imports the scripts that load it. Standard library only.
"""
import functools
import glob
import importlib.util
import os

import for_steps
import ladder

_modules = {}


def load(folder, module):
    """The module folder/module.py of a step (folder: "stepNN_name"), imported once, as
    "<program>_<module>" (a copy of a step loads its own)."""
    path = os.path.join(ladder.ROOT, folder, module + ".py")
    if path not in _modules:
        spec = importlib.util.spec_from_file_location(f"{folder.split('_')[0]}_{module}", path)
        _modules[path] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(_modules[path])
    return _modules[path]


def function(folder, name):
    """A step's function ("module.function" in its folder), with the shared helpers bound as its
    first argument: what the machinery calls."""
    module, fn = name.rsplit(".", 1)
    return functools.partial(getattr(load(folder, module), fn), for_steps)


def step_functions(kind):
    """[(program, name, function)]: what the steps' experiments.json declare under kind ("tables",
    "charts", "prose": each a name and its {"function": "module.function", "why"}), each loaded
    from its step's folder with the shared helpers bound (function()), in the ladder's order."""
    return [(program, name, function(ladder.step_folder(program), entry["function"]))
            for program, entries in ladder.experiments(kind) for name, entry in entries.items()]


def step_pictures():
    """Every step folder's pictures.py, loaded, in the ladder's order: [(folder, module)]; a
    module's draw(shared, out) draws its pictures (draw_pictures)."""
    for_steps.drawing  # noqa: B018  matplotlib set up (plots/drawing.py) before a pictures.py imports it
    return [(os.path.basename(os.path.dirname(path)), load(os.path.basename(os.path.dirname(path)), "pictures"))
            for path in sorted(glob.glob(os.path.join(ladder.ROOT, "step[0-9][0-9]_*", "pictures.py")))]


def draw_pictures(module, out):
    """A step's pictures (its pictures.py's draw), drawn into out with the shared helpers."""
    module.draw(for_steps, out)
