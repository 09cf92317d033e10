#!/usr/bin/env perl
# The pictures' runner and drawing library (each step tests its own pictures in its folder's
# tests/pictures.t). With the Python that draws (python3 if it has matplotlib, else the local
# .venv that `make plots-env` makes); skipped, with the reason, where neither has it.
use strict;
use warnings;
require './tests/lib.pl';
my $py = plot_python();
exec $py, 'tests/pictures_test.py' or die "cannot run $py: $!\n";
