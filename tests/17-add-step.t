#!/usr/bin/env perl
# Adding a step (common/README.md, "Adding a step"), done as a student would, in a scratch copy of
# the repository: a copy of step 06 becomes step99_copy, with its program's name changed in
# its own .cu and nothing edited anywhere else. The build, the tests, the comparison and the
# charts then find it by themselves: make builds it, the command-line tests test it, make
# compare lists it (and on a GPU measures it), and the charts draw it. The step brings its
# own experiment (experiments.json: one more size) and a development version (versions/):
# make reproduce plans the size, the step's table shows it, make versions builds the version
# and the versions table lists it, from what the folder says and nothing else. And a second
# folder with the same number is refused in one line.
use strict;
use warnings;
use Cwd ();
use File::Temp qw(tempdir);
use Test::More;
require './tests/lib.pl';
our @PROGRAMS;
my %done;  # a file's step_info already given its .change

plan skip_all => "git is not installed" if system('git --version >/dev/null 2>&1') != 0;
plan skip_all => "not a git checkout" if system('git rev-parse --git-dir >/dev/null 2>&1') != 0;
for my $p (@PROGRAMS) {
    BAIL_OUT("$p is not built: run make test, which builds it") unless -x $p;
}
my $tmp = tempdir('add_step_XXXXXX', DIR => 'obj', CLEANUP => 1);
my $root = Cwd::getcwd();
# The charts' Python: python3 if it has matplotlib, else the .venv make plots-env made.
my $plot_py = system('python3 -c "import matplotlib" 2>/dev/null') == 0 ? 'python3'
            : -x '.venv/bin/python' ? "$root/.venv/bin/python" : undef;

# The repository's files as they stand (tracked and new, not ignored), and what the build
# made, dates kept: only the new step is left to build.
my @files = grep { -f } split /\0/, (run('git', 'ls-files', '-z', '-co', '--exclude-standard'))[1];
is(system('cp', '-p', '--parents', @files, $tmp) >> 8, 0, "a scratch copy of the repository (" . @files . " files)");
mkdir "$tmp/obj";
is(system('cp', '-pr', (grep { -e } 'obj/libharness.a', 'obj/common', 'obj/gpu_info', glob('obj/*.stamp'),
                        glob('obj/step*.o'), 'obj/cublas.o'), "$tmp/obj/") >> 8, 0, "... with the build's objects");
is(system('cp', '-p', $_, "$tmp/$_") >> 8, 0, "... and $_") for @PROGRAMS, 'transpose/transpose', 'cpu/cpu_gemm';

# The student's part: a folder, its .cu named after its number, the program's name in it.
chdir $tmp or die "$tmp: $!";
system('cp', '-r', 'step06_padded', 'step99_copy');
unlink 'step99_copy/step06';
rename 'step99_copy/step06.cu', 'step99_copy/step99.cu';
{
    local @ARGV = ('step99_copy/step99.cu');
    local $^I = '';
    while (<>) { s/\.program = "step06"/.program = "step99"/; s/\.lesson = "[^"]*"/.lesson = "a copy of step 06"/; print }
}
# Its own experiment (one more size, 257, beside the step before it) and a development
# version: the step as it was before, a whole program saying what it changed.
{
    open my $fh, '>', 'step99_copy/experiments.json' or die $!;
    print $fh qq({"extra_sizes": {"sizes": [257], "why": "a size of its own"}}\n);
}
mkdir 'step99_copy/versions';
system('cp', 'step99_copy/step99.cu', 'step99_copy/versions/step99_v1_first.cu');
for my $f (['step99_copy/versions/step99_v1_first.cu', 'step99_v1', 'the first try'],
           ['step99_copy/step99.cu', 'step99', 'the second try: the step']) {
    local @ARGV = ($f->[0]);
    local $^I = '';
    while (<>) { s/\.program = "step99"/.program = "$f->[1]"/; s/^\};/    .change = "$f->[2]",\n};/ if /^\};/ && !$done{$f->[0]}++; print }
}
# Built: make all names it, and builds it with the build's flags.
my ($code, $out, $err) = run('make', '--no-print-directory', '-n', 'all');
like($out, qr{-o step99_copy/step99 }, "make all builds step99_copy/step99") or diag("$out$err");
($code, $out, $err) = run('make', '--no-print-directory', 'step99_copy/step99');
ok($code == 0 && -x 'step99_copy/step99', "make step99_copy/step99 builds it") or diag("$out$err");
($code, $out, $err) = run('make', '--no-print-directory', 'help');
like($out, qr/make step01 \.\. step99 /, "make help names it among the steps");
my %d = map { /^([^=]+)=(.*)$/ ? ($1 => $2) : () } split /\n/, (run('step99_copy/step99', '--describe'))[1];
ok(($d{program} // '') eq 'step99' && ($d{lesson} // '') eq 'a copy of step 06' && ($d{chapter} // '') eq 'article'
   && ($d{compensated} // '') eq '1', "step99 --describe: what it is, from its .cu");

# Tested: the tests find it (tests/lib.pl) and the command-line tests run it.
($code, $out, $err) = run('perl', '-e', 'require "./tests/lib.pl"; print join("\n", our @PROGRAMS), "\n"');
like($out, qr{^step99_copy/step99$}m, "tests/lib.pl finds it");
($code, $out, $err) = run('perl', 'tests/02-cli.t');
my @mine = grep { /step99/ } split /\n/, $out;
ok($code == 0 && @mine >= 40 && !grep({ /^not ok/ } @mine),
   "tests/02-cli.t tests it: " . scalar(@mine) . " of its checks name step99, all ok")
    or diag(join "\n", grep({ /^not ok/ } split /\n/, $out), $err);

# Compared: make compare's list holds it; the programs' descriptions are recorded beside
# the results (results/programs.csv), which the charts and tables read.
($code, $out, $err) = run('python3', 'scripts/compare.py', '--list');
like($out, qr{^step99\s+fp32\s+step99_copy/step99\s+a copy of step 06$}m, "make compare would run it") or diag("$out$err");
($code, $out, $err) = run('python3', 'scripts/ladder.py', 'record');
($code, $out, $err) = run('grep', '-c', '^step99,', 'results/programs.csv');
is($out + 0, 1, "make plots records its description in results/programs.csv, for the charts and tables");
my ($has_gpu, $why) = gpu_available();
SKIP: {
    skip "no GPU: make compare cannot measure it here ($why)", 1 unless $has_gpu;
    ($code, $out, $err) = run('python3', 'scripts/compare.py', '--programs', 'step06 step99', '--sizes', '100 257',
                              '--reps', 1, '--dists', 'uniform', '--results', 'obj/add_step_results');
    ok($code == 0 && $out =~ /^step99\s+a copy of step 06\s+[\d.]+/m, "make compare measures it beside step 06")
        or diag("$out$err");
}

# Charted: on rows for every program (made up here: a fixture, not a measurement), the
# charts draw it under its own name.
SKIP: {
    skip "matplotlib cannot be imported by python3 or .venv (make plots-env)", 2 unless $plot_py;
    mkdir 'obj/fixture';
    system('cp', 'results/article_8800gt.csv', 'obj/fixture/');
    ($code, $out, $err) = run('python3', '-c', <<'PY');
import sys
sys.path.insert(0, "scripts")
import ladder
rows = []
for n in (256, 1000, 4096):
    for i, p in enumerate(ladder.LADDER):
        ms = n ** 3 / 1e9 / (1 + i)
        r = {c: "1e-7" for c in ladder.PROGRAM_COLUMNS}
        r.update(program=p, n=str(n), device="Fixture GPU (test data, not a measurement)", kernel_ms=f"{ms:.6f}",
                 gflops=f"{2 * n**3 / ms / 1e6:.2f}", total_ms=f"{ms + 1:.6f}", kernel_e2e_ms=f"{ms:.6f}", dist="uniform",
                 status="pass", check="full", reps="1", date="2026-01-01T00:00Z", command="fixture", config="",
                 precision=ladder.PROGRAMS[p]["precision"])
        rows.append(r)
ladder.merge_results("obj/fixture/fixture-gpu.csv", rows)
PY
    is($code, 0, "fixture rows for every program, step99 among them") or diag($err);
    ($code, $out, $err) = run($plot_py, 'plots/charts.py', '--results', 'obj/fixture', '--out', 'obj/fixture_plots');
    my $svg = -e 'obj/fixture_plots/gflops_vs_n.svg' ? do { local (@ARGV, $/) = 'obj/fixture_plots/gflops_vs_n.svg'; <> } : '';
    ok($code == 0 && $svg =~ /step99: a copy of step 06/, "the charts draw it (gflops_vs_n: 'step99: a copy of step 06')")
        or diag("$out$err");
}
# Its experiment and its version, found: make reproduce measures it at its own size beside the
# step before it; make versions builds the version (and make test, for one architecture);
# the versions' chain ends with the step; the step's table shows its size and the versions
# table its versions (fixture rows, not measurements).
($code, $out, $err) = run('python3', '-c', 'import sys; sys.path.insert(0, "scripts"); import reproduce, ladder; '
                          . 'ladder.discover(); print("\n".join(" ".join(c[0]) for c in '
                          . 'reproduce.part_commands("compare", "GPU", {}, False, False)))');
like($out, qr{compare\.py --programs \w+ step99 --sizes 257 }m, "make reproduce measures it at its own size, 257")
    or diag("$out$err");
($code, $out, $err) = run('make', '--no-print-directory', '-n', 'versions');
like($out, qr{-o obj/versions/step99_v1_first step99_copy/versions/step99_v1_first\.cu}, "make versions builds its version")
    or diag("$out$err");
($code, $out, $err) = run('python3', '-c', 'import sys; sys.path.insert(0, "scripts"); import versions; '
                          . 'print("\n".join(f"{p} {b} {c}" for p, (b, c, f) in versions.versions().items()))');
like($out, qr{^step99_v1 obj/versions/step99_v1_first the first try\nstep99 step99_copy/step99 the second try: the step$}m,
     "its chain: the version, then the step, each with what it changed") or diag("$out$err");
SKIP: {
    skip "matplotlib cannot be imported by python3 or .venv (make plots-env)", 2 unless $plot_py;
    ($code, $out, $err) = run('python3', '-c', <<'PY');
import sys
sys.path.insert(0, "scripts")
import ladder, readme_tables
rows = []
for p, n in (("step99", 257), ("step99", 1000), ("step99_v1", 1000)):
    r = {c: "1e-7" for c in ladder.PROGRAM_COLUMNS}
    r.update(program=p, n=str(n), device="Fixture GPU (test data, not a measurement)", kernel_ms="1.0", gflops="1000",
             total_ms="2.0", e2e_gflops="500", kernel_e2e_ms="1.0", dist="uniform", status="pass", check="full",
             reps="1", date="2026-01-01T00:00Z", command="fixture --reps 1", config="", precision="fp32")
    rows.append(r)
ladder.merge_results("obj/fixture_step99/fixture-gpu.csv", rows[:2])
ladder.merge_results("obj/fixture_step99/fixture-gpu-versions.csv", rows[2:])
devices = readme_tables.device_results("obj/fixture_step99")
print(readme_tables.step_table("step99", devices, {}))
print(readme_tables.versions_table("obj/fixture_step99"))
PY
    like($out, qr{\| step99 \(this step\) \| 257 \|}, "its table shows its own size, 257") or diag("$out$err");
    like($out, qr{\| `step99_v1` \| the first try \|}, "the versions table lists its version") or diag("$out$err");
}

# A number is one step: a second folder with step 99's number stops the build with one line.
system('cp', '-r', 'step99_copy', 'step99_again');
($code, $out, $err) = run('make', '--no-print-directory', '-n', 'all');
my @lines = grep { /\S/ } split /\n/, $err;
ok($code != 0 && @lines == 1 && $lines[0] =~ /step99_again step99_copy share a step number/,
   "two folders with one number: make stops, saying so in one line") or diag("exit $code: $err");
system('rm', '-rf', 'step99_again');

chdir $root;
done_testing();
