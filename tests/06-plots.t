#!/usr/bin/env perl
# The charts on a fixture CSV: with python3 if it has matplotlib, else the local .venv
# that `make plots-env` makes; skipped (with the reason) where neither has it.
use strict;
use warnings;
my $py = system('python3 -c "import matplotlib" 2>/dev/null') == 0 ? 'python3'
       : -x '.venv/bin/python' ? '.venv/bin/python' : 'python3';
exec $py, 'tests/plots_test.py' or die "cannot run $py: $!\n";
