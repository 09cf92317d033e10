# The multi-GPU chapter (multigpu/README.md): host C11 with OpenMP, NCCL between the GPUs,
# cuBLAS on each, and cuBLASMp beside them where make cublasmp fetched it. Included by the
# top Makefile. NCCL is optional, like OpenBLAS: without it the chapter is not built and its
# tests skip, saying why.

# NCCL: the pinned wheel's (make nccl), else the CUDA toolkit's, else the system's, else the
# one a Python install carries (PyTorch's nvidia-nccl wheel); NCCL_HOME=DIR names another
# (DIR/include/nccl.h and DIR/lib/libnccl.so.2).
NCCL_VERSION := 2.29.7
CUBLASMP_VERSION := 0.9.1.3056
NCCL_PINNED := third_party/nccl-$(NCCL_VERSION)/nvidia/nccl
CUBLASMP_PINNED := third_party/cublasmp-$(CUBLASMP_VERSION)/nvidia/cublasmp/cu13
NCCL_HOME ?= $(firstword $(foreach d,$(NCCL_PINNED) $(CUDA_HOME) /usr,$(if $(wildcard $(d)/include/nccl.h),$(d))))
ifeq ($(NCCL_HOME),)
  NCCL_HOME := $(shell python3 -c 'import nvidia.nccl as m, os; d = list(m.__path__)[0]; \
      print(d if os.path.exists(os.path.join(d, "include", "nccl.h")) else "")' 2>/dev/null)
endif
NCCL_LIB := $(firstword $(wildcard $(addprefix $(NCCL_HOME)/,lib/libnccl.so.2 lib64/libnccl.so.2 \
                lib/x86_64-linux-gnu/libnccl.so.2)))
CUBLASMP_HOME ?= $(if $(wildcard $(CUBLASMP_PINNED)/include/cublasmp.h),$(CUBLASMP_PINNED))

MULTIGPU_OBJ := $(patsubst multigpu/%.c,obj/multigpu/%.o,$(wildcard multigpu/*.c))
# cuBLASMp is loaded by the program when asked for (multigpu/cublasmp.c says why), from here.
# These flags come before CFLAGS: the CUDA toolkit's include folder may hold an older nccl.h,
# which must not stand in for NCCL_HOME's.
MULTIGPU_CFLAGS := -I$(NCCL_HOME)/include \
    $(if $(CUBLASMP_HOME),-DHAVE_CUBLASMP -I$(CUBLASMP_HOME)/include -DCUBLASMP_LIB='"$(abspath $(CUBLASMP_HOME))/lib/libcublasmp.so.0"')
# Linked by path (a wheel carries libnccl.so.2 only, no libnccl.so), found again at run time
# through the rpath.
MULTIGPU_LIBS := $(NCCL_LIB) -Wl,-rpath,$(abspath $(dir $(NCCL_LIB))) -L$(CUDA_HOME)/lib64 -lcublas -lcudart -ldl -lm
ifeq ($(filter clean help,$(MAKECMDGOALS)),)
  $(call stamp,multigpu,$(MULTIGPU_CFLAGS) $(MULTIGPU_LIBS))
endif

.PHONY: nccl cublasmp multigpu multigpu-sweep
ifneq ($(NCCL_LIB),)
all build: multigpu/multigpu
obj/multigpu/%.o: multigpu/%.c multigpu/cluster.h $(HEADERS) obj/multigpu.stamp
	@mkdir -p $(@D)
	$(CC) $(MULTIGPU_CFLAGS) $(CFLAGS) -c $< -o $@
multigpu/multigpu: $(MULTIGPU_OBJ) $(HARNESS)
	$(CC) $(CFLAGS) -o $@ $^ $(MULTIGPU_LIBS)
	@$(if $(CUBLASMP_HOME),,echo "multigpu: built without cuBLASMp, the chapter's peer (its runs skip): make cublasmp fetches it")
else
all build: multigpu-missing
.PHONY: multigpu-missing
multigpu-missing:
	@echo "multigpu: not built: NCCL not found (no nccl.h in $(CUDA_HOME)/include or /usr/include): make nccl fetches it"
endif

# make multigpu: the chapter's table on every GPU of this machine; make multigpu-sweep: the
# scaling runs its README shows, rows into results/<device>-multigpu.csv. As make stepNN: without a
# GPU (exit 3), or with fewer than it needs (exit 4), the program's one line says so and make stops
# there without an error.
multigpu: multigpu/multigpu
	@./multigpu/multigpu -n 8192 || { code=$$?; [ $$code = 3 ] || [ $$code = 4 ] || exit $$code; }
multigpu-sweep: multigpu/multigpu
	python3 scripts/multigpu_sweep.py

# make nccl, make cublasmp: the pinned wheels from PyPI, unpacked into third_party/ (pip
# download only: nothing is installed). cuBLASMp 0.9 calls NCCL 2.29's functions, so it
# brings the pinned NCCL too; a machine without the network is given the wheel files.
# $(1): the PyPI name, $(2): its version, $(3): the folder it unpacks into.
define fetch_wheel
	@mkdir -p third_party
	@ls third_party/$(subst -,_,$(1))-$(2)-*.whl > /dev/null 2>&1 || python3 -m pip download --no-deps \
	    --only-binary=:all: --platform manylinux_2_28_x86_64 --platform manylinux_2_18_x86_64 --platform manylinux_2_17_x86_64 \
	    --platform manylinux2014_x86_64 $(1)==$(2) -d third_party/ > third_party/pip.log 2>&1 || \
	    { echo "$(1): could not download $(1)==$(2) (third_party/pip.log says why): run it again where pip reaches PyPI, or copy the wheel into third_party/"; exit 1; }
	@rm -rf $(3) && python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' \
	    $$(ls third_party/$(subst -,_,$(1))-$(2)-*.whl | head -n 1) $(3)
	@echo "$(1) $(2) in $(3)"
endef
nccl: third_party/nccl-$(NCCL_VERSION)/unpacked
third_party/nccl-$(NCCL_VERSION)/unpacked:
	$(call fetch_wheel,nvidia-nccl-cu13,$(NCCL_VERSION),third_party/nccl-$(NCCL_VERSION))
	@touch $@
cublasmp: third_party/nccl-$(NCCL_VERSION)/unpacked third_party/cublasmp-$(CUBLASMP_VERSION)/unpacked
third_party/cublasmp-$(CUBLASMP_VERSION)/unpacked:
	$(call fetch_wheel,nvidia-cublasmp-cu13,$(CUBLASMP_VERSION),third_party/cublasmp-$(CUBLASMP_VERSION))
	@touch $@
