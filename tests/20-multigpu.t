#!/usr/bin/env perl
# The multi-GPU chapter: bad input everywhere; with GPUs, every algorithm correct on 1 GPU
# and on every count this machine has, at sizes that are multiples of nothing, on every grid
# shape, with panels that cross the blocks' edges, and on wide inputs. Skips where NCCL was
# not found (the chapter is not built) or there is no GPU, saying why.
use strict;
use warnings;
use Test::More;
require './tests/lib.pl';
# One run at a time: NCCL's start-up in several processes at once on one GPU took 15 to 50 s a run,
# where one alone takes about 2 s (an H200, 16 cores). Each run is made when asked.
$ENV{TEST_JOBS} = 1;
our %EXIT;

# The cuts every algorithm relies on, checked exhaustively on the CPU (no NCCL or GPU needed).
my ($code, $out, $err) = run('obj/test/multigpu_partition');
my $checks = 0;
for my $line (split /\n/, $out) {
    next unless $line =~ /^(not )?ok \d+ - (.*)$/;
    $checks++;
    ok(!defined $1, "the cuts: $2");
}
ok($code == 0 && $checks > 0, "obj/test/multigpu_partition: exit $code, $checks checks") or diag($err);

my $exe = 'multigpu/multigpu';
unless (-x $exe) {
    SKIP: { skip "$exe is not built: NCCL was not found (make nccl fetches it)", 1 }
    done_testing();
    exit 0;
}

($code, $out, $err) = run($exe, '--help');
ok($code == 0 && $out =~ /^Usage: multigpu/m && $out =~ /summa/ && $out =~ /cublasmp/, '--help');

($code, $out, $err) = run($exe, '--features');
my %features = map { /^(\w+)=(.*)$/ ? ($1, $2) : () } split /\n/, $out;
ok($code == 0 && $features{nccl} =~ /^2\.\d+\.\d+$/, "--features names NCCL ($features{nccl})") or diag("$out$err");

for my $case ([['--gpus', '0'], qr/bad --gpus '0'/], [['--gpus', '17'], qr/bad --gpus '17'/],
              [['--grid', '3'], qr/bad --grid '3'/], [['--grid', '2x'], qr/bad --grid '2x'/],
              [['--panel', '0'], qr/bad --panel '0'/], [['--local', 'fp16'], qr/bad --local 'fp16'/],
              [['--algo', 'cannon'], qr/bad --algo 'cannon'/], [['-n', '0'], qr/bad size/],
              [['--comm', 'mpi'], qr/bad --comm 'mpi'/], [['--trace', ''], qr/bad --trace ''/],
              [['--trace', 'obj/no/such/folder/trace.csv'], qr/cannot write --trace/],
              [['--bogus'], qr/unknown option '--bogus'/], [['stray'], qr/unexpected argument/],
              [['-n', '2000000'], qr/host memory/]) {
    my ($args, $re) = @$case;
    ($code, $out, $err) = run($exe, @$args);
    ok($code == $EXIT{usage} && scalar(split /\n/, $err) == 1 && $err =~ $re, "multigpu @$args: exit 2, one line")
        or diag("exit $code: $err");
}

# The scaling sweep (scripts/multigpu_sweep.py) refuses a bad GPU count before it looks for a GPU.
my @sweep = ('python3', 'scripts/multigpu_sweep.py', '--sizes', 8, '--reps', 1);
for my $bad ('0', 'two') {
    ($code, $out, $err) = run(@sweep, '--gpus', $bad);
    ok($code == $EXIT{usage} && scalar(split /\n/, $err) == 1 && $err =~ /--gpus/,
       "multigpu_sweep.py --gpus $bad: exit 2, one line") or diag("exit $code: $err");
}

my ($has_gpu, $why) = gpu_available();
unless ($has_gpu) {
    ($code, $out, $err) = run($exe, '-n', 8);
    ok($code == $EXIT{no_gpu} && scalar(split /\n/, $err) == 1, "no GPU: exit 3, one line") or diag($err);
    ($code, $out, $err) = run(@sweep, '--gpus', 8);
    ok($code == $EXIT{no_gpu} && scalar(split /\n/, $err) == 1 && $err =~ /no GPU/,
       "multigpu_sweep.py --gpus 8 without a GPU: exit 3, one line") or diag("exit $code: $err");
    done_testing();
    exit 0;
}

my $gpus = $features{gpus};
my $mp_why = $features{cublasmp} ? '' : $features{cublasmp_why};
my $algos = $mp_why ? 'rows,summa' : 'all';
diag("$gpus GPUs; cuBLASMp " . ($mp_why ? "not run: $mp_why" : "$features{cublasmp}"));

# Each line of the CSV: algo, ..., status; every algorithm asked for present and passing.
sub all_pass {
    my ($label, @args) = @_;
    my ($code, $out, $err) = run($exe, @args, '--reps', 1, '--csv');
    my @lines = split /\n/, $out;
    my @algos = map { (split /,/)[0] } @lines;
    my $want = $algos eq 'all' ? 3 : 2;
    my $bad = grep { (split /,/)[14] ne 'pass' } @lines;
    ok($code == 0 && @lines == $want && !$bad, "$label: " . join(' ', @algos) . " pass")
        or diag("exit $code: $out$err");
}

for my $g (1 .. $gpus) {
    for my $n (1, 7, 17, 100, 1000, 1025) {
        all_pass("$g GPU(s), n = $n", '--algo', $algos, '--gpus', $g, '-n', $n);
    }
    # panels narrower than the blocks and not dividing them: each panel must stay inside one
    # owner's block
    all_pass("$g GPU(s), n = 1000, panel 77", '--algo', $algos, '--gpus', $g, '-n', 1000, '--panel', 77);
    all_pass("$g GPU(s), n = 513, wide inputs", '--algo', $algos, '--gpus', $g, '-n', 513, '--dist', 'wide');
    all_pass("$g GPU(s), n = 300, TF32 local products", '--algo', $algos, '--gpus', $g, '-n', 300, '--local', 'tf32');
    # SUMMA's panels on the copy engines, panels crossing nothing
    all_pass("$g GPU(s), n = 1000, panel 77, copy engines", '--algo', $algos, '--gpus', $g, '-n', 1000, '--panel', 77,
             '--comm', 'copy');
}
if ($gpus >= 4) {
    # every grid of four, both ways of sending, with panels that cut the blocks unevenly
    for my $grid ('2x2', '1x4', '4x1') {
        for my $comm ('nccl', 'copy') {
            all_pass("4 GPUs as $grid, n = 1001, $comm", '--algo', $algos, '--gpus', 4, '--grid', $grid, '-n', 1001,
                     '--panel', 123, '--comm', $comm);
        }
    }
}
{   # the traced run: a span for every broadcast and product, each ending after it begins
    my $file = "obj/multigpu_trace_$$.csv";
    ($code, $out, $err) = run($exe, '--algo', 'rows,summa', '-n', 1000, '--panel', 300, '--reps', 1, '--trace', $file);
    my @spans = map { [split /,/] } grep { !/^algo,/ } split /\n/, (-e $file ? do { local (@ARGV, $/) = $file; <> } : '');
    my @summa = grep { $_->[0] eq 'summa' } @spans;
    ok($code == 0 && @summa >= 1 && !grep({ $_->[11] < $_->[10] } @spans)
       && grep({ $_->[8] eq 'product' } @summa) >= $gpus,
       "--trace: " . scalar(@spans) . " spans, SUMMA's products on every GPU") or diag("exit $code: $err");
    unlink $file;
}
if ($gpus >= 2) {
    # the other grid shape: one column of GPUs, B's panels travel instead of A's
    all_pass("2 GPUs as 2x1, n = 1001", '--algo', $algos, '--gpus', 2, '--grid', '2x1', '-n', 1001, '--panel', 200);
    all_pass("2 GPUs, n = 4097 (sampled check)", '--algo', $algos, '--gpus', 2, '-n', 4097);
}
($code, $out, $err) = run($exe, '--gpus', $gpus + 1, '-n', 8);
ok($code == $EXIT{no_feature} && scalar(split /\n/, $err) == 1 && $err =~ /this machine has $gpus/,
   "--gpus " . ($gpus + 1) . ": exit 4, one line") or diag("exit $code: $err");
{   # the sweep asked for more GPUs than there are: refused before any run, nothing recorded
    local $ENV{MATMUL_RESULTS} = 'obj/multigpu_sweep_refused';
    system('rm', '-rf', $ENV{MATMUL_RESULTS});
    ($code, $out, $err) = run(@sweep, '--gpus', "1 " . ($gpus + 1));
    ok($code == $EXIT{no_feature} && scalar(split /\n/, $err) == 1
       && $err =~ /asks for @{[$gpus + 1]} GPUs; this machine has $gpus\b/ && $out !~ /^\$ /m
       && !glob("$ENV{MATMUL_RESULTS}/*.csv"),
       "multigpu_sweep.py --gpus '1 " . ($gpus + 1) . "': exit 4, one line naming both counts, nothing run")
        or diag("exit $code: $out$err");
}
($code, $out, $err) = run($exe, '--gpus', 1, '--grid', '2x2', '-n', 8);
ok($code == $EXIT{usage} && scalar(split /\n/, $err) == 1 && $err =~ /4 places for 1 GPUs/,
   "--grid 2x2 on 1 GPU: exit 2, one line") or diag("exit $code: $err");
SKIP: {
    skip "cuBLASMp runs here", 1 unless $mp_why;
    ($code, $out, $err) = run($exe, '--algo', 'cublasmp', '-n', 8);
    ok($code == $EXIT{no_feature} && scalar(split /\n/, $err) == 1, "--algo cublasmp where it cannot run: exit 4")
        or diag("exit $code: $err");
}
done_testing();
