#!/usr/bin/env perl
# The transpose chapter: every variant exact over shapes that are not square and not
# multiples of any tile; bad input. CPU variants run everywhere; GPU ones skip without a GPU.
use strict;
use warnings;
use Test::More;
require './tests/lib.pl';

my $exe = 'transpose/transpose';
ok(-x $exe, "$exe is built") or BAIL_OUT("build first");
my ($code, $out) = run($exe, '--help');
ok($code == 0 && $out =~ /^Usage: transpose/m && $out =~ /shared_padded/, "--help");

my @shapes = ([1000, 777], [1, 5000], [5000, 1], [1, 1], [17, 33], [33, 17], [1536, 2048], [257, 1023]);
sub check_shapes {
    my ($variants) = @_;
    for my $s (@shapes) {
        my ($r, $c) = @$s;
        my ($code, $out, $err) = run($exe, '--rows', $r, '--cols', $c, '--iters', 2, '--variant', $variants,
                                     '--csv');
        my @lines = split /\n/, $out;
        my $wrong = grep { !/,exact(?:,|$)/ } @lines; # the status, then the GPU's conditions (common/conditions.h)
        ok($code == 0 && @lines == scalar(split /,/, $variants) && !$wrong, "$variants at $r x $c: exact")
            or diag("exit $code: $out$err");
    }
}
check_shapes('cpu,cpu_blocked');

my ($has_gpu, $why) = gpu_available();
SKIP: {
    skip "no GPU: $why", scalar(@shapes) + 2 unless $has_gpu;
    check_shapes('naive,shared,shared_padded,tiled32x8,copy,copy_kernel');
    # taller than 65535 blocks of 32 rows: the grid is launched in slices
    my ($code, $out, $err) = run($exe, '--rows', 2100000, '--cols', 3, '--iters', 1, '--variant',
                                 'naive,shared,tiled32x8,copy_kernel', '--csv');
    ok($code == 0 && $out !~ /WRONG/, "2100000 x 3 (more rows than one grid holds): exact") or diag("$out$err");
    ($code, $out, $err) = run($exe, '--rows', 200000, '--cols', 200000);
    ok($code == 2 && $err =~ /memory/, "200000 x 200000: exit 2, too large") or diag($err);
}
SKIP: {
    skip "a GPU is present", 1 if $has_gpu;
    my ($code, $out, $err) = run($exe, '--rows', 8, '--cols', 8, '--variant', 'naive');
    ok($code == 3 && scalar(split /\n/, $err) == 1 && $err =~ /no NVIDIA GPU here|no CUDA device visible/, "GPU variant without a GPU: exit 3, one line")
        or diag($err);
}

for my $case ([['--rows', '0'], qr/bad --rows '0'/], [['--cols', 'x'], qr/bad --cols 'x'/],
              [['--cols', '12x'], qr/bad --cols '12x'/], [['--iters', '0'], qr/bad --iters '0'/],
              [['--variant', 'fast'], qr/bad --variant 'fast'/], [['--bogus'], qr/unknown option '--bogus'/],
              [['stray'], qr/unexpected argument/], [['--rows'], qr/needs a value/],
              [['--rows', '1000000', '--cols', '1000000'], qr/host memory/]) {
    my ($args, $re) = @$case;
    my ($code, $out, $err) = run($exe, @$args);
    ok($code == 2 && scalar(split /\n/, $err) == 1 && $err =~ $re, "transpose @$args: exit 2, one line")
        or diag("exit $code: $err");
}
done_testing();
