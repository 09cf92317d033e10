#!/usr/bin/env perl
# The development versions' script and README table on a fixture, a FAIL among its rows;
# no GPU needed (tests/versions_test.py).
use strict;
use warnings;
exec 'python3', 'tests/versions_test.py' or die "cannot run python3: $!\n";
