#!/usr/bin/env perl
# Unit tests of common/ (C, TAP): built by `make test` as obj/harness_test.
use strict;
use warnings;
exec 'obj/harness_test' or die "cannot run obj/harness_test: $! (run `make test`)\n";
