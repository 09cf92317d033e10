#!/usr/bin/env perl
# The README tables are generated from results/ (scripts/readme_tables.py), never typed:
# fail if any README's tables differ from what the recorded results give.
use strict;
use warnings;
use Test::More;

plan skip_all => "python3 is not installed" if system('python3 -c "" 2>/dev/null') != 0;
my $out = `python3 scripts/readme_tables.py --check 2>&1`;
is($?, 0, "README tables match results/") or diag($out);
# The line under a table that names the card and its conditions (readme_tables.py's conditions()), on
# made-up rows: its own TAP lines, each one of this file's.
my $conditions = `python3 tests/readme_tables_test.py 2>&1`;
my $code = $?;
for (split /\n/, $conditions) {
    if (/^(not )?ok \d+ - (.*)$/) { ok(!$1, "conditions(): $2") } elsif (/^#/) { diag($_) }
}
is($code, 0, "tests/readme_tables_test.py ran to its end") or diag($conditions);
ok(-s "results/article_8800gt.csv", "the article's 8800GT figures are recorded");
# The files the steps' sweeps record whose rows come from build variants: sweep name -> the
# variants' column (their experiments.json), which follows the programs' columns.
my %variant_column = map { split /=/ } split ' ', `python3 -c 'import sys; sys.path.insert(0, "scripts"); import ladder; print(" ".join(n + "=" + ladder.experiments()[s]["variants"]["column"] for s, sw in ladder.experiments("sweeps") for n, e in sw.items() if e.get("variants")))'`;
for my $f (glob "results/*.csv") {
    open my $fh, '<', $f or die "$f: $!";
    my $header = <$fh>;
    my ($sweep) = grep { $f =~ /-\Q$_\E\.csv$/ } sort keys %variant_column;
    if ($sweep) {
        like($header, qr/^date,command,program,n,device,kernel_ms,gflops,total_ms,max_rel_err,avg_rel_err,.*,\Q$variant_column{$sweep}\E\r?$/,
             "$f has the programs' columns, then its build variants' ($variant_column{$sweep})");
    } elsif ($f =~ /-cpu\.csv$/) {
        like($header, qr/^date,command,compiler,openblas,program,n,threads,block,isa,host,cpus,ms,gflops,max_rel_err/,
             "$f has the CPU chapter's columns");
    } elsif ($f =~ /-transpose\.csv$/) {
        like($header, qr/^date,command,program,rows,cols,device,kernel_ms,gbps/, "$f has the transpose's columns");
    } elsif ($f =~ /-warptile-sweep\.csv$/) {
        like($header, qr/^date,command,program,config,threads,registers,n,device,kernel_ms,gflops/,
             "$f has the warptile sweep's columns");
    } elsif ($f =~ /-config-sweep\.csv$/) {
        like($header, qr/^date,command,program,config,smem_bytes,n,device,kernel_ms,gflops/,
             "$f has the configuration sweep's columns");
    } elsif ($f =~ /-reproduce\.csv$/) {
        like($header, qr/^date,device,fp32_peak_gflops,part,seconds/, "$f has make reproduce's timings");
    } elsif ($f =~ m{/programs\.csv$}) {
        like($header, qr/^row,program,binary,math,math_index,folder,lesson,chapter,precision,compensated,min_cc,exact_cc,needs,builds_on,change,fails_on_purpose$/,
             "$f has the programs' descriptions (--describe)");
    } elsif ($f =~ /-multigpu-trace\.csv$/) {
        like($header, qr/^date,command,algo,comm,n,gpus,grid,panel,device,gpu,what,index,start_ms,end_ms$/,
             "$f has the multi-GPU chapter's trace columns (--trace)");
    } elsif ($f =~ /-multigpu(-[a-z-]+)?\.csv$/) {
        like($header, qr/^date,command,algo,local,n,gpus,grid,panel,device,ms,tflops,comm_ms,gemm_ms,/,
             "$f has the multi-GPU chapter's columns");
    } elsif ($f =~ /-int8-gemm\.csv$/) {
        like($header, qr/^date,command,program,n,device,kernel_ms,tops,reps,rows_checked,status\b/,
             "$f has cuBLAS's INT8 GEMM's columns");
    } elsif ($f =~ m{/test-times\.csv$}) {
        like($header, qr/^date,name,machine,gpu,cpus,commit,command,wall_s,prove_s,files,tests,result,log\r?$/,
             "$f has the test suite's recorded times (scripts/test_times.py)");
    } elsif ($f =~ /-step\d\d-[a-z0-9-]+\.csv$/) {
        like($header, qr/^date,command,/, "$f (a step's own experiment) says when and how it was measured");
    } elsif ($f =~ /-tile-sweep\.csv$/) {
        like($header, qr/^date,command,kernel,tile,threads_per_block,n,device,kernel_ms,gflops/,
             "$f has the tile sweep's columns");
    } else {
        like($header, qr/^(date,command,)?program,n,device,kernel_ms,gflops,total_ms,max_rel_err,avg_rel_err/,
             "$f has the CSV columns of the programs");
    }
}
done_testing();
