"""make sanitize's plan (scripts/sanitize.py) on described programs made up here: which runs,
with which tools, and ONLY= choosing programs. No GPU and no compute-sanitizer needed. TAP
output (tests/18-sanitize-plan.t)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))
import sanitize
from tap import done, ok

# What --describe says of two programs, as ladder.discover() returns it (a fixture).
FOUND = {
    "step05": {"binary": "step05_tiled/step05", "program": "step05", "chapter": "article", "precision": "fp32",
               "configs": []},
    "step14": {"binary": "step14_wgmma_3xtf32/step14", "program": "step14", "chapter": "tensor-cores",
               "precision": "fp32", "configs": ["128x64x32/4", "128x128x32/3"]},
}

plan = sanitize.runs(FOUND, [17, 100])
mine = [p for p in plan if p[2][0] == "step14_wgmma_3xtf32/step14"]
ok(len(mine) == 9 and all(tools == ["memcheck", "racecheck", "synccheck"] for _, tools, _ in mine),
   "step 14: 2 sizes, 2 configurations x 2 distributions, the NaN/Inf inputs and 2 range families, "
   "each under memcheck, racecheck and synccheck (27 runs)", [w for w, _, _ in mine])
ok(any("--load" in cmd and "obj/sanitize_special" in cmd for _, _, cmd in mine)
   and sum("--config" in cmd for _, _, cmd in mine) == 4,
   "step 14 runs on the NaN/Inf inputs and in each configuration")
art = [p for p in plan if p[2][0] == "step05_tiled/step05"]
ok(len(art) == 2 and all(tools == ["memcheck", "racecheck"] for _, tools, _ in art),
   "an article step: its sizes only, without synccheck")
ok(plan[-1][2][0] == "transpose/transpose" and sanitize.runs(FOUND, [17], transpose=False)[-1][2][0] != "transpose/transpose",
   "the transpose chapter comes last, and is left out when asked")

chosen, unknown = sanitize.select(FOUND, "step14")
ok(list(chosen) == ["step14"] and not unknown, "ONLY=step14 keeps step 14 alone")
chosen, unknown = sanitize.select(FOUND, "step14 step99")
ok(unknown == ["step99"], "a name that is not built is reported, not skipped in silence")
done()
