#!/usr/bin/env perl
# Command-line behaviour that needs no GPU: --help, and every bad input rejected
# with exit code 2 and one line on stderr naming the problem, before the GPU is touched.
use strict;
use warnings;
use Test::More;
require './tests/lib.pl';
our @PROGRAMS;

my @bad = (
    [['-n', '0'],          qr/bad size -n '0'/,             'n = 0'],
    [['-n', '-5'],         qr/bad size -n '-5'/,            'negative n'],
    [['-n', 'abc'],        qr/bad size -n 'abc'/,           'n not a number'],
    [['-n', '12x'],        qr/bad size -n '12x'/,           'trailing junk in n'],
    [['-n', ''],           qr/bad size -n ''/,              'empty n'],
    [['-n', '1.5'],        qr/bad size -n '1.5'/,           'fractional n'],
    [['-n', '99999999999999999999'], qr/bad size/,          'n overflowing long'],
    [['-n'],               qr/'-n' needs a value/,          '-n without a value'],
    [['--reps', '0'],      qr/bad --reps '0'/,              'reps = 0'],
    [['--reps', 'many'],   qr/bad --reps 'many'/,           'reps not a number'],
    [['--seed', '-1'],     qr/bad --seed '-1'/,             'negative seed'],
    [['--check', 'maybe'], qr/bad --check 'maybe'/,         'unknown check mode'],
    [['--frobnicate'],     qr/unknown option '--frobnicate'/, 'unknown long option'],
    [['-x'],               qr/unknown option '-x'/,         'unknown short option'],
    [['--csv=yes'],        qr/unknown option|--csv/,        'value for a flag'],
    [['1000'],             qr/unexpected argument '1000'/,  'stray argument'],
    [['-n', '2000000'],    qr/host memory/,                 'n too large for host memory'],
    [['--config', 'nope'], qr/bad --config 'nope'/,         'unknown configuration'],
    [['--config', ''],     qr/bad --config ''/,             'empty configuration'],
);

for my $p (@PROGRAMS) {
    ok(-x $p, "$p is built") or next;
    my ($code, $out, $err) = run($p, '--help');
    is($code, 0, "$p --help exits 0");
    like($out, qr/^Usage: \S+/m, "$p --help prints the usage");
    like($out, qr/--check MODE.*--save DIR/s, "$p --help lists the options");

    for my $case (@bad) {
        my ($args, $re, $what) = @$case;
        ($code, $out, $err) = run($p, @$args);
        is($code, 2, "$p: $what -> exit 2");
        my @lines = split /\n/, $err;
        ok(@lines == 1 && $err =~ $re, "$p: $what -> one line naming it")
            or diag("stderr: $err");
        is($out, '', "$p: $what -> nothing on stdout");
    }
    # A bad shared-memory cap is bad usage too, said before the GPU is looked for.
    for my $cap ('abc', '12', '47K', '64KB', '-65536') {
        local $ENV{MATMUL_SMEM_LIMIT} = $cap;
        ($code, $out, $err) = run($p, '-n', 8);
        ok($code == 2 && scalar(split /\n/, $err) == 1 && $err =~ /bad MATMUL_SMEM_LIMIT '\Q$cap\E'/,
           "$p: MATMUL_SMEM_LIMIT=$cap -> exit 2, one line") or diag("exit $code: $err");
    }
}

my ($has_gpu, $why) = gpu_available();
SKIP: {
    skip "a GPU is present, so the no-GPU message cannot be seen", 2 * @PROGRAMS if $has_gpu;
    for my $p (@PROGRAMS) {
        my ($code, $out, $err) = run($p, '-n', '8');
        is($code, 3, "$p without a GPU exits 3");
        ok(scalar(split /\n/, $err) == 1 && $err =~ /no NVIDIA GPU here|no CUDA device visible/,
           "$p without a GPU says so in one line") or diag("stderr: $err");
    }
}

done_testing();
