#!/usr/bin/env perl
# Step 18 changes how the moduli's products are scheduled, not the arithmetic: every residue is
# the same sum of the same INT8 products, reduced by the same modulus, so every byte of every plane,
# and so C, must be step 16's. Checked byte for byte on the saved C, on every input family (the
# span check's refusals and the FP32 loop among them: mixed, huge), at sizes that are multiples of
# nothing, past one tile and past the clusters' first turn (1025, 2049: more work items than
# clusters at once on an H100, so every block walks several, across moduli). Skipped without a GPU,
# or one without sm_90a (exit 4, with its reason). The step is this file's folder's; step 16 is the
# one it builds on.
use strict;
use warnings;
use File::Compare ();
use Test::More;
require './tests/lib.pl';
our (%EXIT, @STEPS);

my ($folder, $step) = this_step();
my ($has_gpu, $info) = gpu_available();
plan skip_all => "no GPU: $info" unless $has_gpu;
my ($s16) = grep { m{/step16$} } @STEPS;
my $program = "$folder/$step";
for my $p ($s16, $program) {
    ok(-x $p, "$p is built") or BAIL_OUT("$p is missing: run make test, which builds it");
    my ($runs, $why) = runs_here($p);
    plan skip_all => "$p: $why" unless $runs;
}

my $dir = "obj/same_as_step16_$$";
system('rm', '-rf', $dir);
system('mkdir', '-p', $dir);
my @cases;
for my $n (1, 7, 100, 257, 1000, 1025, deep() ? (2049, 4097) : (2049)) {
    push @cases, map { [$n, $_] } qw(uniform wide subnormal tiny rowscale mixed huge);
}
my @runs;
for my $i (0 .. $#cases) {
    my ($n, $dist) = @{ $cases[$i] };
    my @args = ('-n', $n, '--dist', $dist, '--reps', 1, '--check', 'none');
    push @runs, [$s16, @args, '--save', "$dir/$i-16"], [$program, @args, '--save', "$dir/$i-18"];
}
my @results = run_many(test_jobs(), @runs);
for my $i (0 .. $#cases) {
    my ($n, $dist) = @{ $cases[$i] };
    my ($c16, $c18) = map { $_->[0] } @results[2 * $i, 2 * $i + 1];
    my $same = $c16 == 0 && $c18 == 0 && File::Compare::compare("$dir/$i-16/c.npy", "$dir/$i-18/c.npy") == 0;
    ok($same, "-n $n --dist $dist: $step\'s C is step 16's, byte for byte")
        or diag("exit $c16 (step 16), $c18 ($step)" . ($c16 == 0 && $c18 == 0 ? '; the saved C differ' : ''));
}
system('rm', '-rf', $dir);

done_testing();
