#!/usr/bin/env perl
# The GEMMul8 peer (gemmul8/): bad input gets one line and exit 2; --describe names its seven
# settings (three of SGEMM, four of DGEMM); on a GPU it can run on, every setting writes every
# element of C, finite where an FP32 (FP64) GEMM is finite, at sizes that are multiples of nothing
# and on two input families, and is judged by the fp32 (fp64) bound (its verdicts printed: the peer
# claims to emulate SGEMM and DGEMM, and where it does not, the record says so). Skips, saying why, where the library is not built (make gemmul8-lib).
use strict;
use warnings;
use Test::More;
require './tests/lib.pl';
our %EXIT;

my $exe = 'gemmul8/gemmul8';
unless (-x $exe) {
    plan skip_all => "$exe is not built: GEMMul8's library is not in third_party/ (make gemmul8-lib builds it "
                   . "from source, about 15 minutes)";
}

my ($code, $out, $err) = run($exe, '--help');
ok($code == 0 && $out =~ /^Usage: gemmul8/m, '--help: exit 0 and its usage');

for my $bad (['-n', '0'], ['-n', 'abc'], ['--math', 'fast-6'], ['--reps', '0'], ['--bogus']) {
    ($code, $out, $err) = run($exe, @$bad);
    ok($code == $EXIT{usage} && $err =~ /\Agemmul8: [^\n]+\n\z/, "@$bad: exit 2 and one line") or diag("exit $code: $err");
}

my @settings = describe($exe);
is_deeply([map { $_->{row} } @settings], [qw(gemmul8_accurate8 gemmul8_fast8 gemmul8_fast7 gemmul8_fp64_fast14
                                             gemmul8_fp64_fast15 gemmul8_fp64_accurate15 gemmul8_fp64_accurate16)],
          '--describe: accurate-8, fast-8 and fast-7 of SGEMM, fast-14, fast-15, accurate-15, accurate-16 of DGEMM, '
          . 'each its own row');
ok(!grep({ $_->{precision} ne ($_->{element} eq 'float64' ? 'fp64' : 'fp32') } @settings),
   'each judged by the class of what it emulates: fp32 for float32 matrices, fp64 for float64');

my ($gpu, $why) = gpu_available();
($gpu, $why) = runs_here($exe) if $gpu;
SKIP: {
    skip "no run: $why", 1 unless $gpu;
    for my $d (@settings) {
        for my $dist (qw(uniform wide)) {
            my @verdicts;
            for my $n (1, 7, 100, 257, 1000) {
                ($code, $out, $err) = run(row_command($d), '-n', $n, '--dist', $dist, '--reps', 1);
                my ($verdict) = $out =~ /^(PASS|FAIL): ([^\n]*)/m;
                ok(($code == $EXIT{pass} || $code == $EXIT{inaccurate}) && $out =~ /^(PASS|FAIL): componentwise error/m,
                   "$d->{row} -n $n --dist $dist: a componentwise verdict, every element written and finite")
                    or diag("exit $code: $out$err");
                push @verdicts, "n=$n " . ($code == $EXIT{pass} ? 'pass' : 'FAIL') . ($out =~ /componentwise error (\S+)/ ? " $1" : '');
            }
            diag("$d->{row} on $dist, against the $d->{precision} bound: @verdicts");
        }
    }
}
done_testing();
