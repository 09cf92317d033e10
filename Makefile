# Matrix multiplication on the GPU, step by step. `make help` lists the targets.

# Every folder stepNN_name is a step (README.md, "Adding a step"): its program stepNN is
# built from stepNN.cu, and the tests, comparisons and charts find it by asking it (--describe).
STEP_DIRS := $(sort $(patsubst %/,%,$(wildcard step[0-9][0-9]_*/)))
step_program = $(firstword $(subst _, ,$(1)))
PROGRAMS := $(foreach d,$(STEP_DIRS),$(d)/$(call step_program,$(d)))
# A number is one step: two folders stepNN_a and stepNN_b would build two programs stepNN.
STEP_NAMES := $(foreach d,$(STEP_DIRS),$(call step_program,$(d)))
SHARED_NUMBERS := $(strip $(foreach p,$(sort $(STEP_NAMES)),$(if $(word 2,$(filter $(p),$(STEP_NAMES))),$(p))))
ifneq ($(SHARED_NUMBERS),)
  $(error $(filter $(addsuffix _%,$(SHARED_NUMBERS)),$(STEP_DIRS)) share a step number: each stepNN_ folder builds the program stepNN, so give one of them a number of its own)
endif

# A step folder may hold more than its program (their rules are below): other programs, any .cu
# beside stepNN.cu (built into obj/<folder>/), and its own tests (stepNN_*/tests/*.t, which make
# test runs) with their C helpers (stepNN_*/tests/*.c, built into obj/test/<folder>/).
STEP_EXTRA_SOURCES := $(filter-out $(addsuffix .cu,$(PROGRAMS)),$(wildcard $(addsuffix /*.cu,$(STEP_DIRS))))
STEP_EXTRA_PROGRAMS := $(addprefix obj/,$(basename $(STEP_EXTRA_SOURCES)))
STEP_TEST_SOURCES := $(wildcard $(addsuffix /tests/*.c,$(STEP_DIRS)))
STEP_TEST_HELPERS := $(addprefix obj/test/,$(basename $(subst /tests/,/,$(STEP_TEST_SOURCES))))

# nvcc from PATH, else where the CUDA toolkit installs it.
NVCC ?= $(or $(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc),nvcc)
ifeq ($(origin CC),default)
  CC := gcc
endif
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(shell command -v $(NVCC) 2>/dev/null))

# What a fresh machine may lack, each named in one line with what installs it (Debian and
# Ubuntu package names), before anything is built. Optional OpenBLAS: see the CPU chapter.
GOALS := $(or $(MAKECMDGOALS),all)
comma := ,
missing = $(if $(shell command -v $(1) 2>/dev/null),,$(error $(1) not found: $(2)))
# The install command as this user can run it: root needs no sudo (a container), others do.
APT := $(if $(filter 0,$(shell id -u 2>/dev/null)),,sudo )apt-get install
# The CUDA toolkit's own tools come with it (its bin/ on PATH) or as Debian/Ubuntu packages
# from NVIDIA's repository, named by the toolkit's version (cuda-nsight-compute-13-0).
CUDA_PKG_VERSION := $(shell $(NVCC) --version 2>/dev/null | sed -n 's/.*release \([0-9]*\)\.\([0-9]*\).*/\1-\2/p')
ifneq ($(filter-out help clean,$(GOALS)),)
  $(call missing,$(CC),a C compiler is needed: $(APT) build-essential)
  $(call missing,$(NVCC),the CUDA toolkit is needed: install it from https://developer.nvidia.com/cuda-downloads or put its bin/ on PATH (export PATH=/usr/local/cuda/bin:$$PATH))
endif
ifneq ($(filter test test-deep,$(GOALS)),)
  $(call missing,prove,make test runs the tests with prove: $(APT) perl)
endif
ifneq ($(filter test test-deep compare plots plots-env reproduce cpu cpu-sweep transpose tile-sweep warptile-sweep config-sweep sweep versions gpu-info sanitize step-counters diff multigpu multigpu-sweep,$(GOALS)),)
  $(call missing,python3,this target runs a Python script: $(APT) python3)
endif
ifneq ($(filter sass,$(GOALS)),)
  $(call missing,cuobjdump,make sass disassembles with the CUDA toolkit's cuobjdump: $(APT) cuda-cuobjdump-$(CUDA_PKG_VERSION)$(comma) or put the toolkit's bin/ on PATH)
endif
ifneq ($(filter profile profile-launch transpose-profile step-counters,$(GOALS)),)
  $(call missing,ncu,this target measures with Nsight Compute's ncu: $(APT) cuda-nsight-compute-$(CUDA_PKG_VERSION) (https://developer.nvidia.com/nsight-compute)$(comma) or put its folder on PATH)
endif
ifneq ($(filter sanitize,$(GOALS)),)
  $(call missing,compute-sanitizer,make sanitize runs the CUDA toolkit's compute-sanitizer: $(APT) cuda-sanitizer-$(CUDA_PKG_VERSION)$(comma) or put the toolkit's bin/ on PATH)
endif

# Measurements go into results/local/, which git ignores: the pages, tables and charts read the
# recorded runs in results/, and a run here never rewrites them. RESULTS=results records into
# that reference set instead (RESULTS=DIR: any folder).
ifneq ($(RESULTS),)
  export MATMUL_RESULTS := $(RESULTS)
  # A file there is refused before anything is built (every target that measures or draws reads it).
  ifneq ($(filter-out clean help,$(GOALS)),)
    ifneq ($(wildcard $(RESULTS)),)
      ifeq ($(wildcard $(RESULTS)/.),)
        $(error RESULTS=$(RESULTS) is a file, not a folder: RESULTS names the folder of results (default results/local/))
      endif
    endif
  endif
endif

# GPU code. ARCH=sm_75 (any -arch value) builds for that architecture. Otherwise the
# installed GPU's, read from nvidia-smi; with no GPU, a fat binary that runs on any GPU a
# student is likely to have: machine code for each major version below that this nvcc knows
# (a GPU runs machine code built for an earlier minor version of its major one: sm_86 and
# sm_89 cards run sm_80's), plus PTX of the newest for GPUs that come after it. make
# all-archs builds for every architecture, one at a time.
ALL_ARCHS := 75 80 86 89 90 100 120
NVCC_ARCHS := $(shell $(NVCC) --list-gpu-code 2>/dev/null | sed -n 's/^sm_\([0-9]*\)$$/\1/p')
FAT_ARCHS := $(filter $(NVCC_ARCHS),75 80 90 100 120)
GPU_CC := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ')
ifneq ($(ARCH),)
  ARCH_FLAGS := -arch=$(ARCH)
else ifneq ($(GPU_CC),)
  ARCH_FLAGS := -arch=sm_$(GPU_CC)
else
  ARCH_FLAGS := $(foreach a,$(FAT_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
                -gencode arch=compute_$(lastword $(FAT_ARCHS)),code=compute_$(lastword $(FAT_ARCHS))
endif

# A step that needs one architecture's own instructions (sm_90a: Hopper's wgmma and TMA, which
# no GPU of another compute capability has, newer ones included) says so once, in its folder's
# Makefile (STEP_ARCH := sm_90a): it is built for that one alone, whatever ARCH says, its
# versions and build variants too; the program learns it from its build (STEP_ARCHS) and on any
# other GPU exits 4, saying why. Each folder's Makefile is read here for that declaration alone
# (READING_STEP_MAKEFILES keeps common/step.mk, which it includes, from defining its targets):
# ARCH_<folder> is its architecture, or nothing for the build's own.
READING_STEP_MAKEFILES := 1
$(foreach d,$(STEP_DIRS),$(eval STEP_ARCH :=)$(eval include $(d)/Makefile)$(eval ARCH_$(d) := $(STEP_ARCH)))
READING_STEP_MAKEFILES :=
STEP_ARCH :=
comma := ,
step_arch_flags = $(if $(ARCH_$(1)),-gencode=arch=$(subst sm_,compute_,$(ARCH_$(1)))$(comma)code=$(ARCH_$(1)),$(ARCH_FLAGS))
# What the flags put in the binary ("sm_80 sm_90 compute_90"), for --describe (STEP_ARCHS).
archs_of = $(strip $(foreach f,$(1),$(if $(filter -arch=%,$(f)),$(patsubst -arch=%,%,$(f)) \
    $(subst sm_,compute_,$(patsubst -arch=%,%,$(f))),$(patsubst code=%,%,$(filter code=%,$(subst $(comma), ,$(f)))))))

# No --use_fast_math, no flush-to-zero, no -ffast-math: they can undo Kahan's
# compensation and the reference's accuracy.
WARN := -Wall -Wextra
CFLAGS := -std=c11 -O3 $(WARN) -fopenmp -I$(CUDA_HOME)/include -Icommon
# --threads 0: nvcc compiles the architectures of a fat binary in parallel. A step's
# step_info leaves the fields it does not need out: C zero-fills them (hence -Wno-...).
NVCCFLAGS := -O3 $(ARCH_FLAGS) --threads 0 -Icommon -Xcompiler -Wall,-Wextra,-Wno-missing-field-initializers
LDLIBS := -Xcompiler -fopenmp
# A step's sources include headers of the steps it builds on (step 18: step 16's passes, step 17's
# schedule): nvcc writes what each object includes beside it (obj/....d), and make reads those
# files, so that a change to a header rebuilds exactly the programs that include it.
DEPFLAGS := -MMD -MP

# An ARCH this nvcc does not build for is refused in one line before the stamp below records it
# (a stamp rewritten for a build that then fails would rebuild everything on the next make). nvcc's
# own words are taken: sm_NN and compute_NN of an architecture nvcc --list-gpu-code lists (with a or
# f after it: one GPU's own instructions, or its family's), native, all and all-major.
ARCH_NUMBER = $(patsubst %a,%,$(patsubst %f,%,$(lastword $(subst _, ,$(ARCH)))))
ifneq ($(and $(ARCH),$(NVCC_ARCHS)),)
  ifeq ($(filter clean help,$(MAKECMDGOALS))$(filter native all all-major,$(ARCH)),)
    ifeq ($(if $(filter sm_% compute_% lto_%,$(ARCH)),$(filter $(ARCH_NUMBER),$(NVCC_ARCHS))),)
      $(error ARCH=$(ARCH) is no architecture this nvcc builds for: $(addprefix sm_,$(NVCC_ARCHS)) \
          (nvcc --list-gpu-code), or native for this machine's GPU)
    endif
  endif
endif

# What was built with which flags: a change of ARCH or OPENBLAS rebuilds what depends on
# it (make compares the stamps' contents, not only their dates).
ifeq ($(filter clean help,$(MAKECMDGOALS)),)
  stamp = $(shell mkdir -p obj; echo '$(2)' | cmp -s - obj/$(1).stamp || echo '$(2)' > obj/$(1).stamp)
  $(call stamp,arch,$(ARCH_FLAGS))
endif
ARCH_STAMP := obj/arch.stamp
# What rebuilds a program when ARCH changes: nothing for one built for its own architecture
# alone (STEP_ARCH), so that make all-archs compiles it once, not once per architecture.
arch_stamp_of = $(if $(ARCH_$(1)),,$(ARCH_STAMP))

# The harness (common/*.c: options, inputs, reference and checks, timing, CUDA errors, .npy,
# main) is one library every program links; the linker takes from it what a program uses.
# common/gpu_info.c is a program of its own (make gpu-info).
HARNESS_SRC := $(filter-out common/gpu_info.c,$(wildcard common/*.c))
HARNESS_OBJ := $(patsubst common/%.c,obj/common/%.o,$(HARNESS_SRC))
HARNESS := obj/libharness.a
# The device library the lessons are made of (common/device/: one wrapper per PTX
# instruction, the blocks' walk over C), included by the kernels' .cu files, never linked.
HEADERS := $(wildcard common/*.h common/device/*.h)

.PHONY: all build help test clean versions gpu-info all-archs $(foreach d,$(STEP_DIRS),$(call step_program,$(d)))
.DEFAULT_GOAL := all

all build: $(PROGRAMS) $(STEP_EXTRA_PROGRAMS) cublas/cublas cpu/cpu_gemm transpose/transpose obj/gpu_info

help:
	@echo "make                 build every program (no GPU needed to build)"
	@echo "make $(call step_program,$(firstword $(STEP_DIRS))) .. $(call step_program,$(lastword $(STEP_DIRS)))  build that step and run it at n = 1000 (ARGS='-n 4096' to change)"
	@echo "make cublas          build and run the ceiling, cuBLAS SGEMM, at n = 1000 (ARGS='--math tf32':"
	@echo "                     on TF32 tensor cores)"
	@echo "make gpu-info        this GPU, its shared-memory limits, and which steps will run on it"
	@echo "make test            unit, command-line and (with a GPU) correctness tests, via prove: one"
	@echo "                     check per program, configuration and input family at a few sizes"
	@echo "make test-deep       the same and the exhaustive searches (range families at many n, short"
	@echo "                     sums, every configuration and version at every size): before a change lands"
	@echo "make reproduce       measure everything the READMEs show again, on this GPU and CPU, and"
	@echo "                     redraw the charts and tables (ONLY=\"compare caps\", SKIP=\"cpu\"; DRY_RUN=1: the plan)"
	@echo "make compare         every step, cuBLAS (FP32 and TF32) and CUTLASS on the GPU at SIZES=\"1000 4096\""
	@echo "                     (the default; REPS=10 each), on uniform and wide inputs (DISTS=\"uniform wide\"),"
	@echo "                     the comparison table, rows into results/local/<device>.csv"
	@echo "make config-sweep    every configuration (tile shape, stages) of each program that has several, n = 1000 ... 8192"
	@echo "make cutlass         fetch CUTLASS's headers (once), build and run its TF32 and 3xTF32 kernels"
	@echo "make gemmul8         build GEMMul8 from its source (once, about 15 minutes), and run its SGEMM emulation"
	@echo "make tile-sweep      the lab's tile size 4..32, tiled against naive kernel, n = 512..8192"
	@echo "make step-counters   a step's lesson in ncu's counters, where its experiments.json names them"
	@echo "make versions        build the development versions in the steps' versions/ folders into"
	@echo "                     obj/versions/ (measured by make reproduce ONLY=versions; make profile"
	@echo "                     PROGRAM=obj/versions/NAME profiles one)"
	@echo "make warptile-sweep  the warp-tiled kernels' tile shapes tried, at n = 1000 and 4096"
	@echo "make sweep STEP=NN   the sweeps a step declares in its experiments.json: its build variants"
	@echo "                     (obj/variants/) beside the programs it names (NAME=... runs one of them),"
	@echo "                     its own programs too: the Ozaki step's INT8 GEMM (cuBLAS, its products' ceiling)"
	@echo "make plots           the charts in plots/ and the README tables, from the recorded runs in results/,"
	@echo "                     and your own runs' charts (results/local/) in plots/local/; the tensor-core"
	@echo "                     pictures (plots/tc_*.png), from the kernels' index rules"
	@echo "make plots-env       matplotlib for the charts (a .venv from PyPI, made once, when python3 lacks it)"
	@echo "make cpu             the CPU chapter: every variant, 1 thread then all cores, vs OpenBLAS"
	@echo "make cpu-sweep       the lab's block-size sweep (8 .. 1024) at n = 1024 and 2048"
	@echo "make transpose       the transpose chapter: every variant at 2048 x 1536 and 8192 x 8192"
	@echo "make transpose-profile  ncu: bank conflicts and store sectors per transpose variant"
	@echo "make multigpu        the multi-GPU chapter at n = 8192 on every GPU here (NCCL needed);"
	@echo "                     make multigpu-sweep its scaling runs; make nccl, make cublasmp fetch"
	@echo "                     the pinned NCCL and cuBLASMp wheels into third_party/"
	@echo "make profile STEP=05 ncu metrics of that step's kernel at n = 1000 (NCU_N=..., STEP=cublas or cutlass,"
	@echo "                     PROFILE_ARGS='--math tf32'; PROGRAM=obj/versions/NAME for a development version)"
	@echo "make sanitize        compute-sanitizer memcheck and racecheck on every step at n = 17 and 100"
	@echo "make regs            registers, shared memory and spills per kernel (-Xptxas -v)"
	@echo "make diff STEP=05    the lesson: the step's source against the step it builds on (the one before"
	@echo "                     it, or the one the program names: its step_info's .builds_on; VERSION=step13_v2:"
	@echo "                     a development version against the one before it)"
	@echo "make sass STEP=05    the step's machine code (cuobjdump -sass); make ptx STEP=05 its PTX"
	@echo "make all-archs       build for every architecture (sm_75 ... sm_120), as CI does: each the default"
	@echo "                     build leaves out on its own, then the default build"
	@echo "make clean           remove what the build made"
	@echo "ARCH=sm_75           build GPU code for that architecture only (default: the installed GPU's,"
	@echo "                     or without one a fat binary for sm_75 ... sm_120 plus PTX)"
	@echo "SMEM_LIMIT=99K       run (test, compare, stepNN) as a GPU with that much shared memory per"
	@echo "                     block would (sets MATMUL_SMEM_LIMIT); figures say \"capped to 99 KB\""
	@echo "OPENBLAS=0           build the CPU chapter without OpenBLAS even where it is installed"
	@echo "RESULTS=results      record measurements into the reference set the pages read (default:"
	@echo "                     results/local/, which git ignores; RESULTS=DIR any folder)"

obj/common/%.o: common/%.c $(HEADERS) | obj/common
	$(CC) $(CFLAGS) -c $< -o $@

$(HARNESS): $(HARNESS_OBJ)
	rm -f $@
	ar rcs $@ $^

# A step: compiled for its architectures (STEP_ARCHS tells --describe which; its folder's
# Makefile may name its own), linked with nvcc, which brings the CUDA runtime; the step's object
# first, then the harness.
define step_rule
obj/$(2).o: $(1)/$(2).cu $(1)/Makefile $$(wildcard $(1)/*.h) $$(HEADERS) $$(call arch_stamp_of,$(1)) | obj
	$$(NVCC) $$(subst $$(ARCH_FLAGS),$$(call step_arch_flags,$(1)),$$(NVCCFLAGS)) $$(DEPFLAGS) \
	    -DSTEP_ARCHS='"$$(call archs_of,$$(call step_arch_flags,$(1)))"' -c $$< -o $$@
$(1)/$(2): obj/$(2).o $$(HARNESS)
	$$(NVCC) $$(call step_arch_flags,$(1)) -o $$@ $$^ $$(LDLIBS)
endef
$(foreach d,$(STEP_DIRS),$(eval $(call step_rule,$(d),$(call step_program,$(d)))))

# A step's other programs (any .cu in its folder but its own: a library's ceiling of its
# arithmetic, say), each built as cuBLAS is, for the build's architectures (not the step's own:
# plain CUDA or a library), linked with cuBLAS where its source includes it, into obj/<folder>/<name>.
define extra_rule
obj/$(basename $(1)): $(1) $$(wildcard $(dir $(1))*.h) $$(HEADERS) $$(HARNESS) $$(call arch_stamp_of,$(1))
	@mkdir -p $$(@D)
	$$(NVCC) $$(subst $$(ARCH_FLAGS),$$(call step_arch_flags,$(1)),$$(NVCCFLAGS)) $$(DEPFLAGS) \
	    -DSTEP_ARCHS='"$$(call archs_of,$$(call step_arch_flags,$(1)))"' -o $$@ $$< $$(HARNESS) $$(LDLIBS) \
	    $(if $(shell grep -l 'cublas_v2\.h' $(1)),-lcublas)
endef
$(foreach f,$(STEP_EXTRA_SOURCES),$(eval $(call extra_rule,$(f))))

# A step's build variants (its experiments.json's "variants": a -D parameter and the values it
# takes), each built as the step is: obj/variants/<folder>/<PARAMETER>/<value>/<program> is
# <folder>/<program>.cu with -D<PARAMETER>=<value>. The sweeps build the ones they run
# (scripts/experiment.py); nothing here names a step or a parameter.
variant_dir = $(word 1,$(subst /, ,$(1)))
variant_define = -D$(word 2,$(subst /, ,$(1)))=$(word 3,$(subst /, ,$(1)))
.SECONDEXPANSION:
obj/variants/%: $$(call variant_dir,$$*)/$$(notdir $$*).cu $$(call variant_dir,$$*)/Makefile \
                $$(wildcard $$(call variant_dir,$$*)/*.h) $$(HEADERS) \
                $$(HARNESS) $$(ARCH_STAMP)
	@mkdir -p $(@D)
	$(NVCC) $(subst $(ARCH_FLAGS),$(call step_arch_flags,$(call variant_dir,$*)),$(NVCCFLAGS)) $(DEPFLAGS) $(call variant_define,$*) \
	    -DSTEP_ARCHS='"$(call archs_of,$(call step_arch_flags,$(call variant_dir,$*)))"' -o $@ $< $(HARNESS) $(LDLIBS)

# The ceiling: cuBLAS, built with the same harness.
obj/cublas.o: cublas/cublas.cu $(HEADERS) $(ARCH_STAMP) | obj
	$(NVCC) $(NVCCFLAGS) -DSTEP_ARCHS='"$(call archs_of,$(ARCH_FLAGS))"' -c $< -o $@
cublas/cublas: obj/cublas.o $(HARNESS)
	$(NVCC) $(ARCH_FLAGS) -o $@ $^ $(LDLIBS) -lcublas

# The development versions in a step's versions/ folder (the step as it was before it became
# the step, each a whole program: diff shows one change at a time), built as their step is
# (its architecture too), into obj/versions/; scripts/experiment.py versions measures them
# beside the steps. Not part of all: CI builds all for each architecture in turn, and these
# would add about a minute and a half.
VERSION_DIRS := $(wildcard $(addsuffix /versions,$(STEP_DIRS)))
# $(1): a versions folder -> its step's architecture flags, or $(2) for a step without its own.
version_arch = $(if $(ARCH_$(patsubst %/versions,%,$(1))),$(call step_arch_flags,$(patsubst %/versions,%,$(1))),$(2))
VERSION_NAMES := $(basename $(notdir $(wildcard $(addsuffix /*.cu,$(VERSION_DIRS)))))
VERSION_PROGRAMS := $(addprefix obj/versions/,$(VERSION_NAMES))
# $(1): a versions folder, $(2): where its programs go, $(3): their architecture flags (STEP_ARCHS
# tells --describe, as for the steps), $(4): their stamp.
define version_rule
$(2)/%: $(1)/%.cu $(1)/../Makefile $$(HARNESS) $$(HEADERS) $(4)
	@mkdir -p $$(@D)
	$$(NVCC) $$(subst $$(ARCH_FLAGS),$(3),$$(NVCCFLAGS)) $$(DEPFLAGS) -DSTEP_ARCHS='"$$(call archs_of,$(3))"' \
	    -o $$@ $$< $$(HARNESS) $$(LDLIBS)
endef
$(foreach d,$(VERSION_DIRS),$(eval $(call version_rule,$(d),obj/versions,$$(call version_arch,$(d),$$(ARCH_FLAGS)),$$(ARCH_STAMP))))
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
cpu/cpu_gemm: $(CPU_OBJ) $(HARNESS)
	$(CC) $(CFLAGS) -o $@ $^ $(OPENBLAS_LIBS) -lm
ifeq ($(OPENBLAS),0)
	@echo "cpu_gemm: built without OpenBLAS (OPENBLAS=0): its comparisons skip"
else ifeq ($(OPENBLAS_LIBS),)
	@echo "cpu_gemm: built without OpenBLAS, the CPU chapter's optional ceiling (its comparisons skip): $(APT) libopenblas-dev"
endif

# The transpose chapter: kernels in CUDA C, the rest in C.
TRANSPOSE_OBJ := obj/transpose/transpose.o obj/transpose/cpu.o obj/transpose/kernels.o
obj/transpose/%.o: transpose/%.c transpose/transpose.h $(HEADERS) | obj/transpose
	$(CC) $(CFLAGS) -c $< -o $@
obj/transpose/kernels.o: transpose/kernels.cu transpose/transpose.h $(HEADERS) $(ARCH_STAMP) | obj/transpose
	$(NVCC) $(NVCCFLAGS) -c $< -o $@
transpose/transpose: $(TRANSPOSE_OBJ) $(HARNESS)
	$(NVCC) $(ARCH_FLAGS) -o $@ $^ $(LDLIBS)

# make gpu-info: the device, what each program's build carries (as it says: --describe's archs;
# the steps of one architecture carry it alone), and which programs run here and how.
gpu-info: all
	@python3 scripts/ladder.py archs | sed '1s/^/This build:        /; 2,$$s/^/                   /'
	@obj/gpu_info --describe || { code=$$?; [ $$code = 3 ] && exit 0; exit $$code; }; \
	echo "At n = 4096:"; \
	for p in $(PROGRAMS) cublas/cublas; do out=$$(./$$p --gpu-check -n 4096 2>&1); code=$$?; \
	    case $$code in 0) echo "  $$out";; 4) echo "  skips: $$out";; \
	    *) echo "  FAILS (exit $$code): $$out"; exit $$code;; esac; done

# Every architecture CUDA 13 builds for (what CI checks): each one whose machine code the default
# build does not hold, built on its own, then the default build, which compiles the others (without
# a GPU, the fat binary: sm_75, sm_80, sm_90, sm_100 and sm_120; so sm_86 and sm_89 on their own).
DEFAULT_MACHINE_ARCHS := $(patsubst sm_%,%,$(filter sm_%,$(call archs_of,$(ARCH_FLAGS))))
all-archs:
	@set -e; for a in $(filter-out $(DEFAULT_MACHINE_ARCHS),$(ALL_ARCHS)); do echo "== make ARCH=sm_$$a all"; \
	    $(MAKE) --no-print-directory ARCH=sm_$$a all > obj/all-archs-sm_$$a.log 2>&1 || \
	    { tail -n 30 obj/all-archs-sm_$$a.log; exit 1; }; done
	@echo "== make all (the default build)"; $(MAKE) --no-print-directory all > obj/all-archs-default.log 2>&1 || \
	    { tail -n 30 obj/all-archs-default.log; exit 1; }

obj/gpu_info: obj/common/gpu_info.o $(HARNESS)
	$(NVCC) -o $@ $^ $(LDLIBS)

# The development versions for one architecture, the GPU's or else sm_90 (their step's own,
# where it has one), so that make test proves they compile (tests/10-build.t) and, on a GPU,
# that they are right (tests/14-versions.t).
TEST_VERSIONS_ARCH := sm_$(or $(GPU_CC),90)
TEST_VERSIONS := $(addprefix obj/test/versions/,$(VERSION_NAMES))
ifeq ($(filter clean help,$(MAKECMDGOALS)),)
  $(call stamp,test-versions-arch,$(TEST_VERSIONS_ARCH))
endif
$(foreach d,$(VERSION_DIRS),$(eval $(call version_rule,$(d),obj/test/versions,\
    $$(call version_arch,$(d),-arch=$$(TEST_VERSIONS_ARCH)),obj/test-versions-arch.stamp)))

# What the tests build to force each failure a program must tell apart from "no GPU"
# (tests/09-exit-codes.t): two stand-in driver libraries (too old; failing), the first step
# with code for another GPU only (no kernel image), and the first step asking for compute
# capability 9.9, at least or exactly (lacks a feature).
FOREIGN_ARCH := $(if $(filter 75,$(GPU_CC)),80,75)
FIRST_DIR := $(firstword $(STEP_DIRS))
FIRST_STEP := $(call step_program,$(FIRST_DIR))
TEST_HELPERS := obj/fake_driver/old/libcuda.so.1 obj/fake_driver/failing/libcuda.so.1 \
                obj/test/foreign_arch obj/test/needs_cc99 obj/test/needs_exact99 \
                obj/test/hopper_test obj/test/tensor_core_arith obj/test/multigpu_partition \
                $(TEST_VERSIONS) $(STEP_TEST_HELPERS)
obj/fake_driver/old/libcuda.so.1: tests/fake_libcuda.c
	@mkdir -p $(@D)
	$(CC) -Wall -Wextra -shared -fPIC -DFAKE_DRIVER_VERSION=10020 -o $@ $<
obj/fake_driver/failing/libcuda.so.1: tests/fake_libcuda.c
	@mkdir -p $(@D)
	$(CC) -Wall -Wextra -shared -fPIC -DFAKE_DRIVER_VERSION=99000 -DFAKE_FAILS -o $@ $<
obj/test/foreign_arch: $(FIRST_DIR)/$(FIRST_STEP).cu $(HARNESS) $(HEADERS)
	@mkdir -p $(@D)
	$(NVCC) -O3 -gencode arch=compute_$(FOREIGN_ARCH),code=sm_$(FOREIGN_ARCH) -Icommon -o $@ $< $(HARNESS) $(LDLIBS)
obj/test/step_main_cc99.o: common/step_main.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DFORCE_MIN_CC=99 -c $< -o $@
obj/test/needs_cc99: obj/$(FIRST_STEP).o obj/test/step_main_cc99.o $(HARNESS)
	$(NVCC) $(ARCH_FLAGS) -o $@ $^ $(LDLIBS)
obj/test/step_main_exact99.o: common/step_main.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DFORCE_EXACT_CC=99 -c $< -o $@
obj/test/needs_exact99: obj/$(FIRST_STEP).o obj/test/step_main_exact99.o $(HARNESS)
	$(NVCC) $(ARCH_FLAGS) -o $@ $^ $(LDLIBS)

# Hopper's instructions, one wrapper each (common/device/tma.h, mbarrier.h, wgmma.h), exercised on
# the GPU by tests/16-hopper.t: built for sm_90a, their only architecture.
obj/test/hopper_test: tests/hopper_test.cu tests/tap.h $(HEADERS)
	@mkdir -p $(@D)
	$(NVCC) -O3 -gencode=arch=compute_90a,code=sm_90a -Icommon -o $@ $<

# The tensor core's arithmetic measured (the TMA's TF32 rounding, wgmma's sums) against the
# CPU model tests/tf32_model.h: sm_90a, run by tests/16-hopper.t.
obj/test/tensor_core_arith: tests/tensor_core_arith.cu tests/tf32_model.h tests/tap.h $(HEADERS)
	@mkdir -p $(@D)
	$(NVCC) -O3 -gencode=arch=compute_90a,code=sm_90a -Icommon -Itests -o $@ $<

# A step's own test helpers (stepNN_*/tests/*.c: the CPU models of its arithmetic, run by its
# tests/*.t), plain C like the shared ones, into obj/test/<folder>/<name>: no GPU.
define step_test_rule
obj/test/$(basename $(subst /tests/,/,$(1))): $(1) $$(wildcard $(dir $(1))*.h $(dir $(1))../*.h tests/*.h) $$(HARNESS) $$(HEADERS)
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) -Itests -I$(patsubst %/tests/,%,$(dir $(1))) -o $$@ $$< $$(HARNESS) -lm
endef
$(foreach f,$(STEP_TEST_SOURCES),$(eval $(call step_test_rule,$(f))))

# The multi-GPU chapter's cuts (multigpu/partition.h), checked on the CPU by tests/20-multigpu.t:
# plain C, no NCCL or GPU needed.
obj/test/multigpu_partition: tests/multigpu_partition.c multigpu/partition.h tests/tap.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests -o $@ $<

obj/harness_test: tests/harness_test.c tests/tap.h $(HARNESS) $(HEADERS) | obj
	$(CC) $(CFLAGS) -o $@ tests/harness_test.c $(HARNESS) -lm

obj obj/common obj/cpu obj/transpose:
	mkdir -p $@

# What each step's object, version and variant includes, as nvcc wrote it (DEPFLAGS).
-include $(shell find obj -name '*.d' 2>/dev/null)

ARGS ?= -n 1000
# make stepNN: build and run. Without a GPU (exit 3), or on one that lacks what the step
# needs (exit 4), the program's one line says so and make stops there without an error.
define run_rule
$(2): $(1)/$(2)
	@./$(1)/$(2) $$(ARGS) || { code=$$$$?; [ $$$$code = 3 ] || [ $$$$code = 4 ] || exit $$$$code; }
endef
$(foreach d,$(STEP_DIRS),$(eval $(call run_rule,$(d),$(call step_program,$(d)))))
$(eval $(call run_rule,cublas,cublas))

# SMEM_LIMIT=64K (or bytes) runs everything as a GPU with that much shared memory per
# block would: every program reads MATMUL_SMEM_LIMIT.
ifneq ($(SMEM_LIMIT),)
  export MATMUL_SMEM_LIMIT := $(SMEM_LIMIT)
endif

# The test files run side by side, one per CPU up to 8 (PROVE_FLAGS=-j1: one at a time).
# The shared tests in tests/, and each step's own in its folder (stepNN_*/tests/*.t).
# make test: one check per program, configuration and input family at a few sizes;
# make test-deep: the exhaustive searches too (the range families at many n, the short-sum
# searches, every configuration and version at every size): TEST_DEPTH=deep tells the tests.
PROVE_FLAGS ?= -j$(shell n=$$(nproc 2>/dev/null || echo 1); [ $$n -gt 8 ] && n=8; echo $$n)
TEST_FILES = tests/ $(wildcard $(addsuffix /tests,$(STEP_DIRS)))
# The programs and test helpers build one job per CPU unless make was given its own -j.
TEST_BUILD_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc))
test test-deep:
	@echo "make $@: building the programs and test helpers first$(if $(GPU_CC)$(ARCH),, (no GPU here: each for $(words $(FAT_ARCHS)) architectures$(comma) most of the time on a small machine))"
	$(MAKE) --no-print-directory $(TEST_BUILD_JOBS) all obj/harness_test $(TEST_HELPERS)
	$(if $(filter test-deep,$@),TEST_DEPTH=deep )prove $(PROVE_FLAGS) $(TEST_FILES)
.PHONY: test-deep

# compare, the sweeps, reproduce, plots, profile, sanitize, regs: measure.mk.
include measure.mk

# The CUTLASS peer (tensor cores): its headers, its program and its tile sweep.
include cutlass/cutlass.mk

# The GEMMul8 peer (Ozaki scheme II): its library, built from source, and its program.
include gemmul8/gemmul8.mk

# The multi-GPU chapter: NCCL, cuBLAS, cuBLASMp.
include multigpu/multigpu.mk

clean:
	rm -rf obj $(PROGRAMS) cublas/cublas cpu/cpu_gemm transpose/transpose multigpu/multigpu

# A NAME=value on make's command line that no makefile here reads changes nothing: most likely a
# misspelling (DIST for DISTS). Each is said in one line, with the name make help gives that one of
# the two begins (DISTS), before anything is built. What the makefiles read is found in them
# ($(NAME), NAME = ..., NAME=... in a recipe, ifdef NAME); what make itself, the CUDA runtime,
# NCCL, OpenMP and the programs (MATMUL_*) read from the environment passes.
ifeq ($(MAKELEVEL),0)
  GIVEN_VARIABLES := $(foreach v,$(.VARIABLES),$(if $(filter command line,$(origin $(v))),$(v)))
  ifneq ($(GIVEN_VARIABLES),)
    READ_VARIABLES := $(shell grep -ohE '\$$[[:punct:]][A-Za-z_][A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_]* *[:?+!]?=|(ifn?def|origin) +[A-Za-z_][A-Za-z0-9_]*' \
        $(filter-out obj/%,$(MAKEFILE_LIST)) | sed -E 's/^\$$[[:punct:]]//; s/ *[:?+!]?=$$//; s/^(ifn?def|origin) +//')
    HELP_VARIABLES := $(sort $(patsubst %=,%,$(shell sed -n '/^help:/,/^$$/p' Makefile | grep -oE '[A-Z][A-Z0-9_]*=')))
    meant = $(firstword $(filter $(1)%,$(HELP_VARIABLES)) $(foreach k,$(HELP_VARIABLES),$(if $(filter $(k)%,$(1)),$(k))))
    unread = $(1)=$($(1)) is no variable this Makefile reads, so it changes nothing$(if $(call meant,$(1)),: \
        did you mean $(call meant,$(1))=?, (make help names the variables each target reads))
    $(foreach v,$(filter-out $(READ_VARIABLES) SHELL MAKE% VPATH GPATH MATMUL_% CUDA_% NCCL_% OMP_%,$(GIVEN_VARIABLES)),\
        $(warning $(call unread,$(v))))
  endif
endif
