#!/usr/bin/env perl
# Nothing the build makes is committed, and the build leaves nothing git would offer to add:
# no tracked file and no untracked, unignored file is a program (ELF) or an object, an
# archive or a shared library. Run after make (make test builds first), so every program
# the build makes is there to be found.
use strict;
use warnings;
use Test::More;

plan skip_all => "not a git checkout (or git is not installed)"
    if system('git rev-parse --is-inside-work-tree >/dev/null 2>&1') != 0;

sub built {
    my ($path) = @_;
    return 1 if $path =~ /\.(o|a|so(\.\d+)*|cubin|fatbin)$/;
    open my $fh, '<:raw', $path or return 0;
    read($fh, my $magic, 4);
    return defined $magic && $magic eq "\x7fELF";
}
my @tracked = grep { -f $_ && built($_) } split /\0/, `git ls-files -z`;
is_deeply(\@tracked, [], "git tracks no program, object or library") or diag("tracked: @tracked");
my @loose = grep { -f $_ && built($_) } split /\0/, `git ls-files -z --others --exclude-standard`;
is_deeply(\@loose, [], "every program, object and library the build made is ignored (.gitignore)")
    or diag("not ignored: @loose");
# The test can fail: an ELF file that .gitignore does not cover is reported.
my $probe = "tests/.probe_elf_$$";
open my $out, '>:raw', $probe or die "$probe: $!";
print $out "\x7fELF\x02\x01\x01";
close $out;
my @found = grep { $_ eq $probe && built($_) } split /\0/, `git ls-files -z --others --exclude-standard`;
unlink $probe;
is(scalar(@found), 1, "... an unignored program is found (the check can fail)");
done_testing();
