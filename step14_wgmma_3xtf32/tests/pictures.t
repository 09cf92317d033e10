#!/usr/bin/env perl
# The step's pictures (tc_budget): pictures_test.py beside this file, run by the Python that draws.
use strict;
use warnings;
require './tests/lib.pl';
exec_step_python_test();
