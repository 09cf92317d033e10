#!/usr/bin/env perl
# A step's sources include only common/, tests/, its own folder and the steps on its builds_on
# chain (tests/includes_test.py).
use strict;
use warnings;
use Test::More;
plan skip_all => "python3 is not installed" if system('python3 -c "" 2>/dev/null') != 0;
exec 'python3', 'tests/includes_test.py' or die "cannot run python3: $!\n";
