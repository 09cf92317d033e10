# Helpers shared by the .t files: run a program, capture exit code, stdout, stderr.
use strict;
use warnings;
use File::Temp qw(tempfile);

our @PROGRAMS = ((map { my ($d) = $_; (my $p = $d) =~ s/_.*//; "$d/$p" }
    qw(step01_naive step02_kahan step03_shared_row step04_pitch step05_tiled step06_padded
       step07_regtile step08_vectorized step09_warptile step10_pipelined)),
    'cublas/cublas');

# run(@argv) -> (exit code, stdout, stderr); the command never reads stdin.
sub run {
    my @cmd = @_;
    my ($ofh, $ofile) = tempfile(UNLINK => 1);
    my ($efh, $efile) = tempfile(UNLINK => 1);
    my $pid = fork() // die "fork: $!";
    if ($pid == 0) {
        open STDIN, '<', '/dev/null';
        open STDOUT, '>', $ofile;
        open STDERR, '>', $efile;
        exec @cmd or exit 127;
    }
    waitpid($pid, 0);
    my $code = $? & 127 ? 128 + ($? & 127) : $? >> 8;
    local $/;
    open my $o, '<', $ofile; my $out = <$o> // '';
    open my $e, '<', $efile; my $err = <$e> // '';
    return ($code, $out, $err);
}

# The GPU, or why not: (1, "name,...") or (0, "the program's one-line reason").
sub gpu_available {
    my ($code, $out, $err) = run('obj/gpu_info');
    return $code == 0 ? (1, $out) : (0, $err =~ s/\s+$//r);
}

1;
