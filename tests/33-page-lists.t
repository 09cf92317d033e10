#!/usr/bin/env perl
# The lists the top README and common/README.md show are generated from what the programs declare,
# and a declared class changed in a scratch copy makes the pages' check fail (tests/page_lists_test.py).
use strict;
use warnings;
use Test::More;
plan skip_all => "python3 is not installed" if system('python3 -c "" 2>/dev/null') != 0;
exec 'python3', 'tests/page_lists_test.py' or die "cannot run python3: $!\n";
