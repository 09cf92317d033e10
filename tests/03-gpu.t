#!/usr/bin/env perl
# Every step on the GPU: correct at sizes that are not multiples of anything, the
# article's limits handled, the pitch reported, results saved; step 10 in every
# configuration and under shared-memory caps. Skipped without a GPU; a program this GPU
# cannot run (exit 4) is skipped with its reason. Every check reads the exit status and
# a figure that must exist: a program that crashes or prints nothing fails.
use strict;
use warnings;
use Test::More;
require './tests/lib.pl';
our (@PROGRAMS, %EXIT);

my ($has_gpu, $info) = gpu_available();
plan skip_all => "no GPU: $info" unless $has_gpu;
chomp $info;
# smem_optin: the limit in force (MATMUL_SMEM_LIMIT may lower it); smem_device: the GPU's own.
my ($name, $cc, $sms, $clock, $total, $free, $smem_optin, $l2, $smem_device) = split /,/, $info;
diag("GPU: $name, compute capability $cc, $sms SMs at up to $clock kHz, $total bytes, "
     . "$smem_optin bytes of shared memory per block, $l2 bytes of L2");

my @sizes = (1, 2, 7, 15, 16, 17, 31, 33, 255, 256, 257, 1000, 1023, 1024, 1025, 2048, 4095, 4097);

# One run: exit 0, and the row's figures exist and hold.
sub check_run {
    my ($what, @cmd) = @_;
    my ($code, $out, $err) = run(@cmd, '--csv-header');
    my %r = csv_row($out);
    is($code, $EXIT{pass}, "$what: exit 0") or diag("stderr: $err");
    ok(is_number($r{max_comp_err}) && is_number($r{tolerance}) && $r{max_comp_err} <= $r{tolerance}
       && $r{status} eq 'pass', "$what: componentwise error " . ($r{max_comp_err} // 'missing') . " within the "
       . ($r{precision} // '?') . " bound " . ($r{tolerance} // 'missing')) or diag("stdout: $out");
    # The end-to-end time is the sum of its phases, the kernel's among them (the kernel's
    # median comes from other launches: under another load it can exceed the pass's own).
    my $phases = 0;
    $phases += $r{$_} // 0 for qw(alloc_ms h2d_ms kernel_e2e_ms d2h_ms free_ms);
    ok(is_number($r{kernel_ms}) && $r{kernel_ms} > 0 && is_number($r{kernel_e2e_ms}) && $r{kernel_e2e_ms} > 0
       && is_number($r{total_ms}) && $r{total_ms} > $r{kernel_e2e_ms} && abs($r{total_ms} - $phases) < 1e-4,
       "$what: kernel timed, end-to-end time the sum of its phases") or diag("stdout: $out");
    return %r;
}

my %runs;
for my $p (@PROGRAMS) {
    my ($runs, $why) = runs_here($p);
    $runs{$p} = $runs;
    SKIP: {
        skip "$p: $why", 3 * @sizes + 2 unless $runs;
        check_run("$p -n $_", $p, '-n', $_, '--reps', 2, '--check', 'full') for @sizes;
        my ($code, $out, $err) = run($p, '--csv-header', '--reps', 2);
        my %r = csv_row($out);
        is($code, $EXIT{pass}, "$p -n 1000: exit 0") or diag($err);
        # Each program's class of accuracy, as it declares it (--describe), at the article's n.
        my $max = $r{max_rel_err};
        my $d = (describe($p))[0];
        if ($d->{precision} eq 'tf32') {
            ok(is_number($max) && $max > 2.5e-5 && $max < 1e-3 && $r{precision} eq 'tf32',
               "$p: TF32 at n = 1000, max relative error " . ($max // 'missing') . ", judged as tf32");
        } elsif ($d->{compensated}) {
            ok(is_number($max) && $max <= 2.5e-7, "$p: Kahan at n = 1000, max relative error " . ($max // 'missing'));
        } elsif ($d->{chapter} eq 'article') {  # step 01, the article's plain sum beside its Kahan steps
            ok(is_number($max) && $max > 2.5e-7, "$p: plain float sum at n = 1000 is visibly less accurate ($max)");
        } else {
            ok(is_number($max) && $max < 2.5e-5 && $r{precision} eq 'fp32',
               "$p: FP32 at n = 1000, max relative error " . ($max // 'missing'));
        }
    }
}

for my $p (grep { $runs{$_} } @PROGRAMS) {
    my ($code, $out, $err) = run($p, '-n', 257, '--reps', 1);
    ok($code == 0 && $out =~ /^Max error: \S+ Average error: \S+/m, "$p prints the article's error line");
    like($out, qr/^Componentwise error \|c - ref\| \/ \(\|A\| \|B\|\): max \S+, average \S+$/m, "$p prints the componentwise error");
    like($out, qr/^Time used: [\d.]+ s \([\d.]+ GFLOPS\)/m, "$p prints the article's time line");
    like($out, qr/^Kernel: [\d.]+ ms \([\d.]+ GFLOPS\)/m, "$p prints the kernel time");
}

# Step 03 keeps a row of n floats in shared memory: past 48 KB it must opt in, and
# past the device's opt-in limit it must refuse clearly, before allocating.
{
    my $n = 12289; # 49168 bytes (rounded up to 4 floats), just over 48 KB
    my ($code, $out, $err) = run('step03_shared_row/step03', '-n', $n, '--reps', 1, '--check', 'sample');
    is($code, $smem_optin >= 49168 ? 0 : 2, "step03 -n $n: a row of more than 48 KB in shared memory") or diag($err);
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
    my ($code, $out) = run('step04_pitch/step04', '-n', 1000, '--reps', 1);
    my ($row, $pitch) = $out =~ /Pitch: rows of (\d+) bytes are allocated (\d+) bytes apart/;
    ok($code == 0 && defined $pitch && $row == 4000 && $pitch > 4000, "step04 -n 1000: 4000-byte rows padded to "
       . ($pitch // 'missing'));
    ($code, $out) = run('step04_pitch/step04', '-n', 1024, '--reps', 1);
    ($row, $pitch) = $out =~ /Pitch: rows of (\d+) bytes are allocated (\d+) bytes apart/;
    ok($code == 0 && defined $pitch && $row == 4096 && $pitch == 4096, "step04 -n 1024: 4096-byte rows stay 4096");
    ($code, $out) = run('step06_padded/step06', '-n', 1000, '--reps', 1);
    ok($code == 0 && $out =~ /Padded allocation: 1008 x 1008 zero-filled for n = 1000/, "step06 -n 1000: padded to 1008");
}

# Step 10: every configuration is correct at every kind of n (--config runs any of them at
# any n), and the harness picks one that fits the shared-memory limit, under every cap a
# smaller GPU would impose (MATMUL_SMEM_LIMIT). Skipped where step 10 cannot run.
SKIP: {
    my $p = 'step10_pipelined/step10';
    skip "step10 does not run on this GPU", 1 unless $runs{$p};
    my @configs = @{ (describe($p))[0]{configs} };
    ok(@configs >= 2, "step10 describes its configurations: @configs");
    my ($code, $out, $err) = run($p, '--config', 'none');
    ok($code == $EXIT{usage} && $err =~ /expected one of \Q@{[join ', ', @configs]}\E/,
       "step10 --config none: exit 2, naming the configurations it has") or diag("exit $code: $err");
    for my $cfg (@configs) {
        for my $n (1, 17, 257, 1025, 2049) {
            ($code, $out, $err) = run($p, '--config', $cfg, '-n', $n, '--reps', 1, '--csv-header');
            my %r = csv_row($out);
            if ($code == $EXIT{usage} && $err =~ /needs (\d+) bytes of shared memory/) {
                pass("step10 --config $cfg -n $n: does not fit this GPU ($1 bytes > $smem_optin), refused with exit 2");
                next;
            }
            ok($code == 0 && ($r{config} // '') eq $cfg && is_number($r{max_comp_err}) && $r{max_comp_err} <= $r{tolerance},
               "step10 --config $cfg -n $n: exit 0, ran $cfg, within tolerance") or diag("exit $code: $out$err");
        }
    }
    # Caps: the shared memory per block of smaller GPUs (python3 scripts/ladder.py caps: the T4's
    # 64 KB, the RTX/L4's 99 KB, the A100's 163 KB); the first in KB, as SMEM_LIMIT=64K gives it.
    my @caps = split ' ', `python3 scripts/ladder.py caps`;
    $caps[0] = $caps[0] / 1024 . 'K';
    for my $cap (@caps) {
        local $ENV{MATMUL_SMEM_LIMIT} = $cap;
        my $bytes = $cap =~ /^(\d+)K$/ ? $1 * 1024 : $cap;
        for my $n (1000, 4096) {
            ($code, $out, $err) = run($p, '-n', $n, '--reps', 1, '--check', 'sample', '--csv-header');
            my %r = csv_row($out);
            my $limit = $bytes < $smem_device ? $bytes : $smem_device;
            ok($code == 0 && is_number($r{smem_bytes}) && $r{smem_bytes} <= $limit && $r{smem_limit} == $limit
               && ($bytes >= $smem_device || $r{device} =~ / capped to \d+ KB$/),
               "step10 -n $n capped to $cap: exit 0, ran " . ($r{config} // 'nothing') . " in " . ($r{smem_bytes} // '?')
               . " bytes, labelled '" . ($r{device} // '') . "'") or diag("exit $code: $out$err");
        }
        ($code, $out, $err) = run($p, '--config', '128x256x32/4', '-n', 64, '--reps', 1);
        ok($bytes >= 196608 && $smem_device >= 196608 ? $code == 0 : ($code == 2 && $err =~ /needs 196608 bytes of shared memory per block/),
           "step10 --config 128x256x32/4 capped to $cap: " . ($bytes >= 196608 && $smem_device >= 196608 ? "runs" : "refused, one line"))
            or diag($err);
    }
}

# --save writes NumPy files; where numpy is installed, check C = A B from them.
{
    my $dir = "obj/save_test_$$"; # one per test run: runs under several caps may overlap
    system('rm', '-rf', $dir);
    my ($code) = run('step06_padded/step06', '-n', 33, '--reps', 1, '--save', $dir);
    is($code, 0, "step06 --save runs");
    ok((-s "$dir/$_" // 0) == 128 + 33 * 33 * 4, "--save wrote $_ (header and 33 x 33 floats)") for qw(a.npy b.npy c.npy);
    SKIP: {
        skip "numpy is not installed", 1 if system('python3 -c "import numpy" 2>/dev/null') != 0;
        my $py = "import numpy as np; a,b,c=[np.load('$dir/'+x+'.npy') for x in 'abc'];"
               . "r=a.astype(np.float64)\@b.astype(np.float64);"
               . "print(c.dtype, c.shape, float(np.max(np.abs(c-r)/np.abs(r))))";
        my $o = `python3 -c "$py"`;
        system('rm', '-rf', $dir);
        my ($dtype, $err) = $o =~ /^(\S+) \(33, 33\) (\S+)/;
        ok(defined $err && $dtype eq 'float32' && $err <= 2.5e-7, "numpy reads the files and finds C = A B (max rel. error "
           . ($err // 'missing') . ")");
    }
}

done_testing();
