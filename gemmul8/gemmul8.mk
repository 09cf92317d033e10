# The GEMMul8 peer (gemmul8/README.md): RIKEN R-CCS's Ozaki scheme II library, its SGEMM
# emulation on INT8 tensor cores, on the shared harness. Included by the top Makefile.

# The library is built from its source, pinned to one commit, into third_party/ (ignored by
# git): `make gemmul8-lib` clones it (the network is needed once) and compiles it for one
# architecture, GEMMUL8_ARCH (90: the H100 and H200). Its one source file takes about a quarter
# of an hour; a machine without the network or the time can be given the built folder.
GEMMUL8_COMMIT := 71296f99a812fb3cb694768d01855837a57c5086
GEMMUL8_DIR := third_party/gemmul8-$(shell printf %.7s $(GEMMUL8_COMMIT))
GEMMUL8_LIB := $(GEMMUL8_DIR)/GEMMul8/lib/libgemmul8.a
GEMMUL8_ARCH ?= 90

.PHONY: gemmul8 gemmul8-lib gemmul8-clean

gemmul8-lib: $(GEMMUL8_LIB)
$(GEMMUL8_LIB):
	@mkdir -p third_party
	@[ -d $(GEMMUL8_DIR)/GEMMul8 ] || { git clone -q https://github.com/RIKEN-RCCS/GEMMul8 $(GEMMUL8_DIR) && \
	    git -C $(GEMMUL8_DIR) checkout -q $(GEMMUL8_COMMIT); } || \
	    { echo "gemmul8-lib: could not clone GEMMul8 at $(GEMMUL8_COMMIT): run make gemmul8-lib again where git reaches github.com, or copy the clone into $(GEMMUL8_DIR)"; exit 1; }
	$(MAKE) -C $(GEMMUL8_DIR)/GEMMul8 BACKEND=cuda GPU_ARCH=$(GEMMUL8_ARCH) lib/libgemmul8.a

# Our file has no kernels of its own: it is compiled for the library's architecture, C++20 as
# the library's header wants, with that header as a system header (-Wall -Wextra judge our code).
# STEP_ARCHS names that one architecture, without PTX: the harness takes it as the one compute
# capability the program runs on (any other GPU: exit 4, saying why).
GEMMUL8_ARCH_FLAGS := -gencode arch=compute_$(GEMMUL8_ARCH),code=sm_$(GEMMUL8_ARCH)
GEMMUL8_NVCCFLAGS := $(subst $(ARCH_FLAGS),$(GEMMUL8_ARCH_FLAGS),$(NVCCFLAGS)) -std=c++20 \
    -isystem $(GEMMUL8_DIR)/GEMMul8/include

obj/gemmul8.o: gemmul8/gemmul8.cu $(HEADERS) $(GEMMUL8_LIB) | obj
	$(NVCC) $(GEMMUL8_NVCCFLAGS) -DSTEP_ARCHS='"sm_$(GEMMUL8_ARCH)"' -DGEMMUL8_CC=$(GEMMUL8_ARCH) -c $< -o $@
gemmul8/gemmul8: obj/gemmul8.o $(HARNESS) $(GEMMUL8_LIB)
	$(NVCC) $(GEMMUL8_ARCH_FLAGS) -o $@ obj/gemmul8.o $(HARNESS) $(GEMMUL8_LIB) -lcublas -lcublasLt $(LDLIBS)

# make all builds it only where the library already is: it must never need the network.
ifneq ($(wildcard $(GEMMUL8_LIB)),)
  all build: gemmul8/gemmul8
endif

# make gemmul8: build the library if need be, the program, and run its three settings (ARGS).
# Without a GPU (exit 3) or on another architecture (exit 4) the program says so and make goes on.
gemmul8: gemmul8/gemmul8
	@for math in accurate-8 fast-8 fast-7; do ./gemmul8/gemmul8 $(ARGS) --math $$math || \
	    { code=$$?; case $$code in 3|4) break;; *) exit $$code;; esac; }; done

clean: gemmul8-clean
gemmul8-clean:
	rm -f gemmul8/gemmul8
