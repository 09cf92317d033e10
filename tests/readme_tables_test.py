"""scripts/readme_tables.py's conditions(), the line under a generated table that names the card and
its conditions, on made-up results (labelled as such, never a measurement): rows recorded with the
conditions' columns, rows recorded before them, both in one file; a match and a glob; the rows of a
skipped program and the CPU's left out; several cards, two devices, runs under shared-memory caps,
rows measured under ncu, "ladder"; and the marker a page writes, rendered and linted as
scripts/readme_tables.py renders pages. No GPU needed. TAP output, through tests/04-readme-tables.t."""
import csv
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))
import prose
import readme_tables
from readme_tables import conditions
from tap import done, ok

DEVICE = "Fixture GPU (test data, not a measurement)"
OLD = ["date", "command", "program", "n", "device", "kernel_ms", "status"]
NEW = OLD + ["device_uuid", "sm_clock_mhz", "power_limit_w", "driver_version", "cuda_runtime_version",
             "cublas_version"]
CARD_A, CARD_B = "GPU-00000000-1111-2222-3333-444444444444", "GPU-55555555-6666-7777-8888-999999999999"


def write(path, columns, rows):
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=columns, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)


def measured(program, date, **more):
    return dict(dict(date=date, command=f"{program} --csv", program=program, n="1000", device=DEVICE,
                     kernel_ms="1.0", status="pass"), **more)


def recorded(program, clock, uuid=CARD_A, cublas="", driver="580.65.06", power="700"):
    return measured(program, "2026-03-01T10:00Z", device_uuid=uuid, sm_clock_mhz=clock, power_limit_w=power,
                    driver_version=driver, cuda_runtime_version="13.0", cublas_version=cublas)


with tempfile.TemporaryDirectory() as tmp:
    write(os.path.join(tmp, "old.csv"), OLD,
          [measured("step01", "2026-01-01T09:00Z"), measured("step02", "2026-01-03T09:00Z"),
           measured("step10", "2026-01-09T09:00Z", status="skipped: step10 needs compute capability 8.0")])
    got = conditions(tmp, "old.csv")
    ok(got == f"{DEVICE}, 2026-01-01 to 2026-01-03 (clock not recorded)",
       "rows recorded before the conditions' columns: the device and the dates they were measured, the skipped "
       "program's left out", got)
    got = conditions(tmp, "old.csv", program="step02")
    ok(got == f"{DEVICE}, 2026-01-03 (clock not recorded)", "a match picks the rows: one date", got)

    write(os.path.join(tmp, "new.csv"), NEW,
          [recorded("step01", "1420"), recorded("step02", "1970", uuid=CARD_B), recorded("step03", ""),
           recorded("cublas", "1755", cublas="13.1.0")])
    got = conditions(tmp, "new.csv")
    ok(got == f"{DEVICE} (2 cards), SM clock 1.42\u20131.97 GHz (mean over the timed launches), power limit 700 W, "
              "driver 580.65.06, CUDA 13.0, cuBLAS 13.1.0",
       "rows with their conditions: the cards, the range of the clocks' means, the power limit, the driver, CUDA, "
       "cuBLAS's version from the row that links it", got)
    got = conditions(tmp, "new.csv", program="step01")
    ok(got == f"{DEVICE}, SM clock 1.42 GHz (mean over the timed launches), power limit 700 W, driver 580.65.06, "
              "CUDA 13.0", "one row: one clock, no cuBLAS where its program does not link it", got)
    got = conditions(tmp, "new.csv", program="step03")
    ok(got.startswith(f"{DEVICE}, SM clock not recorded, power limit 700 W"),
       "a row without NVML's clock says so and keeps what it has", got)

    # A file recorded again keeps its older rows, the conditions' columns empty for them.
    write(os.path.join(tmp, "mixed.csv"), NEW,
          [measured("step01", "2026-01-01T09:00Z"), recorded("step02", "1900", driver="570.86.15"),
           recorded("step03", "1800", driver="580.65.06", power="650")])
    got = conditions(tmp, "mixed.csv")
    ok(got == f"{DEVICE}, SM clock 1.80\u20131.90 GHz (mean over the timed launches), power limit 650\u2013700 W, "
              "driver 570.86.15 and 580.65.06, CUDA 13.0, clock not recorded for the rows of 2026-01-01",
       "old and new rows in one file: each value once, several joined, the older rows' dates named", got)

    # The transpose's CPU variants and the multi-GPU chapter's GPUs (uuids, one power limit each).
    write(os.path.join(tmp, "chapter-transpose.csv"), NEW,
          [dict(recorded("naive", "1600"), device=DEVICE), dict(measured("cpu", "2026-03-01T10:00Z"), device="CPU")])
    got = conditions(tmp, "chapter-transpose.csv")
    ok(got.startswith(f"{DEVICE}, SM clock 1.60 GHz") and "CPU" not in got, "the CPU's rows are left out", got)
    write(os.path.join(tmp, "chapter-multigpu.csv"), OLD + ["uuids"] + NEW[len(OLD) + 1:],
          [dict(recorded("summa", "1650", power="700 650"), uuids=" ".join(f"GPU-{i}" for i in range(4)))])
    got = conditions(tmp, "chapter-multigpu.csv")
    ok(got.startswith(f"{DEVICE} (4 cards), SM clock 1.65 GHz") and "power limit 650\u2013700 W" in got,
       "several GPUs in one row: the cards its uuids name, each one's power limit", got)

    got = conditions(tmp, "[mno]*.csv")
    ok(got.startswith(f"{DEVICE} (2 cards), SM clock 1.42\u20131.97 GHz") and
       got.endswith("clock not recorded for the rows of 2026-01-01 to 2026-01-03"),
       "a glob reads the files it matches together", got)
    for name, match in (("nothing.csv", {}), ("old.csv", {"program": "step99"}), ("old.csv", {"program": "step10"})):
        try:
            conditions(tmp, name, **match)
            ok(False, f"no rows ({name}, {match}): an error, not a line about nothing")
        except KeyError as err:
            ok("no measured rows" in str(err), f"no rows ({name}, {match}): an error, not a line about nothing")

    # Two cards of different kinds, device by device; rows measured under ncu, with its clock.
    write(os.path.join(tmp, "two.csv"), NEW,
          [measured("step01", "2026-01-01T09:00Z"), dict(recorded("step01", "1980"), device="Another GPU (fixture)")])
    got = conditions(tmp, "two.csv")
    ok(got == "Another GPU (fixture), SM clock 1.98 GHz (mean over the timed launches), power limit 700 W, driver "
              f"580.65.06, CUDA 13.0; {DEVICE}, 2026-01-01 (clock not recorded)",
       "two devices: each with its own conditions, one after the other", got)
    write(os.path.join(tmp, "kernels-step19-passes.csv"), OLD + ["sm_ghz"],
          [dict(measured("step19", "2026-01-05T09:00Z"), sm_ghz=g) for g in ("1.49", "1.98")])
    got = conditions(tmp, "kernels-step19-passes.csv")
    ok(got == f"{DEVICE}, 2026-01-05, SM clock 1.49\u20131.98 GHz (as ncu measured each kernel)",
       "rows measured under ncu: the clock ncu measured over each kernel", got)

    # "ladder": the comparison's files, whatever devices they are of, without the capped runs.
    with tempfile.TemporaryDirectory() as other:
        write(os.path.join(other, "gpu-a.csv"), OLD, [measured("step01", "2026-01-01T09:00Z")])
        write(os.path.join(other, "gpu-b.csv"), NEW, [dict(recorded("step01", "1700"), device="GPU B (fixture)")])
        write(os.path.join(other, "gpu-a-capped-to-99-kb.csv"), OLD,
              [dict(measured("step10", "2026-01-02T09:00Z"), device=f"{DEVICE} capped to 99 KB")])
        write(os.path.join(other, "gpu-a-transpose.csv"), NEW, [recorded("naive", "1200")])
        write(os.path.join(other, "gpu-a-capped-to-64-kb.csv"), OLD,
              [dict(measured("step10", "2026-01-02T09:00Z"), device=f"{DEVICE} capped to 64 KB")])
        got = conditions(other, "*-capped-to-*.csv")
        ok(got == f"{DEVICE} capped to 64 and 99 KB, 2026-01-02 (clock not recorded)",
           "runs under shared-memory caps: the device named once, with its caps", got)
        got = conditions(other, "gpu-a*.csv")
        ok(got.startswith(f"{DEVICE}, uncapped and capped to 64 and 99 KB, SM clock 1.20 GHz"),
           "... and beside its uncapped runs", got)
        got = conditions(other, "ladder")
        ok(got == f"{DEVICE}, 2026-01-01 (clock not recorded); GPU B (fixture), SM clock 1.70 GHz (mean over the "
                  "timed launches), power limit 700 W, driver 580.65.06, CUDA 13.0",
           "\"ladder\": every device's comparison file, not the capped runs or another chapter's", got)

    # The marker a page writes under a table, as scripts/readme_tables.py renders pages.
    results = readme_tables.PageResults(tmp)
    page = '**Fixture**\n\n| a |\n|---|\n| 1 |\n\nMeasured on <!--= conditions("new.csv") | s -->?<!--/=-->.\n'
    text, problems = prose.render(page, results, "X.md")
    again, still = prose.render(text, results, "X.md")
    ok(len(problems) == 1 and "is stale" in problems[0] and conditions(tmp, "new.csv") in text and not still
       and again == text, "a page's marker is filled in by scripts/readme_tables.py, and then holds", problems)
    ok(not prose.lint(text, "X.md", set()), "... and its numbers, generated, are no lint's concern",
       prose.lint(text, "X.md", set()))
    problems = prose.render('Measured on <!--= conditions("nothing.csv") | s -->?<!--/=-->.\n', results, "X.md")[1]
    ok(len(problems) == 1 and "cannot evaluate" in problems[0], "a marker naming no results is reported", problems)

# Every generated table on every page is followed, within two lines, by the line that names its card
# and clock; but the tables no GPU measured (the programs' input families, the CPU chapter's).
ROOT = os.path.dirname(HERE)
missing = [p for page in prose.readmes(ROOT)
           for p in readme_tables.unconditioned_tables(open(page).read(), os.path.relpath(page, ROOT))]
ok(not missing, "every generated table on every page names the card and clock it was measured on", missing)
table = "<!-- BEGIN table:t -->\n| a |\n|---|\n| 1 |\n<!-- END table:t -->\n"
line = 'Measured on <!--= conditions("x.csv") | s -->?<!--/=-->.\n'
got = readme_tables.unconditioned_tables(table + "\nThe table shows it.\n", "step99_x/README.md")
ok(len(got) == 1 and "step99_x/README.md:5: table 't'" in got[0], "a table without the line is reported, where", got)
got = readme_tables.unconditioned_tables(table + "\n\n" + line, "step99_x/README.md")
ok(len(got) == 1, "... and one whose line is further than two lines below it", got)
got = readme_tables.unconditioned_tables(table + "Measured on 2026-01-01, an H100, typed.\n", "step99_x/README.md")
ok(len(got) == 1, "... and one whose line is typed, not a conditions() marker", got)
ok(not readme_tables.unconditioned_tables(table + line + "\n" + table + "\n" + line, "step99_x/README.md"),
   "a table with its line right under it, or after a blank line, is not")
ok(not readme_tables.unconditioned_tables(table, f"cpu{os.sep}README.md")
   and not readme_tables.unconditioned_tables(table.replace("table:t", "table:families"), "common/README.md"),
   "nor the CPU chapter's tables, nor the input families the programs declare")

# The other kind of generated table: typed rows whose cells are value markers (step 16's knob, step 18's
# GEMMul8 table). One whose markers read recorded rows needs the line as well; one of arithmetic, of
# the lists the programs declare or of ncu's logs (which conditions() does not read) does not.
rows = ('| n | ms |\n|---|---|\n| 1000 | <!--= ms("step01", 1000) \\| .3f -->0.5<!--/=--> |\n'
        '| 4096 | <!--= 2 * 4096**3 / ms("step01", 4096) / 1e9 \\| .0f -->9<!--/=--> |\n')
page = "Text before.\n\n" + rows
got = readme_tables.unconditioned_tables(page + "\nThe next paragraph.\n", "step99_x/README.md")
ok(len(got) == 1 and "step99_x/README.md:3: the table of value markers" in got[0],
   "a typed table of value markers reading recorded rows, without the line: reported, at its first row", got)
ok(not readme_tables.unconditioned_tables(page + "\n" + line, "step99_x/README.md"),
   "... not with the line under it, after a blank line (a Markdown table ends there)")
ok(len(readme_tables.unconditioned_tables(page + "\n\n" + line, "step99_x/README.md")) == 1,
   "... but with the line further below", page)
item = "- **A list item.** Its table:\n\n" + "".join("  " + r + "\n" for r in rows.splitlines())
got = readme_tables.unconditioned_tables(item + "\n  More of the item.\n", "step99_x/README.md")
ok(len(got) == 1 and "step99_x/README.md:3:" in got[0], "a list item's table, indented, too", got)
ok(not readme_tables.unconditioned_tables(item + "\n  " + line, "step99_x/README.md"), "... and its line, indented")
got = readme_tables.unconditioned_tables(rows.replace('ms("step01", 1000)', 'oz("step18", 1000)'), "step99_x/README.md")
ok(len(got) == 1, "a step's own function (declared in its experiments.json) reads recorded rows too", got)
for what, cell in (("arithmetic", "2 * 4096**3 / 1e12"), ("the lists the programs declare",
                                                           'steps_in_class("tensor-cores", "fp32")'),
                   ("ncu's log", 'ncu("ncu-4096", "step01 (f(x))", "gpu__time_duration.sum") * 1e3'),
                   ("a generator over a measurement-free call", "max(abs(x) for x in range(3))")):
    table = f"| a |\n|---|\n| <!--= {cell} \\| s -->1<!--/=--> |\n"
    ok(not readme_tables.unconditioned_tables(table + "\nText.\n", "step99_x/README.md"),
       f"a table of {what} names no card: not reported")
ok(not readme_tables.unconditioned_tables("| a | b |\n|---|---|\n| typed | 1.0 ms |\n\nText.\n", "step99_x/README.md"),
   "nor a typed table without markers (the prose lint's concern)")
mixed = '| a | b |\n|---|---|\n| <!--= ncu("ncu-4096", "step01", "m") \\| s -->1<!--/=--> | <!--= ms("step01", 4096) \\| s -->2<!--/=--> |\n'
ok(len(readme_tables.unconditioned_tables(mixed + "\nText.\n", "step99_x/README.md")) == 1,
   "a table of ncu's counters and recorded times (step 17's versions) is reported")
ok(not readme_tables.unconditioned_tables(page, f"cpu{os.sep}README.md"), "the CPU chapter's page is exempt, as before")
done()
