# Helpers shared by the .t files: run a program, capture exit code, stdout, stderr; ask
# whether there is a GPU and whether a program can run on it.
use strict;
use warnings;
use File::Temp qw(tempfile);
use Test::More;

# The make runs inside the tests start as if from a shell: under make -j test, MAKEFLAGS would
# hand them a job server they cannot reach, and make would say so on stderr (a second line where
# the tests expect one).
delete @ENV{qw(MAKEFLAGS MFLAGS MAKELEVEL)};

# The programs, found as the Makefile finds them: every step folder stepNN_name holds the
# program stepNN; then cuBLAS, and CUTLASS where it is built. What each is, the tests ask it
# (--describe, below), so that a new step folder is tested with no edit here.
our @STEPS = map { m{^(step\d\d)_} ? "$_/$1" : () } sort grep { -d } glob('step[0-9][0-9]_*');
our @PROGRAMS = (@STEPS, 'cublas/cublas', (-e 'cutlass/cutlass' ? ('cutlass/cutlass') : ()));
# Without CUTLASS's headers (make cutlass-headers) the CUTLASS peer is not built: its tests skip.
our $CUTLASS_WHY = -e 'cutlass/cutlass' ? '' : 'cutlass/cutlass is not built (make cutlass fetches its headers)';

# The programs' exit codes (common/exit_codes.h).
our %EXIT = (pass => 0, inaccurate => 1, usage => 2, no_gpu => 3, no_feature => 4, old_driver => 5,
             no_kernel_image => 6, cuda_error => 7);

# run(@argv) -> (exit code, stdout, stderr); the command never reads stdin. A program
# that cannot be started (not built) gives 127.
sub run {
    my @cmd = @_;
    my ($ofh, $ofile) = tempfile(UNLINK => 1);
    my ($efh, $efile) = tempfile(UNLINK => 1);
    my $pid = fork() // die "fork: $!";
    if ($pid == 0) {
        open STDIN, '<', '/dev/null';
        open STDOUT, '>', $ofile;
        open STDERR, '>', $efile;
        exec @cmd or do { print STDERR "cannot run $cmd[0]: $!\n"; exit 127 };
    }
    waitpid($pid, 0);
    my $code = $? & 127 ? 128 + ($? & 127) : $? >> 8;
    local $/;
    open my $o, '<', $ofile; my $out = <$o> // '';
    open my $e, '<', $efile; my $err = <$e> // '';
    return ($code, $out, $err);
}

# The GPU, or why not: (1, "name,...") or (0, "the one-line reason") when there is none
# (exit 3: tests skip). Anything else (a driver too old, a CUDA error, gpu_info not
# built) is a failure to fix: the test run stops, naming it.
sub gpu_available {
    my ($code, $out, $err) = run('obj/gpu_info');
    return (1, $out) if $code == 0;
    return (0, $err =~ s/\s+$//r) if $code == $EXIT{no_gpu};
    BAIL_OUT("obj/gpu_info exited $code: " . ($err =~ s/\s+$//r));
}

# Can this GPU run the program? (1, its --gpu-check line) or (0, the reason) when it lacks
# a feature the program needs (exit 4: its tests skip). Anything else fails the run.
sub runs_here {
    my ($p) = @_;
    my ($code, $out, $err) = run($p, '--gpu-check');
    return (1, $out =~ s/\s+$//r) if $code == 0;
    return (0, $err =~ s/\s+$//r) if $code == $EXIT{no_feature};
    BAIL_OUT("$p --gpu-check exited $code: " . ($err =~ s/\s+$//r));
}

# What a program says it is (--describe): a list of blocks, one per arithmetic (--math), each
# a hash of its key=value lines plus binary, and configs as a list (at -n $n, if given).
# A program that cannot describe itself stops the run: it is not built, or it is broken.
my %described;
sub describe {
    my ($p, $n) = @_;
    my $key = $p . ($n ? " -n $n" : '');
    return @{ $described{$key} } if $described{$key};
    my ($code, $out, $err) = run($p, '--describe', ($n ? ('-n', $n) : ()));
    BAIL_OUT("$p --describe exited $code: " . ($err =~ s/\s+$//r) . ($code == 127 ? ' (run make)' : '')) if $code;
    my @blocks;
    for my $text (split /\n\n/, $out) {
        my %d = map { /^([^=]+)=(.*)$/ ? ($1 => $2) : () } split /\n/, $text;
        $d{binary} = $p;
        $d{configs} = [split ' ', $d{configs} // ''];
        push @blocks, \%d;
    }
    $described{$key} = \@blocks;
    return @blocks;
}

# Every row of every program (cublas, cublas_tf32, ...), described, in the ladder's order.
# TEST_ONLY="step15 step16" keeps those steps' rows and the references' (cuBLAS, CUTLASS): a
# test of one step on a GPU without the whole ladder's runs.
sub rows {
    my @rows = map { describe($_) } @PROGRAMS;
    return @rows unless $ENV{TEST_ONLY};
    my %only = map { $_ => 1 } split ' ', $ENV{TEST_ONLY};
    return grep { $only{ $_->{program} } || $_->{chapter} eq 'reference' } @rows;
}

# The command of a row: its binary, with --math for a program's other arithmetics.
sub row_command {
    my ($d) = @_;
    return ($d->{binary}, $d->{row} ne $d->{program} ? ('--math', $d->{math}) : ());
}

# One CSV row printed with --csv-header, as a hash (empty when there is none).
sub csv_row {
    my ($out) = @_;
    my ($head, $row) = split /\n/, $out;
    return () unless defined $head && defined $row;
    my %r;
    @r{split /,/, $head} = split /,/, $row, -1;
    return %r;
}

# Write an n x n float32 matrix (a list of rows) as a .npy file, format 1.0.
sub save_npy {
    my ($path, @rows) = @_;
    my $n = @rows;
    my $dict = "{'descr': '<f4', 'fortran_order': False, 'shape': ($n, $n), }";
    my $len = length($dict) + 1;
    $len += (64 - (10 + $len) % 64) % 64;
    open my $f, '>:raw', $path or die "$path: $!";
    print $f "\x93NUMPY\x01\x00", pack('v', $len), $dict, ' ' x ($len - length($dict) - 1), "\n";
    print $f pack('f<*', @$_) for @rows;
    close $f;
}

# The n x n floats of a .npy file written by save_npy or a program's --save, as a flat list.
sub load_npy {
    my ($path) = @_;
    open my $f, '<:raw', $path or return ();
    local $/;
    my $bytes = <$f>;
    my $len = unpack('v', substr($bytes, 8, 2));
    return unpack('f<*', substr($bytes, 10 + $len));
}

# A number, not an empty or missing field.
sub is_number { defined $_[0] && $_[0] =~ /^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i }

1;
