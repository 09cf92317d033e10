#!/usr/bin/env perl
# The command line of the step's other program, int8_gemm (cuBLAS's INT8 GEMM, the ceiling of its
# products): sizes are given with --sizes, and a number past what it takes is too large, said with
# the largest accepted; each bad input is one line and exit 2, judged before any GPU is looked for
# (without one: exit 2, not 3). No GPU needed. The program is this file's folder's (make builds it
# into obj/<folder>/): a copy of the folder tests its own.
use strict;
use warnings;
use Test::More;
require './tests/lib.pl';

my ($folder) = this_step();
my $int8 = "obj/$folder/int8_gemm";
ok(-x $int8, "$int8 is built") or BAIL_OUT("$int8 is missing: run make test, which builds it");
for my $case ([['-n', '4096'], qr/unknown option '-n': sizes are given with --sizes "4096 8192"/],
              [['4096'], qr/unexpected argument '4096': sizes are given with --sizes "4096 8192"/],
              [['--sizes', '3000000000'], qr/3000000000 is too large, the largest accepted is 32768/],
              [['--sizes', '4096 40000'], qr/40000 is too large, the largest accepted is 32768/],
              [['--reps', '1001'], qr/bad --reps '1001': too large, the largest accepted is 1000/],
              [['--reps'], qr/option '--reps' needs a value/]) {
    my ($args, $re) = @$case;
    my ($code, $out, $err) = run($int8, @$args);
    ok($code == 2 && $out eq '' && scalar(split /\n/, $err) == 1 && $err =~ $re, "$int8 @$args: exit 2, one line naming it")
        or diag("exit $code: $err");
}

done_testing();
