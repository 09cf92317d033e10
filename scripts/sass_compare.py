#!/usr/bin/env python3
"""Whether a change left the machine code alone: every step, development version and declared build
variant compiled from a commit and from the working tree (one architecture each: a step's own, such
as sm_90a, else sm_90), and each kernel's SASS compared instruction for instruction, its addresses,
encodings and the translation unit's internal name prefix left out. For a change that moves code
(into a header, a shared function) and must not change what the GPU runs. No GPU needed.

Usage: scripts/sass_compare.py REV [--only stepNN ...]
Prints a line per compiled file and exits 1 if any kernel differs or is missing on one side."""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ladder  # noqa: E402


def step_arch(tree, folder):
    """The architecture a step folder's Makefile declares (STEP_ARCH := sm_90a), else sm_90."""
    try:
        m = re.search(r"^STEP_ARCH\s*:?=\s*(\S+)", open(os.path.join(tree, folder, "Makefile")).read(), re.M)
    except OSError:
        m = None
    return m.group(1) if m else "sm_90"


def variants(tree, folder):
    """[-DPARAM=value, ...] of the build variants a step declares (its experiments.json)."""
    try:
        declared = json.load(open(os.path.join(tree, folder, "experiments.json"))).get("variants")
    except OSError:
        return []
    return [f"-D{declared['parameter']}={v}" for v in declared["values"]] if declared else []


def cubin(tree, source, arch, define, out):
    """The source compiled in tree to a cubin (None, and the compiler's words, where it fails)."""
    gencode = f"-gencode=arch={arch.replace('sm_', 'compute_')},code={arch}"
    p = subprocess.run(["nvcc", "-O3", gencode, "-Icommon"] + ([define] if define else []) + ["-cubin", "-o", out,
                       source], cwd=tree, capture_output=True, text=True)
    return (out, "") if p.returncode == 0 else (None, p.stderr.strip().splitlines()[-1:])


def kernels(path):
    """{kernel (demangled, internal prefix left out): [its instructions]}."""
    out = subprocess.run(["cuobjdump", "-sass", path], capture_output=True, text=True, check=True).stdout
    found, name = {}, None
    for line in out.splitlines():
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            name = subprocess.run(["c++filt", m.group(1)], capture_output=True, text=True).stdout.strip()
            name = re.sub(r"_INTERNAL_[0-9a-f_]+", "", name)
            found[name] = []
        elif name is not None:
            ins = re.sub(r"/\*[0-9a-f]{4,}\*/|/\* 0x[0-9a-f]+ \*/", "", line).strip()
            ins = re.sub(r"_INTERNAL_[0-9a-f_]+", "", ins)
            if ins and not ins.startswith(".") and ins not in ("{", "}"):
                found[name].append(ins)
    return found


def main(argv):
    parser = ladder.ArgumentParser(prog="scripts/sass_compare.py", description=__doc__.splitlines()[0])
    parser.add_argument("rev", help="the commit to compare the working tree with")
    parser.add_argument("--only", nargs="+", default=None, help="these steps only (stepNN)")
    args = parser.parse_args(argv)
    ladder.require_tool("nvcc")
    ladder.require_tool("cuobjdump", "the kernels' SASS is read with the CUDA toolkit's cuobjdump")
    ladder.require_tool("git", "the commit's tree is read with git")
    if subprocess.run(["git", "rev-parse", "--verify", "--quiet", args.rev + "^{commit}"], cwd=ladder.ROOT,
                      capture_output=True).returncode != 0:
        print(f"scripts/sass_compare.py: '{args.rev}' is no commit here", file=sys.stderr)
        return ladder.EXIT_USAGE
    new_tree = ladder.ROOT
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        old_tree = os.path.join(tmp, "old")
        os.makedirs(old_tree)
        archive = subprocess.run(["git", "archive", args.rev], cwd=ladder.ROOT, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", old_tree], input=archive.stdout, check=True)
        folders = sorted(d for d in os.listdir(new_tree) if re.fullmatch(r"step\d\d_\w+", d)
                         and (not args.only or d.split("_")[0] in args.only))
        unknown = sorted(set(args.only or []) - {d.split("_")[0] for d in folders})
        if unknown:
            print(f"scripts/sass_compare.py: --only {' '.join(unknown)}: no such step here", file=sys.stderr)
            return ladder.EXIT_USAGE
        for folder in folders:
            program = folder.split("_")[0]
            sources = [(f"{folder}/{program}.cu", d) for d in [""] + variants(new_tree, folder)]
            sources += [(os.path.relpath(v, new_tree), "") for v in
                        sorted(glob.glob(os.path.join(new_tree, folder, "versions", "*.cu")))]
            arch = step_arch(new_tree, folder)
            for source, define in sources:
                label = source + (f" {define}" if define else "")
                if not os.path.exists(os.path.join(old_tree, source)):
                    print(f"{label}: new (not in {args.rev})")
                    continue
                old, why_old = cubin(old_tree, source, arch, define, os.path.join(tmp, "old.cubin"))
                new, why_new = cubin(new_tree, source, arch, define, os.path.join(tmp, "new.cubin"))
                if not old or not new:
                    print(f"{label}: does not compile ({'before' if not old else 'now'}): {why_old or why_new}")
                    failed += 1
                    continue
                before, after = kernels(old), kernels(new)
                same = [k for k in before if before[k] == after.get(k)]
                differ = sorted((set(before) | set(after)) - set(same))
                counted = sum(len(before[k]) for k in same)
                print(f"{label} ({arch}): {len(same)} kernels identical ({counted} instructions)"
                      + (f"; DIFFERENT: {', '.join(differ)}" if differ else ""))
                failed += bool(differ)
    print(f"{'no kernel changed' if not failed else f'{failed} files with changed kernels'} (against {args.rev})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
