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

# How much the tests run: make test the quick depth (every program, configuration and input
# family at a few sizes that are multiples of nothing), make test-deep (TEST_DEPTH=deep) the
# deep one (every size, configuration, version and family the tests know). sizes() picks a
# list by depth; quick_skips() says, in one TAP comment line, what the quick depth leaves out.
sub deep { ($ENV{TEST_DEPTH} // '') eq 'deep' }
sub sizes {
    my %by_depth = @_;
    return @{ $by_depth{deep() ? 'deep' : 'quick'} };
}
sub quick_skips { diag("quick depth (make test-deep runs them): " . join('; ', @_)) unless deep() }

# TEST_DRY_RUN=1: a GPU test file lists the program runs it would make at its depth, one TAP
# comment each, and counts them, running none: the GPU is a stand-in for the recorded H100
# (results/nvidia-h100-80gb-hbm3-gpu-info.txt) and every run passes, so checks that read a
# program's output are not judged (the file reports itself skipped, with the count), and runs
# chosen from an earlier run's output (a program that prints a pitch, say) are not listed.
# Only --describe runs, to plan.
our $DRY_RUN = $ENV{TEST_DRY_RUN};
my $dry_runs = 0;
if ($DRY_RUN) {
    open my $null, '>', '/dev/null' or die $!;
    my $tb = Test::More->builder;
    $tb->$_($null) for qw(output failure_output todo_output);
    $tb->no_ending(1);
    $SIG{__WARN__} = sub {}; # the stand-in results are empty
}
END {
    if ($DRY_RUN) {
        print "1..0 # SKIP dry run at the " . (deep() ? 'deep' : 'quick') . " depth: $dry_runs program runs\n";
        $? = 0;
    }
}

# The programs' exit codes (common/exit_codes.h).
our %EXIT = (pass => 0, inaccurate => 1, usage => 2, no_gpu => 3, no_feature => 4, old_driver => 5,
             no_kernel_image => 6, cuda_error => 7);

# run(@argv) -> (exit code, stdout, stderr); the command never reads stdin. A program
# that cannot be started (not built) gives 127. A run that prefetch_runs() already made
# answers from what it recorded.
my %prefetched; # run_key(@argv) -> [code, out, err]
my @ENV_SEEN = qw(MATMUL_SMEM_LIMIT CUDA_VISIBLE_DEVICES MATMUL_RESULTS); # the variables a run depends on (MATMUL_RESULTS: where a sweep records)
sub run_key { join("\0", (map { defined $ENV{$_} ? "$_=$ENV{$_}" : '' } @ENV_SEEN), @_) }
sub run {
    my @cmd = @_;
    if ($DRY_RUN && !grep { $_ eq '--describe' } @cmd) {
        $dry_runs++;
        print "# run: ", (map { defined $ENV{$_} ? "$_='$ENV{$_}' " : () } @ENV_SEEN), "@cmd\n";
        if ($ENV{TEST_DRY_RUN_LIST} && open my $list, '>>', $ENV{TEST_DRY_RUN_LIST}) {
            print $list join("\t", (map { defined $ENV{$_} ? "$_=$ENV{$_}" : '' } @ENV_SEEN), @cmd), "\n";
        }
        return (0, '', '');
    }
    if (my $done = delete $prefetched{run_key(@cmd)}) {
        return @$done;
    }
    return @{ (run_many(1, \@cmd))[0] };
}

# run_many($jobs, \@argv, ...) -> ([code, out, err], ...) in the order given: the commands
# run $jobs at a time (a test file's runs are mostly tiny and the GPU is mostly idle: what
# they wait on is each process's CUDA start-up). Each command keeps the environment it
# names first, as NAME=value words (see run_key). The runs of one program of the harness (a
# step, a version or variant, a reference) in one environment go in batches, several runs to a
# process (--batch, common/step_main.c), so that each batch pays the CUDA start-up once; each
# run's exit code and output are its own, as if it had run alone. A batch a run ends early (its
# own exit: bad usage, a missing feature) is taken up again from the run after it. TEST_BATCH=1:
# one run a process, as a student's shell makes them.
my $BATCH_MARK = "\x1ebatch";
my $BATCHED = qr{^(?:step\d\d_\w+/step\d\d|obj/(?:test/)?versions/\w+|obj/variants/\S+|cublas/cublas|cutlass/cutlass)$};
sub batch_size { my ($count, $jobs) = @_; my $share = int(($count + $jobs - 1) / $jobs); $share > 8 ? $share : 8 }
sub run_many {
    my ($jobs, @cmds) = @_;
    return map { [run(@$_)] } @cmds if $DRY_RUN && !grep { $_ eq '--describe' } map { @$_ } @cmds;
    # The work, as lists of command indexes: each alone, or a program's runs in batches.
    my (%group, @work);
    for my $i (0 .. $#cmds) {
        my @cmd = @{ $cmds[$i] };
        my @env;
        push @env, shift @cmd while @cmd && $cmd[0] =~ /^\w+=/;
        # (a line a run, its words between tabs: an empty word or one with a tab or newline runs alone)
        if (($ENV{TEST_BATCH} // '') ne '1' && @cmd && $cmd[0] =~ $BATCHED && @cmd <= 60
            && !grep { $_ eq '' || /[\t\n]/ } @cmd) {
            push @{ $group{ join("\0", @env, $cmd[0]) } }, $i;
        } else {
            push @work, [$i];
        }
    }
    for my $key (sort keys %group) {
        my @all = @{ $group{$key} };
        my $size = batch_size(scalar @all, $jobs);
        push @work, [splice @all, 0, $size] while @all;
    }
    my (@results, %running);
    while (@work || %running) {
        while (@work && keys %running < $jobs) {
            my @indexes = @{ shift @work };
            my @cmd = @{ $cmds[ $indexes[0] ] };
            my %env;
            $env{$1} = $2 while @cmd && $cmd[0] =~ /^(\w+)=(.*)$/s && shift @cmd;
            my $batch;
            if (@indexes > 1) { # the program and its runs' arguments, one run a line
                my $bfh;
                ($bfh, $batch) = tempfile(UNLINK => 1);
                for my $i (@indexes) {
                    my @words = @{ $cmds[$i] };
                    shift @words while $words[0] =~ /^\w+=/;
                    shift @words;
                    print $bfh join("\t", @words), "\n";
                }
                close $bfh;
                @cmd = ($cmd[0], '--batch', $batch);
            }
            my ($ofh, $ofile) = tempfile(UNLINK => 1);
            my ($efh, $efile) = tempfile(UNLINK => 1);
            my $pid = fork() // die "fork: $!";
            if ($pid == 0) {
                @ENV{keys %env} = values %env;
                open STDIN, '<', '/dev/null';
                open STDOUT, '>', $ofile;
                open STDERR, '>', $efile;
                exec @cmd or do { print STDERR "cannot run $cmd[0]: $!\n"; exit 127 };
            }
            $running{$pid} = [\@indexes, $ofile, $efile, time_hires(), $batch];
        }
        my $pid = waitpid(-1, 0);
        my $job = delete $running{$pid} or next;
        my ($indexes, $ofile, $efile, $started, $batch) = @$job;
        my $code = $? & 127 ? 128 + ($? & 127) : $? >> 8;
        local $/;
        open my $o, '<', $ofile; my $out = <$o> // '';
        open my $e, '<', $efile; my $err = <$e> // '';
        unlink $ofile, $efile, ($batch // ());
        if (!$batch) {
            log_run_time($started, @{ $cmds[ $indexes->[0] ] }) if $ENV{TEST_RUN_LOG};
            $results[ $indexes->[0] ] = [$code, $out, $err];
            next;
        }
        # A program that does not take --batch: each of its runs alone.
        unless ($out =~ s/^\Q$BATCH_MARK\E start\n//) {
            unshift @work, map { [$_] } @$indexes;
            next;
        }
        my @outs = split /\Q$BATCH_MARK\E (-?\d+) ([\d.]+)\n/, $out, -1;
        my @errs = split /\Q$BATCH_MARK\E -?\d+\n/, $err, -1;
        my $done = 0;
        while (@outs >= 3 && $done < @$indexes) {
            my ($text, $run_code, $seconds) = splice @outs, 0, 3;
            my $i = $indexes->[$done++];
            $results[$i] = [$run_code, $text, shift(@errs) // ''];
            log_run_time(time_hires() - $seconds, @{ $cmds[$i] }) if $ENV{TEST_RUN_LOG};
        }
        next if $done == @$indexes;
        # The run that ended the process: its exit code and what it printed; the rest again.
        my $i = $indexes->[$done++];
        $results[$i] = [$code, join('', @outs), join('', @errs)];
        log_run_time($started, @{ $cmds[$i] }) if $ENV{TEST_RUN_LOG};
        unshift @work, [@$indexes[$done .. $#$indexes]] if $done < @$indexes;
    }
    return @results;
}

# How many runs a test file makes at once: TEST_JOBS, or half the CPUs, at most 8.
sub test_jobs {
    return $ENV{TEST_JOBS} if defined $ENV{TEST_JOBS} && $ENV{TEST_JOBS} =~ /^[1-9]\d*$/;
    my $half = int((`nproc` || 2) / 2);
    return $half < 1 ? 1 : $half > 8 ? 8 : $half;
}

# prefetch_runs(): a test file that calls it first lists the runs it will make (itself, as a
# dry run), then makes them side by side, before any test; run() then answers from them. Only
# runs whose result is their own: none that saves or loads files, none larger than n = 8192
# (a device-memory refusal sized for the stand-in GPU could fit a larger one). Runs that
# depend on an earlier run's output, or are not listed, run when asked. TEST_JOBS=1 runs one
# at a time; the default is test_jobs().
sub prefetch_runs {
    return if $DRY_RUN;
    my $jobs = test_jobs();
    return if $jobs <= 1;
    my ($has_gpu) = gpu_available();
    return unless $has_gpu;
    my ($lfh, $list) = tempfile(UNLINK => 1);
    local $ENV{TEST_DRY_RUN} = 1;
    local $ENV{TEST_DRY_RUN_LIST} = $list;
    system("$^X $0 > /dev/null 2>&1");
    my (%seen, @cmds);
    open my $l, '<', $list or return;
    while (my $line = <$l>) {
        chomp $line;
        my @words = split /\t/, $line, -1;
        my @env = splice(@words, 0, scalar @ENV_SEEN);
        next if grep { /^--(save|load)$/ } @words;
        my %opt; for my $i (0 .. $#words - 1) { $opt{$words[$i]} = $words[$i + 1] if $words[$i] =~ /^-/ }
        next if defined $opt{'-n'} && !($opt{'-n'} =~ /^\d+$/ && $opt{'-n'} <= 8192);
        my $key = join("\0", @env, @words);
        next if $seen{$key}++;
        push @cmds, [(grep { $_ ne '' } @env), @words];
    }
    # The CPUs shared among the runs, not each run's reference check spinning on all of them.
    my $threads = $ENV{OMP_NUM_THREADS} // do { my $t = int((`nproc` || 2) / $jobs); $t < 1 ? 1 : $t };
    my @results = run_many($jobs, map { ["OMP_NUM_THREADS=$threads", @$_] } @cmds);
    for my $i (0 .. $#cmds) {
        my @words = @{ $cmds[$i] };
        my %env; $env{$1} = $2 while @words && $words[0] =~ /^(\w+)=(.*)$/s && shift @words;
        my $key = join("\0", (map { defined $env{$_} ? "$_=$env{$_}" : '' } @ENV_SEEN), @words);
        $prefetched{$key} = $results[$i];
    }
}

# TEST_RUN_LOG=FILE: each run's wall seconds, test file and command, one line each, appended
# (several test files at once write whole lines), to find where a test run's time goes.
sub time_hires { require Time::HiRes; Time::HiRes::time() }
sub log_run_time {
    my ($started, @cmd) = @_;
    require Fcntl;
    open my $log, '>>', $ENV{TEST_RUN_LOG} or return;
    flock($log, Fcntl::LOCK_EX());
    printf $log "%.3f\t%s\t%s\n", time_hires() - $started, $0, join(' ', @cmd);
    close $log;
}

# The GPU, or why not: (1, "name,...") or (0, "the one-line reason") when there is none
# (exit 3: tests skip). Anything else (a driver too old, a CUDA error, gpu_info not
# built) is a failure to fix: the test run stops, naming it.
sub gpu_available {
    return (1, "NVIDIA H100 80GB HBM3 (dry run),9.0,132,1980000,85017493504,84500000000,232448,52428800,232448,233472,13000\n")
        if $DRY_RUN;
    my ($code, $out, $err) = run('obj/gpu_info');
    return (1, $out) if $code == 0;
    return (0, $err =~ s/\s+$//r) if $code == $EXIT{no_gpu};
    BAIL_OUT("obj/gpu_info exited $code: " . ($err =~ s/\s+$//r));
}

# Can this GPU run the program? (1, its --gpu-check line) or (0, the reason) when it lacks
# a feature the program needs (exit 4: its tests skip). Anything else fails the run.
sub runs_here {
    my ($p) = @_;
    if ($DRY_RUN) { # the stand-in is compute capability 9.0
        my $d = (describe($p))[0];
        return ($d->{min_cc} <= 9.0 && ($d->{exact_cc} eq '' || $d->{exact_cc} == 9.0), "$p: on the stand-in GPU");
    }
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
# TEST_ONLY="stepNN stepMM" keeps those steps' rows and the references' (cuBLAS, CUTLASS): a
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

# Write an n x n float32 matrix (a list of rows) as a .npy file, format 1.0; save_npy64 the same in
# float64.
sub save_npy { save_npy_typed('<f4', 'f<*', @_) }
sub save_npy64 { save_npy_typed('<f8', 'd<*', @_) }
sub save_npy_typed {
    my ($descr, $pack, $path, @rows) = @_;
    my $n = @rows;
    my $dict = "{'descr': '$descr', 'fortran_order': False, 'shape': ($n, $n), }";
    my $len = length($dict) + 1;
    $len += (64 - (10 + $len) % 64) % 64;
    open my $f, '>:raw', $path or die "$path: $!";
    print $f "\x93NUMPY\x01\x00", pack('v', $len), $dict, ' ' x ($len - length($dict) - 1), "\n";
    print $f pack($pack, @$_) for @rows;
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

# The Python that draws (charts, pictures): python3 if it imports matplotlib, else the .venv that
# make plots-env makes; python3 where neither has it (the tests then skip, saying why).
sub plot_python {
    require File::Spec;
    # rel2abs, not abs_path: a virtual environment's python must keep its path through the
    # link (resolved, it is the system's python, without the environment's packages).
    return system('python3 -c "import matplotlib" 2>/dev/null') == 0 ? 'python3'
         : -x '.venv/bin/python' ? File::Spec->rel2abs('.venv/bin/python') : 'python3';
}

# A step's Python test: its NAME.t runs NAME_test.py beside it with the Python that draws, through
# tests/step_python_test.py, which puts tests/ and scripts/ on the import path: nothing in a step's
# folder edits it.
sub exec_step_python_test {
    exec(plot_python(), 'tests/step_python_test.py', $0 =~ s/\.t$/_test.py/r) or die "cannot run Python: $!\n";
}

# A step's own test (stepNN_name/tests/*.t) tests its own folder, whatever its number: (the folder,
# its program), from the test's path; a copy of the folder tests itself.
sub this_step {
    my ($folder, $program) = $0 =~ m{(?:^|/)((step\d\d)_\w+)/tests/[^/]+$} or BAIL_OUT("$0 is not in a step folder's tests/");
    return ($folder, $program);
}

1;
