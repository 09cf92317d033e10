#!/usr/bin/env perl
# Hopper's instructions on the GPU, one wrapper at a time: tests/hopper_test.cu copies tiles
# with the TMA onto an mbarrier, multiplies them with wgmma (N = 64, 128, 256), checks the zero
# fill past a matrix's edge, and runs a producer and a consumer warpgroup that trade registers
# with setmaxnreg. And their arithmetic: tests/tensor_core_arith.cu measures how the TMA rounds
# to TF32 and how one wgmma sums, bit for bit against tests/tf32_model.h. Each check is one of
# their TAP lines, passed on here. Both are built for sm_90a only (make builds them as test
# helpers, with or without a GPU): their absence fails everywhere. Skipped without a GPU, or
# on a GPU other than compute capability 9.0 (exit 4, with its reason).
use strict;
use warnings;
use Test::More;
require './tests/lib.pl';
our %EXIT;

# Two programs, both TAP: hopper_test (the wrappers), tensor_core_arith (what the TMA and
# wgmma do to the bits: TF32 rounding on the way in, the sum, against tests/tf32_model.h).
my @programs = ('obj/test/hopper_test', 'obj/test/tensor_core_arith');
if (my @missing = grep { !-x } @programs) {
    fail("$_ is built (make builds it, for sm_90a, as a test helper)") for @missing;
    done_testing();
    exit;
}
my ($has_gpu, $info) = gpu_available();
plan skip_all => "no GPU: $info" unless $has_gpu;
pass("@programs are built");

for my $program (@programs) {
    my $name = ($program =~ m{([^/]+)$})[0];
    my ($code, $out, $err) = run($program);
    if ($code == $EXIT{no_feature}) {
        diag("$name: skipped: " . ($err =~ s/\s+$//r));
        next;
    }
    # Its TAP: "ok N - what", "not ok N - what", "#" comments (passed on as diagnostics), the
    # plan "1..N" last, or "Bail out!" when a kernel hung.
    my ($results, $plan) = (0, undef);
    for my $line (split /\n/, $out) {
        if ($line =~ /^(not )?ok (\d+) - (.*)$/) {
            $results++;
            ok(!defined $1, "$name: $3");
        } elsif ($line =~ /^1\.\.(\d+)$/) {
            $plan = $1;
        } elsif ($line =~ /^Bail out!\s*(.*)$/) {
            fail("$name: $1");
        } elsif ($line =~ /^#\s?(.*)$/) {
            diag($1);
        }
    }
    ok($results >= 5 && defined $plan && $plan == $results,
       "$name ran all its checks ($results results, plan " . ($plan // 'missing') . ")");
    is($code, 0, "$name exits 0") or diag($err =~ s/\s+$//r);
}

done_testing();
