# Included by each step's Makefile, so `make` (build) and `make run` (n = 1000) work
# inside a step's folder. The rules themselves live in the top Makefile, which reads every
# step's Makefile for what it declares (STEP_ARCH) and sets READING_STEP_MAKEFILES meanwhile:
# then nothing here is defined.
ifndef READING_STEP_MAKEFILES
STEP_DIR := $(notdir $(CURDIR))
STEP_PROG := $(firstword $(subst _, ,$(STEP_DIR)))

all:
	$(MAKE) -C .. $(STEP_DIR)/$(STEP_PROG)
run:
	$(MAKE) -C .. $(STEP_PROG)
clean:
	$(MAKE) -C .. clean
.PHONY: all run clean
endif
