#!/usr/bin/env perl
# The step's arithmetic (fast_arithmetic.h in this step's folder) against step 16's (ozaki.h), bit for
# bit, by fast_arithmetic.c beside this file: the residues in single precision for every width the
# split takes and every modulus, the remainder theorem in 64 bits for every plan it accepts, and a
# control that must fail. Plain C, no GPU: CI runs it. The helper is this folder's own (make builds
# it into obj/test/<folder>/).
use strict;
use warnings;
use Test::More;
require './tests/lib.pl';

my ($folder) = this_step();
my $helper = "obj/test/$folder/fast_arithmetic";
ok(-x $helper, "$helper is built") or BAIL_OUT("$helper is missing: run make test, which builds it");
my ($code, $out, $err) = run($helper);
my $checks = 0;
for my $line (split /\n/, $out) {
    if ($line =~ /^(not )?ok \d+ - (.*)$/) {
        $checks++;
        ok(!defined $1, $2);
    }
}
ok($code == 0 && $checks >= 5, "the helper: exit $code, $checks checks") or diag($err);
done_testing();
