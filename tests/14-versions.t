#!/usr/bin/env perl
# The tensor chapter's development versions (every step's versions/ folder, steps 11 to 14),
# as make test builds them (obj/test/versions/, one architecture). Each is a whole program,
# one change from the next: `diff` with the next one changes at most $MAX_DIFF lines (a
# line removed and one added count two), and each calls itself by its own name. On a GPU:
# each is right at odd sizes in every configuration, judged by its own class; and step 12
# with one accumulator, which claims FP32 accuracy, FAILS its bound at n = 4096 (the bias
# its staged accumulation removes), so that its recorded FAIL is the harness's verdict.
use strict;
use warnings;
use Test::More;
require './tests/lib.pl';
our %EXIT;

my $MAX_DIFF = 120; # of versions of 180 to 400 lines; measured: 34, 86, 23; 24, 112, 37 (step 13); 111, 106, 111, 34 (step 14)
my @chains = (['step11_tf32/versions/step11_v1_scalar.cu', 'step11_tf32/versions/step11_v2_ldmatrix.cu',
               'step11_tf32/step11.cu'],
              ['step12_3xtf32/versions/step12_v1_one_accumulator.cu', 'step12_3xtf32/versions/step12_v2_staged.cu',
               'step12_3xtf32/step12.cu'],
              ['step13_wgmma_tf32/versions/step13_v1_tma_wgmma.cu', 'step13_wgmma_tf32/versions/step13_v2_bands.cu',
               'step13_wgmma_tf32/versions/step13_v3_truncated.cu', 'step13_wgmma_tf32/step13.cu'],
              ['step14_wgmma_3xtf32/versions/step14_v1_split.cu', 'step14_wgmma_3xtf32/versions/step14_v2_range.cu',
               'step14_wgmma_3xtf32/versions/step14_v3_special.cu', 'step14_wgmma_3xtf32/versions/step14_v4_narrow.cu',
               'step14_wgmma_3xtf32/step14.cu']);
my %listed = map { $_ => 1 } map { @$_ } @chains;
for my $f (glob('step*/versions/*.cu')) {
    ok($listed{$f}, "$f is in a chain of versions tested here");
}

sub program_name { my ($f) = @_; open my $fh, '<', $f or die "$f: $!"; local $/; (<$fh> =~ /\.program = "(\w+)"/)[0] // '' }

my %names;
for my $chain (@chains) {
    for my $i (0 .. $#$chain - 1) {
        my ($from, $to) = @$chain[$i, $i + 1];
        my $changed = grep { /^[<>]/ } `diff $from $to`;
        ok($changed > 0 && $changed <= $MAX_DIFF, "diff $from $to: $changed lines changed (1 ... $MAX_DIFF)");
    }
    $names{$_} = program_name($_) for @$chain;
}
my %seen;
ok(!grep({ !$names{$_} || $seen{$names{$_}}++ } sort keys %names),
   "each version has its own program name: " . join(', ', map { $names{$_} } sort keys %names));

# The programs make test built: each answers to its own name (no GPU needed).
my %binary = map { my $f = $_; $f =~ s{.*/(\w+)\.cu$}{obj/test/versions/$1}; ($_ => $f) }
             grep { m{/versions/} } sort keys %names;
for my $src (sort keys %binary) {
    my $bin = $binary{$src};
    ok(-x $bin, "$bin is built") or BAIL_OUT("$bin is missing: run make test, which builds it");
    my ($code, $out, $err) = run($bin, '--help');
    like($out . $err, qr/^Usage: \Q$names{$src}\E /m, "$bin --help names it $names{$src}");
}

my ($has_gpu, $info) = gpu_available();
SKIP: {
    skip "no GPU: $info", 1 unless $has_gpu;
    for my $src (sort keys %binary) {
        my ($bin, $name) = ($binary{$src}, $names{$src});
        my ($runs, $why) = runs_here($bin);
        if (!$runs) {
            pass("$bin: skipped, this GPU lacks what it needs: $why");
            next;
        }
        my @configs = @{ (describe($bin))[0]{configs} };
        @configs = ('') unless @configs; # one configuration: the program's own
        ok(@configs, "$bin describes its configurations: " . (join(' ', @configs) || 'one, its own'));
        # One accumulator's bias grows with n faster than the fp32 bound: small n only.
        my @sizes = $name eq 'step12_v1' ? (1, 17, 257) : (1, 17, 257, 1025);
        for my $cfg (@configs) {
            for my $n (@sizes) {
                for my $dist ('uniform', 'wide') {
                    my ($code, $out, $err) = run($bin, ($cfg ne '' ? ('--config', $cfg) : ()), '-n', $n, '--dist', $dist, '--reps', 1,
                                                 '--check', 'full', '--csv-header');
                    my %r = csv_row($out);
                    if ($code == $EXIT{usage} && $err =~ /needs \d+ bytes of shared memory/) {
                        pass("$bin --config $cfg: does not fit this GPU, refused with exit 2");
                        next;
                    }
                    ok($code == 0 && ($r{program} // '') eq $name && ($r{config} // '') eq $cfg,
                       "$bin --config $cfg -n $n --dist $dist: $name, componentwise error "
                       . ($r{max_comp_err} // '?') . " within " . ($r{tolerance} // '?')) or diag("exit $code: $err");
                }
            }
        }
    }
    my ($bin) = grep { /one_accumulator/ } values %binary;
    if ((runs_here($bin))[0]) {
        my ($code, $out, $err) = run($bin, '-n', 4096, '--reps', 1, '--csv-header');
        my %r = csv_row($out);
        ok($code == $EXIT{inaccurate} && ($r{status} // '') eq 'FAIL' && ($r{precision} // '') eq 'fp32'
           && $r{max_comp_err} > $r{tolerance},
           "$bin -n 4096: judged as fp32, FAILS (" . ($r{max_comp_err} // '?') . " > " . ($r{tolerance} // '?')
           . "): the staged accumulation of step 12 is needed") or diag("exit $code: $err");
    }
}
done_testing();
