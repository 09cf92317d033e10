#!/usr/bin/env perl
# The tensor-core pictures (each step's pictures.py): their rules checked against the
# kernels' sources, their facts, and the same bytes on every run. With python3 if it has
# matplotlib, else the local .venv that `make plots-env` makes; skipped (with the reason)
# where neither has it.
use strict;
use warnings;
my $py = system('python3 -c "import matplotlib" 2>/dev/null') == 0 ? 'python3'
       : -x '.venv/bin/python' ? '.venv/bin/python' : 'python3';
exec $py, 'tests/pictures_test.py' or die "cannot run $py: $!\n";
