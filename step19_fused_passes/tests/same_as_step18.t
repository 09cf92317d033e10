#!/usr/bin/env perl
# Step 19 changes how the passes around the products compute, not what they compute: the same
# scaling, residues congruent to step 18's modulo the same moduli, the same sums, the same check and
# the remainder theorem's exact result, so C must be step 18's, byte for byte. Checked on the saved
# C, on every input family (the span check's refusals and the FP32 loop among them: mixed, huge), at
# sizes that are multiples of nothing and reach both paths of each pass: n below 128 (10 moduli:
# step 16's remainder theorem; below about 16, step 16's residues too), rows kept in shared memory,
# and (deep, one family: a C of a gigabyte) rows past it, read twice. Skipped without a GPU, or one without sm_90a (exit 4, with
# its reason). The step is this file's folder's; step 18 is the one it builds on. The step's build
# variants, where built (make sweep STEP=19 NAME=epilogue builds them), must give the step's C too:
# they change where the remainder theorem runs, not what it computes.
use strict;
use warnings;
use File::Compare ();
use Test::More;
require './tests/lib.pl';
our (%EXIT, @STEPS);

my ($folder, $step) = this_step();
my ($has_gpu, $info) = gpu_available();
plan skip_all => "no GPU: $info" unless $has_gpu;
my ($s18) = grep { m{/step18$} } @STEPS;
my $program = "$folder/$step";
for my $p ($s18, $program) {
    ok(-x $p, "$p is built") or BAIL_OUT("$p is missing: run make test, which builds it");
    my ($runs, $why) = runs_here($p);
    plan skip_all => "$p: $why" unless $runs;
}

my $dir = "obj/same_as_step18_$$";
system('rm', '-rf', $dir);
system('mkdir', '-p', $dir);
my @cases;
for my $n (1, 7, 100, 257, 1000, 1025, deep() ? (2049, 4097) : (2049)) {
    push @cases, map { [$n, $_] } qw(uniform wide subnormal tiny rowscale mixed huge);
}
push @cases, [16385, 'wide'] if deep(); # rows past shared memory: read twice
my @variants = grep { -x } glob("obj/variants/$folder/*/*/$step");
diag("no build variant of $step is built: only the step is compared") unless @variants;
my @programs = ($s18, $program, @variants);
my @runs;
for my $i (0 .. $#cases) {
    my ($n, $dist) = @{ $cases[$i] };
    my @args = ('-n', $n, '--dist', $dist, '--reps', 1, '--check', 'none');
    push @runs, map { [$programs[$_], @args, '--save', "$dir/$i-$_"] } 0 .. $#programs;
}
my @results = run_many(test_jobs(), @runs);
for my $i (0 .. $#cases) {
    my ($n, $dist) = @{ $cases[$i] };
    my @codes = map { $_->[0] } @results[@programs * $i .. @programs * ($i + 1) - 1];
    for my $p (1 .. $#programs) {
        my ($name, $than) = $p == 1 ? ("$step\'s C", 0) : ("$programs[$p]\'s C", 1);
        my $same = $codes[$than] == 0 && $codes[$p] == 0
            && File::Compare::compare("$dir/$i-$than/c.npy", "$dir/$i-$p/c.npy") == 0;
        ok($same, "-n $n --dist $dist: $name is " . ($than ? "$step\'s" : "step 18's") . ", byte for byte")
            or diag("exit $codes[$than] ($programs[$than]), $codes[$p] ($programs[$p])"
                    . ($codes[$than] == 0 && $codes[$p] == 0 ? '; the saved C differ' : ''));
    }
}
system('rm', '-rf', $dir);

done_testing();
