#!/usr/bin/env perl
# Runs in batches (tests/lib.pl's run_many, a program's --batch: common/step_main.c): several runs
# of a program in one process give each run the exit code and output it gives alone, also where a
# run ends the process (bad usage, no GPU): the runs after it are made again. Without a GPU the
# runs that need one end their batch at once, which exercises just that.
use strict;
use warnings;
use Test::More;
require './tests/lib.pl';
our (@STEPS, %EXIT);

my $step = $STEPS[0];
my $batch = 'obj/batch_test.txt';
open my $f, '>', $batch or BAIL_OUT("$batch: $!");
print $f "--describe\n--describe\t-n\t7\n-n\tx\n--describe\n";
close $f;
my ($code, $out, $err) = run($step, '--batch', $batch);
my @marks = $out =~ /\x1ebatch (-?\d+) [\d.]+\n/g;
ok($code == $EXIT{usage} && $out =~ /^\x1ebatch start\n/ && "@marks" eq '0 0' && $err =~ /bad size -n 'x'/,
   "$step --batch: a line a run, each followed by its exit code; the bad -n ends the process with its own code")
    or diag("exit $code\n$out\n$err");
unlink $batch;
for my $bad ([], ['obj/no/such/batch.txt'], [$batch, '-n', 7]) {
    ($code, $out, $err) = run($step, '--batch', @$bad);
    ok($code == $EXIT{usage} && scalar(split /\n/, $err) == 1 && $err =~ /--batch/,
       "$step --batch @$bad: exit 2, one line") or diag("exit $code: $err");
}

my @cmds = ([$step, '--describe'], [$step, '--describe', '-n', 7], [$step, '-n', 'x'], [$step, '--describe'],
            [$step, '-n', 7, '--csv'], [$step, '-n', 17, '--dist', 'wide', '--csv'], [$step, '--describe', '-n', 9],
            [$step, '--gpu-check'], [$step, '-n', 0], [$step, '--describe']);
my @batched = run_many(2, @cmds);
my @alone = do { local $ENV{TEST_BATCH} = 1; run_many(2, @cmds) };
# (the times in a CSV row are the run's own, not the same twice: left out)
sub untimed { my ($r) = @_; my @f = split /,/, $r->[1], -1;
              @f[3, 4, 5, 8 .. 13] = ('') x 9 if @f > 20; [$r->[0], join(',', @f), $r->[2]] }
for my $i (0 .. $#cmds) {
    is_deeply(untimed($batched[$i]), untimed($alone[$i]), "batched as alone: @{ $cmds[$i] } (exit $alone[$i][0])");
}
done_testing();
