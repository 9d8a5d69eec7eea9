# SPDX-License-Identifier: GPL-2.0-only
# libFuzzer targets: built with clang, ASan and UBSan into build/fuzz.
#
#   make fuzz                 build, then run each target for FUZZ_SECONDS (60)
#   make fuzz FUZZ_SECONDS=5  shorter; FUZZ_TARGETS="pagewalk" picks targets
#   make fuzz-bins            build only
#   scripts/check-fuzz.sh     a few seconds each, run by `make check`
#
# A target NAME is fuzz/fuzz_NAME.c linked with the product sources listed in
# FUZZ_SRCS_NAME, compiled with the same flags (plus FUZZ_CFLAGS_NAME), and
# run with libFuzzer options FUZZ_ARGS_NAME (plus FUZZ_ARGS for all). Seeds
# live in fuzz/corpus/NAME/ (read only); what libFuzzer finds goes to
# FUZZ_CORPUS/NAME/ (default build/fuzz/corpus), crash inputs to
# build/fuzz/artifacts/NAME-crash-*. Reproduce one with
#   build/fuzz/fuzz_NAME build/fuzz/artifacts/NAME-crash-...
# The seeds are written by fuzz/make-seeds.py (rerun it when an input layout,
# documented at the top of each fuzz_NAME.c, changes).
#
# Hook for ntpmu's caller-buffer parsers (hosted build), once they exist: add
# fuzz/fuzz_ntpmu_X.c, then here
#   FUZZ_NTPMU_TARGETS += ntpmu_X
#   FUZZ_SRCS_ntpmu_X := guest-shim/ntpmu/X.c
#   FUZZ_CFLAGS_ntpmu_X := -Iguest-shim/include -D<hosted-build macro>
# and a seed directory fuzz/corpus/ntpmu_X/. Nothing else needs to change.

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_O := build/fuzz
FUZZ_CORPUS ?= $(FUZZ_O)/corpus
FUZZ_ARGS ?=

FUZZ_NTPMU_TARGETS := ntpmu_hal ntpmu_perflib
FUZZ_TARGETS ?= multiboot linux vpmu_msr vpmu_amd pagewalk $(FUZZ_NTPMU_TARGETS)

FUZZ_SRCS_multiboot := vmm/boot/multiboot.c vmm/mem/guest_mem.c
# Room for a multiboot header anywhere in the 8 KiB the loader searches.
FUZZ_ARGS_multiboot := -max_len=12288
FUZZ_SRCS_linux := vmm/boot/linux.c vmm/boot/vmlinux.c vmm/boot/acpi.c vmm/mem/guest_mem.c
# A bzImage's header and a vmlinux's program headers and notes.
FUZZ_ARGS_linux := -max_len=8192
FUZZ_SRCS_vpmu_msr := $(sort $(wildcard vmm/model/*.c))
# Every operation re-reads every MSR: keep sequences short, and do not trace
# the dispatch table's comparisons on each of those reads (twice the runs;
# operands come from tables and masks, not from compared constants).
FUZZ_ARGS_vpmu_msr := -max_len=1024
FUZZ_CFLAGS_vpmu_msr := -fno-sanitize-coverage=trace-cmp
FUZZ_SRCS_vpmu_amd := $(sort $(wildcard vmm/model/*.c))
FUZZ_ARGS_vpmu_amd := -max_len=1024
FUZZ_SRCS_pagewalk := vmm/mem/pagewalk.c vmm/mem/guest_mem.c
# Page tables spread over the first pages of the fake RAM.
FUZZ_ARGS_pagewalk := -max_len=32768

FUZZ_SRCS_ntpmu_hal := $(sort $(wildcard guest-shim/ntpmu/*.c vmm/model/*.c))
FUZZ_CFLAGS_ntpmu_hal := -Iguest-shim/ntpmu -Iguest-shim/include
FUZZ_ARGS_ntpmu_hal := -max_len=512
FUZZ_SRCS_ntpmu_perflib := guest-shim/ntpmu/ntpmu_perf_blocks.c
FUZZ_CFLAGS_ntpmu_perflib := -Iguest-shim/ntpmu -Iguest-shim/include
FUZZ_ARGS_ntpmu_perflib := -max_len=4096

comma := ,
FUZZ_SAN := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer $(WARNINGS) \
	-Iinclude -Ivmm
# Product objects get the instrumentation without libFuzzer's main().
FUZZ_OBJ_SAN := $(subst fuzzer,fuzzer-no-link,$(FUZZ_SAN))
FUZZ_HARNESS_SAN := $(subst fuzzer$(comma),,$(FUZZ_SAN))

FUZZ_BINS := $(FUZZ_TARGETS:%=$(FUZZ_O)/fuzz_%)
FUZZ_DEPS := $(foreach t,$(FUZZ_TARGETS),\
	$(patsubst %.c,$(FUZZ_O)/obj/$(t)/%.d,fuzz/fuzz_$(t).c $(FUZZ_SRCS_$(t))))

.PHONY: fuzz fuzz-bins fuzz-engines

# The counting engines against each other on random generated sequences (needs KVM).
fuzz-engines: all
	$(Q)scripts/fuzz-engines.sh $(O) $(FUZZ_SECONDS)

fuzz-bins: $(FUZZ_BINS)

# Every target runs even if one fails; the exit status says whether any did.
fuzz: fuzz-bins
	@mkdir -p $(FUZZ_O)/artifacts
	@failed=""; \
	$(foreach t,$(FUZZ_TARGETS),\
		mkdir -p $(FUZZ_CORPUS)/$(t); \
		echo "== fuzz_$(t) for $(FUZZ_SECONDS)s"; \
		$(FUZZ_O)/fuzz_$(t) -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
			-print_final_stats=1 -artifact_prefix=$(FUZZ_O)/artifacts/$(t)- \
			$(FUZZ_ARGS_$(t)) $(FUZZ_ARGS) $(FUZZ_CORPUS)/$(t) fuzz/corpus/$(t) \
			|| failed="$$failed $(t)";) \
	if [ -n "$$failed" ]; then \
		echo "fuzz: FAILED:$$failed (inputs in $(FUZZ_O)/artifacts/)"; exit 1; \
	fi

# Objects go under one directory per target, so a target's FUZZ_CFLAGS_NAME
# never leak into another target's build of a shared source.
# The harness itself (fuzz/) gets the sanitizers but no coverage feedback:
# its oracle runs after every operation, and tracing its comparisons costs
# more than the code under test while guiding nothing.
define FUZZ_TARGET_RULES
$(FUZZ_O)/obj/$(1)/%.o: %.c
	@mkdir -p $$(@D)
	$$(E) FUZZCC $$<
	$$(Q)$$(FUZZ_CC) $$(FUZZ_CFLAGS) $$(if $$(filter fuzz/%,$$<),$$(FUZZ_HARNESS_SAN),$$(FUZZ_OBJ_SAN)) \
		$$(FUZZ_CFLAGS_$(1)) $$(DEPFLAGS) -c -o $$@ $$<

$(FUZZ_O)/fuzz_$(1): $(patsubst %.c,$(FUZZ_O)/obj/$(1)/%.o,fuzz/fuzz_$(1).c $(FUZZ_SRCS_$(1)))
	$$(E) FUZZLD $$@
	$$(Q)$$(FUZZ_CC) $$(FUZZ_SAN) -o $$@ $$^
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call FUZZ_TARGET_RULES,$(t))))

ifeq ($(filter clean deps deps-check,$(MAKECMDGOALS)),)
-include $(FUZZ_DEPS)
endif
