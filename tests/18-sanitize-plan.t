#!/usr/bin/env perl
# make sanitize's plan on a fixture, ONLY= included; no GPU needed (tests/sanitize_test.py).
use strict;
use warnings;
exec 'python3', 'tests/sanitize_test.py' or die "cannot run python3: $!\n";
