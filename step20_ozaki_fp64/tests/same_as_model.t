#!/usr/bin/env perl
# The step's C is its whole-step CPU model's, byte for byte. ozaki64_model.c beside this file
# (--save-cases) runs step20.cu's passes on the CPU in the kernels' own orders (the lines' facts and
# sums of magnitudes, the residues by the FP64 units' formula, the check's bytes, the exact products,
# the remainder theorem, step 16's check with bound -1 and its shortcut, the FP64 loop for refused
# elements and NaN/Inf lines) and writes, for every family of the harness's FP64 generator at
# n = 1 ... 257 and four crafted cases, A and B (float64, as the step reads them with --load), the
# model's C and its counts. Its own lines say that the GPU's forms equal the reference forms there
# and that every element the products give keeps the fp64 bound. That part is plain C: CI runs it.
# On a GPU that runs sm_90a code the step runs each case (--load, --save, --reps 1, --check none):
# the inputs it saved, its C (cmp) and its run report's counts (moduli, alpha, beta, rows and
# columns past (R), elements refused) must be the model's, one line a case, the first differing
# element named where C differs. Without such a GPU that part is skipped, saying why.
use strict;
use warnings;
use Test::More;
require './tests/lib.pl';

my ($folder, $step) = this_step();
my $model = "obj/test/$folder/ozaki64_model";
unless (-x $model) {
    fail("$model is built (make builds it as a test helper)");
    done_testing();
    exit;
}

my @families = qw(uniform wide subnormal tiny rowscale mixed huge);
my @sizes = (1, 2, 3, 7, 17, 33, 64, 100, 127, 128, 257);
my @crafted = qw(lines_n40 special_n33 mixed_n600 wide_n1100); # the model's crafted cases (ozaki64_model.c)
my @names = ((map { my $f = $_; map { "${f}_n$_" } @sizes } @families), @crafted);

# The model's cases, and its TAP lines passed on.
my $cases = "obj/ozaki64_cases_$$";
system('rm', '-rf', $cases);
my ($code, $out, $err) = run($model, '--save-cases', $cases, '--sizes', "@sizes");
my $lines = 0;
for my $line (split /\n/, $out) {
    if ($line =~ /^(not )?ok \d+ - (.*)$/) {
        $lines++;
        ok(!defined $1, "the model: $2");
    } elsif ($line =~ /^#\s?(.*)$/) {
        note($1);
    }
}
my @missing = grep { !-s } map { my $c = $_; map { "$cases/$c/$_" } qw(a.npy b.npy c_model.npy counts.txt) } @names;
ok($code == 0 && $lines >= 2 * (@families + @crafted) + 1 && !@missing,
   "the model writes its " . scalar(@names) . " cases (A, B, its C and counts): exit $code, $lines checks")
    or diag("missing: @missing $err");

# The run report's line: (moduli, alpha, beta, rows past, columns past, refused, elements), or ().
sub report_counts {
    my ($text) = @_;
    my $line = qr/^Span check \((\d+) moduli, alpha = (\d+), beta = (\d+)\): (\d+) rows of A and (\d+) columns of B /m;
    return $text =~ /$line.*?; (\d+) of (\d+) elements/ ? ($1, $2, $3, $4, $5, $6, $7) : ();
}

# A .npy file's data (after its header), or undef.
sub npy_data {
    my ($path) = @_;
    open my $f, '<:raw', $path or return undef;
    local $/;
    my $bytes = <$f>;
    return undef unless defined $bytes && length($bytes) >= 10;
    return substr($bytes, 10 + unpack('v', substr($bytes, 8, 2)));
}

# Where the GPU's C and the model's differ: the first element (row, column), both values and bits,
# and how many differ.
sub first_difference {
    my ($want_path, $got_path, $n) = @_;
    my ($want, $got) = (npy_data($want_path), npy_data($got_path));
    return "no C from the GPU" unless defined $got;
    return "C holds " . length($got) / 8 . " doubles, not $n x $n" if length($got) != 8 * $n * $n;
    my ($first, $count) = (-1, 0);
    for my $e (0 .. $n * $n - 1) {
        next if substr($want, 8 * $e, 8) eq substr($got, 8 * $e, 8);
        $first = $e if $first < 0;
        $count++;
    }
    return "the files' headers differ, not their elements" if $first < 0;
    my ($w, $g) = map { substr($_, 8 * $first, 8) } $want, $got;
    return sprintf("%d of %d elements differ, the first (%d, %d): the GPU's %.17g (0x%016x), the model's %.17g "
                   . "(0x%016x)",
                   $count, $n * $n, int($first / $n), $first % $n, unpack('d<', $g), unpack('Q<', $g),
                   unpack('d<', $w), unpack('Q<', $w));
}

# On a GPU: each case run by the step, its C and counts against the model's.
$step = "$folder/$step";
SKIP: {
    my ($has_gpu, $info) = gpu_available();
    skip("no GPU: $info", scalar @names) unless $has_gpu;
    my ($runs, $why) = runs_here($step);
    skip("$step: $why", scalar @names) unless $runs;
    my @results = run_many(test_jobs(), map { [$step, '--load', "$cases/$_", '--save', "$cases/$_/gpu", '--reps', 1,
                                                '--check', 'none'] } @names);
    for my $i (0 .. $#names) {
        my ($c, $o, $e) = @{ $results[$i] };
        my $dir = "$cases/$names[$i]";
        my ($n) = $names[$i] =~ /_n(\d+)$/;
        my @problems;
        push @problems, "exit $c" . ($e ? ": $e" : '') unless $c == 0 || $c == 1;
        for my $x (qw(a b)) {
            push @problems, "its $x.npy is not the case's" if system('cmp', '-s', "$dir/$x.npy", "$dir/gpu/$x.npy");
        }
        push @problems, first_difference("$dir/c_model.npy", "$dir/gpu/c.npy", $n)
            if system('cmp', '-s', "$dir/c_model.npy", "$dir/gpu/c.npy");
        my %want;
        if (open my $fh, '<', "$dir/counts.txt") {
            %want = <$fh> =~ /(\w+)=(\d+)/g;
        }
        my @want = map { $want{$_} // '?' } qw(moduli alpha beta rows_past cols_past refused elements);
        my @got = report_counts($o);
        push @problems, "its counts (moduli, alpha, beta, rows and columns past, refused, elements) "
            . (@got ? "@got" : 'not reported') . ", the model's @want" unless "@got" eq "@want";
        ok(!@problems, "$step on $names[$i]: C byte for byte the model's; $want[3] rows and $want[4] columns past (R) "
           . "alone, $want[5] elements refused, as the model counts") or diag(join('; ', @problems));
    }
}
system('rm', '-rf', $cases);
done_testing();
