#!/usr/bin/env perl
# What the step declares (experiments.json) and reports (report.py): report_test.py beside this
# file, run by the Python that draws (its chart's checks skip where none imports matplotlib).
use strict;
use warnings;
require './tests/lib.pl';
exec_step_python_test();
