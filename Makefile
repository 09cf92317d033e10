# Matrix multiplication on the GPU, step by step. `make help` lists the targets.

STEP_DIRS := step01_naive step02_kahan step03_shared_row step04_pitch step05_tiled step06_padded \
             step07_regtile step08_vectorized step09_warptile step10_pipelined step11_tf32 step12_3xtf32
# step05_tiled/step05, ...: each program is named by its folder's number.
PROGRAMS := $(foreach d,$(STEP_DIRS),$(d)/$(firstword $(subst _, ,$(d))))

# nvcc from PATH, else where the CUDA toolkit installs it.
NVCC ?= $(or $(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc),nvcc)
ifeq ($(origin CC),default)
  CC := gcc
endif
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(shell command -v $(NVCC) 2>/dev/null))

# What a fresh machine may lack, each named in one line with what installs it (Debian and
# Ubuntu package names), before anything is built. Optional OpenBLAS: see the CPU chapter.
GOALS := $(or $(MAKECMDGOALS),all)
missing = $(if $(shell command -v $(1) 2>/dev/null),,$(error $(1) not found: $(2)))
ifneq ($(filter-out help clean,$(GOALS)),)
  $(call missing,$(CC),a C compiler is needed: sudo apt-get install build-essential)
  $(call missing,$(NVCC),the CUDA toolkit is needed: install it from https://developer.nvidia.com/cuda-downloads or put its bin/ on PATH (export PATH=/usr/local/cuda/bin:$$PATH))
endif
ifneq ($(filter test,$(GOALS)),)
  $(call missing,prove,make test runs the tests with prove: sudo apt-get install perl)
endif
ifneq ($(filter test compare plots reproduce cpu cpu-sweep transpose tile-sweep warptile-sweep config-sweep gpu-info,$(GOALS)),)
  $(call missing,python3,this target runs a Python script: sudo apt-get install python3)
endif

# GPU code. ARCH=sm_75 (any -arch value) builds for that architecture. Otherwise the
# installed GPU's, read from nvidia-smi; with no GPU, a fat binary that runs on any GPU a
# student is likely to have: machine code for every architecture below that this nvcc
# knows, plus PTX of the newest for GPUs that come after it.
ALL_ARCHS := 75 80 86 89 90 100 120
NVCC_ARCHS := $(shell $(NVCC) --list-gpu-code 2>/dev/null | sed -n 's/^sm_\([0-9]*\)$$/\1/p')
FAT_ARCHS := $(filter $(NVCC_ARCHS),$(ALL_ARCHS))
GPU_CC := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ')
ifneq ($(ARCH),)
  ARCH_FLAGS := -arch=$(ARCH)
else ifneq ($(GPU_CC),)
  ARCH_FLAGS := -arch=sm_$(GPU_CC)
else
  ARCH_FLAGS := $(foreach a,$(FAT_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
                -gencode arch=compute_$(lastword $(FAT_ARCHS)),code=compute_$(lastword $(FAT_ARCHS))
endif

# No --use_fast_math, no flush-to-zero, no -ffast-math: they can undo Kahan's
# compensation and the reference's accuracy.
WARN := -Wall -Wextra
CFLAGS := -std=c11 -O3 $(WARN) -fopenmp -I$(CUDA_HOME)/include -Icommon
# --threads 0: nvcc compiles the architectures of a fat binary in parallel. A step's
# step_info leaves the fields it does not need out: C zero-fills them (hence -Wno-...).
NVCCFLAGS := -O3 $(ARCH_FLAGS) --threads 0 -Icommon -Xcompiler -Wall,-Wextra,-Wno-missing-field-initializers
LDLIBS := -Xcompiler -fopenmp

# What was built with which flags: a change of ARCH or OPENBLAS rebuilds what depends on
# it (make compares the stamps' contents, not only their dates).
ifeq ($(filter clean help,$(MAKECMDGOALS)),)
  stamp = $(shell mkdir -p obj; echo '$(2)' | cmp -s - obj/$(1).stamp || echo '$(2)' > obj/$(1).stamp)
  $(call stamp,arch,$(ARCH_FLAGS))
endif
ARCH_STAMP := obj/arch.stamp

COMMON_SRC := common/step_main.c common/args.c common/matrix.c common/timing.c common/gpu.c common/padded.c
COMMON_OBJ := $(patsubst common/%.c,obj/common/%.o,$(COMMON_SRC))
HEADERS := $(wildcard common/*.h)

.PHONY: all build help test clean regs sanitize profile profile-launch pitch-profile compare tile-programs versions tile-sweep plots plots-env cpu cpu-sweep transpose transpose-profile warptile-sweep config-sweep gpu-info all-archs reproduce $(foreach d,$(STEP_DIRS),$(firstword $(subst _, ,$(d))))
.DEFAULT_GOAL := all

all build: $(PROGRAMS) cublas/cublas cpu/cpu_gemm transpose/transpose obj/gpu_info

help:
	@echo "make                 build every program (no GPU needed to build)"
	@echo "make step01 .. step12  build that step and run it at n = 1000 (ARGS='-n 4096' to change)"
	@echo "make cublas          build and run the ceiling, cuBLAS SGEMM, at n = 1000 (ARGS='--math tf32':"
	@echo "                     on TF32 tensor cores)"
	@echo "make gpu-info        this GPU, its shared-memory limits, and which steps will run on it"
	@echo "make test            unit, command-line and (with a GPU) correctness tests, via prove"
	@echo "make reproduce       measure everything the READMEs show again, on this GPU and CPU, and"
	@echo "                     redraw the charts and tables (ONLY=\"compare caps\", SKIP=\"cpu\")"
	@echo "make compare         every step, cuBLAS (FP32 and TF32) and CUTLASS on the GPU at SIZES (default"
	@echo "                     \"1000 4096\"), on uniform and wide inputs (DISTS=\"uniform wide\"),"
	@echo "                     the comparison table, rows into results/<device>.csv"
	@echo "make config-sweep    the configurations (tile shape, stages) of steps 10-12 and CUTLASS, n = 1000 ... 8192"
	@echo "make cutlass         fetch CUTLASS's headers (once), build and run its TF32 and 3xTF32 kernels"
	@echo "make tile-sweep      step 05's tile size 4..32 against the naive kernel, n = 512..8192"
	@echo "make versions        build the development versions of steps 11 and 12 (obj/versions/; measured"
	@echo "                     by make reproduce ONLY=versions)"
	@echo "make warptile-sweep  steps 09 and 10: the tile shapes tried, at n = 1000 and 4096"
	@echo "make plots           the charts in plots/ and the README tables, from results/; the tensor-core"
	@echo "                     pictures (plots/tc_*.png), from the kernels' index rules"
	@echo "make cpu             the CPU chapter: every variant, 1 thread then all cores, vs OpenBLAS"
	@echo "make cpu-sweep       the lab's block-size sweep (8 .. 1024) at n = 1024 and 2048"
	@echo "make transpose       the transpose chapter: every variant at 2048 x 1536 and 8192 x 8192"
	@echo "make transpose-profile  ncu: bank conflicts and store sectors per transpose variant"
	@echo "make profile STEP=05 ncu metrics of that step's kernel at n = 1000 (NCU_N=..., STEP=cublas or cutlass,"
	@echo "                     PROFILE_ARGS='--math tf32')"
	@echo "make sanitize        compute-sanitizer memcheck and racecheck on every step at n = 17 and 100"
	@echo "make regs            registers, shared memory and spills per kernel (-Xptxas -v)"
	@echo "make all-archs       build for each architecture in turn (sm_75 ... sm_120), as CI does"
	@echo "make clean           remove what the build made"
	@echo "ARCH=sm_75           build GPU code for that architecture only (default: the installed GPU's,"
	@echo "                     or without one a fat binary for sm_75 ... sm_120 plus PTX)"
	@echo "SMEM_LIMIT=99K       run (test, compare, stepNN) as a GPU with that much shared memory per"
	@echo "                     block would (sets MATMUL_SMEM_LIMIT); figures say \"capped to 99 KB\""
	@echo "OPENBLAS=0           build the CPU chapter without OpenBLAS even where it is installed"

obj/common/%.o: common/%.c $(HEADERS) | obj/common
	$(CC) $(CFLAGS) -c $< -o $@

obj/%.o: step*/%.cu $(HEADERS) $(ARCH_STAMP) | obj
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

# Link with nvcc: it brings the CUDA runtime. The steps' objects come first.
define step_rule
$(1)/$(2): obj/$(2).o $$(COMMON_OBJ)
	$$(NVCC) $$(ARCH_FLAGS) -o $$@ $$^ $$(LDLIBS)
endef
$(foreach d,$(STEP_DIRS),$(eval $(call step_rule,$(d),$(firstword $(subst _, ,$(d))))))

# The ceiling: cuBLAS, built with the same harness.
obj/cublas.o: cublas/cublas.cu $(HEADERS) $(ARCH_STAMP) | obj
	$(NVCC) $(NVCCFLAGS) -c $< -o $@
cublas/cublas: obj/cublas.o $(COMMON_OBJ)
	$(NVCC) $(ARCH_FLAGS) -o $@ $^ $(LDLIBS) -lcublas

# The tile-size question: step 05 with 4x4 ... 32x32 tiles, and step 02 (the naive
# kernel with the same Kahan arithmetic) with as many threads per block.
TILES := 4 8 16 32
TILE_PROGRAMS := $(foreach t,$(TILES),obj/tile/step02_threads$(t) obj/tile/step05_tile$(t))
obj/tile/step05_tile%: step05_tiled/step05.cu $(COMMON_OBJ) $(HEADERS) $(ARCH_STAMP) | obj/tile
	$(NVCC) $(NVCCFLAGS) -DBLOCK_SIZE=$* -o $@ $< $(COMMON_OBJ) $(LDLIBS)
obj/tile/step02_threads%: step02_kahan/step02.cu $(COMMON_OBJ) $(HEADERS) $(ARCH_STAMP) | obj/tile
	$(NVCC) $(NVCCFLAGS) '-DNUM_THREADS=($**$*)' -o $@ $< $(COMMON_OBJ) $(LDLIBS)

# The tensor chapter's development versions (steps 11 and 12 as they were before they became
# the steps, each a whole program: diff shows one change at a time), built as the steps are,
# into obj/versions/; scripts/versions.py measures them beside the steps. Not part of all:
# CI builds all for each architecture in turn, and these would add about a minute and a half.
VERSION_DIRS := step11_tf32/versions step12_3xtf32/versions
VERSION_NAMES := $(basename $(notdir $(wildcard $(addsuffix /*.cu,$(VERSION_DIRS)))))
VERSION_PROGRAMS := $(addprefix obj/versions/,$(VERSION_NAMES))
# $(1): a versions folder, $(2): where its programs go, $(3): nvcc's flags, $(4): their stamp.
define version_rule
$(2)/%: $(1)/%.cu $$(COMMON_OBJ) $$(HEADERS) $(4)
	@mkdir -p $$(@D)
	$$(NVCC) $(3) -o $$@ $$< $$(COMMON_OBJ) $$(LDLIBS)
endef
$(foreach d,$(VERSION_DIRS),$(eval $(call version_rule,$(d),obj/versions,$$(NVCCFLAGS),$$(ARCH_STAMP))))
versions: $(VERSION_PROGRAMS)

# The CPU chapter: gcc only. OpenBLAS where pkg-config finds it, or OPENBLAS_DIR=<a folder
# holding Debian's OpenBLAS packages unpacked with dpkg -x>; OPENBLAS=0 builds without it
# even where it is installed (CI proves the chapter and its tests work without it).
OPENBLAS ?= auto
ifeq ($(OPENBLAS),0)
  OPENBLAS_CFLAGS := -DOPENBLAS_SWITCHED_OFF
else ifneq ($(OPENBLAS_DIR),)
  OPENBLAS_LIBDIR := $(abspath $(OPENBLAS_DIR))/usr/lib/x86_64-linux-gnu/openblas-pthread
  OPENBLAS_CFLAGS := -DHAVE_OPENBLAS -I$(abspath $(OPENBLAS_DIR))/usr/include/x86_64-linux-gnu/openblas-pthread
  OPENBLAS_LIBS := -L$(OPENBLAS_LIBDIR) -lopenblas -Wl,-rpath,$(OPENBLAS_LIBDIR):$(abspath $(OPENBLAS_DIR))/usr/lib/x86_64-linux-gnu
else ifeq ($(shell pkg-config --exists openblas 2>/dev/null && echo yes),yes)
  OPENBLAS_CFLAGS := -DHAVE_OPENBLAS $(shell pkg-config --cflags openblas)
  OPENBLAS_LIBS := $(shell pkg-config --libs openblas)
endif
ifeq ($(filter clean help,$(MAKECMDGOALS)),)
  $(call stamp,openblas,$(OPENBLAS_CFLAGS) $(OPENBLAS_LIBS))
endif
CPU_OBJ := $(patsubst cpu/%.c,obj/cpu/%.o,$(wildcard cpu/*.c))
obj/cpu/%.o: cpu/%.c cpu/variants.h $(HEADERS) obj/openblas.stamp | obj/cpu
	$(CC) $(CFLAGS) $(OPENBLAS_CFLAGS) -c $< -o $@
cpu/cpu_gemm: $(CPU_OBJ) obj/common/args.o obj/common/matrix.o obj/common/timing.o
	$(CC) $(CFLAGS) -o $@ $(filter %.o,$^) $(OPENBLAS_LIBS) -lm
ifeq ($(OPENBLAS),0)
	@echo "cpu_gemm: built without OpenBLAS (OPENBLAS=0): its comparisons skip"
else ifeq ($(OPENBLAS_LIBS),)
	@echo "cpu_gemm: built without OpenBLAS, the CPU chapter's optional ceiling (its comparisons skip): sudo apt-get install libopenblas-dev"
endif

# The transpose chapter: kernels in CUDA C, the rest in C.
TRANSPOSE_OBJ := obj/transpose/transpose.o obj/transpose/cpu.o obj/transpose/kernels.o
obj/transpose/%.o: transpose/%.c transpose/transpose.h $(HEADERS) | obj/transpose
	$(CC) $(CFLAGS) -c $< -o $@
obj/transpose/kernels.o: transpose/kernels.cu transpose/transpose.h $(HEADERS) $(ARCH_STAMP) | obj/transpose
	$(NVCC) $(NVCCFLAGS) -c $< -o $@
transpose/transpose: $(TRANSPOSE_OBJ) obj/common/args.o obj/common/matrix.o obj/common/timing.o obj/common/gpu.o
	$(NVCC) $(ARCH_FLAGS) -o $@ $^ $(LDLIBS)

# make gpu-info: the device, what this build carries, and which programs run here and how.
gpu-info: all
	@python3 scripts/fatbin_archs.py step01_naive/step01 | sed 's/^[^:]*: /This build:        /'
	@obj/gpu_info --describe || { code=$$?; [ $$code = 3 ] && exit 0; exit $$code; }; \
	echo "At n = 4096:"; \
	for p in $(PROGRAMS) cublas/cublas; do out=$$(./$$p --gpu-check -n 4096 2>&1); code=$$?; \
	    case $$code in 0) echo "  $$out";; 4) echo "  skips: $$out";; \
	    *) echo "  FAILS (exit $$code): $$out"; exit $$code;; esac; done

# Every architecture CUDA 13 builds for, one after the other (what CI checks), then the
# default build again.
all-archs:
	@set -e; for a in $(ALL_ARCHS); do echo "== make ARCH=sm_$$a all"; \
	    $(MAKE) --no-print-directory ARCH=sm_$$a all > obj/all-archs-sm_$$a.log 2>&1 || \
	    { tail -n 30 obj/all-archs-sm_$$a.log; exit 1; }; done
	@echo "== make all (the default build)"; $(MAKE) --no-print-directory all > obj/all-archs-default.log 2>&1 || \
	    { tail -n 30 obj/all-archs-default.log; exit 1; }

obj/gpu_info: obj/common/gpu_info.o obj/common/gpu.o obj/common/args.o obj/common/matrix.o obj/common/timing.o
	$(NVCC) -o $@ $^ $(LDLIBS)

# The development versions for one architecture, the GPU's or else sm_90, so that make test
# proves they compile (tests/10-build.t) and, on a GPU, that they are right (tests/14-versions.t).
TEST_VERSIONS_ARCH := sm_$(or $(GPU_CC),90)
TEST_VERSIONS := $(addprefix obj/test/versions/,$(VERSION_NAMES))
ifeq ($(filter clean help,$(MAKECMDGOALS)),)
  $(call stamp,test-versions-arch,$(TEST_VERSIONS_ARCH))
endif
$(foreach d,$(VERSION_DIRS),$(eval $(call version_rule,$(d),obj/test/versions,\
    $$(subst $$(ARCH_FLAGS),-arch=$$(TEST_VERSIONS_ARCH),$$(NVCCFLAGS)),obj/test-versions-arch.stamp)))

# What the tests build to force each failure a program must tell apart from "no GPU"
# (tests/09-exit-codes.t): two stand-in driver libraries (too old; failing), step 01
# with code for another GPU only (no kernel image), and step 01 asking for compute
# capability 9.9 (lacks a feature).
FOREIGN_ARCH := $(if $(filter 75,$(GPU_CC)),80,75)
TEST_HELPERS := obj/fake_driver/old/libcuda.so.1 obj/fake_driver/failing/libcuda.so.1 \
                obj/test/step01_foreign_arch obj/test/step01_needs_cc99 $(TEST_VERSIONS)
obj/fake_driver/old/libcuda.so.1: tests/fake_libcuda.c
	@mkdir -p $(@D)
	$(CC) -Wall -Wextra -shared -fPIC -DFAKE_DRIVER_VERSION=10020 -o $@ $<
obj/fake_driver/failing/libcuda.so.1: tests/fake_libcuda.c
	@mkdir -p $(@D)
	$(CC) -Wall -Wextra -shared -fPIC -DFAKE_DRIVER_VERSION=99000 -DFAKE_FAILS -o $@ $<
obj/test/step01_foreign_arch: step01_naive/step01.cu $(COMMON_OBJ) $(HEADERS)
	@mkdir -p $(@D)
	$(NVCC) -O3 -gencode arch=compute_$(FOREIGN_ARCH),code=sm_$(FOREIGN_ARCH) -Icommon -o $@ $< $(COMMON_OBJ) $(LDLIBS)
obj/test/step_main_cc99.o: common/step_main.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DFORCE_MIN_CC=99 -c $< -o $@
obj/test/step01_needs_cc99: obj/step01.o obj/test/step_main_cc99.o $(filter-out obj/common/step_main.o,$(COMMON_OBJ))
	$(NVCC) $(ARCH_FLAGS) -o $@ $^ $(LDLIBS)

obj/harness_test: tests/harness_test.c tests/tap.h obj/common/matrix.o obj/common/timing.o obj/common/args.o $(HEADERS) | obj
	$(CC) $(CFLAGS) -o $@ tests/harness_test.c obj/common/matrix.o obj/common/timing.o \
	    obj/common/args.o -lm

obj obj/common obj/tile obj/cpu obj/transpose:
	mkdir -p $@

ARGS ?= -n 1000
# make step05: build and run. Without a GPU (exit 3), or on one that lacks what the step
# needs (exit 4), the program's one line says so and make stops there without an error.
define run_rule
$(2): $(1)/$(2)
	@./$(1)/$(2) $$(ARGS) || { code=$$$$?; [ $$$$code = 3 ] || [ $$$$code = 4 ] || exit $$$$code; }
endef
$(foreach d,$(STEP_DIRS),$(eval $(call run_rule,$(d),$(firstword $(subst _, ,$(d))))))
$(eval $(call run_rule,cublas,cublas))

# SMEM_LIMIT=64K (or bytes) runs everything as a GPU with that much shared memory per
# block would: every program reads MATMUL_SMEM_LIMIT.
ifneq ($(SMEM_LIMIT),)
  export MATMUL_SMEM_LIMIT := $(SMEM_LIMIT)
endif

# PROVE_FLAGS=-j4 runs the test files side by side (CI does; on a GPU they would share it).
PROVE_FLAGS ?=
test: all obj/harness_test $(TEST_HELPERS)
	prove $(PROVE_FLAGS) tests/

# The classroom comparison: every step, cuBLAS and CUTLASS at SIZES, the table,
# results/<device>.csv. Without CUTLASS's headers its rows are left out, saying so.
LADDER_ROWS = $(shell python3 -c 'import sys; sys.path.insert(0, "scripts"); import ladder; print(*ladder.LADDER)' 2>/dev/null)
SIZES ?= 1000 4096
REPS ?= 10
DISTS ?= uniform wide
compare: all
	python3 scripts/compare.py --sizes "$(SIZES)" --reps $(REPS) --dists "$(DISTS)" \
	    $(if $(wildcard cutlass/cutlass),,--programs "$(filter-out cutlass_%,$(LADDER_ROWS))")

tile-programs: $(TILE_PROGRAMS)
tile-sweep: all tile-programs
	python3 scripts/tile_sweep.py

# The CPU chapter: every variant, single-threaded then on all cores, and the lab's
# block-size sweep; rows into results/<host>-cpu.csv.
CPU_SIZES ?= 128 256 512 1000 1024 2048
cpu: cpu/cpu_gemm
	python3 scripts/cpu_compare.py --sizes "$(CPU_SIZES)"
cpu-sweep: cpu/cpu_gemm
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

# Step 09's tile shapes: each built with -D flags and run at n = 1000 and 4096.
warptile-sweep: all
	python3 scripts/warptile_sweep.py

# Step 10's configurations, each run through --config.
config-sweep: all
	python3 scripts/config_sweep.py

# Everything the READMEs show, measured again here (scripts/reproduce.py): ONLY="parts"
# runs some of it, SKIP="parts" leaves some out; the plan and its time come first.
reproduce: all tile-programs versions obj/harness_test $(TEST_HELPERS)
	python3 scripts/reproduce.py $(if $(ONLY),--only "$(ONLY)") $(if $(SKIP),--skip "$(SKIP)")

# Charts into plots/ and the README tables, from results/, and the tensor-core chapter's
# pictures (computed from the kernels' rules, no results). matplotlib where python3 can
# import it, else a local virtual environment made once from plots/requirements.txt.
PLOT_PYTHON = $(shell python3 -c 'import matplotlib' 2>/dev/null && echo python3 || echo .venv/bin/python)
plots: plots-env
	$(PLOT_PYTHON) plots/charts.py
	$(PLOT_PYTHON) plots/tensor_pictures.py
	python3 scripts/readme_tables.py
plots-env:
	@python3 -c 'import matplotlib' 2>/dev/null || $(MAKE) --no-print-directory .venv/installed
.venv/installed: plots/requirements.txt
	python3 -m venv .venv
	.venv/bin/pip install -q -r plots/requirements.txt
	touch $@

# ncu with --clock-control none: the GPU runs at the clocks it would run at anyway,
# as in every other measurement here. One launch, after the warm-up ones.
STEP ?= 05
NCU_N ?= 1000
NCU_SECTIONS ?= # e.g. NCU_SECTIONS="--section WarpStateStats" adds ncu's stall reasons
PROFILE_ARGS ?= # more options for the program, e.g. PROFILE_ARGS="--math tf32" with STEP=cublas
# The set: time; bytes from DRAM, through L2, and asked of L1 by global loads; how
# busy the SM, its L1/shared unit and its FMA pipe are; instructions and issue-slot
# use; shared-memory wavefronts and bank conflicts; achieved occupancy; the tensor pipe's
# busy cycles and its share of the instructions (steps 11-12, cuBLAS TF32, CUTLASS).
NCU_METRICS := gpu__time_duration.sum,dram__bytes_read.sum,lts__t_bytes.sum,l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__inst_issued.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,sm__warps_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active
profile: all
	ncu --clock-control none --kernel-name regex:$(if $(filter cublas,$(STEP)),gemm,$(if $(filter cutlass,$(STEP)),Kernel,matmult_kernel)) \
	    --launch-skip 1 --launch-count 1 --metrics $(NCU_METRICS) $(NCU_SECTIONS) \
	    $(if $(filter cublas cutlass,$(STEP)),./$(STEP)/$(STEP),./$(filter step$(STEP)_%,$(STEP_DIRS))/step$(STEP)) \
	    -n $(NCU_N) --reps 1 $(PROFILE_ARGS)

# The launch configuration cuBLAS chose (grid, block, registers, shared memory).
profile-launch: all
	ncu --clock-control none --launch-skip 1 --launch-count 1 --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic \
	    $(if $(filter cublas,$(STEP)),./cublas/cublas,./$(filter step$(STEP)_%,$(STEP_DIRS))/step$(STEP)) -n $(NCU_N) --reps 1

# Step 04's lesson in counters: sectors per global-load request and DRAM bytes, with and
# without cudaMallocPitch, at a sector-aligned width (1000) and unaligned ones.
PITCH_METRICS := gpu__time_duration.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,lts__t_bytes.sum,dram__bytes_read.sum
pitch-profile: all
	@for n in 1000 1001 4001; do for p in step03_shared_row/step03 step04_pitch/step04; do \
	    echo "\$$ $$p -n $$n"; ./$$p -n $$n --reps 20 | grep -E "Pitch|Kernel"; \
	    ncu --clock-control none --kernel-name regex:matmult_kernel --launch-skip 1 --launch-count 1 \
	        --metrics $(PITCH_METRICS) ./$$p -n $$n --reps 1 --check none 2>&1 | grep -E "^    [a-z]"; done; done

# Every step at two sizes, the steps with several configurations (10-12) in each of them at
# n = 300 on both input distributions, and step 12 on inputs with NaN and Inf (its safe split)
# and on inputs at the ends of FP32's range (its scaled path).
SANITIZE_SIZES ?= 17 100
CONFIG_STEPS := step10_pipelined/step10 step11_tf32/step11 step12_3xtf32/step12
configs_of = $(shell ./$(1) --config '?' 2>&1 | sed -n 's/.*expected one of \(.*\) (try --help)/\1/p' | tr -d ',')
sanitize: all
	@set -e; for p in $(PROGRAMS); do for n in $(SANITIZE_SIZES); do for tool in memcheck racecheck; do \
	    echo "== $$tool $$p -n $$n"; \
	    compute-sanitizer --tool $$tool --error-exitcode 9 ./$$p -n $$n --reps 1 --check full --csv; \
	done; done; done; \
	$(foreach p,$(CONFIG_STEPS),for c in $(call configs_of,$(p)); do for tool in memcheck racecheck; do \
	    for d in uniform wide; do echo "== $$tool $(p) --config $$c -n 300 --dist $$d"; \
	    compute-sanitizer --tool $$tool --error-exitcode 9 ./$(p) --config $$c -n 300 --dist $$d --reps 1 --csv; \
	done; done; done;) \
	python3 scripts/special_inputs.py obj/sanitize_special; \
	for tool in memcheck racecheck; do echo "== $$tool step12 --load obj/sanitize_special (NaN, Inf: the safe split)"; \
	    compute-sanitizer --tool $$tool --error-exitcode 9 ./step12_3xtf32/step12 --load obj/sanitize_special --reps 1 --csv; \
	done; \
	for tool in memcheck racecheck; do for d in subnormal huge; do \
	    echo "== $$tool step12 -n 300 --dist $$d (scaled rows and columns)"; \
	    compute-sanitizer --tool $$tool --error-exitcode 9 ./step12_3xtf32/step12 -n 300 --dist $$d --reps 1 --csv; \
	done; done; \
	for tool in memcheck racecheck; do echo "== $$tool transpose --rows 100 --cols 77"; \
	    compute-sanitizer --tool $$tool --error-exitcode 9 ./transpose/transpose --rows 100 --cols 77 \
	        --iters 1 --variant naive,shared,shared_padded,tiled32x8,copy,copy_kernel --csv; done; \
	echo "compute-sanitizer: no errors"

# One line per kernel and architecture: which kernel (demangled: step 10's template
# arguments are its tile shape), its registers, spills and static shared memory.
regs:
	@for d in $(STEP_DIRS); do p=$$(echo $$d | cut -d_ -f1); \
	    $(NVCC) $(NVCCFLAGS) -Xptxas -v -c $$d/$$p.cu -o /dev/null 2>&1 | c++filt | awk -v step=$$p ' \
	    /Compiling entry function/ { k = $$0; sub(/.*function .(void )?/, "", k); sub(/\(.*/, "", k); \
	                                 a = $$0; sub(/.* for ./, "", a); sub(/.$$/, "", a) } \
	    /spill stores/ { spill = $$5 } \
	    /Used [0-9]+ registers/ { smem = "0"; if (match($$0, /[0-9]+ bytes smem/)) smem = substr($$0, RSTART, RLENGTH - 11); \
	        printf "%-7s %-7s %-46s %3d registers, %s bytes spilled, %s bytes static shared memory\n", \
	               step, a, k, $$5, spill, smem }'; done

# The CUTLASS peer (tensor cores): its headers, its program and its tile sweep.
include cutlass/cutlass.mk

clean:
	rm -rf obj $(PROGRAMS) cublas/cublas cpu/cpu_gemm transpose/transpose
