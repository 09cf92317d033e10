#!/usr/bin/env perl
# Each failure a program can meet on a machine is forced here and must give its own exit
# code and one line naming the cause: no GPU (3, tests skip), a GPU lacking a feature
# (4, tests skip), a driver too old for the toolkit (5), a binary without code for this
# GPU (6), any other CUDA error (7). 5, 6 and 7 must make `make test` fail, never skip.
# The stand-in drivers work on any machine; the last two cases need a GPU.
# The same at both depths (make test, make test-deep): every program, every code.
use strict;
use warnings;
use Test::More;
require './tests/lib.pl';
our (@PROGRAMS, @STEPS, %EXIT);
# The first step stands for every step here (the harness's exit codes are the same for all);
# the make test builds of it for another GPU (obj/test/) answer to its name.
my $FIRST_BIN = $STEPS[0];
my $FIRST = (describe($FIRST_BIN))[0]{program};

# The exit codes are documented once, in the harness's page (common/README.md), as
# exit_codes.h has them.
{
    open my $fh, '<', 'common/exit_codes.h' or die $!;
    my %code = map { /EXIT_(\w+) = (\d+)/ ? ($1 => $2) : () } <$fh>;
    open my $rd, '<', 'common/README.md' or die $!;
    my $readme = do { local $/; <$rd> };
    is(scalar(keys %code), 8, "exit_codes.h defines 8 exit codes");
    for my $c (sort { $a <=> $b } values %code) {
        like($readme, qr/^\| $c \| /m, "common/README.md's exit-code table has a row for $c");
    }
}

sub one_line { my ($err) = @_; scalar(split /\n/, $err) == 1 }

for my $helper (qw(obj/fake_driver/old/libcuda.so.1 obj/fake_driver/failing/libcuda.so.1
                   obj/test/foreign_arch obj/test/needs_cc99 obj/test/needs_exact99
                   obj/gpu_info)) {
    ok(-e $helper, "$helper is built") or BAIL_OUT("$helper is missing: run make test, which builds it");
}

# The transpose chapter meets the same driver through the same harness (common/gpu.c).
my @transpose = ('transpose/transpose', '--rows', 8, '--cols', 8, '--variant', 'naive');
{
    local $ENV{CUDA_VISIBLE_DEVICES} = '';
    my ($code, $out, $err) = run(@transpose);
    ok($code == $EXIT{no_gpu} && one_line($err), "CUDA_VISIBLE_DEVICES='': transpose exits 3") or diag("exit $code: $err");
}
for my $case (['old', $EXIT{old_driver}], ['failing', $EXIT{cuda_error}]) {
    local $ENV{LD_LIBRARY_PATH} = join ':', "obj/fake_driver/$case->[0]", $ENV{LD_LIBRARY_PATH} // ();
    my ($code, $out, $err) = run(@transpose);
    ok($code == $case->[1] && one_line($err), "a $case->[0] driver: transpose exits $case->[1]") or diag("exit $code: $err");
}

# No GPU: no device visible (on a machine without a driver, no driver at all). Exit 3.
{
    local $ENV{CUDA_VISIBLE_DEVICES} = '';
    for my $p ('obj/gpu_info', @PROGRAMS) {
        my ($code, $out, $err) = run($p, $p eq 'obj/gpu_info' ? () : ('-n', 8));
        ok($code == $EXIT{no_gpu} && one_line($err) && $err =~ /no CUDA device visible|no NVIDIA GPU here/,
           "CUDA_VISIBLE_DEVICES='': $p exits 3 with one line") or diag("exit $code: $err");
    }
}

# A driver older than the toolkit: exit 5, naming both versions and the fix.
{
    local $ENV{LD_LIBRARY_PATH} = join ':', 'obj/fake_driver/old', $ENV{LD_LIBRARY_PATH} // ();
    for my $p (@PROGRAMS) {
        my ($code, $out, $err) = run($p, '-n', 8);
        ok($code == $EXIT{old_driver} && one_line($err) && $err =~ /driver is too old.*CUDA 10\.2.*install a/,
           "driver for CUDA 10.2: $p exits 5 with one line naming the fix") or diag("exit $code: $err");
    }
    my ($code, $out, $err) = run('obj/gpu_info');
    is($code, $EXIT{old_driver}, "driver for CUDA 10.2: gpu_info exits 5");
    # ... and the tests fail instead of skipping.
    ($code, $out, $err) = run('perl', '-e', 'use Test::More; require "./tests/lib.pl"; gpu_available(); pass(); done_testing()');
    ok($code != 0 && $out =~ /^Bail out!.*driver is too old/m, "driver for CUDA 10.2: the GPU tests stop, failing")
        or diag("exit $code: $out$err");
}

# A driver that fails every call: exit 7, the CUDA error named.
{
    local $ENV{LD_LIBRARY_PATH} = join ':', 'obj/fake_driver/failing', $ENV{LD_LIBRARY_PATH} // ();
    for my $p (@PROGRAMS) {
        my ($code, $out, $err) = run($p, '-n', 8);
        ok($code == $EXIT{cuda_error} && one_line($err) && $err =~ /CUDA error cudaErrorUnknown/,
           "a failing driver: $p exits 7 with one line naming the error") or diag("exit $code: $err");
    }
    my ($code, $out, $err) = run('perl', '-e', 'use Test::More; require "./tests/lib.pl"; gpu_available(); pass(); done_testing()');
    ok($code != 0 && $out =~ /^Bail out!/m, "a failing driver: the GPU tests stop, failing") or diag("exit $code: $out$err");
}

my ($has_gpu, $why) = gpu_available();
my @with_configs = grep { @{ (describe($_))[0]{configs} } } @PROGRAMS;
SKIP: {
    skip "no GPU: a missing kernel image and a missing feature can only be seen on one ($why)", 6 + @with_configs
        unless $has_gpu;
    # A binary with machine code for another GPU only: exit 6, with the rebuild to do.
    my ($code, $out, $err) = run('obj/test/foreign_arch', '-n', 64);
    ok($code == $EXIT{no_kernel_image} && one_line($err) && $err =~ /no code for this GPU.*make ARCH=sm_\d+ all/,
       "$FIRST built for another GPU: exit 6, one line naming the rebuild") or diag("exit $code: $err");
    # A GPU below what the step needs: exit 4, one line naming both; its tests skip.
    ($code, $out, $err) = run('obj/test/needs_cc99', '-n', 64);
    ok($code == $EXIT{no_feature} && one_line($err) && $err =~ /^\Q$FIRST\E needs compute capability 9\.9 \(.*\); this GPU .* is \d+\.\d+$/,
       "$FIRST asking for compute capability 9.9: exit 4, one line") or diag("exit $code: $err");
    my ($runs, $reason) = runs_here('obj/test/needs_cc99');
    ok(!$runs && $reason =~ /needs compute capability 9\.9/, "... which the GPU tests take as a skip, with the reason");
    # Code for one architecture's own instructions (sm_90a) on any other GPU, newer ones too:
    # exit 4, one line, not exit 6 (a rebuild would not help).
    ($code, $out, $err) = run('obj/test/needs_exact99', '-n', 64);
    ok($code == $EXIT{no_feature} && one_line($err)
       && $err =~ /^\Q$FIRST\E needs compute capability 9\.9 exactly \(.*\); this GPU .* is \d+\.\d+$/,
       "$FIRST asking for exactly compute capability 9.9: exit 4, one line") or diag("exit $code: $err");
    ($runs, $reason) = runs_here('obj/test/needs_exact99');
    ok(!$runs && $reason =~ /exactly/, "... a skip for the GPU tests too");
    ($code, $out, $err) = run($FIRST_BIN, '--gpu-check');
    ok($code == 0 && $out =~ /^\Q$FIRST\E: runs on /, "$FIRST --gpu-check: exit 0, one line") or diag("exit $code: $out$err");
    # A program with configurations names the one it would run, or says what this GPU lacks.
    for my $p (@with_configs) {
        my $d = (describe($p))[0];
        my $cc = $d->{exact_cc} || $d->{min_cc};
        ($code, $out, $err) = run($p, '--gpu-check');
        ok(($code == 0 && $out =~ /at n = 1000 as (\S+)/ && grep({ $_ eq $1 } @{ $d->{configs} }))
           || ($code == $EXIT{no_feature} && one_line($err) && $err =~ /needs compute capability \Q$cc\E( exactly)? \(\Q$d->{needs}\E\)/),
           "$p --gpu-check: runs (naming one of its configurations) or needs $cc ($d->{needs})") or diag("exit $code: $out$err");
    }
}

# The CPU chapter's version of exit 4: an instruction set this CPU lacks, asked for.
SKIP: {
    my ($code, $out) = run('cpu/cpu_gemm', '--features');
    skip "this CPU has AVX-512: nothing to lack", 1 if $out =~ /^isa=avx512$/m;
    ($code, $out, my $err) = run('cpu/cpu_gemm', '-n', 8, '--variant', 'packed', '--isa', 'avx512');
    ok($code == $EXIT{no_feature} && one_line($err) && $err =~ /does not have it/,
       "cpu_gemm --isa avx512 on a CPU without it: exit 4, one line") or diag("exit $code: $err");
}

done_testing();
