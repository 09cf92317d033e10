#!/usr/bin/env perl
# One way in: nothing in a step's folder edits sys.path, a step's Python is a plug-in, the build and
# the scripts read no step_info field out of a source, --describe and its record carry what the
# consumers read, experiments.json holds only the generic kinds (tests/one_way_in_test.py).
use strict;
use warnings;
use Test::More;
plan skip_all => "python3 is not installed" if system('python3 -c "" 2>/dev/null') != 0;
exec 'python3', 'tests/one_way_in_test.py' or die "cannot run python3: $!\n";
