#!/usr/bin/env python3
"""Which GPUs can a program run on? Lists the machine code (sm_XX) and the PTX
(compute_XX) that the CUDA fat binary inside each program holds, read from its
.nv_fatbin section (objcopy from binutils; no CUDA tool or GPU needed). Machine code
sm_XY runs on GPUs of compute capability X.Y up to X.9; PTX compute_XY is compiled by
the driver for any GPU of X.Y or newer.

Usage: scripts/fatbin_archs.py PROGRAM...   (tests/10-build.t reads the programs with it)
"""
import os
import struct
import subprocess
import sys
import tempfile

import ladder

FATBIN_MAGIC = 0xBA55ED50  # each fat binary in the section starts with it
KIND_PTX, KIND_ELF = 1, 2


def fatbin_archs(exe):
    """{'sm': [75, 80, ...], 'ptx': [120]} for the program at exe; ValueError without a fat binary."""
    with tempfile.NamedTemporaryFile() as tmp:
        p = subprocess.run(["objcopy", "-O", "binary", "--only-section=.nv_fatbin", exe, tmp.name],
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise ValueError(p.stderr.strip() or f"objcopy failed on {exe}")
        data = open(tmp.name, "rb").read()
    found = {"sm": set(), "ptx": set()}
    off = 0
    while off + 16 <= len(data):
        magic, _version, header_size, body_size = struct.unpack_from("<IHHQ", data, off)
        if magic != FATBIN_MAGIC:
            off += 8  # fat binaries are 8-byte aligned within the section
            continue
        entry, end = off + header_size, off + header_size + body_size
        while entry < end:
            kind, _, entry_header, size = struct.unpack_from("<HHIQ", data, entry)
            arch = struct.unpack_from("<I", data, entry + 28)[0]
            if kind in (KIND_PTX, KIND_ELF):
                found["ptx" if kind == KIND_PTX else "sm"].add(arch)
            entry += entry_header + size
        off = end
    if not found["sm"] and not found["ptx"]:
        raise ValueError(f"{exe}: no CUDA fat binary in it")
    return {k: sorted(v) for k, v in found.items()}


def describe(archs):
    return ("machine code " + " ".join(f"sm_{a}" for a in archs["sm"]) if archs["sm"] else "no machine code") + \
        ("; PTX " + " ".join(f"compute_{a}" for a in archs["ptx"]) if archs["ptx"] else "; no PTX")


def main(argv):
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    options = [a for a in argv if a.startswith("-")]
    if not argv or options:
        print(f"fatbin_archs.py: {'unknown option ' + repr(options[0]) if options else 'no program named'}"
              " (usage: scripts/fatbin_archs.py PROGRAM...)", file=sys.stderr)
        return ladder.EXIT_USAGE
    ladder.require_tool("objcopy", "the programs' fat binaries are read with binutils' objcopy")
    status = 0
    for exe in argv:
        if not os.path.isfile(exe):
            print(f"fatbin_archs.py: '{exe}' is not a file", file=sys.stderr)
            status = 2
            continue
        try:
            print(f"{exe}: {describe(fatbin_archs(exe))}")
        except ValueError as err:
            print(f"fatbin_archs.py: {err}", file=sys.stderr)
            status = 2
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
