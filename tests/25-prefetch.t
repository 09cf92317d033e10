#!/usr/bin/env perl
# prefetch_runs() (tests/lib.pl): a test file's runs listed by a dry run of itself, made side by
# side before its tests, and each answered once from what was recorded, with its environment;
# runs that save or load files are left to run when asked. Shell commands stand in for the
# programs and a stand-in answers "is there a GPU?", so this runs without one.
use strict;
use warnings;
use Test::More;
require './tests/lib.pl';
no warnings qw(redefine once);
*main::gpu_available = sub { (1, "stand-in GPU\n") };

my $dir = 'obj/prefetch_test';
my $log = "$dir/log";
unless ($ENV{TEST_DRY_RUN}) { system('rm', '-rf', $dir); system('mkdir', '-p', $dir) }
# Each run notes its name in the log, prints its name and MATMUL_SMEM_LIMIT, then waits.
sub stand_in { ('sh', '-c', "echo \"\$1\" >> $log; echo \"out \$1 \${MATMUL_SMEM_LIMIT:-none}\"; sleep 0.4", 'sh', @_) }
sub runs_so_far { open my $f, '<', $log or return (); map { chomp; $_ } <$f> }

$ENV{TEST_JOBS} = 4;
my $started = time_hires();
prefetch_runs();
my $prefetch_s = time_hires() - $started;
my @names = map { "r$_" } 1 .. 8;
is_deeply([sort(runs_so_far())], [sort(@names, 'env', 'env', 'twice')],
          'prefetched: every listed run once (the same command under two environments is two runs), the one that saves a file not among them');
ok($prefetch_s < 11 * 0.4 / 2, sprintf('side by side: 11 runs of 0.4 s, four at a time, in %.1f s', $prefetch_s));

for my $name (@names) {
    my ($code, $out) = run(stand_in($name));
    is($out, "out $name none\n", "$name answered from the prefetch");
}
{
    local $ENV{MATMUL_SMEM_LIMIT} = '47K';
    my ($code, $out) = run(stand_in('env'));
    is($out, "out env 47K\n", 'a run under MATMUL_SMEM_LIMIT: prefetched with it');
}
my ($code, $out) = run(stand_in('env'));
is($out, "out env none\n", 'the same command without it: its own run, answered with its own output');
my $before = () = runs_so_far();
run(stand_in('twice')) for 1 .. 2;
is(scalar(() = runs_so_far()) - $before, 1, 'a command asked for twice: the prefetch answers once, the second runs');
($code, $out) = run(stand_in('save', '--save'));
is($out, "out save none\n", 'a run that saves a file: made when asked');
is((grep { $_ eq 'save' } runs_so_far()), 1, '... and only then');
system('rm', '-rf', $dir) unless $ENV{TEST_DRY_RUN};
done_testing();
