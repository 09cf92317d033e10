#!/usr/bin/env perl
# Step 15 moves step 14's preparation (the split, the transpose of B, the shifts) into the
# kernel, and changes nothing else: where no shift is needed it multiplies the same TF32 parts
# in the same order, so its C must equal step 14's bit for bit. Checked in every configuration
# of both, at sizes that are multiples of nothing, on both input distributions (no row or
# column of any stage has its largest magnitude outside [2^-50, 2^50): wide values lie in
# [2^-8, 2^9), uniform ones in [0, 1), and so no shift is taken). Where shifts
# are taken, step 15 takes them per stage of 32 of k instead of per whole row and column, and
# its results may differ from step 14's: the range families of tests/12-tensor-cores.t judge
# those by the fp32 bound. Skipped without a GPU, or one without sm_90a (exit 4, with its reason).
# The step is this file's folder's; step 14 is the one it builds on.
use strict;
use warnings;
use Test::More;
require './tests/lib.pl';
our (%EXIT, @STEPS);

my ($folder, $step) = this_step();
my ($has_gpu, $info) = gpu_available();
plan skip_all => "no GPU: $info" unless $has_gpu;
my ($s14, $s15) = ((grep { m{/step14$} } @STEPS), "$folder/$step");
for my $p ($s14, $s15) {
    my ($runs, $why) = runs_here($p);
    plan skip_all => "$p: $why" unless $runs;
}
my @c14 = @{ (describe($s14))[0]{configs} };
my @c15 = @{ (describe($s15))[0]{configs} };
ok(@c15 && "@c15" eq "@c14", "step 15 has step 14's configurations (@c15)");

my $dir = "obj/fused_split_$$";
system('rm', '-rf', $dir);
system('mkdir', '-p', $dir);
# Every pair of runs side by side (test_jobs() at a time), each saving its C in a folder of its own.
my @pairs;
for my $cfg (@c15) {
    for my $n (1, 7, 33, 100, 257, 1000, 1025) {
        push @pairs, map { [$cfg, $n, $_] } 'uniform', 'wide';
    }
}
my @runs = map {
    my ($cfg, $n, $dist) = @{ $pairs[$_] };
    my @args = ('--config', $cfg, '-n', $n, '--dist', $dist, '--reps', 1, '--check', 'none');
    ([$s14, @args, '--save', "$dir/$_-14"], [$s15, @args, '--save', "$dir/$_-15"])
} 0 .. $#pairs;
my @results = run_many(test_jobs(), @runs);
# C of one run, or undef and why not.
sub c_of {
    my ($result, $out) = @_;
    my ($code, undef, $err) = @$result;
    return $code == 0 ? ([load_npy("$dir/$out/c.npy")], '') : (undef, "exit $code: $err");
}
for my $i (0 .. $#pairs) {
    my ($cfg, $n, $dist) = @{ $pairs[$i] };
    my ($want, $why14) = c_of($results[2 * $i], "$i-14");
    my ($got, $why15) = c_of($results[2 * $i + 1], "$i-15");
    my $same = $want && $got && @$want == @$got && @$want == $n * $n && !grep { $want->[$_] != $got->[$_] } 0 .. $#$want;
    ok($same, "--config $cfg -n $n --dist $dist: step 15's C is step 14's, bit for bit")
        or diag($want && $got ? 'they differ' : "step 14 $why14; step 15 $why15");
}
system('rm', '-rf', $dir);

done_testing();
