#!/usr/bin/env perl
# The CPU chapter: every variant against the double reference at sizes that are not
# multiples of the vector width or the blocks, threaded ones on 1, 2 and 3 threads;
# bad input. No GPU needed; vector variants skip (saying why) on a CPU without AVX2.
use strict;
use warnings;
use Test::More;
require './tests/lib.pl';

my $exe = 'cpu/cpu_gemm';
ok(-x $exe, "$exe is built") or BAIL_OUT("build first");
my ($code, $out, $err) = run($exe, '--features');
my %f = map { split /=/, $_, 2 } split /\n/, $out;
diag("CPU: $f{cpu}, $f{cpus} CPUs, $f{isa}, OpenBLAS: $f{openblas_config}");

($code, $out) = run($exe, '--help');
ok($code == 0 && $out =~ /^Usage: cpu_gemm/m, "--help");

my @sizes = map { ('-n', $_) } (1, 2, 7, 8, 9, 15, 16, 17, 63, 64, 65, 100, 257, 1000);
sub check_rows {
    my ($what, @args) = @_;
    my ($code, $out, $err) = run($exe, @args, @sizes, '--reps', 1, '--csv-header');
    my @lines = split /\n/, $out;
    my @head = split /,/, shift @lines;
    is($code, 0, "$what: exit 0") or diag($err);
    my $bad = 0;
    for my $line (@lines) {
        my %r;
        @r{@head} = split /,/, $line;
        $bad++, diag("FAIL: $line") unless $r{status} eq 'pass' && $r{max_rel_err} <= $r{tolerance};
    }
    ok(@lines == 14 * ($what =~ /single/ ? ($f{openblas} ? 6 : 5) : 1) && !$bad,
       "$what: every size within tolerance (" . scalar(@lines) . " runs)");
}

SKIP: {
    skip "this CPU has no AVX2 and FMA: the vector variants cannot run", 18 if $f{isa} eq 'none';
    check_rows("single-threaded variants",
               '--variant', 'baseline,avx,avx_blocked,avx_blocked_bt,packed' . ($f{openblas} ? ',openblas' : ''));
    check_rows("avx_blocked --block 8", '--variant', 'avx_blocked', '--block', 8);
    check_rows("avx_blocked_bt --block 24", '--variant', 'avx_blocked_bt', '--block', 24);
    for my $t (1, 2, 3) {
        check_rows("packed_omp --threads $t", '--variant', 'packed_omp', '--threads', $t);
    }
    SKIP: {
        skip "this CPU has no AVX-512", 2 unless $f{isa} eq 'avx512';
        check_rows("packed --isa avx2 on an AVX-512 CPU", '--variant', 'packed', '--isa', 'avx2');
    }
    SKIP: {
        skip "built without OpenBLAS (install libopenblas-dev)", 2 unless $f{openblas};
        check_rows("openblas --threads 3", '--variant', 'openblas', '--threads', 3);
    }
}

# Block sizes smaller than the micro-tile and the matrix: every loop has a partial last block.
{
    local $ENV{PACKED_KC} = 1;
    local $ENV{PACKED_MC} = 12;
    local $ENV{PACKED_NC} = 32;
    SKIP: {
        skip "no AVX2", 2 if $f{isa} eq 'none';
        check_rows("packed with tiny blocks (KC = 1, MC = 12, NC = 32)", '--variant', 'packed');
    }
}

my @bad = (
    [['-n', '0'], qr/bad size -n '0'/], [['-n', '12x'], qr/bad size -n '12x'/], [['-n', 'abc'], qr/bad size/],
    [['--variant', 'fast'], qr/bad --variant 'fast'/], [['--threads', '0'], qr/bad --threads '0'/],
    [['--block', '12'], qr/bad --block '12'/], [['--block', '0'], qr/bad --block '0'/],
    [['--isa', 'sse'], qr/bad --isa 'sse'/], [['--reps', '-1'], qr/bad --reps/], [['--check', 'x'], qr/bad --check/],
    [['--bogus'], qr/unknown option '--bogus'/], [['stray'], qr/unexpected argument 'stray'/],
    [['-n', '1000000'], qr/host memory/], [['-n'], qr/needs a value/],
);
for my $case (@bad) {
    my ($args, $re) = @$case;
    my ($code, $out, $err) = run($exe, @$args);
    ok($code == 2 && scalar(split /\n/, $err) == 1 && $err =~ $re, "cpu_gemm @$args: exit 2, one line")
        or diag("exit $code: $err");
}
# --dist wide and --load DIR, as the GPU programs take them.
{
    my ($code, $out, $err) = run($exe, '-n', 64, '--dist', 'wide', '--variant', 'baseline', '--csv');
    ok($code == 0 && $out =~ /^baseline,64,.*,pass$/m, "cpu_gemm --dist wide: signed inputs, within the fp32 bound")
        or diag("exit $code: $out$err");
    system('mkdir', '-p', 'obj/cpu_npy');
    save_npy('obj/cpu_npy/a.npy', map { my $i = $_; [map { ($i * 7 + $_ * 3) % 11 - 5 } 0 .. 8] } 0 .. 8);
    save_npy('obj/cpu_npy/b.npy', map { my $i = $_; [map { ($i + 2 * $_) % 5 } 0 .. 8] } 0 .. 8);
    ($code, $out, $err) = run($exe, '--load', 'obj/cpu_npy', '--variant', 'baseline', '--csv');
    ok($code == 0 && $out =~ /^baseline,9,.*,pass$/m, "cpu_gemm --load: n from the files (9), exact small integers pass")
        or diag("exit $code: $out$err");
    ($code, $out, $err) = run($exe, '--load', 'obj/cpu_npy', '-n', 10);
    ok($code == 2 && $err =~ /-n 10, but 'obj\/cpu_npy' holds 9 x 9 matrices/, "cpu_gemm --load with another -n: exit 2, one line")
        or diag("exit $code: $err");
    ($code, $out, $err) = run('python3', 'scripts/special_inputs.py', 'obj/cpu_special', 40);
    ($code, $out, $err) = $code ? ($code, $out, $err) : run($exe, '--load', 'obj/cpu_special', '--variant', 'baseline', '--csv');
    ok($code == 0 && $out =~ /^baseline,40,.*,pass$/m, "cpu_gemm --load of scripts/special_inputs.py's NaN and Inf: "
       . "NaN and Inf where IEEE arithmetic puts them") or diag("exit $code: $out$err");
    ($code, $out, $err) = run($exe, '--load', 'obj/no_such_dir');
    ok($code == 2 && scalar(split /\n/, $err) == 1 && $err =~ /cannot load 'obj\/no_such_dir\/a.npy'/,
       "cpu_gemm --load of a missing folder: exit 2, one line") or diag("exit $code: $err");
}
done_testing();
