"""The prose check (scripts/prose.py) can fail: a stale number, a false claim, an unmarked
measured number and a bad expression are each reported; a right one is not. On the
recorded results, no GPU needed. TAP output (tests/11-prose.t)."""
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import prose
from tap import done, ok

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

# The page checks: process words, the word limit, glossary terms, the top README's shape.
notebook = ("The first draft took 1.57 ms (run 2). On the development machine we had one GPU, lent by the "
            "device tool; the goals this step was built for were not met.\n\n## How it got there\n")
problems = prose.process_problems(notebook, "X.md")
ok(len(problems) == 8 and "How it got there" in problems[0],
   "process words and a lab notebook's section titles are reported", problems)
ok(not prose.process_problems("The kernel runs 3 times as fast; it runs 128 x 64 tiles in 4 stages.\n", "X.md"),
   "... and 'runs' followed by a measurement is not a run's number")
# Words about the machinery that lent the GPUs and ran the work ("in the same call", a machine
# "lent", "in one sitting": prose.MACHINERY_WORDS) and a development run named as such: no page says
# them, and scripts/readme_tables.py --check reports them (prose.PROCESS_WORDS). results/*.md, which
# the pages' check does not read, is read here for the machinery's words alone (a development run
# is a development log's subject).
MACHINERY = prose.MACHINERY_WORDS
DEVELOPMENT_RUNS = [w for w in prose.NOTEBOOK_WORDS if "development run:" in w[1]]
ok(len(DEVELOPMENT_RUNS) == 1 and all(w in prose.PROCESS_WORDS for w in MACHINERY + DEVELOPMENT_RUNS),
   "the machinery's words and the development run are the pages' process words (prose.PROCESS_WORDS)")
machinery_problems = prose.words_problems
notebook = ("Measured in the same call as step 17, and in a development\nrun before; the first device call "
            "was cut at the call's limit, on a machine lent for an hour.\n\n- **First call:** one sitting.\n")
problems = machinery_problems(notebook, "X.md", MACHINERY + DEVELOPMENT_RUNS)
ok(len(problems) == 7 and "in the same call" in problems[0] and any("'development run'" in p for p in problems),
   "machinery words (a device call, a machine lent, a sitting) and a development run are reported, a line "
   "break in the phrase too", problems)
ok(sorted(prose.process_problems(notebook, "X.md")) == sorted(problems),
   "... by the pages' check too (scripts/readme_tables.py --check)", prose.process_problems(notebook, "X.md"))
ok(not machinery_problems("The harness calls both; a call to cudaMemcpy in one call to cuBLAS; beta = 0 for the "
                          "first call and 1 after; the products in as few calls as the arrivals allow.\n",
                          "X.md", MACHINERY + DEVELOPMENT_RUNS),
   "... and a function's calls are not")
pages = [p for p in prose.readmes(ROOT) if os.path.relpath(p, ROOT) != os.path.join("results", "README.md")]
found = []
for path in pages + sorted(glob.glob(os.path.join(ROOT, "results", "*.md"))):
    where = os.path.relpath(path, ROOT)
    patterns = MACHINERY if where.startswith("results" + os.sep) else MACHINERY + DEVELOPMENT_RUNS
    found += machinery_problems(open(path, encoding="utf-8").read(), where, patterns)
ok(not found, "no page names the machinery that ran the work, nor a development run (results/*.md: the machinery)",
   found)

lesson = os.path.join(ROOT, "step99_x", "README.md")
long_page = "word " * (prose.WORD_LIMIT + 1) + "<!-- " + "hidden " * 5000 + "-->\n| a | b |\n|---|---|\n"
anchors = prose.glossary_anchors(ROOT)
problems = prose.page_problems(long_page, lesson, ROOT, anchors, [])
ok(len(problems) == 1 and "over the lesson limit" in problems[0], "a lesson page over the word limit is reported",
   problems)
ok(not prose.page_problems("word " * (prose.WORD_LIMIT - 2) + "<!-- " + "hidden " * 5000 + "-->\n| 1 | 2 |\n",
                           lesson, ROOT, anchors, []),
   "... and one at the limit is not (comments, the markers' expressions and table bars are not rendered words; "
   "the cells are)")
terms = [(r"\b[Bb]inades?\b", "binade")]
problems = prose.glossary_problems("A row that spans 18 binades.\n", "X.md", anchors, terms)
ok(len(problems) == 1 and "link GLOSSARY.md#binade" in problems[0],
   "a glossary term used without a link to its entry is reported", problems)
ok(not prose.glossary_problems("A row that spans 18 [binades](GLOSSARY.md#binade).\n", "X.md", anchors, terms),
   "... and not once it is linked")
problems = prose.glossary_problems("See [the quad](GLOSSARY.md#no-such-entry).\n", "X.md", anchors,
                                   [(r"\bfrobnicate\b", "frobnicate")])
ok(len(problems) == 2 and "no such entry" in problems[0] and "lacks" in problems[1],
   "a link to an entry the glossary lacks, and a term listed with no entry, are reported", problems)
ok(all(a in anchors for _, a in prose.read_terms(os.path.join(HERE, "glossary_terms.txt"))),
   "every term in tests/glossary_terms.txt has its glossary entry")
# The wide family's binades, as the generator makes them (common/inputs.c: +-m 2^e, m in [1, 2), e in
# lo..hi): its values lie in hi - lo + 1 binades, and a long row spans hi - lo (the glossary's Binade).
# A page that says how many binades wide rows span, or lie in, must say that.
def wide_problems(text, where, binades, span):
    prose_text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", "\n".join(line for _, line in prose.prose_lines(text)))
    problems = []
    for pattern, want, what in ((r"\bwide\b(?:(?!\bmixed\b)[^.?!])*?\bspan(?:s|ning)?\s+(\d+)\b", span, "spans"),
                                (r"\bwide\b(?:(?!\bmixed\b)[^.?!])*?\b(?:in|over)\s+(?:the\s+)?(\d+)\s+binades\b",
                                 binades, "lies in")):
        for m in re.finditer(pattern, prose_text, re.I):
            if int(m.group(1)) != want:
                problems.append(f"{where}:{prose_text.count(chr(10), 0, m.start(1)) + 1}: a wide row {what} "
                                f"{want} binades (common/inputs.c), not {m.group(1)}")
    return problems


inputs_c = open(os.path.join(ROOT, "common", "inputs.c"), encoding="utf-8").read()
exponents = re.search(r'\{"wide",\s*"[^"]*\be in (-?\d+)\.\.(-?\d+)"', inputs_c)
ok(exponents, "common/inputs.c describes the wide family's exponents ('e in lo..hi')")
if exponents:
    lo, hi = int(exponents.group(1)), int(exponents.group(2))
    problems = wide_problems("Wide rows span 17, and the wide inputs lie in 16 binades; mixed rows span 80.\n",
                             "X.md", hi - lo + 1, hi - lo)
    ok(len(problems) == 2 and "not 17" in problems[0] and "not 16" in problems[1],
       "a page that gets the wide family's binades wrong is reported", problems)
    problems = []
    for path in prose.readmes(ROOT):
        problems += wide_problems(open(path, encoding="utf-8").read(), os.path.relpath(path, ROOT), hi - lo + 1,
                                  hi - lo)
    ok(not problems, f"the pages agree with the generator: wide values lie in {hi - lo + 1} binades, a long row "
       f"spans {hi - lo}", problems)

top = "# T\n\n" + "word " * 81 + "\n\n" + "\n" * 40 + "## Start here\n"
problems = prose.top_readme_problems(top)
ok(len(problems) == 3 and "Start here" in problems[0] and "opening" in problems[1] and "contents" in problems[2],
   "a top README with a long opening, no contents and 'Start here' far down is reported", problems)
ok(not prose.top_readme_problems("# T\n\nShort.\n\n- [Start here](#start-here)\n\n## Start here\n"),
   "... and a short one with its contents is not")
problems = prose.layout_problems("## Layout\n\n```\ncommon/ the harness\n```\n")
ok(any("scripts/" in p for p in problems) and any("ladder.py" in p for p in problems) and not any("common/" in p for p in problems),
   "a Layout section that omits a folder or a script is reported", problems)
ok(not prose.layout_problems(open(os.path.join(ROOT, "README.md")).read()), "... and the top README's names them all")
links = ("[a](step01_naive/) [b](GLOSSARY.md#warp) [c](step01_naive/step01.cu#L1) [d](nowhere.md) "
         "[e](GLOSSARY.md#no-such-heading) [f](step01_naive/step01.cu#L99999) [g](https://example.org/x)\n")
problems = prose.link_problems(links, os.path.join(ROOT, "X.md"))
ok(len(problems) == 3 and "no file" in problems[0] and "no heading" in problems[1] and "past the file" in problems[2],
   "links to no file, to no heading and past a source's last line are reported; good ones and web links are not",
   problems)
done()
