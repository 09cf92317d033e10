#!/usr/bin/env perl
# No program, the harness included, keeps hidden state between runs: no mutable static,
# thread-local or global (tests/static_state_test.py).
use strict;
use warnings;
use Test::More;
plan skip_all => "python3 is not installed" if system('python3 -c "" 2>/dev/null') != 0;
exec 'python3', 'tests/static_state_test.py' or die "cannot run python3: $!\n";
