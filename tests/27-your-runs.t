#!/usr/bin/env perl
# A user's own measurements never touch the recorded ones. In a scratch copy of this tree (its
# own git repository): make cpu measures this machine (small sizes) and a fake GPU run with the
# name of a recorded device, with numbers nothing like the recorded ones, is put beside it; then
# make plots redraws everything and the pages are checked. The recorded files must be untouched
# (git status clean), the pages must still pass, and the user's charts land in plots/local/.
use strict;
use warnings;
use Test::More;
use Cwd qw(getcwd);
require './tests/lib.pl';

my $root = getcwd();
my $scratch = "$root/obj/your_runs_$$";
system('rm', '-rf', $scratch);
system('mkdir', '-p', $scratch);
# The tree as it is (tracked files and new ones not ignored), nothing built.
is(system("git ls-files -z --cached --others --exclude-standard | xargs -0 tar -cf - 2>/dev/null | tar -xf - -C '$scratch'"), 0,
   'a scratch copy of the tree');
my $git = "git -C '$scratch' -c user.name=test -c user.email=test\@localhost";
system("$git init -q && $git add -A && $git commit -qm scratch") == 0 or BAIL_OUT('git init in the scratch copy failed');

sub in_scratch {
    my ($cmd) = @_;
    my $out = `cd '$scratch' && $cmd 2>&1`;
    return ($? >> 8, $out);
}
sub status { (in_scratch('git status --porcelain --untracked-files=all'))[1] }

my ($code, $out) = in_scratch('make --no-print-directory cpu CPU_SIZES=8');
is($code, 0, 'make cpu CPU_SIZES=8') or diag($out);
my @mine = glob("$scratch/results/local/*-cpu.csv");
ok(@mine == 1, 'its rows went into results/local/ (' . join(' ', map { s{.*/results/}{results/}r } @mine) . ')');
is(status(), '', '... and no tracked file changed');

# A fake run of a recorded GPU, ten times faster than recorded at every size, and a fake CPU run
# under a recorded host's name: what an instructor re-measuring a known machine would write.
my ($recorded_gpu) = grep { -e "results/$_" } map { s{.*/}{}r =~ s/-device\.txt$/.csv/r } glob('results/*-device.txt');
my ($recorded_cpu) = map { s{.*/}{}r } glob('results/*-cpu.csv');
ok($recorded_gpu && $recorded_cpu, "recorded runs to collide with ($recorded_gpu, $recorded_cpu)") or BAIL_OUT('no recorded runs');
my $faked = system('python3', '-c', <<'PY', "$scratch/results/local", map { "results/$_" } $recorded_gpu, $recorded_cpu);
import csv, os, sys
for path in sys.argv[2:]:
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
        columns = list(rows[0].keys())
    for r in rows:
        for col in ("kernel_ms", "ms", "total_ms"):
            if r.get(col):
                r[col] = f"{float(r[col]) / 10:.6g}"
        if r.get("gflops"):
            r["gflops"] = f"{float(r['gflops']) * 10:.6g}"
    with open(os.path.join(sys.argv[1], os.path.basename(path)), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
PY
is($faked, 0, "fake runs named as the recorded ones, ten times faster: results/local/$recorded_gpu, results/local/$recorded_cpu");
is(status(), '', 'the fake runs are beside the recorded ones, not in them');

my $python = plot_python();
SKIP: {
    skip('matplotlib is not installed here (make plots-env makes a .venv with it)', 3)
        if system("$python -c 'import matplotlib' 2>/dev/null") != 0;
    ($code, $out) = in_scratch("make --no-print-directory plots PLOT_PYTHON='$python'");
    is($code, 0, 'make plots, with the user\'s runs beside the recorded ones') or diag($out);
    ok(-e "$scratch/plots/local/" . ($recorded_cpu =~ s/-cpu\.csv$//r =~ s/^/cpu_/r) . '.svg',
       'the user\'s charts are drawn into plots/local/') or diag(`ls $scratch/plots/local 2>&1`);
    # Byte for byte only with the matplotlib that drew them (another version writes other bytes, and
    # its own name into every file).
    my ($drew) = do { local (@ARGV, $/) = 'plots/speedup.svg'; <> } =~ /Matplotlib v([\w.]+)/;
    my $have = `$python -c 'import matplotlib; print(matplotlib.__version__)' 2>/dev/null`;
    chomp $have;
    if (defined $drew && $have eq $drew) {
        is(status(), '', 'the recorded charts and pages are redrawn byte for byte: git status is clean')
            or diag(status());
    } else {
        my @changed = grep { !m{^ M plots/[^/]+\.(svg|png)$} } split /\n/, status();
        ok(!@changed, "the recorded charts were drawn with matplotlib " . ($drew // '?') . ", this one is $have: "
           . 'redrawn, not compared byte for byte; nothing else changed') or diag(join("\n", @changed));
    }
}
($code, $out) = in_scratch('python3 scripts/readme_tables.py --check');
is($code, 0, 'the pages still pass their check') or diag($out);
system('rm', '-rf', $scratch);
done_testing();
