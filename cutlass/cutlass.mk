# The CUTLASS peer (cutlass/README.md): NVIDIA's tensor-core SGEMM kernels, TF32 and
# 3xTF32, on the shared harness. Included by the top Makefile.

# CUTLASS is headers only. They come pinned, from the nvidia-cutlass wheel on PyPI (a zip
# file that carries them), so that no git clone of the whole repository is needed; a
# machine without the network (the GPU machines) is given the wheel file itself.
CUTLASS_VERSION := 4.2.0.0
CUTLASS_WHEEL := third_party/nvidia_cutlass-$(CUTLASS_VERSION)-py3-none-any.whl
CUTLASS_DIR := third_party/cutlass-$(CUTLASS_VERSION)
CUTLASS_INCLUDE := $(CUTLASS_DIR)/include
CUTLASS_MARKER := $(CUTLASS_DIR)/unpacked
CUTLASS_WHEEL_INCLUDE := cutlass_library/source/include/

.PHONY: cutlass cutlass-headers cutlass-clean

# make cutlass-headers: download the wheel unless it is already there, and unzip its
# include/ alone (Python's zipfile: no unzip needed). The marker is written last, so an
# interrupted run is redone. Only an explicit target gets here: make all never downloads.
cutlass-headers: $(CUTLASS_MARKER)
$(CUTLASS_MARKER):
	@command -v python3 > /dev/null || { echo "cutlass-headers: python3 is needed to fetch and unpack CUTLASS: sudo apt-get install python3 python3-pip"; exit 1; }
	@mkdir -p third_party
	@[ -f $(CUTLASS_WHEEL) ] || python3 -m pip download --no-deps --only-binary=:all: \
	    nvidia-cutlass==$(CUTLASS_VERSION) -d third_party/ > third_party/pip.log 2>&1 || \
	    { why=$$(grep -qiE 'connection|resolution|timed out|proxy' third_party/pip.log && echo "PyPI could not be reached" || \
	             grep -v '^ *$$' third_party/pip.log | tail -n 1); \
	      echo "cutlass-headers: could not download nvidia-cutlass==$(CUTLASS_VERSION) ($$why; third_party/pip.log has the rest): run make cutlass-headers again where pip reaches PyPI, or copy $(notdir $(CUTLASS_WHEEL)) into third_party/"; exit 1; }
	@rm -rf third_party/pip.log $(CUTLASS_DIR) $(CUTLASS_DIR).tmp
	@python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); \
	    z.extractall(sys.argv[2], [n for n in z.namelist() if n.startswith(sys.argv[3]) or n.endswith("/LICENSE.txt")])' \
	    $(CUTLASS_WHEEL) $(CUTLASS_DIR).tmp $(CUTLASS_WHEEL_INCLUDE) || \
	    { echo "cutlass-headers: $(CUTLASS_WHEEL) is not a readable wheel: delete it and run make cutlass-headers again"; exit 1; }
	@mkdir -p $(CUTLASS_DIR)
	@mv $(CUTLASS_DIR).tmp/$(CUTLASS_WHEEL_INCLUDE) $(CUTLASS_INCLUDE)
	@mv $(CUTLASS_DIR).tmp/nvidia_cutlass-$(CUTLASS_VERSION).dist-info/licenses/LICENSE.txt $(CUTLASS_DIR)/
	@rm -rf $(CUTLASS_DIR).tmp
	@touch $@
	@echo "cutlass-headers: CUTLASS $(CUTLASS_VERSION)'s headers in $(CUTLASS_INCLUDE)"

# The kernels are CUTLASS's Sm80 ones (mma.sync, cp.async): compute capability 8.0 and up.
# The default fat build carries machine code for the first architecture of each major
# version from 8.0 on (sm_80, sm_90, sm_100, sm_120: the others of a major version run
# its code, sm_86 and sm_89 run sm_80's), and PTX of the newest. Each architecture compiles
# every kernel again, the slowest part of the whole build, and these kernels are the same
# code on 8.0 and 8.9.
# sm_75 is left out: its code could never run (the harness stops the program on a GPU
# below 8.0, step_info.min_cc). ARCH=sm_XX builds for that one, sm_75 included.
CUTLASS_ARCHS := $(filter-out 7%,$(filter %0,$(FAT_ARCHS)))
ifeq ($(ARCH)$(GPU_CC),)
  CUTLASS_ARCH_FLAGS := $(foreach a,$(CUTLASS_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
                        -gencode arch=compute_$(lastword $(CUTLASS_ARCHS)),code=compute_$(lastword $(CUTLASS_ARCHS))
else
  CUTLASS_ARCH_FLAGS := $(ARCH_FLAGS)
endif
# The steps' flags with these architectures, C++17, and CUTLASS's headers as system
# headers (-isystem), so that -Wall -Wextra judge our code and not theirs.
CUTLASS_NVCCFLAGS := $(subst $(ARCH_FLAGS),$(CUTLASS_ARCH_FLAGS),$(NVCCFLAGS)) -std=c++17 -isystem $(CUTLASS_INCLUDE)

obj/cutlass.o: cutlass/cutlass.cu $(HEADERS) $(ARCH_STAMP) $(CUTLASS_MARKER) | obj
	$(NVCC) $(CUTLASS_NVCCFLAGS) -DSTEP_ARCHS='"$(call archs_of,$(CUTLASS_ARCH_FLAGS))"' -c $< -o $@
cutlass/cutlass: obj/cutlass.o $(HARNESS)
	$(NVCC) $(CUTLASS_ARCH_FLAGS) -o $@ $^ $(LDLIBS)

# make all builds it only where the headers already are: it must never need the network.
ifneq ($(wildcard $(CUTLASS_MARKER)),)
  all build: cutlass/cutlass
endif

# make cutlass: fetch the headers if need be, build, and run both arithmetics (ARGS). Without
# a GPU (exit 3) or on one older than 8.0 (exit 4) the program says so and make goes on.
cutlass: cutlass/cutlass
	@for math in tf32 3xtf32; do ./cutlass/cutlass $(ARGS) --math $$math || \
	    { code=$$?; case $$code in 3|4) break;; *) exit $$code;; esac; }; done

# The downloaded headers stay (third_party/: remove it to fetch them again).
clean: cutlass-clean
cutlass-clean:
	rm -f cutlass/cutlass
