#!/usr/bin/env perl
# Unit tests of common/ (C, TAP): built by `make test` as obj/harness_test. The stand-in NVML its
# conditions' tests load (tests/fake_libnvidia_ml.c) is built here, with the C compiler make uses;
# without one those tests skip, saying so.
use strict;
use warnings;
use File::Temp qw(tempdir);

my $cc = $ENV{CC} || 'cc';
my $dir = tempdir(CLEANUP => 1);
my $fake = "$dir/libnvidia-ml.so.1";
if (system("$cc -Wall -Wextra -shared -fPIC -o $fake tests/fake_libnvidia_ml.c 2>/dev/null") == 0) {
    $ENV{HARNESS_FAKE_NVML} = $fake;
} else {
    delete $ENV{HARNESS_FAKE_NVML};
}
# Not exec: the temporary folder, and the stand-in in it, must outlive the tests.
system('obj/harness_test') == -1 and die "cannot run obj/harness_test: $! (run `make test`)\n";
exit($? & 127 ? 1 : $? >> 8); # a crash fails too
