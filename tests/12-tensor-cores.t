#!/usr/bin/env perl
# The tensor-core chapter on the GPU: its steps (those that say chapter=tensor-cores, of the
# tf32 class or the fp32 one), cuBLAS with TF32 and the CUTLASS peer, each judged by the precision
# class it declares. Each precision class is judged by its own bound, and the bound can fail:
# a TF32 result judged as FP32 fails. The details of the 3xTF32 split, each tested: TF32
# inputs round to nearest, the small parts are added and not swamped, Inf and NaN propagate
# as in an FP32 GEMM, small K and odd sizes are right. Skipped without a GPU, or where the
# GPU has no TF32 tensor cores (exit 4, with the reason). A run asked twice (the same program,
# options and inputs: cuBLAS beside each step) runs once, its result kept.
# Depth. make test (quick): every configuration at n = 33 and 257 on both inputs; the range
# families at n = 1, 17 and 1000, uniform and wide inputs at 1, 17 and 33. make test-deep
# (TEST_DEPTH=deep): every configuration at 1, 7, 9, 17, 33, 64, 257 and 1025; the range families
# at 1, 2, 3, 8, 17, 32, 33, 100 and 1000, uniform and wide at every n from 1 to 33. At both: the
# classes and verdicts at n = 1000, the comparisons with cuBLAS there, the crafted inputs (the
# split's rounding, NaN, Inf, FLT_MAX).
use strict;
use warnings;
use Test::More;
require './tests/lib.pl';
prefetch_runs(); # this file's runs made side by side first (tests/lib.pl)
our (%EXIT, $CUTLASS_WHY);

my ($has_gpu, $info) = gpu_available();
plan skip_all => "no GPU: $info" unless $has_gpu;

# The chapter's steps of FP32 matrices that run on this GPU (one that needs another, exit 4, is
# skipped with its reason), by class; and the references, by class. A step of FP64 matrices is
# tests/32-fp64.t's.
my (@tf32_steps, @fp32_steps);
for my $d (grep { $_->{chapter} eq 'tensor-cores' && ($_->{element} // 'float32') eq 'float32' } rows()) {
    my ($runs, $why) = runs_here($d->{binary});
    diag("$d->{row}: skipped: $why") unless $runs;
    push @{ $d->{precision} eq 'tf32' ? \@tf32_steps : \@fp32_steps }, [row_command($d)] if $runs;
}
plan skip_all => "no tensor-core step runs on this GPU" unless @tf32_steps || @fp32_steps;
my @cutlass = (['cutlass/cutlass', '--math', 'tf32'], ['cutlass/cutlass', '--math', '3xtf32']);
my $cutlass_runs = !$CUTLASS_WHY && (runs_here('cutlass/cutlass'))[0];
diag("CUTLASS: $CUTLASS_WHY") if $CUTLASS_WHY;
my @tf32 = (@tf32_steps, ['cublas/cublas', '--math', 'tf32'], ($cutlass_runs ? $cutlass[0] : ()));
my @fp32 = (@fp32_steps, ['cublas/cublas'], ($cutlass_runs ? $cutlass[1] : ()));

my @config_sizes = sizes(quick => [33, 257], deep => [1, 7, 9, 17, 33, 64, 257, 1025]);
my @range_sizes = sizes(quick => [1, 17, 1000], deep => [1, 2, 3, 8, 17, 32, 33, 100, 1000]);
my @small_sizes = sizes(quick => [1, 17, 33], deep => [1 .. 33]);
quick_skips("each configuration at n = @config_sizes", "the range families at n = @range_sizes",
            "uniform and wide inputs at n = @small_sizes");

sub name { join ' ', @{ $_[0] } }
my %results;
sub csv_run {
    my ($cmd, @args) = @_;
    my $key = join "\0", @$cmd, @args;
    $results{$key} //= do { my ($code, $out, $err) = run(@$cmd, @args, '--csv-header'); [$code, $err, csv_row($out)] };
    return @{ $results{$key} };
}

# Each program's class, and its verdict at n = 1000 on both inputs; judged by the other
# class's bound, a TF32 result fails on wide inputs (and an FP32-class one passes either).
for my $p ([@tf32], [@fp32]) {
    for my $cmd (@$p) {
        my $class = (grep { $_ == $cmd } @tf32) ? 'tf32' : 'fp32';
        for my $dist ('uniform', 'wide') {
            my ($code, $err, %r) = csv_run($cmd, '-n', 1000, '--dist', $dist, '--reps', 1);
            ok($code == 0 && ($r{precision} // '') eq $class && ($r{dist} // '') eq $dist && is_number($r{max_comp_err})
               && $r{max_comp_err} <= $r{tolerance}, name($cmd) . " -n 1000 --dist $dist: $class class, componentwise error "
               . ($r{max_comp_err} // '?') . " within " . ($r{tolerance} // '?')) or diag("exit $code: $err");
        }
        my ($code, $err, %r) = csv_run($cmd, '-n', 1000, '--dist', 'wide', '--reps', 1, '--judge', 'fp32');
        if ($class eq 'tf32') {
            ok($code == $EXIT{inaccurate} && $r{status} eq 'FAIL' && $r{max_comp_err} > $r{tolerance},
               name($cmd) . " -n 1000 --dist wide --judge fp32: TF32 judged as FP32 fails (" . ($r{max_comp_err} // '?')
               . " > " . ($r{tolerance} // '?') . ")") or diag("exit $code: $err");
        } else {
            is($code, 0, name($cmd) . " --judge fp32 -n 1000 --dist wide: its own class, passes");
        }
    }
}

# Every configuration of every step at sizes that are multiples of nothing, and small K (a
# handful of k-tiles, most of the tile zero padding: n = 33 at the quick depth, 1 ... 64 at the
# deep), on both inputs.
for my $p (map { $_->[0] } @tf32_steps, @fp32_steps) {
    my @configs = @{ (describe($p))[0]{configs} };
    diag("$p: one configuration") unless @configs;
    for my $cfg (@configs) {
        for my $n (@config_sizes) {
            for my $dist ('uniform', 'wide') {
                my ($code, $err, %r) = csv_run([$p], '--config', $cfg, '-n', $n, '--dist', $dist, '--reps', 1, '--check', 'full');
                if ($code == $EXIT{usage} && $err =~ /needs \d+ bytes of shared memory/) {
                    pass("$p --config $cfg: does not fit this GPU, refused with exit 2");
                    next;
                }
                ok($code == 0 && ($r{config} // '') eq $cfg && $r{max_comp_err} <= $r{tolerance},
                   "$p --config $cfg -n $n --dist $dist: componentwise error " . ($r{max_comp_err} // '?'))
                    or diag("exit $code: $err");
            }
        }
    }
}

# Each FP32-class step matches cuBLAS SGEMM's accuracy at n = 1000 on both inputs: errors no
# larger than cuBLAS's on the same inputs. On wide inputs the maximum relative error is one
# cancelling element's, whose order between two FP32-accurate programs may differ from GPU to
# GPU: it is compared in the recorded runs (make compare), not here.
for my $step (@fp32_steps) {
    for my $dist ('uniform', 'wide') {
        my (undef, undef, %s) = csv_run($step, '-n', 1000, '--dist', $dist, '--reps', 1);
        my (undef, undef, %c) = csv_run(['cublas/cublas'], '-n', 1000, '--dist', $dist, '--reps', 1);
        for my $col ($dist eq 'uniform' ? 'max_rel_err' : (), 'avg_rel_err', 'max_comp_err') {
            ok(is_number($s{$col}) && is_number($c{$col}) && $s{$col} <= $c{$col},
               name($step) . " -n 1000 --dist $dist: $col " . ($s{$col} // '?') . " <= cuBLAS SGEMM's " . ($c{$col} // '?'));
        }
    }
}

# Each TF32-class step that rounds both operands to nearest (no tf32_inputs in --describe) is
# as accurate as cuBLAS TF32, which rounds them too: at n = 1000, on both inputs and on every
# family of FP32's range, its componentwise error, largest and mean, is no larger than cuBLAS
# TF32's on the same inputs. (Truncating an operand instead shows as a bias: a mean error
# several times cuBLAS's.) Where both overflow (huge: TF32 rounds values near FLT_MAX up to
# Inf) or leave the tf32 bound (rowscale: subnormal rows), the comparison still holds.
my @rounding = grep { !(describe($_->[0]))[0]{tf32_inputs} } @tf32_steps;
sub as_number { my ($x) = @_; return !defined $x ? undef : $x =~ /^[-+]?inf/i ? 9**9**9 : is_number($x) ? $x : undef }
for my $step (@rounding) {
    for my $dist (qw(uniform wide subnormal tiny rowscale mixed huge)) {
        my (undef, undef, %s) = csv_run($step, '-n', 1000, '--dist', $dist, '--reps', 1);
        my (undef, undef, %c) = csv_run(['cublas/cublas', '--math', 'tf32'], '-n', 1000, '--dist', $dist, '--reps', 1);
        for my $col ('max_comp_err', 'avg_comp_err') {
            my ($mine, $theirs) = (as_number($s{$col}), as_number($c{$col}));
            ok(defined $mine && defined $theirs && $mine <= $theirs,
               name($step) . " -n 1000 --dist $dist: $col " . ($s{$col} // '?') . " <= cuBLAS TF32's " . ($c{$col} // '?'));
        }
    }
}

# The whole FP32 range (common/matrix.h's families: subnormal A, the lowest normal binade,
# rows and columns scaled from 2^-140 to 2^100, 80 binades within a row, values near
# FLT_MAX), and small k (uniform and wide inputs at n <= 33, either side of where a step may
# keep the fourth product), each judged by the
# fp32 bound, for every FP32-class step. Beside cuBLAS SGEMM: at n = 1000 its componentwise
# error is at most SGEMM's; on mixed inputs, where a few products dominate each sum as in a short one, at
# most twice SGEMM's. Below that, where SGEMM's few roundings are fewer than the split's,
# the ratio is reported (the README's table has it). CUTLASS's 3xTF32 is reported, not judged.
my %range_sizes = map { $_ => \@range_sizes } qw(subnormal tiny rowscale mixed huge);
$range_sizes{$_} = \@small_sizes for qw(uniform wide);
# A step that says a family is outside its bound (--describe's outside_bound: "mixed: why; ...")
# is not judged there: its errors are reported, it must still run and give finite errors, and it
# must FAIL at one n at least, or what it says is no longer so.
sub outside_bound { my %o = map { /^\s*(\w+):/ ? ($1 => 1) : () } split /;/, (describe($_[0][0]))[0]{outside_bound} // ''; return %o }
for my $step (@fp32_steps) {
    my %outside = outside_bound($step);
    for my $dist (grep { $outside{$_} } qw(subnormal tiny rowscale mixed huge uniform wide)) {
        my ($failed, @report) = (0);
        for my $n (@{ $range_sizes{$dist} }) {
            my ($code, $err, %s) = csv_run($step, '-n', $n, '--dist', $dist, '--reps', 1, '--check', 'full');
            ok(($code == 0 || $code == $EXIT{inaccurate}) && is_number($s{max_comp_err}),
               name($step) . " -n $n --dist $dist (outside its bound, says the step): runs, componentwise error "
               . ($s{max_comp_err} // '?') . " (bound " . ($s{tolerance} // '?') . ")") or diag("exit $code: $err");
            $failed += $code == $EXIT{inaccurate};
            push @report, sprintf("n=%d %.2g", $n, is_number($s{max_comp_err}) && $s{tolerance} ? $s{max_comp_err} / $s{tolerance} : -1);
        }
        ok($failed, name($step) . " --dist $dist: FAILs its bound at $failed of " . scalar(@{ $range_sizes{$dist} })
           . " sizes, as its outside_bound says");
        diag(name($step) . " on $dist, componentwise error / its bound: @report");
    }
    for my $dist (grep { !$outside{$_} } qw(subnormal tiny rowscale mixed huge uniform wide)) {
        my @report;
        for my $n (@{ $range_sizes{$dist} }) {
            my ($code, $err, %s) = csv_run($step, '-n', $n, '--dist', $dist, '--reps', 1, '--check', 'full');
            ok($code == 0 && ($s{precision} // '') eq 'fp32' && is_number($s{max_comp_err}) && $s{max_comp_err} <= $s{tolerance},
               name($step) . " -n $n --dist $dist: componentwise error " . ($s{max_comp_err} // '?') . " within the fp32 bound "
               . ($s{tolerance} // '?')) or diag("exit $code: $err");
            next if $dist eq 'uniform' || $dist eq 'wide'; # compared with cuBLAS at n = 1000 above
            my (undef, undef, %c) = csv_run(['cublas/cublas'], '-n', $n, '--dist', $dist, '--reps', 1, '--check', 'full');
            my $ratio = is_number($s{max_comp_err}) && is_number($c{max_comp_err}) && $c{max_comp_err} > 0
                      ? $s{max_comp_err} / $c{max_comp_err} : undef;
            push @report, sprintf("n=%d %.2g", $n, $ratio // -1);
            # A step with a special path (--describe's special_path: step 16's check after its products)
            # accepts an element wherever its own bound holds, not where SGEMM's error is: on mixed
            # inputs its ratio is reported, its README says why.
            if ($n >= 1000 && !($dist eq 'mixed' && (describe($step->[0]))[0]{special_path})) {
                my $factor = $dist eq 'mixed' ? 2 : 1;
                ok(defined $ratio && $ratio <= $factor, name($step) . " -n $n --dist $dist: componentwise error $s{max_comp_err} <= "
                   . ($factor == 1 ? '' : "$factor x ") . "cuBLAS SGEMM's " . ($c{max_comp_err} // '?'));
            }
            if ($cutlass_runs && $step == $fp32_steps[0]) {
                my ($cc, undef, %k) = csv_run($cutlass[1], '-n', $n, '--dist', $dist, '--reps', 1, '--check', 'full');
                diag("cutlass 3xtf32 -n $n --dist $dist: exit $cc, componentwise error " . ($k{max_comp_err} // '?')
                     . " (bound " . ($k{tolerance} // '?') . ")");
            }
        }
        diag(name($step) . " / cuBLAS SGEMM componentwise error on $dist: @report") if @report;
    }
}

# Crafted inputs, through --load and --save.
my $dir = "obj/tensor_test_$$";
system('rm', '-rf', $dir);
system('mkdir', '-p', map { "$dir/$_" } qw(ident nonfinite huge out));
my $n = 8;
# A times the identity is A in FP32. Values whose low bits test the split: 1 + 2^-11 + 2^-22
# rounds to nearest up to 1 + 2^-10, leaving small = -(2^-11 - 2^-22), exact in TF32 (11
# bits): the three products give A back bit for bit. Truncating big instead would leave
# small = 2^-11 + 2^-22, 12 bits, which TF32 cannot hold.
# Every value has at most 22 significant bits, so big + small holds it exactly; rows are
# scaled by powers of two, which keeps that.
my @vals = (1 + 2**-11 + 2**-22, 1 + 2**-11 + 2**-21, 3, -(1 + 2**-12 + 2**-13), 1 + 2**-3 + 2**-19,
            -(1.5 + 2**-20) * 2**-7, 1.75 * 2**-20, 1 + 2**-10 + 2**-21);
my @a = map { my $i = $_; [map { $vals[($i + $_) % @vals] * 2**($i % 3 - 1) } 0 .. $n - 1] } 0 .. $n - 1;
@a = map { [unpack('f<*', pack('f<*', @$_))] } @a; # exactly the floats the file holds
save_npy("$dir/ident/a.npy", @a);
save_npy("$dir/ident/b.npy", map { my $i = $_; [map { $_ == $i ? 1 : 0 } 0 .. $n - 1] } 0 .. $n - 1);
# TF32 rounding to nearest, ties away from zero (cvt.rna.tf32.f32), on the float's bits; and
# truncation, what wgmma does to an operand it reads as it is. A TF32 step rounds to nearest
# unless it says otherwise (--describe's tf32_inputs).
sub rna { my $u = unpack('V', pack('f<', $_[0])); unpack('f<', pack('V', ($u + 0x1000) & 0xffffe000)) }
sub trunc { my $u = unpack('V', pack('f<', $_[0])); unpack('f<', pack('V', $u & 0xffffe000)) }
my @flat = map { @$_ } @a;
sub tf32_case {
    my ($cmd) = @_;
    my $how = (describe($cmd->[0]))[0]{tf32_inputs};
    return [$cmd, 'rounded to nearest TF32', [map { rna($_) } @flat]] unless $how;
    return [$cmd, "truncated to TF32 ($how)", [map { trunc($_) } @flat]] if $how =~ /^A truncated/;
    BAIL_OUT("$cmd->[0]: tests/12-tensor-cores.t knows no TF32 inputs '$how'");
}
for my $case ((map { tf32_case($_) } @tf32_steps),
              [['cublas/cublas'], 'unchanged', \@flat],
              (map { [$_, 'unchanged: big rounds to nearest and the small parts are kept', \@flat] } @fp32_steps),
              ($cutlass_runs ? [$cutlass[1], 'unchanged', \@flat] : ())) {
    my ($cmd, $what, $want) = @$case;
    system('rm', '-rf', "$dir/out");
    my ($code, $out, $err) = run(@$cmd, '--load', "$dir/ident", '--save', "$dir/out", '--reps', 1);
    my @c = load_npy("$dir/out/c.npy");
    my @diff = grep { !defined $c[$_] || $c[$_] != $want->[$_] } 0 .. $#flat;
    if ($cmd->[0] =~ /cutlass/) { # CUTLASS truncates big: reported, not judged
        diag(name($cmd) . ": A times the identity: " . (@diff ? scalar(@diff) . " of " . @flat . " elements differ from A" : "A, bit for bit"));
        next;
    }
    ok($code == 0 && @c == @flat && !@diff, name($cmd) . ": A times the identity is A $what, bit for bit")
        or diag("exit $code: $err; first difference at " . ($diff[0] // '?') . ": " . ($c[$diff[0] // 0] // '?')
                . " instead of " . ($want->[$diff[0] // 0] // '?'));
}

# NaN and Inf among the inputs come out where an FP32 GEMM puts them: Inf in A's row 0 and
# -Inf in row 2 times a B of integers (exactly TF32: its small parts are 0, and Inf x 0 in
# a cross product would make NaN), a NaN in row 1. And a finite value that rounds past TF32's
# largest (FLT_MAX) must not become Inf.
my @b = map { my $i = $_; [map { ($i * 3 + $_) % 5 + 1 } 0 .. $n - 1] } 0 .. $n - 1;
my @nf = map { my $i = $_; [map { ($i + 2 * $_) % 7 + 1 } 0 .. $n - 1] } 0 .. $n - 1;
$nf[0][0] = 9**9**9; $nf[2][3] = -9**9**9; $nf[1][1] = -sin(9**9**9); # Inf, -Inf, NaN
save_npy("$dir/nonfinite/a.npy", @nf);
save_npy("$dir/nonfinite/b.npy", @b);
my $flt_max = unpack('f<', pack('V', 0x7f7fffff));
save_npy("$dir/huge/a.npy", map { my $i = $_; [map { $i == 0 && $_ == 0 ? $flt_max : 0 } 0 .. $n - 1] } 0 .. $n - 1);
save_npy("$dir/huge/b.npy", map { my $i = $_; [map { $i == 0 && $_ == 0 ? 0.5 : 0 } 0 .. $n - 1] } 0 .. $n - 1);
for my $cmd (@tf32, @fp32) {
    my ($code, $out, $err) = run(@$cmd, '--load', "$dir/nonfinite", '--reps', 1);
    if ($cmd->[0] =~ /cutlass/ && grep { $_ eq '3xtf32' } @$cmd) { # its split makes Inf - Inf: reported, not judged
        diag(name($cmd) . " --load nonfinite: exit $code, " . (($out =~ /^(PASS|FAIL.*)/m)[0] // $err));
        next;
    }
    ok($code == 0 && $out =~ /^PASS/m, name($cmd) . " --load nonfinite: NaN and Inf exactly where an FP32 GEMM has them")
        or diag("exit $code: $out$err");
}
# TF32's largest value is below FLT_MAX: a TF32 GEMM may overflow there, an FP32-class one
# may not. Ours must not; what CUTLASS's 3xTF32 does is reported, not judged.
for my $cmd (@fp32) {
    my ($code, $out, $err) = run(@$cmd, '--load', "$dir/huge", '--reps', 1);
    if ($cmd->[0] =~ /cutlass/) {
        diag(name($cmd) . " --load huge (FLT_MAX x 0.5): exit $code, " . (($out =~ /^(PASS|FAIL).*/m)[0] // $err));
        next;
    }
    ok($code == 0 && $out =~ /^PASS/m, name($cmd) . " --load huge: FLT_MAX x 0.5 is finite, as in FP32")
        or diag("exit $code: $out$err");
}
system('rm', '-rf', $dir);

done_testing();
