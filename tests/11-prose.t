#!/usr/bin/env perl
# The check of the READMEs' prose against results/ can fail (tests/prose_test.py).
use strict;
use warnings;
use Test::More;
plan skip_all => "python3 is not installed" if system('python3 -c "" 2>/dev/null') != 0;
exec 'python3', 'tests/prose_test.py' or die "cannot run python3: $!\n";
