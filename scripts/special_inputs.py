#!/usr/bin/env python3
"""Write DIR/a.npy and DIR/b.npy, n x n float32 (default 300), with an Inf, a -Inf and a NaN in
A and small integers in B (exact in TF32, so their small parts are 0): the inputs that take the
FP32-class tensor-core steps down their NaN and Inf paths (the first of them down its safe split).
make sanitize runs the kernels on them. Standard library only.

Usage: scripts/special_inputs.py DIR [N]
"""
import math
import os
import struct
import sys


def save_npy(path, n, value):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (n, n)
    length = len(header) + 1
    length += (64 - (10 + length) % 64) % 64
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", length) + header.encode()
                + b" " * (length - len(header) - 1) + b"\n")
        for i in range(n):
            f.write(struct.pack("<%df" % n, *(value(i, j) for j in range(n))))


def main(argv):
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    if len(argv) not in (1, 2) or (len(argv) == 2 and not argv[1].isdigit()) or argv[0].startswith("-"):
        print("usage: special_inputs.py DIR [N]  (N: a whole number, at least 3)", file=sys.stderr)
        return 2
    folder, n = argv[0], int(argv[1]) if len(argv) == 2 else 300
    if n < 3:
        print("special_inputs.py: N must be at least 3", file=sys.stderr)
        return 2
    try:
        if os.path.exists(folder) and not os.path.isdir(folder):
            raise NotADirectoryError(0, "is a file, not a folder")
        os.makedirs(folder, exist_ok=True)
        special = {(0, 0): math.inf, (2, 1): -math.inf, (1, 2): math.nan}
        save_npy(os.path.join(folder, "a.npy"), n, lambda i, j: special.get((i, j), float((i + 2 * j) % 7 + 1)))
        save_npy(os.path.join(folder, "b.npy"), n, lambda i, j: float((3 * i + j) % 5 + 1))
    except OSError as err:
        print(f"special_inputs.py: {err.filename or folder}: {(err.strerror or str(err)).lower()}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
