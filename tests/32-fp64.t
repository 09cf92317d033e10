#!/usr/bin/env perl
# FP64 through the harness: the programs whose arithmetic multiplies FP64 matrices (element=float64
# in --describe: cuBLAS DGEMM, native and emulated), found by what they say, none by name. Without
# a GPU: their description (the fp64 class), and bad input refused before the GPU (float32 files
# where float64 ones are wanted). On a GPU: every FP64 row on the seven families of FP64's range at
# sizes that are multiples of nothing, judged by the fp64 bound gamma(n) = n u64 / (1 - n u64);
# NaN and Inf where an FP64 GEMM gives them; --save writes float64; an FP32 result judged by the
# fp64 bound fails (the bound can fail on the GPU too).
# Depth. make test (quick): n = 1, 17, 257 and 1025 on every family. make test-deep: also 7, 100,
# 1000 and 4097.
use strict;
use warnings;
use Test::More;
require './tests/lib.pl';
prefetch_runs(); # this file's runs made side by side first (tests/lib.pl)
our (@PROGRAMS, %EXIT);

my @fp64 = grep { ($_->{element} // '') eq 'float64' } map { describe($_) } @PROGRAMS;
ok(@fp64 >= 1, "at least one program multiplies FP64 (" . join(' ', map { $_->{row} } @fp64) . ")");
for my $d (@fp64) {
    is($d->{precision}, 'fp64', "$d->{row}: judged by the fp64 class");
}
my @fp32 = grep { ($_->{element} // '') eq 'float32' } map { describe($_) } @PROGRAMS;
ok(@fp32 >= 1 && !grep({ $_->{precision} eq 'fp64' } @fp32), "no FP32 row claims the fp64 class");

# Before the GPU: float32 files where float64 ones are wanted, one line and exit 2.
my $dir = "obj/fp64_test_$$";
mkdir $dir;
save_npy("$dir/a.npy", [1, 2], [3, 4]);
save_npy("$dir/b.npy", [1, 0], [0, 1]);
for my $d (@fp64) {
    my ($code, $out, $err) = run(row_command($d), '--load', $dir);
    ok($code == $EXIT{usage} && $err =~ /dtype '<f4', expected float64 '<f8'/ && ($err =~ tr/\n//) == 1,
       "$d->{row} --load of float32 files: exit 2, one line naming the dtype") or diag("exit $code: $err");
}

my ($has_gpu, $info) = gpu_available();
if (!$has_gpu) {
    system('rm', '-rf', $dir);
    done_testing();
    diag("the GPU runs skipped: no GPU: $info");
    exit 0;
}

# gamma(n) with u64 = 2^-53, as common/check.c computes it.
sub gamma64 { my ($n) = @_; my $u = 2**-53; return $n * $u / (1 - $n * $u) }

my @families = qw(uniform wide subnormal tiny rowscale mixed huge);
my @sizes = sizes(quick => [1, 17, 257, 1025], deep => [1, 7, 17, 100, 257, 1000, 1025, 4097]);
quick_skips('n = 7, 100, 1000 and 4097');
for my $d (@fp64) {
    my ($runs, $why) = runs_here($d->{binary});
    if (!$runs) {
        diag("$d->{row}: skipped: $why");
        next;
    }
    # the families it says it leaves the bound on ("family: why; ..."): reported, and one FAIL
    # required there, so that the saying stays true
    my %outside = map { /^\s*(\w+):/ ? ($1 => 1) : () } split /;/, $d->{outside_bound} // '';
    for my $dist (@families) {
        my @failed;
        for my $n (@sizes) {
            my ($code, $out, $err) = run(row_command($d), '-n', $n, '--dist', $dist, '--reps', 1, '--csv-header');
            my %r = csv_row($out);
            my $measured = ($code == 0 || $code == $EXIT{inaccurate}) && ($r{precision} // '') eq 'fp64'
                && is_number($r{max_comp_err}) && abs($r{tolerance} - gamma64($n)) <= 1e-3 * gamma64($n);
            my $within = $measured && $code == 0 && $r{status} eq 'pass' && $r{max_comp_err} <= gamma64($n);
            push @failed, "n=$n $r{max_comp_err}" if $measured && !$within;
            ok($outside{$dist} ? $measured : $within, "$d->{row} n=$n $dist: "
               . ($outside{$dist} ? "measured (its outside_bound names $dist)" : "within gamma(n)") . " ("
               . ($r{max_comp_err} // '?') . " against " . sprintf('%.3e', gamma64($n)) . ")") or diag("exit $code: $err");
        }
        if ($outside{$dist}) {
            diag("$d->{row} on $dist, past the fp64 bound: " . (@failed ? join(', ', @failed) : 'nowhere'));
            ok(@failed > 0, "$d->{row} on $dist: past the bound somewhere, as its outside_bound says");
        }
    }
}

# NaN and Inf in float64 files: C holds them where an FP64 GEMM does, every row compared.
my $inf = 9**9**9;
my $nan = $inf - $inf;
save_npy64("$dir/a.npy", [1, 2, 3], [$inf, 1, 1], [1, 1, 1]);
save_npy64("$dir/b.npy", [1, 0, 0], [0, 1, 0], [0, 0, $nan]);
for my $d (grep { (runs_here($_->{binary}))[0] } @fp64) {
    my ($code, $out, $err) = run(row_command($d), '--load', $dir);
    ok($code == 0 && $out =~ /PASS/, "$d->{row}: Inf in A and NaN in B give Inf and NaN where an FP64 GEMM does")
        or diag("exit $code: $out$err");
    my $save = "$dir/saved";
    ($code) = run(row_command($d), '-n', 33, '--reps', 1, '--save', $save);
    ok($code == 0 && (-s "$save/c.npy" // 0) == 128 + 33 * 33 * 8, "$d->{row} --save: c.npy holds 33 x 33 doubles");
}

# The bound can fail on the GPU: cuBLAS SGEMM's result judged as FP64.
my ($sgemm) = grep { $_->{row} eq $_->{program} && $_->{element} eq 'float32' && $_->{chapter} eq 'reference' } @fp32;
if ($sgemm) {
    my ($code, $out, $err) = run(row_command($sgemm), '-n', 100, '--reps', 1, '--judge', 'fp64');
    ok($code == $EXIT{inaccurate} && $out =~ /FAIL: componentwise error .* > .*the fp64 bound/,
       "$sgemm->{row} judged by the fp64 bound: FAIL, exit 1") or diag("exit $code: $out$err");
}
system('rm', '-rf', $dir);
done_testing();
