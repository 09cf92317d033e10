#!/usr/bin/env perl
# The development versions (every step's versions/ folder), as make test builds them
# (obj/test/versions/, one architecture). They are found, not listed: a step's versions in
# their files' order (stepNN_v1_..., stepNN_v2_...), then the step. Each is a whole program,
# one change from the next: `diff` with the next one changes at most $MAX_DIFF lines (a
# line removed and one added count two), each calls itself by its own name and says what it
# changed (--describe's change). On a GPU: each is right at odd sizes in every
# configuration, judged by its own class; and a version kept to show a failure (its
# fails_on_purpose, which names the n) FAILS its bound there, so that its recorded FAIL is
# the harness's verdict.
# Depth. make test (quick): each version in every configuration at n = 257 (past every tile, a
# multiple of none) on both inputs, and in its first at n = 1. make test-deep (TEST_DEPTH=deep):
# every configuration at n = 1, 17, 257 and 1025 (a version kept to fail: 1, 17, 257) on both
# inputs. At both: the diffs, names, descriptions, and each fails_on_purpose's FAIL.
use strict;
use warnings;
use Test::More;
require './tests/lib.pl';
prefetch_runs(); # this file's runs made side by side first (tests/lib.pl)
our %EXIT;

my $MAX_DIFF = 190; # of versions of 180 to 400 lines; measured, chain by chain: 34, 86, 23; 24, 112, 37; 111, 106, 111, 34; 52;
                    # 108, 190, 103 (step 17: taking the transpose pass into the consumers moves the pass, the loads of
                    # B, the fragments and the epilogue at once)
my @chains;
for my $dir (grep { -d "$_/versions" } sort glob('step[0-9][0-9]_*')) {
    my ($step) = $dir =~ /^(step\d\d)/;
    my @versions = sort { ($a =~ /_v(\d+)/)[0] <=> ($b =~ /_v(\d+)/)[0] } glob("$dir/versions/*.cu");
    push @chains, [@versions, "$dir/$step.cu"];
}
ok(@chains >= 1, "the chains of versions: " . join('; ', map { join(' -> ', map { m{(\w+)\.cu$} } @$_) } @chains));
for my $f (glob('step*/versions/*.cu')) {
    ok($f =~ m{/(step\d\d)_v\d+_\w+\.cu$} && $f =~ /^\Q$1\E_/, "$f is named stepNN_vK_what.cu after its step, "
       . "which orders its chain");
}

# A program's name as it says it (--describe), not as a pattern over its source: a version as make
# test built it (obj/test/versions/), the step as make built it.
sub program_name {
    my ($src) = @_;
    my $bin = $src =~ m{/versions/(\w+)\.cu$} ? "obj/test/versions/$1" : $src =~ s/\.cu$//r;
    return (describe($bin))[0]{program} // '';
}

my %names;
for my $chain (@chains) {
    for my $i (0 .. $#$chain - 1) {
        my ($from, $to) = @$chain[$i, $i + 1];
        my $changed = grep { /^[<>]/ } `diff $from $to`;
        ok($changed > 0 && $changed <= $MAX_DIFF, "diff $from $to: $changed lines changed (1 ... $MAX_DIFF)");
    }
    $names{$_} = program_name($_) for @$chain;
}
# make diff VERSION=NAME shows each change: the pair scripts/ladder.py gives it is the chain's.
for my $chain (@chains) {
    for my $i (1 .. $#$chain) {
        my ($name) = $chain->[$i] =~ m{/(step\d\d(?:_v\d+)?)(?:_\w+)?\.cu$};
        my ($code, $out) = run('python3', 'scripts/ladder.py', 'before', '--version', $name);
        is($out, "$chain->[$i - 1] $chain->[$i]\n", "make diff VERSION=$name: $chain->[$i - 1] against $chain->[$i]");
    }
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
# Each program of a chain says what it changes from the one before it: the versions table's
# column and make reproduce's log come from there.
my %describes;
for my $chain (@chains) {
    for my $src (@$chain) {
        my $bin = $binary{$src} // ($src =~ s/\.cu$//r);
        my $d = (describe($bin))[0];
        $describes{$src} = $d;
        ok(($d->{change} // '') ne '', "$bin says what it changes from the one before: " . ($d->{change} // ''));
    }
}

my ($has_gpu, $info) = gpu_available();
SKIP: {
    skip "no GPU: $info", 1 unless $has_gpu;
    quick_skips("each version in every configuration at n = 257 on both inputs, and in its first at n = 1; not at "
                . "n = 1, 17, 257 and 1025 in each");
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
        # A version kept to show a failure (an error growing with n faster than its bound): small n only.
        my @sizes = sizes(quick => [257], deep => [1, 17, 257, $describes{$src}{fails_on_purpose} ? () : 1025]);
        my @cases = map { my $cfg = $_; map { my $n = $_; map { [$cfg, $n, $_] } 'uniform', 'wide' } @sizes } @configs;
        unshift @cases, [$configs[0], 1, 'uniform'] unless deep();
        for my $case (@cases) {
            my ($cfg, $n, $dist) = @$case;
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
    # A version kept to show a failure FAILS where its fails_on_purpose says ("at n = 4096"), by
    # the harness's own verdict.
    for my $src (grep { $describes{$_}{fails_on_purpose} } sort keys %binary) {
        my ($bin, $why) = ($binary{$src}, $describes{$src}{fails_on_purpose});
        my ($n) = $why =~ /\bn = (\d+)/;
        ok($n, "$bin: its fails_on_purpose names where it fails: $why") or next;
        next unless (runs_here($bin))[0];
        my ($code, $out, $err) = run($bin, '-n', $n, '--reps', 1, '--csv-header');
        my %r = csv_row($out);
        ok($code == $EXIT{inaccurate} && ($r{status} // '') eq 'FAIL' && ($r{max_comp_err} // 0) > ($r{tolerance} // 1),
           "$bin -n $n: FAILS its " . ($r{precision} // "?") . " bound (" . ($r{max_comp_err} // '?') . " > " . ($r{tolerance} // '?')
           . ") as it says: $why") or diag("exit $code: $err");
    }
}
done_testing();
