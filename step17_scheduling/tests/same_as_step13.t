#!/usr/bin/env perl
# Step 17 changes how the tiles are handed out and where B is transposed, not the arithmetic: each
# element of C is the same TF32 products summed in the same order as in step 13 (k-steps of 8, the
# tensor core's own order within one), so its C must equal step 13's bit for bit. So must its
# development versions'. Checked at sizes that are multiples of nothing, past one tile and past
# several clusters' turns (1025 and 2049: more tiles than clusters at once on an H100, so a block
# walks several), on both input distributions. Skipped without a GPU, or one without sm_90a (exit
# 4, with its reason). The step is this file's folder's; step 13 is the one it builds on.
use strict;
use warnings;
use Test::More;
require './tests/lib.pl';
our (%EXIT, @STEPS);

my ($folder, $step) = this_step();
my ($has_gpu, $info) = gpu_available();
plan skip_all => "no GPU: $info" unless $has_gpu;
my ($s13) = grep { m{/step13$} } @STEPS;
my @programs = ("$folder/$step", map { s{.*/(\w+)\.cu$}{obj/test/versions/$1}r } sort glob("$folder/versions/*.cu"));
for my $p ($s13, @programs) {
    ok(-x $p, "$p is built") or BAIL_OUT("$p is missing: run make test, which builds it");
    my ($runs, $why) = runs_here($p);
    plan skip_all => "$p: $why" unless $runs;
}

my $dir = "obj/same_as_step13_$$";
system('rm', '-rf', $dir);
system('mkdir', '-p', $dir);
my @cases;
for my $n (1, 7, 100, 257, 1000, 1025, deep() ? (2049, 4097) : (2049)) {
    push @cases, map { [$n, $_] } 'uniform', 'wide';
}
# Step 13's C once per case, then each program's, side by side (test_jobs() at a time).
my @runs;
for my $i (0 .. $#cases) {
    my ($n, $dist) = @{ $cases[$i] };
    my @args = ('-n', $n, '--dist', $dist, '--reps', 1, '--check', 'none');
    push @runs, [$s13, @args, '--save', "$dir/$i-13"], map { [$programs[$_], @args, '--save', "$dir/$i-p$_"] } 0 .. $#programs;
}
my @results = run_many(test_jobs(), @runs);
sub c_of {
    my ($result, $out) = @_;
    my ($code, undef, $err) = @$result;
    return $code == 0 ? ([load_npy("$dir/$out/c.npy")], '') : (undef, "exit $code: $err");
}
my $per_case = 1 + @programs;
for my $i (0 .. $#cases) {
    my ($n, $dist) = @{ $cases[$i] };
    my ($want, $why13) = c_of($results[$per_case * $i], "$i-13");
    for my $j (0 .. $#programs) {
        my ($got, $why) = c_of($results[$per_case * $i + 1 + $j], "$i-p$j");
        my $same = $want && $got && @$want == @$got && @$want == $n * $n && !grep { $want->[$_] != $got->[$_] } 0 .. $#$want;
        ok($same, "-n $n --dist $dist: $programs[$j]'s C is step 13's, bit for bit")
            or diag($want && $got ? scalar(grep { $want->[$_] != $got->[$_] } 0 .. $#$want) . ' elements differ'
                                  : "step 13 $why13; $programs[$j] $why");
    }
}
system('rm', '-rf', $dir);

done_testing();
