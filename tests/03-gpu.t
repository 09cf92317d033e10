#!/usr/bin/env perl
# Every program on the GPU: correct at sizes that are multiples of nothing; the article's lines
# printed and each program judged by the precision class it declares; the limits a program meets
# (a row of A in shared memory, the device's memory) handled; pitched and padded allocations
# reported; every configuration of the steps outside the tensor-core chapter (tests/12 has those)
# correct, and chosen under the caps a smaller GPU would impose; results saved. Programs are found
# by what they say of themselves (--describe, the lines they print, the shared memory they report),
# none by name. Skipped without a GPU; a program this GPU cannot run (exit 4) is skipped with its
# reason. Every check reads the exit status and a figure that must exist: a program that crashes
# or prints nothing fails.
# Depth. make test (quick): every program at n = 1, 17, 257 and 1025; each configuration at 33 and
# 257; the shared-memory row and the device-memory refusal on the first program that meets them.
# make test-deep (TEST_DEPTH=deep): every program at the 18 sizes common/README.md promises
# (1 ... 4097), each configuration at 1, 17, 257, 1025 and 2049, the limits on every program that
# meets them. At both: the article's lines, classes, pitch, padding, caps and --save.
use strict;
use warnings;
use Test::More;
require './tests/lib.pl';
prefetch_runs(); # this file's runs made side by side first (tests/lib.pl)
our (@PROGRAMS, %EXIT);

my ($has_gpu, $info) = gpu_available();
plan skip_all => "no GPU: $info" unless $has_gpu;
chomp $info;
# smem_optin: the limit in force (MATMUL_SMEM_LIMIT may lower it); smem_device: the GPU's own.
my ($name, $cc, $sms, $clock, $total, $free, $smem_optin, $l2, $smem_device) = split /,/, $info;
diag("GPU: $name, compute capability $cc, $sms SMs at up to $clock kHz, $total bytes, "
     . "$smem_optin bytes of shared memory per block, $l2 bytes of L2");

my @sizes = sizes(quick => [1, 17, 257, 1025],
                  deep => [1, 2, 7, 15, 16, 17, 31, 33, 255, 256, 257, 1000, 1023, 1024, 1025, 2048, 4095, 4097]);
my @config_sizes = sizes(quick => [33, 257], deep => [1, 17, 257, 1025, 2049]);
quick_skips("each program at n = @sizes, not at all 18 sizes", "each configuration at n = @config_sizes",
            "the shared-memory row and the device-memory refusal on the first program that meets them");

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

# Every program at every size; the shared memory each run reports is kept (it finds the programs
# whose shared memory grows with n, below).
my (%runs, %smem_at);
for my $p (@PROGRAMS) {
    my ($runs, $why) = runs_here($p);
    $runs{$p} = $runs;
    SKIP: {
        skip "$p: $why", 3 * @sizes unless $runs;
        for my $n (@sizes) {
            my %r = check_run("$p -n $n", $p, '-n', $n, '--reps', 2, '--check', 'full');
            $smem_at{$p}{$n} = $r{smem_bytes};
        }
    }
}
my @running = grep { $runs{$_} } @PROGRAMS;

# The article's output at its n = 1000, and each program's class of accuracy as it declares it
# (--describe), from the same run: the error line, the verdict naming its bound, the times; and
# the allocation the program reports, if it pitches or pads its rows.
my (%pitch, %padded, %element_bytes);
for my $p (@running) {
    my ($code, $out, $err) = run($p, '--reps', 1);
    ok($code == 0 && $out =~ /^Max error: \S+ Average error: \S+/m, "$p prints the article's error line")
        or diag("exit $code: $err");
    like($out, qr/^Componentwise error \|c - ref\| \/ \(\|A\| \|B\|\): max \S+, average \S+$/m, "$p prints the componentwise error");
    like($out, qr/^Time used: [\d.]+ s \([\d.]+ GFLOPS\)/m, "$p prints the article's time line");
    like($out, qr/^Kernel: [\d.]+ ms \([\d.]+ GFLOPS\)/m, "$p prints the kernel time");
    my ($max) = $out =~ /^Max error: (\S+)/m;
    my ($bound) = $out =~ /^PASS: componentwise error \S+ <= \S+, the (.+) bound$/m;
    $bound //= 'no PASS line';
    my $d = (describe($p))[0];
    if ($d->{precision} eq 'tf32') {
        ok(is_number($max) && $max > 2.5e-5 && $max < 1e-3 && $bound eq 'tf32',
           "$p: TF32 at n = 1000, max relative error " . ($max // 'missing') . ", judged by the $bound bound");
    } elsif ($d->{compensated}) {
        ok(is_number($max) && $max <= 2.5e-7 && $bound eq 'compensated fp32',
           "$p: Kahan at n = 1000, max relative error " . ($max // 'missing') . ", judged by the $bound bound");
    } elsif ($d->{precision} eq 'fp64') {
        ok(is_number($max) && $max < 1e-13 && $bound eq 'fp64',
           "$p: FP64 at n = 1000, max relative error " . ($max // 'missing') . ", judged by the $bound bound");
    } elsif ($d->{chapter} eq 'article') {  # the article's plain sum, beside its Kahan steps
        ok(is_number($max) && $max > 2.5e-7 && $bound eq 'fp32',
           "$p: plain float sum at n = 1000 is visibly less accurate (" . ($max // 'missing') . ")");
    } else {
        ok(is_number($max) && $max < 2.5e-5 && $bound eq 'fp32',
           "$p: FP32 at n = 1000, max relative error " . ($max // 'missing') . ", judged by the $bound bound");
    }
    $pitch{$p} = [$1, $2] if $out =~ /^Pitch: rows of (\d+) bytes are allocated (\d+) bytes apart$/m;
    $element_bytes{$p} = ($d->{element} // '') eq 'float64' ? 8 : 4;
    $padded{$p} = $1 if $out =~ /^Padded allocation: (\d+) x \1 zero-filled for n = 1000$/m;
}

# A padded allocation rounds n up to the program's tile: at least n, less than twice n; its
# rows (of floats, or of doubles in an FP64 program) are then pitched too. Rows of n floats alone
# (no padding) are pitched: 4000 bytes are padded, 4096 (n = 1024) stay 4096.
for my $p (sort keys %padded) {
    my ($n, $size) = ($padded{$p}, $element_bytes{$p});
    ok($n >= 1000 && $n < 2000 && $pitch{$p} && $pitch{$p}[0] == $size * $n && $pitch{$p}[1] >= $size * $n,
       "$p -n 1000: padded to $n, its rows of " . ($pitch{$p}[0] // '?') . " bytes " . ($pitch{$p}[1] // '?') . " apart");
}
for my $p (grep { !$padded{$_} } sort keys %pitch) {
    my ($row, $apart) = @{ $pitch{$p} };
    ok($row == 4000 && $apart > 4000, "$p -n 1000: 4000-byte rows padded to $apart");
    my ($code, $out) = run($p, '-n', 1024, '--reps', 1);
    ($row, $apart) = $out =~ /^Pitch: rows of (\d+) bytes are allocated (\d+) bytes apart$/m;
    ok($code == 0 && defined $apart && $row == 4096 && $apart == 4096, "$p -n 1024: 4096-byte rows stay 4096 apart");
}

# A program whose shared memory per block grows with n (a row of A kept there): past 48 KB it
# must opt in, and past the device's opt-in limit refuse clearly, before allocating. Found by the
# shared memory its runs above reported (it has no configurations, which would explain a change).
my @row_programs = grep {
    my $s = $smem_at{$_};
    !@{ (describe($_))[0]{configs} } && is_number($s->{$sizes[0]}) && is_number($s->{$sizes[-1]})
        && $s->{$sizes[-1]} > $s->{$sizes[0]}
} @running;
diag("no program's shared memory grows with n: the limits of a row in shared memory are not tested") unless @row_programs;
for my $p (deep() ? @row_programs : @row_programs[0 .. ($#row_programs < 0 ? -1 : 0)]) {
    my ($lo, $hi) = @sizes[0, -1];
    my $bytes_per_n = ($smem_at{$p}{$hi} - $smem_at{$p}{$lo}) / ($hi - $lo);
    my $n = int(49152 / $bytes_per_n) + 1; # just over 48 KB
    my ($code, $out, $err) = run($p, '-n', $n, '--reps', 1, '--check', 'sample', '--csv-header');
    my %r = csv_row($out);
    if ($code == $EXIT{usage} && $err =~ /needs (\d+) bytes of shared memory/ && $1 > $smem_optin) {
        pass("$p -n $n: needs $1 bytes of shared memory, more than this GPU's $smem_optin: refused with exit 2");
    } else {
        ok($code == 0 && is_number($r{smem_bytes}) && $r{smem_bytes} > 49152 && $r{status} eq 'pass',
           "$p -n $n: more than 48 KB of shared memory (" . ($r{smem_bytes} // '?') . " bytes), opted in, exit 0")
            or diag("exit $code: $err");
    }
    my $too_big = int($smem_optin / $bytes_per_n) + 16;
    ($code, $out, $err) = run($p, '-n', $too_big);
    is($code, $EXIT{usage}, "$p -n $too_big: exit 2, the row does not fit in shared memory");
    ok(scalar(split /\n/, $err) == 1 && $err =~ /shared memory|device memory/, "$p -n $too_big: one line saying why")
        or diag($err);
}

# An n whose matrices do not fit in the device's free memory: refused before any allocation.
{
    my $n = int(sqrt($free / 12) * 1.05) + 16;
    for my $p (deep() ? @running : @running[0 .. ($#running < 0 ? -1 : 0)]) {
        my ($code, $out, $err) = run($p, '-n', $n);
        is($code, $EXIT{usage}, "$p -n $n: exit 2, too large for the device (or host) memory");
        ok(scalar(split /\n/, $err) == 1 && $err =~ /memory/, "$p -n $n: one line naming the memory") or diag($err);
    }
}

# The steps with configurations outside the tensor-core chapter: every configuration is correct
# at every kind of n (--config runs any of them at any n), and the harness picks one that fits
# the shared-memory limit, under every cap a smaller GPU would impose (MATMUL_SMEM_LIMIT).
my @caps = split ' ', `python3 scripts/ladder.py caps`;
for my $p (grep { my $d = (describe($_))[0]; @{ $d->{configs} } && $d->{chapter} !~ /^(tensor-cores|reference)$/ } @running) {
    my @configs = @{ (describe($p))[0]{configs} };
    ok(@configs >= 2, "$p describes its configurations: @configs");
    my ($code, $out, $err) = run($p, '--config', 'none');
    ok($code == $EXIT{usage} && $err =~ /expected one of \Q@{[join ', ', @configs]}\E/,
       "$p --config none: exit 2, naming the configurations it has") or diag("exit $code: $err");
    my %smem; # each configuration's shared memory per block, as its runs report it
    for my $cfg (@configs) {
        for my $n (@config_sizes) {
            ($code, $out, $err) = run($p, '--config', $cfg, '-n', $n, '--reps', 1, '--csv-header');
            my %r = csv_row($out);
            if ($code == $EXIT{usage} && $err =~ /needs (\d+) bytes of shared memory/) {
                $smem{$cfg} = $1;
                pass("$p --config $cfg -n $n: does not fit this GPU ($1 bytes > $smem_optin), refused with exit 2");
                next;
            }
            $smem{$cfg} = $r{smem_bytes} if is_number($r{smem_bytes});
            ok($code == 0 && ($r{config} // '') eq $cfg && is_number($r{max_comp_err}) && $r{max_comp_err} <= $r{tolerance},
               "$p --config $cfg -n $n: exit 0, ran $cfg, within tolerance") or diag("exit $code: $out$err");
        }
    }
    # Caps: the shared memory per block of smaller GPUs (python3 scripts/ladder.py caps: the T4's
    # 64 KB, the RTX/L4's 99 KB, the A100's 163 KB); the first in KB, as SMEM_LIMIT=64K gives it.
    my ($largest) = sort { ($smem{$b} // 0) <=> ($smem{$a} // 0) } @configs;
    my $largest_bytes = $smem{$largest} // 0;
    for my $cap (map { $_ == $caps[0] ? $_ / 1024 . 'K' : $_ } @caps) {
        local $ENV{MATMUL_SMEM_LIMIT} = $cap;
        my $bytes = $cap =~ /^(\d+)K$/ ? $1 * 1024 : $cap;
        my $limit = $bytes < $smem_device ? $bytes : $smem_device;
        for my $n (1000, 4096) {
            ($code, $out, $err) = run($p, '-n', $n, '--reps', 1, '--check', 'sample', '--csv-header');
            my %r = csv_row($out);
            ok($code == 0 && is_number($r{smem_bytes}) && $r{smem_bytes} <= $limit && $r{smem_limit} == $limit
               && ($bytes >= $smem_device || $r{device} =~ / capped to \d+ KB$/),
               "$p -n $n capped to $cap: exit 0, ran " . ($r{config} // 'nothing') . " in " . ($r{smem_bytes} // '?')
               . " bytes, labelled '" . ($r{device} // '') . "'") or diag("exit $code: $out$err");
        }
        # The configuration needing the most shared memory runs where the cap allows it, and is
        # refused in one line where it does not.
        my $fits = $largest_bytes <= $limit;
        ($code, $out, $err) = run($p, '--config', $largest, '-n', 64, '--reps', 1);
        ok($fits ? $code == 0 : ($code == $EXIT{usage} && $err =~ /needs $largest_bytes bytes of shared memory per block/),
           "$p --config $largest ($largest_bytes bytes) capped to $cap: " . ($fits ? "runs" : "refused, one line"))
            or diag("exit $code: $err");
    }
}

# --save writes NumPy files; where numpy is installed, check C = A B from them, on the first
# compensated program (its result is within 2.5e-7 of the exact product).
SKIP: {
    my ($p) = grep { (describe($_))[0]{compensated} } @running;
    skip "no compensated program runs here", 5 unless $p;
    my $dir = "obj/save_test_$$"; # one per test run: runs under several caps may overlap
    system('rm', '-rf', $dir);
    my ($code) = run($p, '-n', 33, '--reps', 1, '--save', $dir);
    is($code, 0, "$p --save runs");
    ok((-s "$dir/$_" // 0) == 128 + 33 * 33 * 4, "--save wrote $_ (header and 33 x 33 floats)") for qw(a.npy b.npy c.npy);
    my $py = "import numpy as np; a,b,c=[np.load('$dir/'+x+'.npy') for x in 'abc'];"
           . "r=a.astype(np.float64)\@b.astype(np.float64);"
           . "print(c.dtype, c.shape, float(np.max(np.abs(c-r)/np.abs(r))))";
    my $numpy = system('python3 -c "import numpy" 2>/dev/null') == 0;
    my $o = $numpy && -s "$dir/c.npy" ? `python3 -c "$py"` : '';
    system('rm', '-rf', $dir);
    skip "numpy is not installed", 1 unless $numpy;
    my ($dtype, $err) = $o =~ /^(\S+) \(33, 33\) (\S+)/;
    ok(defined $err && $dtype eq 'float32' && $err <= 2.5e-7, "numpy reads the files and finds C = A B (max rel. error "
       . ($err // 'missing') . ")");
}

done_testing();
