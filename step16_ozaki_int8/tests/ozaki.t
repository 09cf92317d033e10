#!/usr/bin/env perl
# Ozaki scheme II's arithmetic (ozaki.h in this step's folder), modelled exactly on the CPU by ozaki_model.c
# beside this file: the remainder theorem gives the integer product back for every number of
# moduli, the one rounding to FP32 is to nearest, the plan keeps the product's bound below P / 2;
# the GPU's forms of the residue and of the reconstruction equal the reference forms; then the
# default numbers of moduli (read from the header: one for sums shorter than OZAKI_LONG_SUMS, one
# from there) keep the componentwise error within the fp32 bound, or no worse than a plain FP32
# loop, on six of the harness's seven input families at n = 1 ... 100 and 128 ... 192. The
# control: the mixed family (80 binades in one row) must fail at those counts, so the check can
# fail. The span rule: where a row (column) spans too many binades for its bits, the model's search
# finds no case past the fp32 bound inside the rule and one past it at every crafted worst case
# outside (control: a rule one binade too trusting fails); the leads for what is past the rule
# (bands, an FP32 path, a check after the products) keep the bound. Plain C, no GPU: CI runs it
# all. The step's folder, its program and its other programs are this file's own (make builds the
# model into obj/test/<folder>/): a copy of the folder tests itself.
use strict;
use warnings;
use Test::More;
require './tests/lib.pl';
prefetch_runs(); # this file's runs made side by side first (tests/lib.pl)

my ($folder, $step) = this_step();
my $model = "obj/test/$folder/ozaki_model";
unless (-x $model) {
    fail("$model is built (make builds it as a test helper)");
    done_testing();
    exit;
}
open my $src, '<', "$folder/ozaki.h" or BAIL_OUT("$folder/ozaki.h: $!");
my $header = join('', <$src>);
my %define = $header =~ /^#define (OZAKI_DEFAULT_MODULI_SHORT|OZAKI_DEFAULT_MODULI_LONG|OZAKI_LONG_SUMS) (\d+)/mg;
my ($default, $long, $long_from) = @define{qw(OZAKI_DEFAULT_MODULI_SHORT OZAKI_DEFAULT_MODULI_LONG OZAKI_LONG_SUMS)};
ok(defined $default && defined $long && defined $long_from,
   "$folder/ozaki.h defines the default counts: " . join(', ', map { "$_ = " . ($define{$_} // 'missing') } sort keys %define))
    or BAIL_OUT('no default to check');

# TAP lines of the model, passed on.
sub pass_on {
    my ($what, $code, $out, $err, $want_fail) = @_;
    my ($lines, $failed) = (0, 0);
    for my $line (split /\n/, $out) {
        if ($line =~ /^(not )?ok \d+ - (.*)$/) {
            $lines++;
            $failed++ if defined $1;
            ok(!defined $1, "$what: $2") unless $want_fail && $2 =~ /$want_fail/;
        } elsif ($line =~ /^#\s?(.*)$/) {
            note($1);
        }
    }
    return ($lines, $failed);
}

my $sizes = '1 2 3 5 9 17 33 100';
my ($code, $out, $err) = run($model, '--moduli', $default - 1 . " $default", '--sizes', $sizes, '--trials', 4,
                             '--expect', "$default uniform wide subnormal tiny rowscale huge");
my ($lines) = pass_on("$default moduli", $code, $out, $err);
ok($lines >= 24 && $code == 0, "the model: exit $code, $lines checks") or diag($err);

# From OZAKI_LONG_SUMS products on, the long sums' count (and one fewer, for the table).
my @long_sizes = ($long_from, $long_from + $long_from / 2);
($code, $out, $err) = run($model, '--moduli', $long - 1 . " $long", '--sizes', "@long_sizes", '--trials', 2,
                          '--expect', "$long uniform wide subnormal tiny rowscale huge");
($lines) = pass_on("$long moduli", $code, $out, $err);
ok($lines >= 24 && $code == 0, "the model at n = @long_sizes: exit $code, $lines checks") or diag($err);

# The control: the mixed family is beyond the default counts.
($code, $out, $err) = run($model, '--moduli', $default, '--sizes', '2 3 5', '--trials', 2, '--expect', "$default mixed");
like($out, qr/^not ok \d+ - mixed inputs, $default moduli/m, "the control: mixed inputs fail at $default moduli")
    or diag($out . $err);
is($code, 1, 'the control: the model exits 1 when a check fails');
($code, $out, $err) = run($model, '--moduli', $long, '--sizes', $long_from, '--trials', 1, '--expect', "$long mixed");
like($out, qr/^not ok \d+ - mixed inputs, $long moduli/m, "the control: mixed inputs fail at $long moduli, n = $long_from")
    or diag($out . $err);

# The span rule: rows of A and columns of B crafted at its edge and on both sides, n = 1 ... 300
# (make test-deep; make test: 1 ... 64) and long sums (the model's --span-search); every check is
# the model's own TAP line.
my $span_n = deep() ? 300 : 64;
quick_skips("the span search at n = 1 ... $span_n, not 1 ... 300; the handling leads not evaluated");
($code, $out, $err) = run($model, '--span-search', '--span-n', $span_n);
($lines) = pass_on('span search', $code, $out, $err);
ok($lines >= 20 && $code == 0, "the span search: exit $code, $lines checks") or diag($err);
# The control: a rule that trusts every span one binade more lets cases past the bound through.
($code, $out, $err) = run($model, '--span-search', '--span-n', 40, '--span-slack', 1);
like($out,
     qr/^not ok \d+ - the span rule, zero \(A's row spans\).*trusted 1 binade more: \d+ cases where it holds, [1-9]/m,
     'the control: a rule one binade too trusting is caught') or diag($out . $err);
is($code, 1, 'the control: the search exits 1 when a check fails');
# What to do past the rule (bands, more moduli, an FP32 path, a check after the products): bands, the
# FP32 path and the check keep the bound.
if (deep()) {
    ($code, $out, $err) = run($model, '--span-leads');
    ($lines) = pass_on('span leads', $code, $out, $err);
    ok($lines >= 3 && $code == 0, "the span leads: exit $code, $lines checks") or diag($err);
}

# The handled step (the model's --handled, the specification a GPU step is checked against): (R) as a
# gate, a check after the products on a 7-bit INT8 product, an FP32 loop for what it refuses. Every
# family (the harness's, the span search's, 100 binades scaled inversely, the two-by-two)
# within the fp32 bound at n = 1 ... 300 (make test: 1 ... 64), and the products' C (ozaki_model) bit for bit where every
# row and column meets (R).
my $handled_n = deep() ? 300 : 64;
quick_skips("the handled step at n = 1 ... $handled_n, not 1 ... 300, and not at n = 128, 1000, 4096");
# make test-deep adds the harness's families at long sums, sampled (the fraction refused: the cost).
($code, $out, $err) = run($model, '--handled', '--span-n', $handled_n, deep() ? ('--handled-long', '128 1000 4096') : ());
($lines) = pass_on('the model', $code, $out, $err);
ok($lines >= (deep() ? 27 : 20) && $code == 0, "the handled step: exit $code, $lines checks") or diag($err);
# The control: a check whose W is rounded up (no lower bound of |A||B|) lets cases past the bound through.
($code, $out, $err) = run($model, '--handled', '--span-n', 24, '--span-slack', 1);
like($out, qr/^not ok \d+ - handled, span zero \(A's rows\), n = 1 \.\.\. 24: \d+ elements .*, [1-9]\d* past/m,
     'the control: the handled step with W rounded up is caught') or diag($out . $err);
is($code, 1, 'the control: --handled exits 1 when a check fails');

# The cases a GPU step is matched against, bit for bit: A, B, the model's C (the handled step's) and
# its counts per family and n.
my $cases = "obj/ozaki_cases_$$";
system('rm', '-rf', $cases);
($code, $out, $err) = run($model, '--moduli', $default, '--sizes', '1 7', '--trials', 1, '--save-cases', $cases);
my @missing;
for my $family (qw(uniform wide subnormal tiny rowscale mixed huge)) {
    for my $n (1, 7) {
        push @missing, grep { !-s } map { "$cases/${family}_n$n/$_" } qw(a.npy b.npy c_model.npy counts.txt);
    }
}
ok($code == 0 && !@missing, '--save-cases writes A, B, the model\'s C and its counts for every family and n')
    or diag("@missing $err");
system('rm', '-rf', $cases);

# The span families as full matrices (--save-spans), and the named cases: A, B and, at these n, the
# handled C and its counts; the model's own lines check the files and every element of C.
($code, $out, $err) = run($model, '--save-spans', $cases, '--sizes', '2 7', '--spans', '6 18');
($lines) = pass_on('the model', $code, $out, $err);
@missing = ();
my @span_cases = ('twobytwo_n2');
for my $n (2, 7) {
    push @span_cases, "inverse100_n$n";
    for my $sigma (6, 18) {
        push @span_cases, map { "span-$_-s${sigma}_n$n" }
            qw(zero-A zero-B small-A small-B normal-A normal-B graded-A inverse-A);
    }
}
for my $case (@span_cases) {
    push @missing, grep { !-s } map { "$cases/$case/$_" } qw(a.npy b.npy c_model.npy counts.txt);
}
ok($code == 0 && $lines >= 3 && !@missing && (() = glob("$cases/*")) == @span_cases,
   '--save-spans --sizes "2 7" --spans "6 18": exit 0, ' . scalar(@span_cases) . " cases, each with A, B, C and "
   . "its counts, and nothing else") or diag("exit $code, $lines checks, missing: @missing $err");
system('rm', '-rf', $cases);

# On a GPU: the step computes what the model's handled step computes. Its C equals the model's bit
# for bit, and its run report's counts (rows and columns past (R), elements refused) equal the
# model's, on every family of the harness at n = 1 ... 257 and on the span families (spans 6 ... 30
# binades, partners zero, small or normal, on either side; graded; 100 binades scaled inversely;
# the two-by-two) at n = 2 ... 300; the step and the cases take the default count for n. Then at
# long sums (n = 1000, and 4096 under make test-deep), where the model cannot follow, the step's
# own check: every span family within the fp32 bound.
$step = "$folder/$step";
# The run report's line: rows past, columns past, refused (0 0 0 where nothing needed the check).
sub report_counts {
    my ($out) = @_;
    return (0, 0, 0) if $out =~ /^Span check: every row and column within/m;
    return $out =~ /^Span check: (\d+) rows of A and (\d+) columns of B .*?; (\d+) of \d+ elements/m ? ($1, $2, $3) : ();
}
# Each case side by side (test_jobs() at a time), saving its C beside its inputs: the cases (name,
# folder) that differ from the model, with why.
sub differ_from_model {
    my @cases = @_;
    my @results = run_many(test_jobs(), map { [$step, '--load', $_->[1], '--save', "$_->[1]/gpu", '--reps', 1,
                                               '--check', 'full'] } @cases);
    my @differ;
    for my $i (0 .. $#cases) {
        my ($name, $case) = @{ $cases[$i] };
        my ($c, $o, $e) = @{ $results[$i] };
        my $same = -s "$case/gpu/c.npy" && !system('cmp', '-s', "$case/c_model.npy", "$case/gpu/c.npy");
        open my $fh, '<', "$case/counts.txt" or do { push @differ, "$name (no counts.txt)"; next };
        my %want = <$fh> =~ /(\w+)=(\d+)/g;
        my @got = report_counts($o);
        my $counts = @got && "@got" eq "$want{rows_past} $want{cols_past} $want{refused}";
        push @differ, "$name (exit $c" . ($same ? '' : ', C differs')
            . ($counts ? '' : ", counts @got, the model's $want{rows_past} $want{cols_past} $want{refused}")
            . ($e ? ": $e" : '') . ')' unless $same && $counts && ($c == 0 || $c == 1);
    }
    return @differ;
}
SKIP: {
    my ($has_gpu, $info) = gpu_available();
    skip("no GPU: $info", 12) unless $has_gpu;
    my ($runs, $why) = runs_here($step);
    skip("$step: $why", 12) unless $runs;
    my @sizes = (1, 2, 3, 7, 17, 33, 100, 257);
    ($code, $out, $err) = run($model, '--moduli', $default, '--sizes', "@sizes", '--trials', 1, '--save-cases', $cases);
    is($code, 0, "the model writes its cases for the GPU") or diag($err);
    my @families = qw(uniform wide subnormal tiny rowscale mixed huge);
    for my $family (@families) {
        my @differ = differ_from_model(map { ["n=$_", "$cases/${family}_n$_"] } @sizes);
        ok(!@differ, "$step on $family inputs: C and the counts equal the model's, bit for bit, at n = @sizes")
            or diag("differ: @differ");
    }
    system('rm', '-rf', $cases);

    # The span families, full matrices; make test: spans 6, 18 and 30 at n = 2, 7, 100 and 300.
    my @span_sizes = deep() ? (2, 7, 33, 100, 257, 300) : (2, 7, 100, 300);
    my @spans = deep() ? (6, 12, 18, 24, 30) : (6, 18, 30);
    ($code, $out, $err) = run($model, '--save-spans', $cases, '--sizes', "@span_sizes", '--spans', "@spans",
                              deep() ? '--ties' : ());
    is($code, 0, "the model writes the span cases at n = @span_sizes, spans @spans") or diag($err);
    my @span_cases = map { my $d = $_; (my $name = $d) =~ s{.*/}{}; [$name, $d] } sort glob("$cases/*");
    my @differ = differ_from_model(@span_cases);
    ok(@span_cases >= 100 && !@differ, "$step on " . scalar(@span_cases) . " span cases (n = @span_sizes, spans "
       . "@spans): C and the counts equal the model's bit for bit") or diag("differ: @differ");
    system('rm', '-rf', $cases);

    # Long sums: the step's own check (the double reference, sampled rows), every span family.
    my @long = deep() ? (1000, 4096) : (1000);
    ($code, $out, $err) = run($model, '--save-spans', $cases, '--sizes', "@long", '--spans', '6 18 30');
    is($code, 0, "the model writes the span families' inputs at n = @long") or diag($err);
    my @long_cases = map { my $d = $_; (my $name = $d) =~ s{.*/}{}; [$name, $d] } sort glob("$cases/*");
    my @results = run_many(test_jobs(), map { [$step, '--load', $_->[1], '--reps', 1] } @long_cases);
    my @fail;
    for my $i (0 .. $#long_cases) {
        my ($c, $o, $e) = @{ $results[$i] };
        push @fail, "$long_cases[$i][0] (exit $c: " . ($o =~ /^((?:PASS|FAIL)[^\n]*)/m ? $1 : $e) . ')' if $c != 0;
    }
    ok(@long_cases >= 15 && !@fail, "$step on " . scalar(@long_cases) . " span cases at n = @long: every one within "
       . "the fp32 bound (the step's check)") or diag("failed: @fail");
    system('rm', '-rf', $cases);
}

# cuBLAS's INT8 GEMM, the products' ceiling (int8_gemm.cu here, built into obj/<folder>/): usage,
# and on a GPU exact sums.
my $int8 = "obj/$folder/int8_gemm";
($code, $out, $err) = run($int8, '--help');
ok($code == 0 && $out =~ /^usage: \Q$int8\E /, "$int8 --help: exit 0 and its usage");
for my $bad (['--sizes', '7'], ['--sizes', '0'], ['--sizes', 'abc'], ['--reps', '0'], ['--bogus']) {
    ($code, $out, $err) = run($int8, @$bad);
    ok($code == 2 && $err =~ /\Aint8_gemm: [^\n]+\n\z/, "$int8 @$bad: exit 2 and one line") or diag("exit $code: $err");
}
SKIP: {
    my ($has_gpu, $info) = gpu_available();
    skip("no GPU: $info", 1) unless $has_gpu;
    ($code, $out, $err) = run($int8, '--sizes', '4 100 1000', '--reps', 2);
    ok($code == 0 && (() = $out =~ /: exact$/mg) == 3, "$int8 at n = 4, 100, 1000: every checked sum exact")
        or diag("exit $code: $out$err");
}

# Bad usage: one line, exit 2.
for my $bad (['--sizes', '0'], ['--sizes', '5000'], ['--sizes', '7x'], ['--moduli', '15'], ['--trials', 'abc'],
             ['--span-search', '--span-n', '0'], ['--span-search', '--span-moduli', '15'],
             ['--span-search', '--span-slack', 'x'], ['--handled', '--span-n', '2000'],
             ['--handled', '--handled-long', '0'], ['--save-spans'], ['--save-spans', $cases, '--spans', '0'],
             ['--save-spans', $cases, '--sizes', '9000'], ['--spans', '6']) {
    ($code, $out, $err) = run($model, @$bad);
    ok($code == 2 && $err =~ /\Aozaki_model: [^\n]+\n\z/, "@$bad: exit 2 and one line") or diag("exit $code: $err");
}
($code, $out, $err) = run($model, '--expect', '10 no-such-family');
is($code, 2, 'an unknown family: exit 2');
like($err, qr/^ozaki_model: --expect: no input family no-such-family\n\z/, '... with one line saying so');

done_testing();
