#!/usr/bin/env perl
# Hopper's instructions on the GPU, one wrapper at a time: tests/hopper_test.cu copies tiles
# with the TMA onto an mbarrier, multiplies them with wgmma (N = 64, 128, 256), checks the zero
# fill past a matrix's edge, and runs a producer and a consumer warpgroup that trade registers
# with setmaxnreg; each check is one of its TAP lines, passed on here. The program is built
# for sm_90a only (make builds it as a test helper, with or without a GPU): its absence fails
# everywhere. Skipped without a GPU, or on a GPU other than compute capability 9.0 (exit 4,
# with its reason).
use strict;
use warnings;
use Test::More;
require './tests/lib.pl';
our %EXIT;

my $program = 'obj/test/hopper_test';
unless (-x $program) {
    fail("$program is built (make builds it, for sm_90a, as a test helper)");
    done_testing();
    exit;
}
my ($has_gpu, $info) = gpu_available();
plan skip_all => "no GPU: $info" unless $has_gpu;

my ($code, $out, $err) = run($program);
plan skip_all => ($err =~ s/\s+$//r) if $code == $EXIT{no_feature};
pass("$program is built");

# Its TAP: "ok N - what", "not ok N - what", "#" comments (passed on as diagnostics), the
# plan "1..N" last, or "Bail out!" when a kernel hung.
my ($results, $plan) = (0, undef);
for my $line (split /\n/, $out) {
    if ($line =~ /^(not )?ok (\d+) - (.*)$/) {
        $results++;
        ok(!defined $1, "hopper_test: $3");
    } elsif ($line =~ /^1\.\.(\d+)$/) {
        $plan = $1;
    } elsif ($line =~ /^Bail out!\s*(.*)$/) {
        fail("hopper_test: $1");
    } elsif ($line =~ /^#\s?(.*)$/) {
        diag($1);
    }
}
ok($results >= 5 && defined $plan && $plan == $results,
   "hopper_test ran all its checks ($results results, plan " . ($plan // 'missing') . ")");
is($code, 0, "hopper_test exits 0") or diag($err =~ s/\s+$//r);

done_testing();
