#!/usr/bin/env perl
# What the build put in the programs: with no GPU and no ARCH, a fat binary that runs on
# every GPU a student is likely to have (machine code for sm_75, sm_80 (which sm_86 and sm_89
# cards run), sm_90 at least, and PTX for newer GPUs); with ARCH=sm_XX or a GPU, code for that one.
# Read from the programs themselves (scripts/fatbin_archs.py), not from the Makefile.
use strict;
use warnings;
use Test::More;
use File::Basename qw(dirname);
require './tests/lib.pl';
our @PROGRAMS;

sub slurp { open my $f, '<', $_[0] or return ''; local $/; return <$f> // '' }
# The architecture each step folder's Makefile declares for it alone (STEP_ARCH := sm_90a), as the
# top Makefile read it: make's own database (ARCH_<folder>), not the sources.
my %declared_arch = `make -s -p -n help 2>/dev/null` =~ /^ARCH_(step\d\d_\w+) := (\S+)$/mg;
sub exact_arch { my ($path) = @_; my ($dir) = $path =~ m{^(step\d\d_\w+)/} or return undef; return $declared_arch{$dir} }

plan skip_all => "python3 is not installed" if system('python3 -c "" 2>/dev/null') != 0;
plan skip_all => "objcopy (binutils) is not installed" if system('objcopy --version >/dev/null 2>&1') != 0;
open my $fh, '<', 'obj/arch.stamp' or BAIL_OUT("obj/arch.stamp is missing: run make");
my $flags = <$fh> // '';
chomp $flags;
my @wanted = $flags =~ /code=sm_(\d+)/g;
push @wanted, $1 if $flags =~ /-arch=sm_(\d+)/;
ok(@wanted, "the build's flags name at least one architecture ($flags)");
if ($flags =~ /-gencode/) {
    my %has = map { $_ => 1 } @wanted;
    ok(!grep({ !$has{$_} } qw(75 80 90)), "the default build asks for sm_75, sm_80 and sm_90");
}
# What the build flags put in a program, as --describe reports it ("sm_75 ... compute_120").
my ($single) = $flags =~ /-arch=(sm_\d+)/;
my $build_archs = join ' ', $single ? ($single, $single =~ s/sm_/compute_/r) : $flags =~ /code=(\w+)/g;
for my $p (@PROGRAMS, 'transpose/transpose') {
    my ($code, $out, $err) = run('python3', 'scripts/fatbin_archs.py', $p);
    my ($sm) = $out =~ /machine code ([\w ]+?)(;|$)/;
    my %have = map { /sm_(\d+)/ ? ($1 => 1) : () } split / /, $sm // '';
    # A step whose folder's Makefile declares its architecture (STEP_ARCH := sm_90a: Hopper's own
    # instructions) is built for that alone, whatever ARCH says; --describe names it and the
    # exact compute capability it derives from it, and nothing else is in the binary.
    my $own = $p =~ m{^step} ? exact_arch("$p.cu") : undef;
    if ($own) {
        my ($num) = $own =~ /sm_(\d+)/;
        ok($code == 0 && join(' ', sort keys %have) eq $num && $out =~ /no PTX/,
           "$p holds machine code for its own architecture $own alone, no PTX") or diag("$out$err");
        my $d = (describe($p))[0];
        ok($d->{archs} eq $own && $d->{exact_cc} eq sprintf('%.1f', $num / 10),
           "$p --describe names its architecture $own and compute capability $d->{exact_cc} exactly") or diag(explain($d));
        next;
    }
    # (ARCH=sm_90a would make every program one architecture's own, and say so.)
    is((describe($p))[0]{exact_cc}, '', "$p --describe: no exact compute capability (a fat binary or PTX)")
        if $p =~ m{^step|^cublas} && $flags !~ /sm_\d+a\b/;
    # CUTLASS's kernels need 8.0: its program carries the first architecture of each major
    # version from 8.0 (8.6 and 8.9 run sm_80 code), to keep its long build short.
    my @expected = $p =~ /cutlass/ && @wanted > 1 ? grep { $_ >= 80 && $_ % 10 == 0 } @wanted : @wanted;
    my @missing = grep { !$have{$_} } @expected;
    ok($code == 0 && !@missing, "$p holds machine code for every architecture built for (@expected)")
        or diag("missing: @missing; $out$err");
    ok($out =~ /PTX compute_\d+/, "$p holds PTX, for GPUs newer than its machine code") if $flags =~ /-gencode/;
    is((describe($p))[0]{archs}, $build_archs, "$p --describe names the architectures of the build")
        if $p =~ m{^step|^cublas};
}
# The tensor chapter's development versions are not part of all (make versions builds them
# like the steps): make test builds them for one architecture, the GPU's or else sm_90 (their
# own, where its folder's Makefile declares one), so that they are proven to compile wherever the tests run.
open my $vfh, '<', 'obj/test-versions-arch.stamp' or BAIL_OUT("obj/test-versions-arch.stamp is missing: run make test");
chomp(my $varch = <$vfh> // '');
my %versions = map { m{^(\w+)/versions/(\w+)\.cu$} ? ("obj/test/versions/$2" => $1) : () } glob('step*/versions/*.cu');
ok(keys %versions >= 3, "the development versions: @{[sort keys %versions]}");
for my $v (sort keys %versions) {
    (my $src = $v) =~ s{obj/test/versions/(\w+)}{$versions{$v}/versions/$1.cu};
    # (the fat binary names sm_90a's machine code sm_90)
    my $arch = (exact_arch($src) // $varch) =~ s/a$//r;
    my ($code, $out, $err) = run('python3', 'scripts/fatbin_archs.py', $v);
    ok($code == 0 && $out =~ /machine code (\w+ )*\Q$arch\E\b/, "$v is built, with machine code for $arch")
        or diag("exit $code: $out$err (make test builds it)");
    # It knows its architecture as its step does (STEP_ARCHS from the build), and says so.
    my $d = (describe($v))[0];
    ok(($d->{archs} // '') =~ /\b\Q$arch\E/ && ($d->{exact_cc} // 'x') eq (exact_arch($src) ? sprintf('%.1f', ($arch =~ /(\d+)/)[0] / 10) : ''),
       "$v --describe: its architectures ($d->{archs}) and exact compute capability ('$d->{exact_cc}')") or diag(explain($d));
}
# make diff STEP=NN: a step against the step it builds on, as the READMEs promise: the one
# the program names (--describe's builds_on), else the one before it on the ladder.
{
    my @dirs = sort glob('step[0-9][0-9]_*');
    for my $i (1 .. $#dirs) {
        my ($this_dir) = $dirs[$i];
        my ($program) = $this_dir =~ /^(step\d\d)/;
        my ($declared) = split ' ', (describe("$this_dir/$program"))[0]{builds_on} // ''; # the first it names
        my ($base) = $declared ? grep { /^\Q$declared\E_/ } @dirs : $dirs[$i - 1];
        my ($prev, $this) = map { my ($p) = /^(step\d\d)/; "$_/$p.cu" } $base, $this_dir;
        my ($num) = $dirs[$i] =~ /^step(\d\d)/;
        my ($code, $out) = run('make', '--no-print-directory', '-s', 'diff', "STEP=$num");
        ok($code == 0 && $out =~ /^--- \Q$prev\E\s.*\n\+\+\+ \Q$this\E\s/, "make diff STEP=$num: $prev against $this")
            or diag("exit $code: " . substr($out, 0, 200));
    }
    my ($code, $out, $err) = run('make', '--no-print-directory', '-s', 'diff', 'STEP=' . ($dirs[0] =~ /^step(\d\d)/)[0]);
    ok($code == 2 && $err =~ /is not a step with one before it \(the steps: /, "make diff of the first step: "
       . "refused, saying why") or diag("exit $code: $err");
    # make ptx STEP=NN: the step's PTX for one architecture (its own where it has one).
    my ($last) = $dirs[-1] =~ /^step(\d\d)/;
    ($code, $out, $err) = run('make', '--no-print-directory', '-s', 'ptx', "STEP=$last");
    my $ptx = slurp("obj/ptx/step$last.ptx");
    my $arch = exact_arch("$dirs[-1]/step$last.cu");
    ok($code == 0 && $ptx =~ /^\.entry|\.visible \.entry|\.entry /m && (!$arch || $ptx =~ /^\.target \Q$arch\E/m),
       "make ptx STEP=$last writes its PTX" . ($arch ? " for $arch" : "")) or diag("exit $code: $out$err");
}
done_testing();
