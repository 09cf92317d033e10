#!/usr/bin/env perl
# No Python traceback ever reaches a user: every script (scripts/*.py, plots/*.py, each step
# folder's *.py) refuses bad input in one line on stderr and a nonzero exit, before anything runs.
# The scripts are found, not listed: a file with `if __name__ == "__main__":` is a script; one
# without is a library others import (drawing.py, a step's pictures.py or report.py), not run. A
# script whose usage reads `SCRIPT A|B|C [options]` (experiment.py) has commands, each taking its
# own options: each is tested as a script of its own. Each is run with:
# - an option no script has;
# - the word "many" for each option its --help lists with a value (a number, a name, a choice),
#   except the folders (--results, --out: a word there is a new folder);
# - a file for each folder its --help lists (--results, --out), and MATMUL_RESULTS naming a file,
#   with no arguments, where it writes measurements (it calls ladder.measurements_dir), and a
#   file for special_inputs.py's DIR;
# - the tools missing: PATH holding python3 alone and Python's own site-packages off (so that
#   nvcc, make, ncu, compute-sanitizer, cuobjdump, nvidia-smi, objcopy, gcc and matplotlib are
#   absent), with no arguments, where its source runs one of them or draws; then each script that
#   needs a tool must name it and how to get it.
# Every run sees no GPU (CUDA_VISIBLE_DEVICES='') and writes into a fresh folder
# (MATMUL_RESULTS), so that nothing is measured or recorded on any machine. Then the bad files a
# new user met (plots/charts.py on a results CSV that is not UTF-8, holds n = "x" or lacks its
# device column, and on a folder of none), the programs' own bad input of that first hour
# (multigpu --trace, a --load path of 5,000 characters, int8_gemm --sizes, multigpu --help's
# families), and what the scripts check before they run, on stand-ins (tests/script_checks_test.py).
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);
require './tests/lib.pl';
our (%EXIT, @STEPS);

my $tmp = tempdir(CLEANUP => 1);
my $file = "$tmp/a-file";
open my $fh, '>', $file or die "$file: $!";
close $fh;
my @quiet = ("CUDA_VISIBLE_DEVICES=", "MATMUL_RESULTS=$tmp/results");

sub read_file { open my $f, '<', $_[0] or return ''; local $/; <$f> }

my (@scripts, @libraries);
for my $path (sort(glob('scripts/*.py'), glob('plots/*.py'), glob('step[0-9][0-9]_*/*.py'))) {
    if (read_file($path) =~ /^if __name__ == "__main__":/m) { push @scripts, $path } else { push @libraries, $path }
}
ok(@scripts >= 10, scalar(@scripts) . " scripts found: @scripts");
diag("libraries (no __main__), not run: @libraries");

sub one_line { my ($err) = @_; $err =~ /\S/ && scalar(split /\n/, $err) == 1 }
sub refused {
    my ($label, $code, $out, $err, $re) = @_;
    ok($code != 0 && $code < 128 && one_line($err) && $err !~ /Traceback/ && (!$re || $err =~ $re),
       "$label: exit $code, one line on stderr" . ($re ? " ($re)" : ''))
        or diag("exit $code\nstderr: $err\nstdout: " . substr($out, 0, 500));
}

# The unknown option, and the commands it reveals.
my @commands; # [script, command words...]
my @runs = map { [@quiet, 'python3', $_, '--no-such-option'] } @scripts;
my @got = run_many(test_jobs(), @runs);
for my $i (0 .. $#scripts) {
    my ($code, $out, $err) = @{ $got[$i] };
    refused("$scripts[$i] --no-such-option", $code, $out, $err);
    if ($err =~ /^usage: \S+ ([\w-]+(?:\|[\w-]+)+) \[options\]/) {
        push @commands, [$scripts[$i], $_] for split /\|/, $1;
    } else {
        push @commands, [$scripts[$i]];
    }
}
my @kinds = grep { @$_ > 1 } @commands;
@runs = map { [@quiet, 'python3', @$_, '--no-such-option'] } @kinds;
@got = run_many(test_jobs(), @runs);
refused("@{ $kinds[$_] } --no-such-option", @{ $got[$_] }) for 0 .. $#kinds;

# Each command's options, from its --help.
@got = run_many(test_jobs(), map { [@quiet, 'python3', @$_, '--help'] } @commands);
my @bad;
for my $i (0 .. $#commands) {
    my ($code, $out, $err) = @{ $got[$i] };
    ok($code == 0 && $out =~ /\S/ && $err eq '', "@{ $commands[$i] } --help: exit 0") or diag("exit $code: $err");
    my %seen;
    for my $option ($out =~ /^\s+(--[\w-]+) (?:[A-Z][A-Z_]*|\{[^}]*\})/mg) {
        next if $seen{$option}++;
        if ($option eq '--results' || $option eq '--out') {
            push @bad, [[@{ $commands[$i] }, $option, $file], qr/\Q$file\E/];
        } else {
            push @bad, [[@{ $commands[$i] }, $option, 'many'], undef];
        }
    }
}
ok(scalar(grep { $_->[0][-1] eq 'many' } @bad) >= 20, "options with a value found in the --help texts: "
   . scalar(@bad));
# Where it writes measurements: MATMUL_RESULTS naming a file refuses it before anything runs.
for my $c (grep { @$_ == 1 } @commands) {
    push @bad, [["MATMUL_RESULTS=$file", @$c], qr/\Q$file\E/] if read_file($c->[0]) =~ /\bladder\.measurements_dir\(/;
}
push @bad, [['scripts/special_inputs.py', $file], qr/\Q$file\E/];
@got = run_many(test_jobs(), map { my @c = @{ $_->[0] }; my @env = grep { /^\w+=/ } @c;
                                  [@quiet, @env, 'python3', grep { !/^\w+=/ } @c] } @bad);
refused(join(' ', @{ $bad[$_][0] }), @{ $got[$_] }, $bad[$_][1]) for 0 .. $#bad;

# The tools missing: PATH holds this Python alone (the interpreter itself, not a launcher that
# needs a shell), its site-packages off (-S: no matplotlib).
my $python = `python3 -c 'import sys; print(sys.executable)'`;
chomp $python;
my $bin = "$tmp/bin";
mkdir $bin or die "$bin: $!";
symlink($python, "$bin/python3") or die "symlink: $!";
my @bare = (@quiet, "PATH=$bin", "$bin/python3", '-S');
my $tool_words = join '|', map { quotemeta } qw(make nvcc gcc ncu compute-sanitizer cuobjdump nvidia-smi objcopy prove);
my @needy = grep { read_file($_->[0]) =~ /["'](?:$tool_words)["']|matplotlib|\bdrawing\b/ } @commands;
@got = run_many(test_jobs(), map { [@bare, @$_] } @needy);
refused("@{ $needy[$_] } with the tools missing", @{ $got[$_] }) for 0 .. $#needy;

# Those that need a tool to do what they are asked name it, and how to get it; so does each sweep
# a step runs in its own Python (its experiments.json's "function": the lab's tile sweep needs make
# and nvcc, the counters ncu, ...), found as the runner finds them.
my ($first_step) = glob('step01_*/step01');
require JSON::PP;
my @own_sweeps;
for my $json (sort glob('step[0-9][0-9]_*/experiments.json')) {
    my ($step) = $json =~ /^(step\d\d)_/;
    my $sweeps = JSON::PP::decode_json(read_file($json))->{sweeps} // {};
    push @own_sweeps, map { [['scripts/experiment.py', 'sweep', '--step', $step, '--name', $_], qr/^\S+ not found: /] }
        grep { $sweeps->{$_}{function} } sort keys %$sweeps;
}
ok(@own_sweeps >= 1, "the steps' own sweeps, each asked with the tools missing: " . join(', ', map { "$_->[0][3] $_->[0][5]" } @own_sweeps));
my @tools = (
    [['scripts/sanitize.py'], qr/^compute-sanitizer not found: .*cuda-sanitizer-.*PATH$/],
    [['scripts/fatbin_archs.py', $first_step], qr/^objcopy not found: .*install binutils$/],
    [['scripts/experiment.py', 'sweep'], qr/^make not found: .*install make$/],
    [['scripts/experiment.py', 'sweep', '--part', 'ncu'], qr/^ncu not found: .*cuda-nsight-compute-/],
    [['scripts/reproduce.py', '--only', 'cpu'], qr/^make not found: make reproduce's part 'cpu' runs make/],
    [['plots/charts.py'], qr/^matplotlib not found: .*make plots-env.*PLOT_PYTHON/],
    [['plots/tensor_pictures.py'], qr/^matplotlib not found: .*make plots-env.*PLOT_PYTHON/],
    (-x 'cpu/cpu_gemm' ? [['scripts/cpu_compare.py'], qr/^gcc not found: .*build-essential$/] : ()),
    @own_sweeps,
);
@tools = grep { -e $_->[0][0] } @tools;
@got = run_many(test_jobs(), map { [@bare, @{ $_->[0] }] } @tools);
for my $i (0 .. $#tools) {
    my ($code, $out, $err) = @{ $got[$i] };
    ok($code == $EXIT{usage} && one_line($err) && $err =~ $tools[$i][1],
       "@{ $tools[$i][0] } with the tools missing: exit 2, one line naming the tool and how to get it")
        or diag("exit $code: $err");
}

# The charts on bad results files, each alone in a folder: one line naming the file (and the line),
# exit 2, before anything is drawn (so no matplotlib is needed to say it); and on a folder of none.
my $columns = "date,command,program,n,device,kernel_ms,gflops,status,dist\n";
my $good = "2026-01-01T00:00Z,fixture,step01,1000,Fixture GPU,1.0,2000,pass,uniform\n";
for my $case (['not UTF-8', $columns . ($good =~ s/Fixture/Fix\xffture/r), qr/, line 2: not UTF-8 text/],
              ['n = "x"', $columns . ($good =~ s/,1000,/,x,/r), qr/, line 2: n is 'x', not a number/],
              ['no device column', ($columns =~ s/device,//r) . ($good =~ s/Fixture GPU,//r), qr/has no column 'device'/],
              ['a row short of the header', $columns . ($good =~ s/,uniform//r), qr/, line 2: 8 fields, the header has 9/]) {
    my ($what, $bytes, $re) = @$case;
    my $dir = "$tmp/bad-" . ($what =~ s/\W+/-/gr);
    mkdir $dir or die "$dir: $!";
    open my $csv, '>:raw', "$dir/fixture-gpu.csv" or die $!;
    print $csv $bytes;
    close $csv;
    my ($code, $out, $err) = run(@quiet, 'python3', 'plots/charts.py', '--results', $dir, '--out', "$tmp/plots");
    refused("plots/charts.py on a results file with $what", $code, $out, $err, qr/^charts\.py: \Q$dir\E\/fixture-gpu\.csv.*$re/);
}
mkdir "$tmp/no-results" or die $!;
refused('plots/charts.py --results on a folder with no results',
        run(@quiet, 'python3', 'plots/charts.py', '--results', "$tmp/no-results", '--out', "$tmp/plots"),
        qr/^charts\.py: no results in \Q$tmp\E\/no-results \(no \.csv file\)/);

# The programs' own bad input, as a new user met it without a GPU.
SKIP: {
    skip('multigpu/multigpu is not built (NCCL not found)', 5) unless -x 'multigpu/multigpu';
    my ($code, $out, $err) = run(@quiet, 'multigpu/multigpu', '-n', '64', '--trace', "$tmp/trace.csv");
    ok($code == $EXIT{no_gpu} && !-e "$tmp/trace.csv", 'multigpu --trace FILE without a GPU: exit 3, and no empty FILE left')
        or diag("exit $code: $err");
    refused('multigpu --trace in a folder that does not exist',
            run(@quiet, 'multigpu/multigpu', '--trace', "$tmp/none/trace.csv"),
            qr/--trace '\Q$tmp\E\/none\/trace\.csv': no folder /);
    refused('multigpu --trace naming a folder', run(@quiet, 'multigpu/multigpu', '--trace', $tmp), qr/: it is a folder/);
    # --help names the families --dist takes (those its refusal lists), rather than pointing elsewhere.
    (undef, undef, $err) = run(@quiet, 'multigpu/multigpu', '--dist', 'bogus');
    my ($families) = $err =~ /expected (.*) \(try --help\)/;
    my @families = split /, | or /, $families // '';
    ($code, $out) = run('multigpu/multigpu', '--help');
    my ($dist_help) = $out =~ /^(  --dist D .*?)\n  --(?!dist)/ms;
    ok(@families >= 7 && defined $dist_help && !grep({ $dist_help !~ /\b$_\b/ } @families) && $dist_help !~ /make help/,
       "multigpu --help names every family --dist takes (@families)") or diag($dist_help // $out);
    ok($code == 0, 'multigpu --help: exit 0');
}
# A --load path of 5,000 characters: the message keeps its reason (the path shortened in it).
my $long = "$tmp/" . ('d' x 5000);
for my $program (grep { -x } $STEPS[0], 'cpu/cpu_gemm') {
    refused("$program --load with a path of 5,000 characters", run(@quiet, $program, '--load', $long),
            qr/^\S+: cannot load '[^']{20,200}': the path is \d+ characters, longer than a path may be \(\d+\)/);
}
# int8_gemm --sizes: a word, a negative number and a number not a multiple of 4 are told apart.
my ($int8) = grep { -x } glob('obj/step[0-9][0-9]_*/int8_gemm');
SKIP: {
    skip('no int8_gemm built', 3) unless $int8;
    for my $case (['abc', qr/abc is not a number/], ['-4', qr/-4 is too small: a size must be at least 4/],
                  ['6', qr/6 is not a multiple of 4 \(/]) {
        my ($sizes, $re) = @$case;
        refused("$int8 --sizes $sizes", run(@quiet, $int8, '--sizes', $sizes), $re);
    }
}

# What the scripts check before they run, on stand-ins.
my ($code, $out, $err) = run('python3', 'tests/script_checks_test.py');
my $checks = 0;
for my $line (split /\n/, $out) {
    next unless $line =~ /^(not )?ok \d+ - (.*?)(?: # SKIP (.*))?$/;
    $checks++;
    if (defined $3) { SKIP: { skip $3, 1 } next }
    ok(!defined $1, $2) or diag(join "\n", grep { /^#/ } split /\n/, $out);
}
ok($code == 0 && $checks > 0, "tests/script_checks_test.py: exit $code, $checks checks") or diag($err);
done_testing();
