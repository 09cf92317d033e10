#!/usr/bin/env perl
# The results CSV writer (schema, replace-by-key) and make compare's no-GPU exit; no GPU needed.
use strict;
use warnings;
exec 'python3', 'tests/results_csv_test.py' or die "cannot run python3: $!\n";
