#!/usr/bin/env perl
# Short sums against the fp32 bound. 3xTF32 drops the fourth product (small x small) and loses
# a little in each split; over a long sum the bound grows as sqrt(k) and has room for that, but
# at k = 1 a single product can land 9.46 u from the exact one, past the 9 u the fp32 class
# allows. Step 14 keeps the fourth product for n <= FOURTH_PRODUCT_MAX_N (read from its source).
#
# On the CPU (CI too): short_sums.c beside this file models step 14's arithmetic bit for bit
# (the split, the order of the wgmma k-steps, the tensor core's sums as tests/tf32_model.h has
# them, the staged FP32 additions) and searches crafted long-mantissa inputs at every n = 1 ... 40:
#   - with step 14's rule, no input found beyond the bound, at any n;
#   - the control: without the fourth product, the search does find inputs beyond it (so the
#     search can fail);
# On a GPU: every FP32-class tensor-core step runs the worst input found at each n (make test-deep; make test at a few n), and must
# pass its bound (every configuration of step 14, the default of the others); step 14's C
# must equal the model's bit for bit, which checks the model against the hardware on exactly
# the inputs it judged; so must step 15's (step 14's arithmetic with the split inside the
# kernel: on inputs that need no shift it computes the same products in the same order). And
# step 15's own rule, shifts per stage of k, searched the same way on values scaled per stage
# (short_sums.c --per-stage --stage-scales): within the bound, and on the GPU its C equal
# to that model's bit for bit. cuBLAS SGEMM runs them too, as the control of the inputs. The
# step's folder is this file's own (make builds the search into obj/test/<folder>/).
use strict;
use warnings;
use Test::More;
require './tests/lib.pl';
our (%EXIT);

my ($folder, $step) = this_step();
my $search = "obj/test/$folder/short_sums";
unless (-x $search) {
    fail("$search is built (make builds it as a test helper)");
    done_testing();
    exit;
}
my $step14_src = "$folder/$step.cu";
open my $src, '<', $step14_src or BAIL_OUT("$step14_src: $!");
my ($fourth_up_to) = join('', <$src>) =~ /^#define FOURTH_PRODUCT_MAX_N (\d+)/m;
ok(defined $fourth_up_to, "$step14_src defines FOURTH_PRODUCT_MAX_N (" . ($fourth_up_to // 'missing') . ")")
    or BAIL_OUT('no rule to model');

my $MAX_N = 40;
my $dir = "obj/short_sums_$$";
system('rm', '-rf', $dir);

# TAP lines of the search, passed on.
sub pass_on {
    my ($what, $code, $out, $err) = @_;
    my $lines = 0;
    for my $line (split /\n/, $out) {
        if ($line =~ /^(not )?ok \d+ - (.*)$/) {
            $lines++;
            ok(!defined $1, "$what: $2");
        } elsif ($line =~ /^#\s?(.*)$/) {
            note($1);
        }
    }
    ok($lines > 0 && $code == 0, "$what: exit $code, $lines checks") or diag($err);
}

pass_on('step 14 as built', run($search, '--fourth-up-to', $fourth_up_to, '--max-n', $MAX_N, '--trials', 300,
                               '--save-worst', $dir));
pass_on('without the fourth product', run($search, '--fourth-up-to', 0, '--max-n', 2, '--trials', 3000,
                                          '--expect-fail'));
# Step 15 takes its shifts per stage of 32 of k: the same search, on values scaled by a power of
# two per stage of each row and column (stages shifted up, down or not at all), n = 1 ... 96.
my $STAGE_MAX_N = 96;
pass_on('step 15, shifts per stage', run($search, '--per-stage', '--stage-scales', '--fourth-up-to', $fourth_up_to,
                                         '--max-n', $STAGE_MAX_N, '--trials', 8, '--save-worst', "$dir/stages"));

# The GPU replays the worst input at every n (make test-deep), or at a few (make test): the
# smallest sums, where a single product can cross the bound, and both ends of the search.
my @replay_n = sizes(quick => [1, 2, 3, 5, 17, $MAX_N], deep => [1 .. $MAX_N]);
my @stage_replay_n = sizes(quick => [1, 2, 33, 65, $STAGE_MAX_N], deep => [1 .. $STAGE_MAX_N]);
my ($has_gpu, $info) = gpu_available();
quick_skips("the GPU replays the worst short sums at n = @replay_n and, scaled per stage, at n = @stage_replay_n, "
            . "not at every n = 1 ... $MAX_N and 1 ... $STAGE_MAX_N") if $has_gpu;
SKIP: {
    skip("no GPU: $info", 1) unless $has_gpu;
    my @steps;
    for my $d (grep { $_->{chapter} eq 'tensor-cores' && $_->{precision} eq 'fp32' } rows()) {
        my ($runs, $why) = runs_here($d->{binary});
        diag("$d->{row}: skipped: $why") unless $runs;
        push @steps, $d if $runs;
    }
    skip('no FP32-class tensor-core step runs on this GPU', 1) unless @steps;
    my @runs = (['cublas/cublas']);
    for my $d (@steps) {
        my @configs = $d->{binary} =~ m{/step1[45]$} ? @{ $d->{configs} } : ();
        push @runs, @configs ? (map { [row_command($d), '--config', $_] } @configs) : [row_command($d)];
    }
    # Every replay at once (test_jobs() side by side), each saving its C in a folder of its own.
    my @replays;
    for my $cmd (@runs) {
        push @replays, map { [$cmd, $_, "$dir/n$_", 'model'] } @replay_n;
    }
    # Step 15 on the worst inputs scaled per stage too, in every configuration.
    for my $cmd (grep { $_->[0] =~ m{/step15$} } @runs) {
        push @replays, map { [$cmd, $_, "$dir/stages/n$_", 'per-stage model'] } @stage_replay_n;
    }
    system('mkdir', '-p', "$dir/out");
    my @results = run_many(test_jobs(), map {
        my ($cmd, $n, $input) = @{ $replays[$_] };
        [@$cmd, '--load', $input, '--save', "$dir/out/$_", '--reps', 1, '--csv-header']
    } 0 .. $#replays);
    my (%failed, %differ, @order);
    for my $i (0 .. $#replays) {
        my ($cmd, $n, $input, $model) = @{ $replays[$i] };
        my ($code, $out, $err) = @{ $results[$i] };
        my $what = join("\t", join(' ', @$cmd), $model);
        push @order, $what unless exists $failed{$what};
        $failed{$what} //= [];
        $differ{$what} //= [];
        my %r = csv_row($out);
        push @{ $failed{$what} }, "n=$n: exit $code, " . ($r{max_comp_err} // $err =~ s/\s+$//r) . " > " . ($r{tolerance} // '?')
            unless $code == 0 && ($r{status} // '') eq 'pass';
        next unless $cmd->[0] =~ m{/step1[45]$};
        my @want = load_npy("$input/c_model.npy");
        my @got = load_npy("$dir/out/$i/c.npy");
        push @{ $differ{$what} }, $n unless @got == @want && !grep { $got[$_] != $want[$_] } 0 .. $#want;
    }
    for my $what (@order) {
        my ($command, $model) = split /\t/, $what;
        my $sizes = $model eq 'model' ? "n = @replay_n" : "n = @stage_replay_n";
        my $inputs = $model eq 'model' ? 'the worst short sums found' : 'values scaled per stage';
        ok(!@{ $failed{$what} }, "$command: $inputs, $sizes, within its bound")
            or diag(join("\n", @{ $failed{$what} }));
        ok(!@{ $differ{$what} }, "$command: C equals the ${model}'s, bit for bit, at $sizes")
            or diag("differs at n = @{ $differ{$what} }") if $command =~ m{^\S*/step1[45]\b};
    }
}
system('rm', '-rf', $dir);

done_testing();
