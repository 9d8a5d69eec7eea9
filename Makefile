# SPDX-License-Identifier: GPL-2.0-only
# pmuvm: a KVM VMM that boots multiboot guests and Linux kernels and gives
# them an emulated Intel (v1-v5, PEBS) or AMD (PerfMonV2) PMU.
#
#   make            build pmuvm, its man page, the guest runtime and the guests
#   make run        build and boot the demo guest (installs missing packages
#                   first: make deps, and the lab's where it boots the demo)
#   make check      build and run every test (installs missing packages first:
#                   make deps-check); system tests run in the lab (tests/lab/)
#                   without /dev/kvm
#   make check-lab  the system tests in the labs (SVM; VMX: a share), even where
#                   /dev/kvm is usable (PMUVM_LABS="svm vmx" chooses)
#   make coverage   branch coverage of the vPMU model
#   make compare    the compare guest under QEMU/KVM and under pmuvm, side by side
#                   (COMPARE_ARGS="--pmu amd": pmuvm's AMD PMU)
#   make bench      measure what the virtual PMU costs (table + build/bench.json)
#   make install    PREFIX=/usr/local DESTDIR=  (pmuvm and pmuvm.1, the guest images,
#                   qemu-configs/, the guest SDK: library, headers, pmuvm-guest.pc;
#                   the docs and licenses); make uninstall with the same removes it
#   make dist       build/pmuvm-VERSION.tar.gz of HEAD (git archive + VERSION)
#   make deps       the Debian packages to build and run (deps-check: and to test)
#   make V=1        show the commands; WERROR=1 to fail on warnings (CI does)
#   make SANITIZE=1 ASan+UBSan build of pmuvm and the hosted tests (under build/asan)
#   make fuzz       build the libFuzzer targets (mk/fuzz.mk) and run each FUZZ_SECONDS=60

SANITIZE ?= 0
ifeq ($(SANITIZE),1)
O ?= build/asan
else
O ?= build
endif
V ?= 0
WERROR ?= 0
PREFIX ?= /usr/local
DESTDIR ?=

CC ?= gcc
ifeq ($(origin CC),default)
CC := gcc
endif
OBJCOPY ?= objcopy
AR ?= ar

ifeq ($(V),1)
Q :=
E := @true
else
Q := @
E := @printf '  %-7s %s\n'
endif

WARNINGS := -Wall -Wextra -Wformat=2 -Wmissing-prototypes -Wstrict-prototypes \
	    -Wold-style-definition -Wundef -Wwrite-strings -Wshadow -Wno-unused-parameter
ifeq ($(WERROR),1)
WARNINGS += -Werror
endif

DEPFLAGS = -MMD -MP
HOST_CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g $(WARNINGS) -Iinclude -Ivmm $(CFLAGS)
HOST_LDLIBS := -lpthread -lrt -lm -lZydis -ljson-c -lunicorn
ifeq ($(SANITIZE),1)
HOST_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
HOST_LDFLAGS += -fsanitize=address,undefined
endif
ifeq ($(COVERAGE),1)
HOST_CFLAGS += --coverage -O0
HOST_LDFLAGS += --coverage
endif

CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck)

# Guest code is freestanding x86-64, linked low (identity mapped) and shipped as
# an ELF32 multiboot image so that QEMU's -kernel accepts the same file.
# GUEST_ARCH_CFLAGS and GUEST_LINK_FLAGS are also what the installed
# pmuvm-guest.pc hands an out-of-tree guest: GNU C (the runtime's headers use
# asm), no SSE (the runtime saves no FPU state on interrupts and switches).
GUEST_ARCH_CFLAGS := -std=gnu11 -m64 -ffreestanding -fno-builtin \
	-fno-pic -fno-pie -fno-stack-protector -fno-asynchronous-unwind-tables \
	-mno-red-zone -mno-sse -mno-sse2 -mno-mmx -mno-avx -mgeneral-regs-only \
	-fno-omit-frame-pointer
GUEST_CFLAGS := $(GUEST_ARCH_CFLAGS) -nostdinc -isystem $(shell $(CC) -print-file-name=include) \
	-O2 -g $(WARNINGS) -Iinclude -Iguest-shim/include
GUEST_LINK_FLAGS := -nostdlib -static -Wl,--build-id=none -Wl,-z,max-page-size=0x1000 \
	-Wl,-z,noexecstack
GUEST_LDFLAGS := $(GUEST_LINK_FLAGS) -T guest-shim/rt/guest.ld

# The version (scripts/version.sh: git describe, or the VERSION file of a
# release tarball) goes into pmuvm --version, the man page and
# pmuvm-guest.pc. $(O)/version changes only with it, so that only what
# prints it is rebuilt.
PMUVM_VERSION := $(shell scripts/version.sh)
VERSION_CFLAGS := -DPMUVM_VERSION='"$(PMUVM_VERSION)"'

# ---- sources ---------------------------------------------------------------
VMM_MAIN := vmm/main.c
VMM_SRCS := $(filter-out $(VMM_MAIN),$(sort $(wildcard vmm/*.c vmm/*/*.c)))
VMM_OBJS := $(VMM_SRCS:%.c=$(O)/%.o)
LIBPMUVM := $(O)/libpmuvm.a
PMUVM := $(O)/pmuvm

GUEST_LIB_SRCS := $(sort $(wildcard guest-shim/rt/*.S guest-shim/rt/*.c guest-shim/lib/*.c guest-shim/ntpmu/*.c guest-shim/ntpmu-rt/*.c))
GUEST_LIB_OBJS := $(patsubst %,$(O)/guest/%.o,$(basename $(GUEST_LIB_SRCS)))
LIBGUEST := $(O)/guest/libpmuvm-guest.a
GUEST_TESTS := $(sort $(wildcard tests/guests/*.c))
GUEST_ELFS := $(patsubst tests/guests/%.c,$(O)/guests/%.elf,$(GUEST_TESTS)) $(O)/guests/demo.elf
DEMO_SRCS := $(sort $(wildcard guest-shim/demo/*.c))

TEST_LIB_SRCS := $(sort $(wildcard tests/lib/*.c))
# The ntpmu core is also built hosted, for its unit tests on a fake platform.
NTPMU_CORE_SRCS := $(sort $(wildcard guest-shim/ntpmu/*.c))
UNIT_SRCS := $(sort $(wildcard tests/unit/*.c))
SYSTEM_SRCS := $(sort $(wildcard tests/system/*.c))
UNIT_BIN := $(O)/tests/unit-tests
SYSTEM_BIN := $(O)/tests/system-tests

ALL_HOST_OBJS := $(VMM_OBJS) $(O)/$(VMM_MAIN:.c=.o) $(UNIT_SRCS:%.c=$(O)/%.o) \
	$(SYSTEM_SRCS:%.c=$(O)/%.o) $(TEST_LIB_SRCS:%.c=$(O)/%.o) $(NTPMU_CORE_SRCS:%.c=$(O)/%.o)
DEPS := $(ALL_HOST_OBJS:.o=.d) $(GUEST_LIB_OBJS:.o=.d) \
	$(GUEST_TESTS:%.c=$(O)/guest/%.d) $(DEMO_SRCS:%.c=$(O)/guest/%.d)

.PHONY: all run check check-lab linux-image deps deps-check test-bins unit system coverage \
	bench install uninstall dist clean
.DEFAULT_GOAL := all
.SECONDARY:

MAN := $(O)/pmuvm.1
# pmuvm run's helpers (docs/run.md): the kernel fetcher and the initramfs's
# /init, found by pmuvm in $(O)/libexec here and in $(PREFIX)/libexec/pmuvm
# once installed.
RUN_LIBEXEC := $(O)/libexec/pmuvm-kernel $(O)/libexec/pmuvm-run-init

all: $(PMUVM) $(MAN) $(GUEST_ELFS) $(RUN_LIBEXEC)

$(O)/libexec/pmuvm-kernel: scripts/pmuvm-kernel
	@mkdir -p $(@D)
	$(E) CP $@
	$(Q)install -m 0755 $< $@

# Static: it runs as the guest's /init, before any library is mounted.
$(O)/libexec/pmuvm-run-init: guest-shim/linux/run-init.c
	@mkdir -p $(@D)
	$(E) CC $@
	$(Q)$(CC) -std=gnu11 -O2 -s -static $(WARNINGS) -o $@ $<

# ---- host ------------------------------------------------------------------
$(O)/%.o: %.c
	@mkdir -p $(@D)
	$(E) CC $<
	$(Q)$(CC) $(HOST_CFLAGS) $(CHECK_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(O)/version: FORCE
	@mkdir -p $(@D)
	@[ "$$(cat $@ 2>/dev/null)" = '$(PMUVM_VERSION)' ] || echo '$(PMUVM_VERSION)' >$@

$(O)/vmm/config.o $(O)/tests/system/test_cli.o: $(O)/version
$(O)/vmm/config.o $(O)/tests/system/test_cli.o: HOST_CFLAGS += $(VERSION_CFLAGS)

.PHONY: FORCE
FORCE:

$(LIBPMUVM): $(VMM_OBJS)
	$(E) AR $@
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(PMUVM): $(O)/vmm/main.o $(LIBPMUVM)
	$(E) LD $@
	$(Q)$(CC) $(HOST_LDFLAGS) -o $@ $^ $(HOST_LDLIBS)

# The tests and their library see tests/lib/; the product does not.
TEST_OBJS := $(UNIT_SRCS:%.c=$(O)/%.o) $(SYSTEM_SRCS:%.c=$(O)/%.o) $(TEST_LIB_SRCS:%.c=$(O)/%.o)
$(TEST_OBJS): HOST_CFLAGS += -Itests/lib

# The hosted ntpmu core and its unit tests: ntpmu's private headers too.
$(UNIT_SRCS:%.c=$(O)/%.o) $(NTPMU_CORE_SRCS:%.c=$(O)/%.o): \
	HOST_CFLAGS += -Iguest-shim/ntpmu -Iguest-shim/include

$(UNIT_BIN): $(UNIT_SRCS:%.c=$(O)/%.o) $(TEST_LIB_SRCS:%.c=$(O)/%.o) \
	    $(NTPMU_CORE_SRCS:%.c=$(O)/%.o) $(LIBPMUVM)
	$(E) LD $@
	$(Q)$(CC) $(HOST_LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(HOST_LDLIBS)

$(SYSTEM_BIN): $(SYSTEM_SRCS:%.c=$(O)/%.o) $(TEST_LIB_SRCS:%.c=$(O)/%.o) $(LIBPMUVM)
	$(E) LD $@
	$(Q)$(CC) $(HOST_LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(HOST_LDLIBS)

# The man page: help2man from pmuvm --help and --version, plus the sections
# --help cannot carry (docs/pmuvm.h2m). Dated by the last commit, if any.
$(MAN): $(PMUVM) docs/pmuvm.h2m
	$(E) HELP2MAN $@
	$(Q)command -v help2man >/dev/null || { echo "pmuvm: help2man is not installed (make deps)" >&2; exit 1; }
	$(Q)SOURCE_DATE_EPOCH=$$(git log -1 --format=%ct 2>/dev/null || date +%s) \
		help2man --no-info --include=docs/pmuvm.h2m --output=$@.tmp ./$(PMUVM) && mv $@.tmp $@

# ---- guest -----------------------------------------------------------------
$(O)/guest/%.o: %.c
	@mkdir -p $(@D)
	$(E) GUESTCC $<
	$(Q)$(CC) $(GUEST_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(O)/guest/%.o: %.S
	@mkdir -p $(@D)
	$(E) GUESTAS $<
	$(Q)$(CC) $(GUEST_CFLAGS) $(DEPFLAGS) -D__ASSEMBLY__ -c -o $@ $<

# The library's own files also see ntpmu's private headers; guests see only
# the public ones (include/, guest-shim/include/), as an installed guest does.
$(GUEST_LIB_OBJS): GUEST_CFLAGS += -Iguest-shim/ntpmu

$(LIBGUEST): $(GUEST_LIB_OBJS)
	$(E) AR $@
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# Link as ELF64, keep that for symbols (profiles, listings), ship as ELF32.
$(O)/guests/%.elf64: $(O)/guest/tests/guests/%.o $(LIBGUEST) guest-shim/rt/guest.ld
	@mkdir -p $(@D)
	$(E) GUESTLD $@
	$(Q)$(CC) $(GUEST_ARCH_CFLAGS) $(GUEST_LDFLAGS) -o $@ $< -Wl,--whole-archive $(LIBGUEST) -Wl,--no-whole-archive

$(O)/guests/demo.elf64: $(DEMO_SRCS:%.c=$(O)/guest/%.o) $(LIBGUEST) guest-shim/rt/guest.ld
	@mkdir -p $(@D)
	$(E) GUESTLD $@
	$(Q)$(CC) $(GUEST_ARCH_CFLAGS) $(GUEST_LDFLAGS) -o $@ $(filter %.o,$^) -Wl,--whole-archive $(LIBGUEST) -Wl,--no-whole-archive

$(O)/guests/%.elf: $(O)/guests/%.elf64
	$(E) OBJCOPY $@
	$(Q)$(OBJCOPY) -O elf32-i386 $< $@

# ---- top-level commands ----------------------------------------------------
deps:
	@scripts/deps.sh

deps-check:
	@scripts/deps.sh check

test-bins: all $(UNIT_BIN) $(SYSTEM_BIN)

# Where this machine has no usable /dev/kvm, the demo runs in the lab. The
# demo passes with isa-debug-exit code 0, which pmuvm (like QEMU) turns into
# exit status (0 << 1) | 1 = 1: that is make's success.
DEMO_CMD := $(PMUVM) --cpus 2 $(O)/guests/demo.elf
run:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
	@if why=$$(scripts/kvm-unusable); then \
		echo "pmuvm: $$why: running the demo in the lab (nested KVM under QEMU, tests/lab/)"; \
		scripts/deps.sh lab || exit 1; \
		tests/lab/pmuvm-lab --quiet $(DEMO_CMD); \
	else \
		echo "$(DEMO_CMD)"; \
		$(DEMO_CMD); \
	fi; st=$$?; [ $$st = 1 ] || { echo "pmuvm: demo failed (exit status $$st)"; exit 1; }

check:
	@$(MAKE) --no-print-directory deps-check
	@$(MAKE) --no-print-directory test-bins
	@SANITIZE=$(SANITIZE) scripts/run-tests.sh $(O)

# The system tests in the labs even where /dev/kvm is usable here.
check-lab:
	@$(MAKE) --no-print-directory deps-check
	@$(MAKE) --no-print-directory test-bins
	@scripts/run-tests.sh $(O) --lab

unit: $(UNIT_BIN)
	$(UNIT_BIN)

system: test-bins
	PMUVM=$(PMUVM) GUEST_DIR=$(O)/guests $(SYSTEM_BIN)

# The Linux guests' initramfs with Debian's perf and the test programs
# (docs/linux-guests.md, "perf in the guest"); it prints the cached kernel to
# boot it with.
.PHONY: linux-image
linux-image:
	@$(MAKE) --no-print-directory deps-check
	@mkdir -p $(O)/linux
	@[ -n "$$(ls $${PMUVM_LAB_CACHE:-/var/cache/pmuvm-lab} 2>/dev/null)" ] || tests/lab/pmuvm-lab --prepare
	@tests/linux/mkinitramfs --perf $(O)/linux/perf.cpio
	@echo "pmuvm: $(O)/linux/perf.cpio"

# QEMU/KVM and pmuvm side by side on the compare guest (docs/qemu.md,
# "Comparing with QEMU/KVM").
.PHONY: compare compare-linux
compare:
	@$(MAKE) --no-print-directory deps-check
	@$(MAKE) --no-print-directory all
	@scripts/pmuvm-compare --pmuvm $(PMUVM) --guest $(O)/guests/compare.elf $(COMPARE_ARGS)
	@echo
	@scripts/pmuvm-compare-linux --pmuvm $(PMUVM)

# Only the Linux guest's side-by-side table (perf under QEMU/KVM and pmuvm).
compare-linux:
	@$(MAKE) --no-print-directory deps-check
	@$(MAKE) --no-print-directory all
	@scripts/pmuvm-compare-linux --pmuvm $(PMUVM) $(COMPARE_LINUX_ARGS)

coverage:
	@$(MAKE) --no-print-directory O=build/coverage COVERAGE=1 build/coverage/tests/unit-tests
	@find build/coverage -name '*.gcda' -delete
	@build/coverage/tests/unit-tests >/dev/null
	@scripts/coverage.sh build/coverage vmm/model

# Timings only, never part of check; BENCH_ARGS=--quick for a short run.
bench: all
	@if why=$$(scripts/kvm-unusable); then \
		echo "pmuvm: $$why: make bench runs in the lab (its instruction counts hold, its times do not)"; \
		tests/lab/pmuvm-lab --quiet scripts/bench.py $(O) $(BENCH_ARGS); \
	else \
		scripts/bench.py $(O) $(BENCH_ARGS); \
	fi

# The guest SDK: the runtime and ntpmu as one static library, their public
# headers (and every header they include), the linker script and a
# pkg-config file (docs/guest-sdk.md).
SDK_HEADERS := $(sort $(wildcard include/x86-pmu/*.h include/pmuvm/*.h \
	guest-shim/include/*.h guest-shim/include/*/*.h))
SDK_INCDIR = $(PREFIX)/include/pmuvm-guest
SDK_LIBDIR = $(PREFIX)/lib/pmuvm-guest

DOCDIR = $(PREFIX)/share/doc/pmuvm

install: all $(LIBGUEST)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/pmuvm/guests
	install -m 0755 $(PMUVM) $(DESTDIR)$(PREFIX)/bin/pmuvm
	install -d $(DESTDIR)$(PREFIX)/libexec/pmuvm
	install -m 0755 $(RUN_LIBEXEC) $(DESTDIR)$(PREFIX)/libexec/pmuvm/
	install -m 0644 $(GUEST_ELFS) $(DESTDIR)$(PREFIX)/share/pmuvm/guests/
	install -d $(DESTDIR)$(PREFIX)/share/pmuvm/qemu-configs/libvirt
	install -m 0644 qemu-configs/*.cfg $(DESTDIR)$(PREFIX)/share/pmuvm/qemu-configs/
	install -m 0755 qemu-configs/qemu-run $(DESTDIR)$(PREFIX)/share/pmuvm/qemu-configs/
	install -m 0644 qemu-configs/libvirt/*.xml $(DESTDIR)$(PREFIX)/share/pmuvm/qemu-configs/libvirt/
	install -m 0755 qemu-configs/libvirt/mkdomain $(DESTDIR)$(PREFIX)/share/pmuvm/qemu-configs/libvirt/
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0644 $(MAN) $(DESTDIR)$(PREFIX)/share/man/man1/pmuvm.1
	install -d $(DESTDIR)$(DOCDIR)/LICENSES $(DESTDIR)$(DOCDIR)/docs
	install -m 0644 README.md CHANGELOG.md LICENSE $(DESTDIR)$(DOCDIR)/
	install -m 0644 LICENSES/*.txt $(DESTDIR)$(DOCDIR)/LICENSES/
	install -m 0644 docs/*.md $(DESTDIR)$(DOCDIR)/docs/
	install -d $(DESTDIR)$(SDK_LIBDIR) $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 0644 $(LIBGUEST) $(DESTDIR)$(SDK_LIBDIR)/libpmuvm-guest.a
	install -m 0644 guest-shim/rt/guest.ld $(DESTDIR)$(SDK_LIBDIR)/pmuvm-guest.ld
	for h in $(SDK_HEADERS); do d=$${h#guest-shim/}; d=$${d#include/}; \
		install -D -m 0644 $$h $(DESTDIR)$(SDK_INCDIR)/$$d || exit 1; done
	sed -e 's|@prefix@|$(PREFIX)|' -e 's|@version@|$(PMUVM_VERSION)|' \
	    -e 's|@cflags@|$(GUEST_ARCH_CFLAGS)|' -e 's|@libs@|$(GUEST_LINK_FLAGS)|' \
	    guest-shim/pmuvm-guest.pc.in >$(DESTDIR)$(PREFIX)/lib/pkgconfig/pmuvm-guest.pc

# Removes each file that `make install` with the same PREFIX puts in place
# (listed by installing into a scratch DESTDIR), then pmuvm's own
# directories left empty; directories it shares (bin/, man1/) stay.
UNINSTALL_LIST := $(CURDIR)/$(O)/uninstall
uninstall:
	@rm -rf $(UNINSTALL_LIST)
	@$(MAKE) --no-print-directory install DESTDIR=$(UNINSTALL_LIST) PREFIX=$(PREFIX) >/dev/null
	@find $(UNINSTALL_LIST) ! -type d | sed 's|^$(UNINSTALL_LIST)||' | sort | while read -r f; do \
		[ -e "$(DESTDIR)$$f" ] || [ -L "$(DESTDIR)$$f" ] || continue; \
		echo "rm $(DESTDIR)$$f"; rm -f "$(DESTDIR)$$f" || exit 1; \
	done
	@find $(UNINSTALL_LIST)$(PREFIX) -depth -type d | sed 's|^$(UNINSTALL_LIST)$(PREFIX)||' | \
	grep -E '(^|/)pmuvm(-guest)?(/|$$)' | while read -r d; do \
		[ -d "$(DESTDIR)$(PREFIX)$$d" ] && rmdir "$(DESTDIR)$(PREFIX)$$d" 2>/dev/null && \
			echo "rmdir $(DESTDIR)$(PREFIX)$$d"; \
	done; true
	@rm -rf $(UNINSTALL_LIST)

# The tarball of HEAD (not of uncommitted changes), its VERSION file
# holding HEAD's version for builds outside git (scripts/version.sh);
# files dated and owned as the commit, so the same commit packs the same.
DIST_VERSION = $(shell scripts/version.sh --head)
DIST_NAME = pmuvm-$(DIST_VERSION)
DIST_TARBALL = build/$(DIST_NAME).tar.gz
dist:
	@[ -e .git ] || { echo "pmuvm: make dist needs a git checkout" >&2; exit 1; }
	@git diff-index --quiet HEAD -- || echo "pmuvm: warning: uncommitted changes are not in the tarball (it packs HEAD)" >&2
	@rm -rf build/dist && mkdir -p build/dist
	@git archive --prefix=$(DIST_NAME)/ HEAD | tar -x -C build/dist
	@echo '$(DIST_VERSION)' >build/dist/$(DIST_NAME)/VERSION
	@tar -C build/dist --sort=name --owner=0 --group=0 --numeric-owner \
		--mtime=@$$(git log -1 --format=%ct) -cf - $(DIST_NAME) | gzip -n >$(DIST_TARBALL)
	@rm -rf build/dist
	@echo "pmuvm: $(DIST_TARBALL)"

# The guest SDK's examples (guest-shim/examples/: sources and a Makefile that
# builds them with pkg-config pmuvm-guest), installed beside the guests.
SDK_EXAMPLES := $(sort $(wildcard guest-shim/examples/*.c)) guest-shim/examples/Makefile
SDK_EXAMPLEDIR = $(PREFIX)/share/pmuvm/examples
.PHONY: install-sdk-examples
install: install-sdk-examples
install-sdk-examples:
	install -d $(DESTDIR)$(SDK_EXAMPLEDIR)
	install -m 0644 $(SDK_EXAMPLES) $(DESTDIR)$(SDK_EXAMPLEDIR)/

clean:
	rm -rf build

include mk/fuzz.mk

ifeq ($(filter clean deps deps-check,$(MAKECMDGOALS)),)
-include $(DEPS)
endif
