#!/usr/bin/env perl
# Every step on the GPU: correct at sizes that are not multiples of anything, the
# article's limits handled, the pitch reported, results saved. Skipped without a GPU.
use strict;
use warnings;
use Test::More;
require './tests/lib.pl';
our @PROGRAMS;

my ($has_gpu, $info) = gpu_available();
plan skip_all => "no GPU: $info" unless $has_gpu;
chomp $info;
my ($name, $cc, $sms, $clock, $total, $free, $smem_optin, $l2) = split /,/, $info;
diag("GPU: $name, compute capability $cc, $sms SMs at up to $clock kHz, $total bytes, "
     . "$smem_optin bytes of shared memory per block, $l2 bytes of L2");

my @sizes = (1, 2, 15, 16, 17, 31, 33, 255, 256, 257, 1000, 1023, 1024, 1025, 2048, 4095, 4097);
my @cols = qw(program n device kernel_ms gflops total_ms max_rel_err avg_rel_err);

for my $p (@PROGRAMS) {
    for my $n (@sizes) {
        my ($code, $out, $err) = run($p, '-n', $n, '--reps', 2, '--csv-header', '--check', 'full');
        my ($head, $row) = split /\n/, $out;
        my %r;
        @r{split /,/, $head // ''} = split /,/, $row // '';
        is($code, 0, "$p -n $n: exit 0 (status $r{status}, max rel. error $r{max_rel_err}, tolerance $r{tolerance})")
            or diag($err);
        ok($r{max_rel_err} <= $r{tolerance} && $r{kernel_ms} > 0 && $r{total_ms} >= $r{kernel_ms} * 0,
           "$p -n $n: within tolerance, kernel timed") or diag($out);
    }
    # The article's n: the compensated steps must reach its 1.19e-7 class.
    my ($code, $out) = run($p, '--csv', '--reps', 2);
    my (undef, undef, undef, undef, undef, undef, $max) = split /,/, $out;
    if ($p =~ /step01/) {
        ok($max > 2.5e-7, "$p: plain float sum at n = 1000 is visibly less accurate ($max)");
    } elsif ($p =~ /cublas|step0[7-9]|step1\d/) {
        ok($max < 2.5e-5, "$p: plain FP32 sums at n = 1000, max relative error $max");
    } else {
        ok($max <= 2.5e-7, "$p: Kahan at n = 1000, max relative error $max <= 2.5e-7");
    }
}

for my $p (@PROGRAMS) {
    my ($code, $out, $err) = run($p, '-n', 257, '--reps', 1);
    like($out, qr/^Max error: \S+ Average error: \S+/m, "$p prints the article's error line");
    like($out, qr/^Time used: [\d.]+ s \([\d.]+ GFLOPS\)/m, "$p prints the article's time line");
    like($out, qr/^Kernel: [\d.]+ ms \([\d.]+ GFLOPS\)/m, "$p prints the kernel time");
}

# Step 03 keeps a row of n floats in shared memory: past 48 KB it must opt in, and
# past the device's opt-in limit it must refuse clearly, before allocating.
{
    my $n = 12289; # 49156 bytes, just over 48 KB
    my ($code, $out, $err) = run('step03_shared_row/step03', '-n', $n, '--reps', 1, '--check', 'sample');
    is($code, 0, "step03 -n $n: a row of more than 48 KB in shared memory works") or diag($err);
    my $too_big = int($smem_optin / 4) + 1;
    ($code, $out, $err) = run('step03_shared_row/step03', '-n', $too_big);
    is($code, 2, "step03 -n $too_big: exit 2, the row does not fit in shared memory");
    like($err, qr/shared memory|device memory/, "step03 -n $too_big: says why") or diag($err);
}

# An n whose matrices do not fit in the device's free memory: refused before any allocation.
{
    my $n = int(sqrt($free / 12) * 1.05) + 16;
    my ($code, $out, $err) = run('step05_tiled/step05', '-n', $n);
    is($code, 2, "step05 -n $n: exit 2, too large for the device (or host) memory");
    ok(scalar(split /\n/, $err) == 1 && $err =~ /memory/, "step05 -n $n: one line naming the memory")
        or diag($err);
}

# Step 04 reports the pitch it got: padded at n = 1000, unchanged at a power of two.
{
    my (undef, $out) = run('step04_pitch/step04', '-n', 1000, '--reps', 1);
    my ($row, $pitch) = $out =~ /Pitch: rows of (\d+) bytes are allocated (\d+) bytes apart/;
    ok(defined $pitch && $row == 4000 && $pitch > 4000, "step04 -n 1000: 4000-byte rows padded to $pitch");
    (undef, $out) = run('step04_pitch/step04', '-n', 1024, '--reps', 1);
    ($row, $pitch) = $out =~ /Pitch: rows of (\d+) bytes are allocated (\d+) bytes apart/;
    ok(defined $pitch && $row == 4096 && $pitch == 4096, "step04 -n 1024: 4096-byte rows stay 4096");
    (undef, $out) = run('step06_padded/step06', '-n', 1000, '--reps', 1);
    like($out, qr/Padded allocation: 1008 x 1008 zero-filled for n = 1000/, "step06 -n 1000: padded to 1008");
}

# --save writes NumPy files; where numpy is installed, check C = A B from them.
{
    my $dir = "obj/save_test";
    system('rm', '-rf', $dir);
    my ($code) = run('step06_padded/step06', '-n', 33, '--reps', 1, '--save', $dir);
    is($code, 0, "step06 --save runs");
    ok(-s "$dir/$_" == 128 + 33 * 33 * 4, "--save wrote $_ (header and 33 x 33 floats)") for qw(a.npy b.npy c.npy);
    SKIP: {
        skip "numpy is not installed", 1 if system('python3 -c "import numpy" 2>/dev/null') != 0;
        my $py = "import numpy as np; a,b,c=[np.load('$dir/'+x+'.npy') for x in 'abc'];"
               . "r=a.astype(np.float64)\@b.astype(np.float64);"
               . "print(c.dtype, c.shape, float(np.max(np.abs(c-r)/np.abs(r))))";
        my $o = `python3 -c "$py"`;
        my ($dtype, $err) = $o =~ /^(\S+) \(33, 33\) (\S+)/;
        ok(defined $err && $dtype eq 'float32' && $err <= 2.5e-7, "numpy reads the files and finds C = A B (max rel. error $err)");
    }
}

done_testing();
