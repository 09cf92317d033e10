#!/usr/bin/env perl
# Command-line behaviour that needs no GPU: --help, and every bad input rejected
# with exit code 2 and one line on stderr naming the problem, before the GPU is touched.
# The same at both depths (make test, make test-deep): every program, every case; none needs
# the GPU.
use strict;
use warnings;
use Test::More;
require './tests/lib.pl';
our @PROGRAMS;

my @bad = (
    [['-n', '0'],          qr/bad size -n '0'/,             'n = 0'],
    [['-n', '-5'],         qr/bad size -n '-5'/,            'negative n'],
    [['-n', 'abc'],        qr/bad size -n 'abc'/,           'n not a number'],
    [['-n', '12x'],        qr/bad size -n '12x'/,           'trailing junk in n'],
    [['-n', ''],           qr/bad size -n ''/,              'empty n'],
    [['-n', '1.5'],        qr/bad size -n '1.5'/,           'fractional n'],
    [['-n', '99999999999999999999'], qr/bad size -n '99999999999999999999': too large, the largest accepted is 2147483647/,
                                                            'n overflowing long'],
    [['-n', '2147483648'], qr/bad size -n '2147483648': too large, the largest accepted is 2147483647/, 'n just past an int'],
    [['-n', '3000000000'], qr/bad size -n '3000000000': too large, the largest accepted is 2147483647/, 'n past an int'],
    [['--reps', '1000001'], qr/bad --reps '1000001': too large, the largest accepted is 1000000/, 'reps too many'],
    [['--seed', '9223372036854775808'], qr/bad --seed '9223372036854775808': too large, the largest accepted is 9223372036854775807/,
                                                            'seed past a long'],
    [['-n'],               qr/'-n' needs a value/,          '-n without a value'],
    [['--reps', '0'],      qr/bad --reps '0'/,              'reps = 0'],
    [['--reps', 'many'],   qr/bad --reps 'many'/,           'reps not a number'],
    [['--seed', '-1'],     qr/bad --seed '-1'/,             'negative seed'],
    [['--check', 'maybe'], qr/bad --check 'maybe'/,         'unknown check mode'],
    [['--frobnicate'],     qr/unknown option '--frobnicate'/, 'unknown long option'],
    [['-x'],               qr/unknown option '-x'/,         'unknown short option'],
    [['--csv=yes'],        qr/unknown option|--csv/,        'value for a flag'],
    [['1000'],             qr/unexpected argument '1000'/,  'stray argument'],
    [['-n', '2000000'],    qr/host memory/,                 'n too large for host memory'],
    [['--config', 'nope'], qr/bad --config 'nope'/,         'unknown configuration'],
    [['--config', ''],     qr/bad --config ''/,             'empty configuration'],
    [['--dist', 'normal'], qr/bad --dist 'normal'/,         'unknown distribution'],
    [['--math', 'fp8'],    qr/bad --math 'fp8'/,            'unknown arithmetic'],
    [['--judge', 'fp16'],  qr/bad --judge 'fp16'/,          'unknown precision class'],
    [['--load', 'obj/no_such_dir'], qr/cannot load 'obj\/no_such_dir\/a.npy': No such file/, 'missing input files'],
    [['--load', 'obj/cli_npy/ok', '--dist', 'wide'], qr/--dist and --load/, '--dist with --load'],
    [['--load', 'obj/cli_npy/ok', '-n', '6'], qr/-n 6, but 'obj\/cli_npy\/ok' holds 5 x 5/, '-n disagreeing with --load'],
    [['--load', 'obj/cli_npy/mismatch'], qr/a.npy is 5 x 5 but b.npy is 4 x 4/, 'a.npy and b.npy of different sizes'],
    [['--load', 'obj/cli_npy/truncated'], qr/truncated: shape \(5, 5\) needs 100 bytes of data, the file has 97/, 'a truncated .npy'],
    [['--load', 'obj/cli_npy/wrongtype'], qr/dtype '<f8', expected float32/, 'a float64 .npy'],
    [['--load', 'obj/cli_npy/notnpy'], qr/not a .npy file/, 'a file that is not .npy'],
    [['--load', 'obj/cli_npy/fortran'], qr/Fortran order/, 'a Fortran-order .npy'],
    [['--load', 'obj/cli_npy/rect'], qr/it is 5 x 4, the programs multiply square matrices/, 'a non-square matrix'],
    [['--load', 'obj/cli_npy/vector'], qr/shape \(5,\), expected a 2-D matrix/, 'a 1-D array'],
    [['--load', 'obj/cli_npy/huge'], qr/cannot load 'obj\/cli_npy\/huge\/a.npy': shape \(4294967297, 4294967297\) is too large: the largest accepted is 2147483647 rows by 2147483647 columns/,
                                                            'a .npy whose shape overflows an int'],
    # --save's folder is made before the GPU is looked for: without a GPU, exit 2, not 3.
    [['--save', '/proc/no_such/dir', '-n', '8'], qr/--save: cannot create directory '\/proc\/no_such\/dir': No such file or directory/,
                                                            '--save into a folder that cannot be made'],
    [['--save', 'obj/cli_npy/ok/a.npy/run', '-n', '8'], qr/--save: cannot create directory 'obj\/cli_npy\/ok\/a.npy\/run': Not a directory/,
                                                            '--save under a regular file'],
    [['--save', 'obj/cli_npy/ok/a.npy', '-n', '8'], qr/--save: cannot write into 'obj\/cli_npy\/ok\/a.npy': Not a directory/,
                                                            '--save into a regular file'],
);

# The .npy files of the --load cases: one good pair and each way a file can be wrong.
sub write_file { my ($path, $bytes) = @_; open my $f, '>:raw', $path or die "$path: $!"; print $f $bytes; close $f }
sub npy_bytes {
    my ($descr, $order, $shape, $data) = @_;
    my $dict = "{'descr': '$descr', 'fortran_order': $order, 'shape': $shape, }";
    my $len = length($dict) + 1;
    $len += (64 - (10 + $len) % 64) % 64;
    return "\x93NUMPY\x01\x00" . pack('v', $len) . $dict . ' ' x ($len - length($dict) - 1) . "\n" . $data;
}
# Each element type its own set (a program of FP64 matrices reads float64 files): obj/cli_npy for
# FP32, obj/cli_npy64 for FP64, the same cases, the wrong type the other one.
for my $type (['cli_npy', '<f4', 'f<*', '<f8', 'd<*'], ['cli_npy64', '<f8', 'd<*', '<f4', 'f<*']) {
    my ($dir, $descr, $packing, $other, $other_packing) = @$type;
    my $five = pack($packing, (1.5) x 25);
    my $size = length($five) / 25;
    for my $case ([ok => npy_bytes($descr, 'False', '(5, 5)', $five), npy_bytes($descr, 'False', '(5, 5)', $five)],
                  [mismatch => npy_bytes($descr, 'False', '(5, 5)', $five),
                   npy_bytes($descr, 'False', '(4, 4)', pack($packing, (1) x 16))],
                  [truncated => npy_bytes($descr, 'False', '(5, 5)', substr($five, 0, 25 * $size - 3)),
                   npy_bytes($descr, 'False', '(5, 5)', $five)],
                  [wrongtype => npy_bytes($other, 'False', '(5, 5)', pack($other_packing, (1) x 25)),
                   npy_bytes($descr, 'False', '(5, 5)', $five)],
                  [notnpy => "a,b\n1,2\n", npy_bytes($descr, 'False', '(5, 5)', $five)],
                  [fortran => npy_bytes($descr, 'True', '(5, 5)', $five), npy_bytes($descr, 'False', '(5, 5)', $five)],
                  [rect => npy_bytes($descr, 'False', '(5, 4)', substr($five, 0, 20 * $size)),
                   npy_bytes($descr, 'False', '(5, 5)', $five)],
                  [vector => npy_bytes($descr, 'False', '(5,)', substr($five, 0, 5 * $size)),
                   npy_bytes($descr, 'False', '(5, 5)', $five)],
                  [huge => npy_bytes($descr, 'False', '(4294967297, 4294967297)', $five),
                   npy_bytes($descr, 'False', '(5, 5)', $five)]) {
        my ($name, $a, $b) = @$case;
        system('mkdir', '-p', "obj/$dir/$name");
        write_file("obj/$dir/$name/a.npy", $a);
        write_file("obj/$dir/$name/b.npy", $b);
    }
}

# The bad inputs as an FP64 program meets them: its own files, its byte counts, the other type.
sub bad_cases_for {
    my ($p) = @_;
    my ($d) = describe($p);
    return @bad unless ($d->{element} // '') eq 'float64';
    return map {
        my ($args, $re, $what) = @$_;
        my @args = map { s{^obj/cli_npy/}{obj/cli_npy64/}r } @$args;
        my $text = "$re" =~ s{obj(\\?)/cli_npy(\\?)/}{obj$1/cli_npy64$2/}gr; # (a regex prints its / bare)
        $text =~ s/needs 100 bytes of data, the file has 97/needs 200 bytes of data, the file has 197/;
        $text =~ s/dtype '<f8', expected float32/dtype '<f4', expected float64/;
        [\@args, qr/$text/, $what eq 'a float64 .npy' ? 'a float32 .npy' : $what];
    } @bad;
}

for my $p (@PROGRAMS) {
    ok(-x $p, "$p is built") or next;
    my ($code, $out, $err) = run($p, '--help');
    is($code, 0, "$p --help exits 0");
    like($out, qr/^Usage: \S+/m, "$p --help prints the usage");
    like($out, qr/--check MODE.*--dist D.*--load DIR.*--save DIR.*--math NAME.*--judge CLASS/s, "$p --help lists the options");

    for my $case (bad_cases_for($p)) {
        my ($args, $re, $what) = @$case;
        ($code, $out, $err) = run($p, @$args);
        is($code, 2, "$p: $what -> exit 2");
        my @lines = split /\n/, $err;
        ok(@lines == 1 && $err =~ $re, "$p: $what -> one line naming it")
            or diag("stderr: $err");
        is($out, '', "$p: $what -> nothing on stdout");
    }
    # A bad shared-memory cap is bad usage too, said before the GPU is looked for.
    for my $cap ('abc', '12', '47K', '64KB', '-65536') {
        local $ENV{MATMUL_SMEM_LIMIT} = $cap;
        ($code, $out, $err) = run($p, '-n', 8);
        ok($code == 2 && scalar(split /\n/, $err) == 1 && $err =~ /bad MATMUL_SMEM_LIMIT '\Q$cap\E'/,
           "$p: MATMUL_SMEM_LIMIT=$cap -> exit 2, one line") or diag("exit $code: $err");
    }
}

# Good inputs get past loading: without a GPU the program then says there is none (exit 3).
{
    my ($code, $out, $err) = run($PROGRAMS[0], '--load', 'obj/cli_npy/ok');
    ok($code == 0 || $code == 3, "$PROGRAMS[0] --load of a good pair is accepted (exit $code)") or diag($err);
}

# --math '?' (the help says it lists): the arithmetics --math takes, one entry each, exit 0, without a
# GPU; a program with a single arithmetic lists that one (and takes no --math).
for my $p (@PROGRAMS) {
    my @want = map { $_->{math} ne '' ? qr/^\Q$_->{math}\E +\Q$_->{row}\E, precision class \Q$_->{precision}\E: \S/
                                      : qr/^\Q$_->{row}\E, precision class \Q$_->{precision}\E: \S/ } describe($p);
    my ($code, $out, $err) = run($p, '--math', '?');
    my @entries = $out =~ /^  (\S.*)$/mg;
    ok($code == 0 && $err eq '' && @entries == @want && !grep({ $entries[$_] !~ $want[$_] } 0 .. $#want),
       "$p --math '?': exit 0, its " . @want . " arithmetic(s) listed") or diag("exit $code: $out$err");
}

# The chapters' programs: a number past what they take is too large, said with the largest
# accepted; bounds and option combinations are judged before any GPU is looked for (without one:
# exit 2, not 3). A step's other programs are tested in its folder (step 16's int8_gemm:
# step16_ozaki_int8/tests/int8_gemm.t).
{
    my @other = (
        ['cpu/cpu_gemm', ['-n', '3000000000'], qr/bad size -n '3000000000': too large, the largest accepted is 2147483647/],
        ['cpu/cpu_gemm', ['--block', '99999992'], qr/bad --block '99999992': too large, the largest accepted is 1048576/],
        ['cpu/cpu_gemm', ['--block', '12'], qr/bad --block '12': expected a multiple of 8 from 8 to 1048576/],
        ['cpu/cpu_gemm', ['--threads', '99999999999'], qr/bad --threads '99999999999': too large, the largest accepted is 1024/],
        ['cpu/cpu_gemm', ['--load', 'obj/cli_npy/huge'], qr/shape \(4294967297, 4294967297\) is too large: the largest accepted is 2147483647 rows/],
        ['transpose/transpose', ['--rows', '3000000000'], qr/bad --rows '3000000000': too large, the largest accepted is 2147483647/],
        ['transpose/transpose', ['--cols', '2147483648'], qr/bad --cols '2147483648': too large, the largest accepted is 2147483647/],
        ['multigpu/multigpu', ['-n', '3000000000'], qr/bad size -n '3000000000': too large, the largest accepted is 2147483647/],
        ['multigpu/multigpu', ['--panel', '3000000000'], qr/bad --panel '3000000000': too large, the largest accepted is 2147483647/],
        ['multigpu/multigpu', ['--grid', '2x2', '--gpus', '2', '-n', '8'], qr/--grid 2x2 has 4 places for 2 GPUs \(--gpus 2\)/],
        ['multigpu/multigpu', ['--grid', '4x8', '-n', '8'], qr/bad --grid '4x8': too large, this program drives at most 16 GPUs/],
        ['multigpu/multigpu', ['--grid', '99999999999x1'], qr/bad --grid '99999999999x1': too large, this program drives at most 16 GPUs/],
    );
    for my $case (@other) {
        my ($p, $args, $re) = @$case;
        SKIP: {
            skip "$p is not built" . ($p =~ /multigpu/ ? ' (NCCL not found: make nccl)' : ''), 1 unless -x $p;
            my ($code, $out, $err) = run($p, @$args);
            ok($code == 2 && $out eq '' && scalar(split /\n/, $err) == 1 && $err =~ $re, "$p @$args: exit 2, one line naming it")
                or diag("exit $code: $err");
        }
    }
    my ($code, $out) = run('cpu/cpu_gemm', '--help');
    like($out, qr/--block B +tile size of the blocked variants, a multiple of 8 up to 1048576/, 'cpu_gemm --help names --block\'s largest');
}

# --describe: what each program is, without a GPU, as key=value lines (one block per
# arithmetic): the tests, scripts and charts ask it instead of keeping lists.
my %chapters = map { $_ => 1 } qw(article cuda-cores tensor-cores reference);
my %rows;
for my $p (@PROGRAMS) {
    my ($code, $out, $err) = run($p, '--describe');
    is($code, 0, "$p --describe: exit 0, GPU or not") or diag($err);
    my @blocks = describe($p);
    for my $d (@blocks) {
        my $what = "$p --describe, row $d->{row}";
        ok(!$rows{$d->{row}}++, "$what: a row name no other program gives");
        ok($d->{lesson} && $chapters{$d->{chapter} // ''} && ($d->{precision} // '') =~ /^(fp32|tf32|fp64)$/
           && ($d->{compensated} // '') =~ /^[01]$/ && ($d->{min_cc} // '') =~ /^\d+\.\d$/
           && ($d->{exact_cc} // 'x') =~ /^(\d+\.\d)?$/ && ($d->{archs} // '') =~ /^(sm|compute)_\d+a?( |$)/,
           "$what: lesson, chapter ($d->{chapter}), precision class ($d->{precision}), compute capability "
           . "($d->{min_cc}), architectures ($d->{archs})") or diag(explain($d));
        ok(!$d->{exact_cc} || $d->{needs}, "$what: an exact compute capability says what it is for");
    }
    if ($p =~ m{^(step\d\d)_\w+/(step\d\d)$}) {
        ok(@blocks == 1 && $blocks[0]{program} eq $2 && $blocks[0]{row} eq $2 && $blocks[0]{chapter} ne 'reference',
           "$p --describe: a step, named after its folder's number ($2)");
    }
    my @configs = @{ $blocks[0]{configs} };
    if (@configs) {  # each configuration it describes is one --config accepts (here: up to the GPU)
        ($code, $out, $err) = run($p, '--config', $configs[-1], '-n', 8, '--gpu-check');
        ok($code != 2, "$p --config $configs[-1] (described) is accepted") or diag($err);
        ok(scalar(@{ (describe($p, 4096))[0]{configs} }) == @configs, "$p --describe -n 4096: the same number of configurations");
    }
}
# --describe --math NAME: that arithmetic's row alone; a program with a single arithmetic refuses
# the name of another program's, as its runs do.
{
    my ($other) = sort map { $_->{math} ne '' ? $_->{math} : () } map { describe($_) } @PROGRAMS;
    for my $p (@PROGRAMS) {
        my @blocks = describe($p);
        if (@blocks == 1 && $blocks[0]{math} eq '') {
            next unless defined $other;
            my ($code, $out, $err) = run($p, '--describe', '--math', $other);
            ok($code == 2 && $err =~ /bad --math '\Q$other\E'/, "$p --describe --math $other: exit 2, a single arithmetic")
                or diag("exit $code: $err");
            next;
        }
        for my $d (@blocks) {
            my ($code, $out, $err) = run($p, '--describe', '--math', $d->{math});
            my @rows = $out =~ /^row=(.*)$/mg;
            ok($code == 0 && "@rows" eq $d->{row}, "$p --describe --math $d->{math}: row $d->{row} alone (" . "@rows" . ")")
                or diag("exit $code: $err");
        }
    }
}

my ($has_gpu, $why) = gpu_available();
SKIP: {
    skip "a GPU is present, so the no-GPU message cannot be seen", 2 * @PROGRAMS if $has_gpu;
    for my $p (@PROGRAMS) {
        my ($code, $out, $err) = run($p, '-n', '8');
        is($code, 3, "$p without a GPU exits 3");
        ok(scalar(split /\n/, $err) == 1 && $err =~ /no NVIDIA GPU here|no CUDA device visible/,
           "$p without a GPU says so in one line") or diag("stderr: $err");
    }
}

done_testing();
