#!/usr/bin/env perl
# What make says when something is missing or misnamed: one line naming it and how to get it
# (or what the right names are), a nonzero exit, before anything is built or run. The tools are
# hidden by a PATH of links to every program on this one but them. Then what a new user without a
# GPU met in their first hour: a failing tool's exit not hidden (make sass, make regs), a RESULTS,
# ARCH, ONLY or PLOT_PYTHON that cannot be refused before anything is built (and obj/arch.stamp
# left as it was), a misspelt variable named, make reproduce's plan before any build, and make
# multigpu and make gpu-info without a GPU.
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);
require './tests/lib.pl';
our @STEPS;

# A folder of links to every program on PATH except the hidden ones.
sub path_without {
    my %hidden = map { $_ => 1 } @_;
    my $dir = tempdir(CLEANUP => 1);
    for my $p (split /:/, $ENV{PATH}) {
        next unless -d $p;
        opendir my $dh, $p or next;
        for my $f (readdir $dh) {
            next if $hidden{$f} || -e "$dir/$f" || !-x "$p/$f" || -d "$p/$f";
            symlink "$p/$f", "$dir/$f";
        }
    }
    return $dir;
}
# make's messages: the one line it prints, and its exit code.
sub make_says {
    my ($path, @args) = @_;
    local $ENV{PATH} = $path // $ENV{PATH};
    my ($code, $out, $err) = run('make', '--no-print-directory', '-n', @args);
    my @lines = grep { /\S/ } split /\n/, $err;
    return ($code, $lines[0] // '', scalar @lines);
}

# [target, the tool it needs, what the line must say about getting it]
for my $case (['sass STEP=05', 'cuobjdump', qr/apt-get install cuda-cuobjdump-\d+-\d+, or put the toolkit's bin\/ on PATH/],
              ['profile STEP=05', 'ncu', qr/apt-get install cuda-nsight-compute-\d+-\d+ /],
              ['step-counters', 'ncu', qr/Nsight Compute/],
              ['sanitize', 'compute-sanitizer', qr/apt-get install cuda-sanitizer-\d+-\d+, or put the toolkit's bin\/ on PATH/],
              ['test', 'prove', qr/apt-get install perl/],
              ['compare', 'python3', qr/apt-get install python3/]) {
    my ($target, $tool, $how) = @$case;
    my ($code, $line, $count) = make_says(path_without($tool), split / /, $target);
    ok($code != 0 && $count == 1 && $line =~ /\b\Q$tool\E not found: / && $line =~ $how,
       "make $target without $tool: one line naming it and how to install it") or diag("exit $code, $count lines: $line");
}
# The install command as this user can type it: sudo only where not root.
my ($code, $line) = make_says(path_without('prove'), 'test');
my $root = $> == 0;
ok($root ? $line !~ /sudo/ : $line =~ /sudo apt-get/, ($root ? 'as root: no sudo' : 'not root: with sudo') . " in '$line'");

# A STEP or VERSION that names nothing: refused before anything is built, with the names that exist.
# (Stand-ins for the tools, where this machine lacks them: make -n runs none of them.)
my @steps = map { m{^step(\d\d)_} ? $1 : () } sort glob('step[0-9][0-9]_*');
my $stand_ins = tempdir(CLEANUP => 1);
for my $tool (qw(cuobjdump ncu)) {
    open my $fh, '>', "$stand_ins/$tool" or die $!;
    print $fh "#!/bin/sh\nexit 0\n";
    close $fh;
    chmod 0755, "$stand_ins/$tool";
}
for my $target (qw(sass ptx profile profile-launch diff)) {
    my ($code, $line, $count) = make_says("$stand_ins:$ENV{PATH}", $target, 'STEP=99');
    ok($code != 0 && $count == 1 && $line =~ /STEP=99 names no step: the steps are $steps[0] \.\.\. $steps[-1]/,
       "make $target STEP=99: one line naming the steps") or diag("exit $code, $count lines: $line");
}
($code, my $out, my $err) = run('make', '--no-print-directory', '-s', 'diff', 'VERSION=bogus');
ok($code == 2 && $err =~ /^make diff: VERSION=bogus names no development version with one before it \(the versions: \S+/,
   'make diff VERSION=bogus: names VERSION, not an option of a script, and lists the versions') or diag("exit $code: $err");

# ---- the first hour without a GPU ----
my $tmp = tempdir(CLEANUP => 1);
my $a_file = "$tmp/a-file";
open my $fh, '>', $a_file or die $!;
close $fh;
mkdir "$tmp/empty" or die $!;
my $first = $STEPS[0];

# make sass: cuobjdump failing (a stand-in) is make's failure, not hidden behind c++filt's exit 0.
# (-o: nothing is rebuilt for it.)
my $failing = tempdir(CLEANUP => 1);
open $fh, '>', "$failing/cuobjdump" or die $!;
print $fh "#!/bin/sh\necho 'cuobjdump fatal: stand-in failing' >&2\nexit 1\n";
close $fh;
chmod 0755, "$failing/cuobjdump";
{
    local $ENV{PATH} = "$failing:$ENV{PATH}";
    ($code, $out, $err) = run('make', '--no-print-directory', '-s', '-o', 'all', '-o', $first, 'sass', "PROGRAM=$first");
}
ok($code != 0 && $err =~ /stand-in failing/, "make sass with cuobjdump failing: make fails too (exit $code)")
    or diag("exit $code: $err");
# make regs the same way: nvcc failing (a stand-in) stops it with nvcc's own message, not hidden
# behind awk's exit 0.
open $fh, '>', "$failing/nvcc" or die $!;
print $fh "#!/bin/sh\necho 'nvcc fatal: stand-in failing' >&2\nexit 1\n";
close $fh;
chmod 0755, "$failing/nvcc";
($code, $out, $err) = run('make', '--no-print-directory', '-s', 'regs', "NVCC=$failing/nvcc");
ok($code != 0 && $err =~ /stand-in failing/ && $err =~ /make regs: nvcc failed on \S+\.cu/,
   "make regs with nvcc failing: make fails too (exit $code), with nvcc's message") or diag("exit $code: $err");

# RESULTS that is a file, an empty folder, or no folder: refused in one line before anything is
# built, by make plots as by make compare.
for my $case (['plots', $a_file, qr/RESULTS=\Q$a_file\E is a file, not a folder/],
              ['compare', $a_file, qr/RESULTS=\Q$a_file\E is a file, not a folder/],
              ['plots', "$tmp/empty", qr/RESULTS=\Q$tmp\E\/empty holds no results/],
              ['plots', "$tmp/none", qr/RESULTS=\Q$tmp\E\/none is not found/]) {
    my ($target, $results, $re) = @$case;
    my ($code, $line, $count) = make_says(undef, $target, "RESULTS=$results");
    ok($code == 2 && $count == 1 && $line =~ $re, "make $target RESULTS=$results: one line, exit 2")
        or diag("exit $code, $count lines: $line");
}

# PLOT_PYTHON that is not there, or cannot import matplotlib: one line, exit 2, before make says
# the environment is up to date.
for my $case (['/nonexistent/python', qr/PLOT_PYTHON=\/nonexistent\/python is not found/],
              ['/bin/false', qr/PLOT_PYTHON=\/bin\/false cannot import matplotlib/]) {
    my ($python, $re) = @$case;
    my ($code, $line, $count) = make_says(undef, 'plots', "PLOT_PYTHON=$python");
    ok($code == 2 && $count == 1 && $line =~ $re, "make plots PLOT_PYTHON=$python: one line, exit 2")
        or diag("exit $code, $count lines: $line");
}

# make reproduce: a part that does not exist is refused before anything is built; DRY_RUN=1
# prints the plan without building anything first (-W: as if a step's source had just changed).
($code, $line, my $count) = make_says(undef, 'reproduce', 'ONLY=bogus');
ok($code == 2 && $count == 1 && $line =~ /make reproduce: unknown part 'bogus' \(parts: /,
   'make reproduce ONLY=bogus: one line naming the part, exit 2') or diag("exit $code, $count lines: $line");
(my $source = $first) .= '.cu';
($code, $out, $err) = run('make', '--no-print-directory', '-n', '-W', $source, 'reproduce', 'DRY_RUN=1');
my @commands = grep { /\S/ } split /\n/, $out;
ok($code == 0 && @commands == 1 && $commands[0] =~ m{^python3 scripts/reproduce\.py .*--dry-run$},
   "make reproduce DRY_RUN=1 with $source changed: the plan alone, nothing compiled first")
    or diag("exit $code: $out$err");

# ARCH that nvcc does not build for: one line before obj/arch.stamp is touched, so that the next
# make rebuilds nothing (on a tree that rewrites it, the stamp is put back as it was).
SKIP: {
    skip('nvcc not found', 2) unless `command -v nvcc 2>/dev/null` || -x '/usr/local/cuda/bin/nvcc';
    my $stamp = 'obj/arch.stamp';
    my ($before, $mtime) = (-e $stamp ? do { local (@ARGV, $/) = $stamp; <> } : undef, (stat $stamp)[9]);
    ($code, $line, $count) = make_says(undef, 'ARCH=sm_999', $first);
    my $after = -e $stamp ? do { local (@ARGV, $/) = $stamp; <> } : undef;
    my $kept = ($before // '') eq ($after // '') && ($mtime // 0) == ((stat $stamp)[9] // 0);
    if (!$kept && defined $before) {
        open my $sf, '>', $stamp or die $!;
        print $sf $before;
        close $sf;
        utime $mtime, $mtime, $stamp;
    }
    ok($code == 2 && $count == 1 && $line =~ /ARCH=sm_999 is no architecture this nvcc builds for: sm_\d+/,
       'make ARCH=sm_999: one line naming the architectures nvcc builds for, exit 2') or diag("exit $code: $line");
    ok($kept, "... and $stamp is as it was");
}

# A misspelt variable is named, with the one make help gives; the variables make reads, and the
# environment the programs and CUDA read, pass without a word.
for my $case (['DIST=wide', qr/DIST=wide is no variable this Makefile reads, so it changes nothing: did you mean DISTS=\?/],
              ['GPUS=2', qr/GPUS=2 is no variable this Makefile reads, so it changes nothing \(make help names/],
              ['STEPS=05', qr/did you mean STEP=\?/]) {
    my ($given, $re) = @$case;
    ($code, $out, $err) = run('make', '--no-print-directory', '-n', 'help', $given);
    my @lines = grep { /\S/ } split /\n/, $err;
    ok($code == 0 && @lines == 1 && $lines[0] =~ $re, "make help $given: one line naming it") or diag("exit $code: $err");
}
($code, $out, $err) = run('make', '--no-print-directory', '-n', 'help', 'DISTS=wide', 'STEP=05', 'SIZES=64', 'ARCH=sm_90',
                          'SMEM_LIMIT=99K', 'OPENBLAS=0', 'CUDA_VISIBLE_DEVICES=', 'MATMUL_SMEM_LIMIT=64K', 'TEST_DEPTH=deep');
ok($code == 0 && $err eq '', 'the variables make reads, and the environment the programs read: no word') or diag($err);

# Without a GPU, make multigpu and make gpu-info answer as make stepNN does: the program's one
# line, and exit 0 (-o: nothing is rebuilt for them).
SKIP: {
    skip('multigpu/multigpu is not built (NCCL not found)', 1) unless -x 'multigpu/multigpu';
    ($code, $out, $err) = run('CUDA_VISIBLE_DEVICES=', 'make', '--no-print-directory', '-s', '-o', 'multigpu/multigpu',
                              'multigpu');
    ok($code == 0 && $err =~ /^multigpu: no (?:NVIDIA GPU|CUDA device visible)/ && scalar(split /\n/, $err) == 1,
       'make multigpu without a GPU: its one line, exit 0 (as make stepNN)') or diag("exit $code: $err");
}
# make gpu-info says which programs carry which architectures, as each says (--describe's archs).
($code, $out, $err) = run('CUDA_VISIBLE_DEVICES=', 'make', '--no-print-directory', '-s', '-o', 'all', 'gpu-info');
my %carries; # step number -> the archs its line names
for my $l (split /\n/, $out) {
    next unless $l =~ /^(?:This build:)?\s+(?:steps? )?([\d, -]+)(?:, [a-z]\w*)*: (.*)$/;
    my $archs = $2;
    for my $range (split /, /, $1) {
        my ($lo, $hi) = $range =~ /^(\d+)(?:-(\d+))?$/ or next;
        $carries{sprintf '%02d', $_} = $archs for $lo .. ($hi // $lo);
    }
}
my @wrong;
for my $step (@STEPS) {
    my ($number) = $step =~ m{/step(\d\d)$};
    my ($says) = (`./$step --describe` =~ /^archs=(.*)$/m);
    push @wrong, "$step: " . ($carries{$number} // 'not named') . ", it says " . ($says // '?')
        unless defined $says && ($carries{$number} // '') eq $says;
}
ok($code == 0 && !@wrong, 'make gpu-info without a GPU: each step named with the architectures it says it carries')
    or diag("exit $code\n$out$err\n" . join("\n", @wrong));
done_testing();
