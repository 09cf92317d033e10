#!/usr/bin/env perl
# What make says when something is missing or misnamed: one line naming it and how to get it
# (or what the right names are), a nonzero exit, before anything is built or run. The tools are
# hidden by a PATH of links to every program on this one but them.
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);
require './tests/lib.pl';

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
done_testing();
