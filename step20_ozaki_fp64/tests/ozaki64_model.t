#!/usr/bin/env perl
# The step's FP64 arithmetic (ozaki64.h in this step's folder, built on step 16's ozaki.h), modelled
# exactly on the CPU by ozaki64_model.c beside this file: the plan, the scaled integers (the double's
# bits and the FPU's path, bit for bit), the residues and their INT32 sums, the one rounding to
# double, the remainder theorem in 192 bits and its fast form (bit for bit); then the search of every
# family of the harness's FP64 generator and crafted ones at k = 1 ... 64 and long sums, 14 ... 20
# moduli, against the exact product: no element that (R) or the check accepts is past the fp64
# bound n u |A||B|, the refused ones counted, and what the default count rests on. Controls that
# must fail (one modulus too few, truncation, a gate trusting one binade more) show the search can
# fail. Plain C, no GPU: CI runs it (make test: --quick; make test-deep: the full search). The
# helper is this folder's own (make builds it into obj/test/<folder>/).
use strict;
use warnings;
use Test::More;
require './tests/lib.pl';

my ($folder) = this_step();
my $helper = "obj/test/$folder/ozaki64_model";
ok(-x $helper, "$helper is built") or BAIL_OUT("$helper is missing: run make test, which builds it");
my ($code, $out, $err) = run($helper, deep() ? () : '--quick');
my $checks = 0;
for my $line (split /\n/, $out) {
    if ($line =~ /^(not )?ok \d+ - (.*)$/) {
        $checks++;
        ok(!defined $1, $2);
    } elsif ($line =~ /^#\s?(.*)$/) {
        note($1);
    }
}
ok($code == 0 && $checks >= 40, "the model: exit $code, $checks checks") or diag($err);
done_testing();
