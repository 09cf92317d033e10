# What measures, profiles and draws (the build itself is the Makefile, which includes this):
# the comparison and the sweeps, make reproduce, the charts and tables, ncu, compute-sanitizer
# and ptxas's register counts. Every program these recipes run is found as the build finds it;
# what the GPU measures, scripts/experiment.py runs (a kind per target), the chapters' own
# programs aside (cpu, transpose, multigpu).

.PHONY: compare tile-sweep cpu cpu-sweep transpose transpose-profile warptile-sweep config-sweep sweep \
        reproduce plots plots-env profile profile-launch step-counters sanitize regs diff sass ptx

# The classroom comparison: every program built here (every step, cuBLAS, and CUTLASS where
# its headers were fetched) at SIZES, the table, results/<device>.csv.
SIZES ?= 1000 4096
REPS ?= 10
DISTS ?= uniform wide
compare: all
	python3 scripts/experiment.py compare --sizes "$(SIZES)" --reps $(REPS) --dists "$(DISTS)"

# The lab's tile-size table: the sweep tile-sweep a step declares (step 05's own Python: each
# kernel it names built with its -D flag at each tile size).
tile-sweep: all
	python3 scripts/experiment.py sweep --name tile-sweep

# The CPU chapter: every variant, single-threaded then on all cores, and the lab's
# block-size sweep; rows into results/<host>-cpu.csv.
CPU_SIZES ?= 128 256 512 1000 1024 2048
OPENBLAS_MISSING = $(if $(filter 0,$(OPENBLAS)),,cpu/cpu_gemm --features | grep -qx openblas=0 && \
    echo "make cpu: OpenBLAS not found, so the chapter runs without its ceiling: $(APT) libopenblas-dev, then make cpu again" >&2; true)
cpu: cpu/cpu_gemm
	@$(OPENBLAS_MISSING)
	python3 scripts/cpu_compare.py --sizes "$(CPU_SIZES)"
cpu-sweep: cpu/cpu_gemm
	@$(OPENBLAS_MISSING)
	python3 scripts/cpu_compare.py --sweep

# The transpose chapter: every variant at the text's 2048 x 1536 and at 8192 x 8192,
# the table, rows into results/<device>-transpose.csv; and ncu's bank-conflict counters.
transpose: transpose/transpose
	python3 scripts/transpose_compare.py
TRANSPOSE_NCU_METRICS := gpu__time_duration.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
transpose-profile: transpose/transpose
	@for v in naive shared shared_padded tiled32x8 copy_kernel; do echo "== $$v"; \
	    ncu --clock-control none --launch-skip 1 --launch-count 1 --metrics $(TRANSPOSE_NCU_METRICS) \
	        ./transpose/transpose --rows 8192 --cols 8192 --iters 1 --variant $$v | grep -E "^    [a-z]"; done

# The warp-tiled kernels' tile shapes (the sweep warptile-sweep a step declares: step 09's own
# Python): each built with -D flags and run at n = 1000 and 4096.
warptile-sweep: all
	python3 scripts/experiment.py sweep --name warptile-sweep

# The sweeps a step declares (its experiments.json's "sweeps"): the step, its build variants
# (obj/variants/, each a -D parameter's value) and the programs it names beside it, into
# results/<device>-<sweep>.csv. STEP=NN: that step's alone, NAME=...: one of them.
sweep: all
	python3 scripts/experiment.py sweep $(if $(filter command line environment,$(origin STEP)),--step $(STEP)) \
	    $(if $(NAME),--name $(NAME))

# Every configuration of each program that has several, each run through --config.
config-sweep: all
	python3 scripts/experiment.py configs

# Everything the READMEs show, measured again here (scripts/reproduce.py): ONLY="parts"
# runs some of it, SKIP="parts" leaves some out; the plan and its time come first (DRY_RUN=1:
# only the plan, and nothing built for it). The parts named and the results folder are checked
# before anything is built: a refusal is one line.
REPRODUCE_OPTIONS = $(if $(ONLY),--only "$(ONLY)") $(if $(SKIP),--skip "$(SKIP)")
ifneq ($(filter reproduce,$(GOALS)),)
  REPRODUCE_REFUSAL := $(shell python3 scripts/reproduce.py $(REPRODUCE_OPTIONS) --check 2>&1)
  ifneq ($(REPRODUCE_REFUSAL),)
    $(error make reproduce: $(filter-out reproduce.py:,$(REPRODUCE_REFUSAL)))
  endif
endif
reproduce: $(if $(DRY_RUN),,all versions obj/harness_test $(TEST_HELPERS))
	python3 scripts/reproduce.py $(REPRODUCE_OPTIONS) $(if $(DRY_RUN),--dry-run)

# Charts into plots/ and the README tables, from results/, and the tensor-core chapter's
# pictures (computed from the kernels' rules, no results). matplotlib where python3 can
# import it, else a local virtual environment made once from plots/requirements.txt
# (PLOT_PYTHON=/path/to/python: one that has it).
PLOT_PYTHON = $(shell python3 -c 'import matplotlib' 2>/dev/null && echo python3 || echo .venv/bin/python)
# The recorded runs' charts are redrawn byte for byte (the pinned matplotlib); the runs made
# here (results/local/, or RESULTS=DIR) are drawn beside them into plots/local/.
MEASURED_HERE = $(or $(RESULTS),results/local)
# Before anything is drawn, each in one line: a PLOT_PYTHON given that cannot draw (not found, or
# without matplotlib), and a RESULTS given that holds no results.
ifneq ($(filter plots plots-env,$(GOALS)),)
  ifneq ($(filter command line environment,$(origin PLOT_PYTHON)),)
    ifeq ($(shell $(PLOT_PYTHON) -c 'import matplotlib' >/dev/null 2>&1 && echo yes),)
      PLOT_PYTHON_LACKS := $(if $(shell command -v $(PLOT_PYTHON)),cannot import matplotlib,is not found)
      $(error PLOT_PYTHON=$(PLOT_PYTHON) $(PLOT_PYTHON_LACKS): name a python that has matplotlib, or leave \
          PLOT_PYTHON out (make plots-env makes .venv with it))
    endif
  endif
endif
ifneq ($(and $(filter plots,$(GOALS)),$(RESULTS)),)
  ifeq ($(wildcard $(RESULTS)/*.csv),)
    $(error RESULTS=$(RESULTS) $(if $(wildcard $(RESULTS)),holds no results (no .csv file),is not found): \
        make compare, make cpu and the other measurements record theirs there)
  endif
endif
# Yours first: a file there that cannot be read is said before the recorded charts are redrawn.
plots: plots-env
	python3 scripts/ladder.py record
	@if [ "$(abspath $(MEASURED_HERE))" != "$(abspath results)" ] && ls $(MEASURED_HERE)/*.csv >/dev/null 2>&1; then \
	    echo "$(PLOT_PYTHON) plots/charts.py --results $(MEASURED_HERE) --out plots/local"; \
	    $(PLOT_PYTHON) plots/charts.py --results $(MEASURED_HERE) --out plots/local; fi
	$(PLOT_PYTHON) plots/charts.py
	$(PLOT_PYTHON) plots/tensor_pictures.py   # every step's pictures.py
	python3 scripts/readme_tables.py
plots-env:
	@$(PLOT_PYTHON) -c 'import matplotlib' 2>/dev/null || $(MAKE) --no-print-directory .venv/installed
.venv/installed: plots/requirements.txt
	@python3 -m venv .venv >/dev/null 2>&1 || { rm -rf .venv; echo "make plots-env: python3 cannot make a virtual environment for matplotlib: $(APT) python3-venv (or PLOT_PYTHON=a python that has matplotlib)" >&2; exit 2; }
	@mkdir -p obj; .venv/bin/pip install -q -r plots/requirements.txt >obj/pip.log 2>&1 || { echo "make plots-env: pip could not install $$(cat plots/requirements.txt) (see obj/pip.log; no network?): install it by hand, or PLOT_PYTHON=a python that has it" >&2; exit 2; }
	touch $@

# ncu with --clock-control none: the GPU runs at the clocks it would run at anyway,
# as in every other measurement here. One launch, after the warm-up ones.
STEP ?= 05
# A STEP that names no step folder is refused in one line before anything is built or run.
STEP_NUMBERS := $(patsubst step%,%,$(foreach d,$(STEP_DIRS),$(call step_program,$(d))))
ifneq ($(filter profile profile-launch sass ptx diff,$(GOALS)),)
  ifeq ($(PROGRAM)$(VERSION),)
    ifeq ($(filter $(STEP),$(STEP_NUMBERS) $(if $(filter ptx diff,$(GOALS)),,cublas cutlass)),)
      $(error STEP=$(STEP) names no step: the steps are $(firstword $(STEP_NUMBERS)) ... $(lastword $(STEP_NUMBERS))$(if $(filter ptx diff,$(GOALS)),, (or STEP=cublas$(comma) STEP=cutlass)))
    endif
  endif
endif
NCU_N ?= 1000
NCU_SECTIONS ?= # e.g. NCU_SECTIONS="--section WarpStateStats" adds ncu's stall reasons
PROFILE_ARGS ?= # more options for the program, e.g. PROFILE_ARGS="--math tf32" with STEP=cublas
# The set: time; bytes from DRAM, through L2, and asked of L1 by global loads; how
# busy the SM, its L1/shared unit and its FMA pipe are; instructions and issue-slot
# use; shared-memory wavefronts and bank conflicts; achieved occupancy; the tensor pipe's
# busy cycles and its share of the instructions (the tensor-core steps, cuBLAS TF32, CUTLASS).
NCU_METRICS := gpu__time_duration.sum,dram__bytes_read.sum,lts__t_bytes.sum,l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__inst_issued.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,sm__warps_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active
# PROGRAM=obj/versions/step13_v2_bands profiles a development version instead (built first).
PROFILE_PROGRAM = $(or $(PROGRAM),$(if $(filter cublas cutlass,$(STEP)),./$(STEP)/$(STEP),./$(filter step$(STEP)_%,$(STEP_DIRS))/step$(STEP)))
profile: all $(PROGRAM)
	ncu --clock-control none --kernel-name regex:$(if $(PROGRAM),matmult_kernel,$(if $(filter cublas,$(STEP)),gemm,$(if $(filter cutlass,$(STEP)),Kernel,matmult_kernel))) \
	    --launch-skip 1 --launch-count 1 --metrics $(NCU_METRICS) $(NCU_SECTIONS) \
	    $(PROFILE_PROGRAM) -n $(NCU_N) --reps 1 $(PROFILE_ARGS)

# The launch configuration cuBLAS chose (grid, block, registers, shared memory).
profile-launch: all
	ncu --clock-control none --launch-skip 1 --launch-count 1 --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic \
	    $(if $(filter cublas,$(STEP)),./cublas/cublas,./$(filter step$(STEP)_%,$(STEP_DIRS))/step$(STEP)) -n $(NCU_N) --reps 1

# A step's lesson in hardware counters (the sweeps the steps declare for make reproduce's part
# ncu: step 04's pitched allocation's sectors per request, with and without it): ncu's metrics
# it names, on it and on the step before it, at its sizes.
step-counters: all
	python3 scripts/experiment.py sweep --part ncu

# compute-sanitizer on every program at SANITIZE_SIZES, every configuration of those that have
# several, and the FP32-class tensor-core steps on NaN, Inf and the ends of FP32's range
# (scripts/sanitize.py says what runs, and why).
# ONLY="stepNN ..." sanitizes those programs only.
SANITIZE_SIZES ?= 17 100
sanitize: all
	python3 scripts/sanitize.py --sizes "$(SANITIZE_SIZES)" $(if $(ONLY),--only "$(ONLY)")

# One line per kernel and architecture: which kernel (demangled: a templated kernel's
# arguments are its tile shape), its registers, spills and static shared memory.
REGS_AWK = /Compiling entry function/ { k = $$0; sub(/.*function .(void )?/, "", k); sub(/\(.*/, "", k); \
                                      a = $$0; sub(/.* for ./, "", a); sub(/.$$/, "", a) } \
    /spill stores/ { spill = $$5 } \
    /Used [0-9]+ registers/ { smem = "0"; if (match($$0, /[0-9]+ bytes smem/)) smem = substr($$0, RSTART, RLENGTH - 11); \
        printf "%-7s %-7s %-46s %3d registers, %s bytes spilled, %s bytes static shared memory\n", \
               step, a, k, $$5, spill, smem }
# Each step compiled as its build compiles it (its own architecture, where it has one).
# (Through a file, not a pipe, as make sass: a pipe's exit status is awk's, which would hide nvcc's
# failure; a step nvcc refuses stops make regs with nvcc's own messages.)
regs:
	@mkdir -p obj/regs
	@$(foreach d,$(STEP_DIRS),$(NVCC) $(subst $(ARCH_FLAGS),$(call step_arch_flags,$(d)),$(NVCCFLAGS)) -Xptxas -v \
	    -c $(d)/$(call step_program,$(d)).cu -o /dev/null > obj/regs/$(call step_program,$(d)).txt 2>&1 \
	    || { cat obj/regs/$(call step_program,$(d)).txt >&2; \
	         echo "make regs: nvcc failed on $(d)/$(call step_program,$(d)).cu" >&2; exit 1; }; \
	    c++filt < obj/regs/$(call step_program,$(d)).txt | awk -v step=$(call step_program,$(d)) '$(REGS_AWK)';)

# The lesson as a diff: STEP=05 against the step it builds on (the one before it, or the one its
# program names: --describe's builds_on), or VERSION=step13_v2 against the one before it in its
# chain (VERSION=step13: the step against its last version; the first version against the step
# its step builds on). The programs are asked, so they are built first: the step's, and with
# VERSION its versions.
DIFF_STEP := $(firstword $(subst _, ,$(or $(VERSION),step$(STEP))))
DIFF_DIR := $(filter $(DIFF_STEP)_%,$(STEP_DIRS))
DIFF_PROGRAMS := $(addsuffix /$(DIFF_STEP),$(DIFF_DIR)) \
    $(if $(VERSION),$(addprefix obj/versions/,$(basename $(notdir $(wildcard $(addsuffix /versions/*.cu,$(DIFF_DIR)))))))
diff: $(DIFF_PROGRAMS)
	@pair=$$(python3 scripts/ladder.py before $(if $(VERSION),--version $(VERSION),step$(STEP))) || exit 2; \
	    diff -u $$pair; test $$? -le 1

# What the GPU runs: a step's machine code as its build made it (cuobjdump -sass, kernels
# demangled; STEP=13, or PROGRAM= any binary), and its PTX for one architecture (its own
# where it has one, else PTX_ARCH, the GPU's or sm_90), into obj/ptx/.
PTX_ARCH ?= sm_$(or $(GPU_CC),90)
# (Through a file, not a pipe: a pipe's exit status is c++filt's, which would hide cuobjdump's.)
sass: all $(PROGRAM)
	cuobjdump -sass $(PROFILE_PROGRAM) > obj/sass.txt && c++filt < obj/sass.txt
ptx:
	@mkdir -p obj/ptx
	$(NVCC) -O3 -ptx -arch=$(or $(ARCH_$(filter step$(STEP)_%,$(STEP_DIRS))),$(PTX_ARCH)) -Icommon \
	    -o obj/ptx/step$(STEP).ptx $(filter step$(STEP)_%,$(STEP_DIRS))/step$(STEP).cu
	@echo "obj/ptx/step$(STEP).ptx: $$(grep -c '^\s*[a-z]' obj/ptx/step$(STEP).ptx) lines of PTX"
