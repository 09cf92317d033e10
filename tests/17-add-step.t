#!/usr/bin/env perl
# Adding a step (common/README.md, "Adding a step"), done as a student would, in a scratch copy of
# the repository: a copy of step 16 becomes step99_copy, its program renamed in its own .cu (and
# in its README's links), nothing edited anywhere else. The step brings all of its own along: its
# other program (int8_gemm.cu), its build variants and sweeps
# (experiments.json), the functions that table, chart and quote its results (report.py), its
# pictures, its own tests and CPU model (tests/) and its exempt numbers; and a development version
# (versions/). The build, the runner, the tables, the charts and make test then find all of it by
# themselves: make builds it, its variants and its other program; make test runs its own tests
# (they pass, the copy testing itself); the runner plans its sweeps with its variants' column
# (and on a GPU measures a tiny one); its page's numbers come from its own functions; the charts
# draw it and its knob. And a second folder with the same number is refused in one line.
use strict;
use warnings;
use Cwd ();
use File::Temp qw(tempdir);
use JSON::PP ();
use Test::More;
require './tests/lib.pl';
our @PROGRAMS;

plan skip_all => "git is not installed" if system('git --version >/dev/null 2>&1') != 0;
plan skip_all => "not a git checkout" if system('git rev-parse --git-dir >/dev/null 2>&1') != 0;
for my $p (@PROGRAMS) {
    BAIL_OUT("$p is not built: run make test, which builds it") unless -x $p;
}
my $tmp = tempdir('add_step_XXXXXX', DIR => 'obj', CLEANUP => 1);
my $root = Cwd::getcwd();
my $plot_py = plot_python();
my $has_plots = system("$plot_py -c 'import matplotlib' 2>/dev/null") == 0;

# The repository's files as they stand (tracked and new, not ignored), and what the build
# made, dates kept: only the new step is left to build.
my @files = grep { -f } split /\0/, (run('git', 'ls-files', '-z', '-co', '--exclude-standard'))[1];
is(system('cp', '-p', '--parents', @files, $tmp) >> 8, 0, "a scratch copy of the repository (" . @files . " files)");
mkdir "$tmp/obj";
is(system('cp', '-pr', (grep { -e } 'obj/libharness.a', 'obj/common', 'obj/gpu_info', glob('obj/*.stamp'),
                        glob('obj/step*.o'), 'obj/cublas.o'), "$tmp/obj/") >> 8, 0, "... with the build's objects");
is(system('cp', '-p', $_, "$tmp/$_") >> 8, 0, "... and $_") for @PROGRAMS, 'transpose/transpose', 'cpu/cpu_gemm';

# The student's part: a folder, its .cu named after its number, the program's name in it (and
# in the links of its README, which point into its .cu).
chdir $tmp or die "$tmp: $!";
system('cp', '-r', 'step16_ozaki_int8', 'step99_copy');
unlink 'step99_copy/step16';
rename 'step99_copy/step16.cu', 'step99_copy/step99.cu';
{
    local @ARGV = ('step99_copy/step99.cu');
    local $^I = '';
    while (<>) { s/\.program = "step16"/.program = "step99"/; s/\.lesson = "[^"]*"/.lesson = "a copy of step 16 ("/; print }
}
{
    local @ARGV = ('step99_copy/README.md');
    local $^I = '';
    while (<>) { s/\bstep16\.cu\b/step99.cu/g; print }
}
# A development version: the step as it was before, a whole program saying what it changed.
mkdir 'step99_copy/versions';
system('cp', 'step99_copy/step99.cu', 'step99_copy/versions/step99_v1_first.cu');
{   # a version lives one folder down: the step's own headers are ../ from it
    local ($^I, @ARGV) = ('', 'step99_copy/versions/step99_v1_first.cu');
    while (<>) { s{^#include "(\w+\.h)"}{-e "step99_copy/$1" ? "#include \"../$1\"" : "#include \"$1\""}e; print }
}
my %done;  # a file's step_info already given its .change (before the first of the fields after it: their order)
for my $f (['step99_copy/versions/step99_v1_first.cu', 'step99_v1', 'the first try'],
           ['step99_copy/step99.cu', 'step99', 'the second try: the step']) {
    local @ARGV = ($f->[0]);
    local $^I = '';
    while (<>) {
        s/\.program = "step99"/.program = "$f->[1]"/;
        s/^(\s*)\.(outside_bound|special_path|builds_on)/$1.change = "$f->[2]",\n$1.$2/
            if /^\s*\.(outside_bound|special_path|builds_on)/ && !$done{$f->[0]}++;
        print;
    }
}

# What it declares, read as the machinery reads it: its build variants (a -D parameter, its values,
# the column its rows carry them in), the sweep that runs them, its prose functions.
my $declared = JSON::PP::decode_json(do { local (@ARGV, $/) = 'step99_copy/experiments.json'; <> });
my ($param, $column, @values) = (@{ $declared->{variants} }{qw(parameter column)}, @{ $declared->{variants}{values} });
my ($sweep) = grep { $declared->{sweeps}{$_}{variants} } sort keys %{ $declared->{sweeps} };
my ($prose) = sort keys %{ $declared->{prose} };
ok($param && $column && @values >= 2 && $sweep && $prose, "it declares variants ($param: @values, column $column), "
   . "the sweep $sweep that runs them, prose functions ($prose ...)");

# Built: make all names it and its other program, and builds them with the build's flags; a
# variant it declares builds by the generic rule, -D its parameter.
my ($code, $out, $err) = run('make', '--no-print-directory', '-n', 'all');
like($out, qr{-o step99_copy/step99 }, "make all builds step99_copy/step99") or diag("$out$err");
like($out, qr{-o obj/step99_copy/int8_gemm step99_copy/int8_gemm\.cu .*-lcublas}, "... and its other program, "
     . "obj/step99_copy/int8_gemm (with cuBLAS, which its source includes)") or diag("$out$err");
($code, $out, $err) = run('make', '--no-print-directory', 'step99_copy/step99', 'obj/step99_copy/int8_gemm');
ok($code == 0 && -x 'step99_copy/step99' && -x 'obj/step99_copy/int8_gemm', "make builds them") or diag("$out$err");
($code, $out, $err) = run('make', '--no-print-directory', 'help');
like($out, qr/make step01 \.\. step99 /, "make help names it among the steps");
my %d = map { /^([^=]+)=(.*)$/ ? ($1 => $2) : () } split /\n/, (run('step99_copy/step99', '--describe'))[1];
ok(($d{program} // '') eq 'step99' && ($d{lesson} // '') =~ /^a copy of step 16 \(/
   && ($d{chapter} // '') eq 'tensor-cores' && ($d{exact_cc} // '') eq '9.0',
   "step99 --describe: what it is, from its .cu (its lesson: $d{lesson})");
my $variant = "obj/variants/step99_copy/$param/$values[1]/step99";
($code, $out, $err) = run('make', '--no-print-directory', $variant);
%d = map { /^([^=]+)=(.*)$/ ? ($1 => $2) : () } split /\n/, (run($variant, '--describe'))[1];
ok($code == 0 && $out =~ /-D$param=$values[1] / && ($d{program} // '') eq 'step99',
   "make $variant: the variant, -D$param=$values[1], still the program step99 ($d{lesson})") or diag("$out$err");
my @named = grep { /\bstep(16|99)\b/ } map { (run('grep', '-h', 'step', $_))[1] =~ /^([^#\n].*)$/mg } 'Makefile', 'measure.mk';
ok(!@named, "the Makefile and measure.mk name neither step outside their comments") or diag(join "\n", @named);

# Tested: make test runs its own tests (its folder's tests/*.t) and builds their helpers from its
# tests/*.c; they pass, on the copy itself (its model, its other program, its report, its pictures).
($code, $out, $err) = run('make', '--no-print-directory', '-n', 'test');
like($out, qr{^prove .*\bstep99_copy/tests\b}m, "make test runs step99_copy/tests");
like($out, qr{-o obj/test/step99_copy/ozaki_model step99_copy/tests/ozaki_model\.c}, "... and builds its CPU model");
($code, $out, $err) = run('make', '--no-print-directory', 'obj/test/step99_copy/ozaki_model');
# At the quick depth they plan their runs on the copy as a dry run (tests/lib.pl: each finds its
# own step and describes it, no run is made); make test-deep makes the runs.
quick_skips("the copy's own tests as a dry run, their runs planned, none made");
($code, $out, $err) = run((deep() ? () : 'TEST_DRY_RUN=1'), 'prove', 'step99_copy/tests');
my @ran = $out =~ m{^(step99_copy/tests/\S+\.t) \.+ (?:ok|skipped)}mg;
ok($code == 0 && @ran >= 3 && grep({ m{/ozaki\.t$} } @ran),
   "its own tests " . (deep() ? "pass on it" : "find it and plan their runs on it") . ": @ran") or diag("$out$err");

# Swept: the runner plans its sweeps (make sweep STEP=99): its variant's build and runs beside the
# step as built and the programs it names, rows keyed by its variants' column; on a GPU a tiny
# one runs (one size, one variant) and records them so; without one the variant is built and the
# runner says why it stops.
# (n = 8: every sweep it declares can take it, its own program's included: multiples of 4)
($code, $out, $err) = run('python3', 'scripts/experiment.py', 'sweep', '--step', '99', '--sizes', '8', '--variants',
                          $values[1], '--plan');
ok($code == 0 && $out =~ m{^step99's sweep $sweep: into results/<device>-$sweep\.csv, by program, n, device, dist, $column$}m
   && $out =~ m{^  make \Q$variant\E$}m && $out =~ m{^  \$ \Q$variant\E -n 8 --dist wide --csv}m
   && $out =~ m{^  \$ step99_copy/step99 -n 8 --dist uniform --csv}m
   && (() = $out =~ /^step99's sweep /mg) == keys %{ $declared->{sweeps} },
   "make sweep STEP=99 plans every sweep it declares: its variant and the programs it names, by the column $column")
    or diag("$out$err");
my ($has_gpu, $why) = gpu_available();
($code, $out, $err) = run('python3', 'scripts/experiment.py', 'sweep', '--step', '99', '--name', $sweep, '--sizes', '7',
                          '--variants', $values[1], '--reps', '1', '--results', 'obj/add_step_results');
if ($has_gpu) {
    my %rows = map { (split /,/)[2] . '|' . (split /,/, $_, -1)[-1] => 1 } grep { /^20/ }
        split /\r?\n/, do { local (@ARGV, $/) = glob("obj/add_step_results/*-$sweep.csv"); @ARGV ? <> : '' };
    ok($code == 0 && $rows{"step99|$values[1]"} && $rows{'step99|'} && $rows{"$declared->{sweeps}{$sweep}{beside}[0]|"},
       "a tiny sweep on the GPU records step99 as built and as its variant, by the column $column") or diag("$out$err");
} else {
    ok($code == 3 && -x $variant && $err =~ /no GPU/, "without a GPU the sweep builds its variant and stops, saying why")
        or diag("exit $code: $out$err");
}

# Tabled: its page's numbers come from its own functions (its report.py, on its own page), the
# numbers that are not measurements from its own exempt list; the whole page checks.
($code, $out, $err) = run('python3', 'scripts/readme_tables.py', '--check', '--file', 'step99_copy/README.md');
is($code, 0, "scripts/readme_tables.py --check: its page's markers and numbers hold") or diag("$out$err");
($code, $out, $err) = run('python3', '-c', 'import sys; sys.path.insert(0, "scripts"); import prose; '
                          . qq(f = prose.Results("results").functions("step99_copy/README.md")["$prose"]; )
                          . 'print(f.func.__module__)');
like($out, qr/^step99_report$/m, "its page's $prose() is its own report.py's") or diag("$out$err");

# Charted: on rows for every program, and of its knob (made up here: a fixture, not a
# measurement), the charts draw it under its own name, and its own chart its knob.
($code, $out, $err) = run('python3', 'scripts/ladder.py', 'record');
($code, $out, $err) = run('grep', '-c', '^step99,', 'results/programs.csv');
is($out + 0, 1, "make plots records its description in results/programs.csv, for the charts and tables");
SKIP: {
    skip "matplotlib cannot be imported by python3 or .venv (make plots-env)", 3 unless $has_plots;
    mkdir 'obj/fixture';
    system('cp', 'results/article_8800gt.csv', 'obj/fixture/');
    ($code, $out, $err) = run('python3', '-c', <<'PY', $sweep, $column, @values[0, 1]);
import sys
sys.path.insert(0, "scripts")
import ladder
sweep, column, first, second = sys.argv[1:]
DEVICE, rows, knob = "Fixture GPU (test data, not a measurement)", [], []
for n in (3, 256, 1000, 4096):
    for i, p in enumerate(ladder.LADDER):
        ms = n ** 3 / 1e9 / (1 + i) + 1e-3
        r = {c: "1e-7" for c in ladder.PROGRAM_COLUMNS}
        r.update(program=p, n=str(n), device=DEVICE, kernel_ms=f"{ms:.6f}", gflops=f"{2 * n**3 / ms / 1e6:.2f}",
                 total_ms=f"{ms + 1:.6f}", kernel_e2e_ms=f"{ms:.6f}", dist="uniform", status="pass", check="full",
                 reps="1", date="2026-01-01T00:00Z", command="fixture", config="", tolerance="1e-6",
                 precision=ladder.PROGRAMS[p]["precision"])
        rows.append(r)
        if p in ("cublas", "step99"):
            for dist in ladder.DISTS:
                knob += [dict(r, dist=dist, **{column: v}, kernel_ms=f"{ms * (1 + int(v or 8) / 10):.6f}") for v in
                         (("", first, second) if p == "step99" else ("",))]
ladder.merge_results("obj/fixture/fixture-gpu.csv", [r for r in rows if r["n"] != "3"])
ladder.merge_results(f"obj/fixture/fixture-gpu-{sweep}.csv", knob, ladder.RESULT_COLUMNS + [column],
                     ladder.KEY + (column,))
PY
    is($code, 0, "fixture rows for every program, step99 among them, and of its knob") or diag($err);
    ($code, $out, $err) = run($plot_py, 'plots/charts.py', '--results', 'obj/fixture', '--out', 'obj/fixture_plots');
    my $svg = -e 'obj/fixture_plots/gflops_vs_n.svg' ? do { local (@ARGV, $/) = 'obj/fixture_plots/gflops_vs_n.svg'; <> } : '';
    ok($code == 0 && $svg =~ /step99: a copy of step 16 \(/, "the charts draw it (gflops_vs_n: 'step99: a copy of step 16 (...')")
        or diag("$out$err");
    my @own = grep { my $t = do { local (@ARGV, $/) = $_; <> }; $t =~ /Step 99's/ && $t =~ /\Q$values[0] ... $values[1]\E/ }
        glob('obj/fixture_plots/*.svg');
    ok(@own == 1, "its own chart draws its variants from the column: " . join(' ', map { s{.*/}{}r } @own))
        or diag("$out$err");
}

# Its version, found: make versions builds it (make test too, for one architecture), for its step's
# architecture; the chain ends with the step, each as the programs describe themselves (make plots
# records them); make diff asks them; the versions table lists it (fixture rows, not measurements).
($code, $out, $err) = run('make', '--no-print-directory', '-n', 'versions');
like($out, qr{-gencode=arch=compute_90a,code=sm_90a .*-o obj/versions/step99_v1_first step99_copy/versions/step99_v1_first\.cu},
     "make versions builds its version, for its step's architecture (its folder's Makefile)") or diag("$out$err");
($code, $out, $err) = run('make', '--no-print-directory', 'obj/versions/step99_v1_first');
($code, $out, $err) = run('python3', 'scripts/ladder.py', 'record');
($code, $out, $err) = run('python3', '-c', 'import sys; sys.path.insert(0, "scripts"); import ladder; '
                          . 'print("\n".join(f"{p} {b} {c}" for p, (b, c, f) in ladder.versions().items()))');
like($out, qr{^step99_v1 obj/versions/step99_v1_first the first try\nstep99 step99_copy/step99 the second try: the step$}m,
     "its chain: the version, then the step, each with what it changed (--describe, recorded)") or diag("$out$err");
($code, $out, $err) = run('make', '--no-print-directory', '-s', 'diff', 'VERSION=step99');
ok($code == 0 && $out =~ m{^--- step99_copy/versions/step99_v1_first\.cu\s.*\n\+\+\+ step99_copy/step99\.cu\s}m,
   "make diff VERSION=step99: its version against the step") or diag("exit $code: " . substr("$out$err", 0, 300));
($code, $out, $err) = run('make', '--no-print-directory', '-s', 'diff', 'STEP=99');
ok($code == 0 && $out =~ m{^--- step13_wgmma_tf32/step13\.cu\s.*\n\+\+\+ step99_copy/step99\.cu\s}m,
   "make diff STEP=99: against the step it builds on, as the program says (step 16's builds_on, step13)")
    or diag("exit $code: " . substr("$out$err", 0, 300));
($code, $out, $err) = run('python3', '-c', <<'PY');
import sys
sys.path.insert(0, "scripts")
import ladder, tables_shared
r = {c: "1e-7" for c in ladder.PROGRAM_COLUMNS}
r.update(program="step99_v1", n="1000", device="Fixture GPU (test data, not a measurement)", kernel_ms="1.0",
         gflops="1000", dist="uniform", status="pass", date="2026-01-01T00:00Z", command="fixture --reps 1",
         precision="fp32")
ladder.merge_results("obj/fixture_step99/fixture-gpu-versions.csv", [r])
print(tables_shared.versions_table("obj/fixture_step99"))
PY
like($out, qr{\| `step99_v1` \| the first try \|}, "the versions table lists its version") or diag("$out$err");

# A number is one step: a second folder with step 99's number stops the build with one line.
system('cp', '-r', 'step99_copy', 'step99_again');
($code, $out, $err) = run('make', '--no-print-directory', '-n', 'all');
my @lines = grep { /\S/ } split /\n/, $err;
ok($code != 0 && @lines == 1 && $lines[0] =~ /step99_again step99_copy share a step number/,
   "two folders with one number: make stops, saying so in one line") or diag("exit $code: $err");
system('rm', '-rf', 'step99_again');

chdir $root;
done_testing();
