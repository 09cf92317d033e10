# Included by each step's Makefile, so `make` (build) and `make run` (n = 1000) work
# inside a step's folder. The rules themselves live in the top Makefile.
STEP_DIR := $(notdir $(CURDIR))
STEP_PROG := $(firstword $(subst _, ,$(STEP_DIR)))

all:
	$(MAKE) -C .. $(STEP_DIR)/$(STEP_PROG)
run:
	$(MAKE) -C .. $(STEP_PROG)
clean:
	$(MAKE) -C .. clean
.PHONY: all run clean
