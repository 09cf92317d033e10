"""The prose check (scripts/prose.py) can fail: a stale number, a false claim, an unmarked
measured number and a bad expression are each reported; a right one is not. On the
recorded results, no GPU needed. TAP output (tests/11-prose.t)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, HERE)
import prose  # noqa: E402
from tap import done, ok  # noqa: E402

results = prose.Results(os.path.join(ROOT, "results"))
value = results.functions()["tflops"]("step01", 1000)
right = f"step 01 runs at <!--= tflops(\"step01\", 1000) | .1f -->{value:.1f}<!--/=--> TFLOPS."
text, problems = prose.render(right, results, "X.md")
ok(not problems and text == right, "a number that matches results/ passes", problems)

wrong = right.replace(f"-->{value:.1f}<!--/=-->", f"-->{value + 1:.1f}<!--/=-->")
text, problems = prose.render(wrong, results, "X.md")
ok(len(problems) == 1 and "is stale" in problems[0] and text == right,
   "a number that contradicts results/ is reported, and the rewrite puts the measured one back", problems)

claim = 'Step 10 is faster than step 09. <!--? ms("step10", 4096) < ms("step09", 4096) -->'
ok(not prose.render(claim, results, "X.md")[1], "a true claim passes")
false_claim = 'Step 09 is faster than step 10. <!--? ms("step09", 4096) < ms("step10", 4096) -->'
problems = prose.render(false_claim, results, "X.md")[1]
ok(len(problems) == 1 and "false:" in problems[0], "a false claim is reported", problems)

problems = prose.render('<!--= tflops("step99", 1000) | .1f -->1<!--/=-->', results, "X.md")[1]
ok(len(problems) == 1 and "cannot evaluate" in problems[0], "an expression with no result behind it is reported",
   problems)

unmarked = "Step 01 runs at 5.2 TFLOPS and 0.385 ms, 2.2e-06 off.\n\n| a | 3.1x |\n\n```\n9.9 ms in code\n```\n"
problems = prose.lint(unmarked, "X.md", set())
ok(len(problems) == 4, "the lint finds the unmarked measured numbers in prose and in typed tables, not in code",
   problems)
ok(not prose.lint(unmarked, "X.md", {("X.md", "5.2 TFLOPS"), ("X.md", "0.385 ms"), ("X.md", "2.2e-06"),
                                     ("X.md", "3.1x")}),
   "... and none that are listed as not measured")

words = "The error is 3.6 times SGEMM's, 9.46 u off; a kernel 8 times as long.\n"
problems = prose.lint(words, "X.md", set())
ok(len(problems) == 2 and "'3.6 times'" in problems[0] and "'9.46 u'" in problems[1],
   "ratios and ulps written as words are measured numbers too (whole numbers, usually arithmetic, are not)",
   problems)
problems = prose.lint("FP32-accurate on every input FP32 can hold. Built for sm_90a, which no other GPU has.\n",
                      "X.md", set())
ok(len(problems) == 2 and all("no limit" in p for p in problems), "claims that admit no limit are reported", problems)
commands = ("`ncu` at n = 4096 (`make profile STEP=11`): the tensor pipe.\n\n"
            "At n = 4096, `make profile STEP=11 NCU_N=4096`.\n\n"
            "At n = 1000, `make profile STEP=11`.\n\n"
            "`diff versions/step14_v2_range.cu versions/step14_v3_special.cu` shows it.\n\n"
            "```sh\ndiff step14_wgmma_3xtf32/versions/step14_v2_range.cu step14_wgmma_3xtf32/versions/step14_v3_special.cu\n```\n")
problems = prose.command_problems(commands, "X.md")
ok(len(problems) == 3 and "NCU_N" in problems[0] and all("no file" in p for p in problems[1:]),
   "a make profile that profiles another n than the text cites, and a diff of paths that are not there, are "
   "reported; the right commands are not", problems)
first = prose.ladder.first_step()
second = prose.ladder.step_binaries()[1].split("/")[1]
chain = prose.ladder.version_chains()[0]
problems = prose.command_problems(f"`make diff STEP={first[4:]}`, `make diff STEP={second[4:]}`, "
                                  f"`make diff VERSION={chain[-1]['program']}`, `make diff VERSION=nothing_v9`\n", "X.md")
ok(len(problems) == 2 and f"STEP={first[4:]}" in problems[0] and "nothing_v9" in problems[1],
   "a make diff of the first step or of no version is reported; of a later step or a chain's step is not", problems)
done()
