# pmuvm: a KVM VMM that gives guests an emulated Intel architectural PMU.
#
#   make            build pmuvm, the guest runtime and the guests
#   make run        build and boot the demo guest (installs missing packages first)
#   make check      build and run every test (installs missing packages first);
#                   system tests run in the lab (tests/lab/) without /dev/kvm
#   make check-lab  the system tests in the labs (SVM; VMX: a share), even where
#                   /dev/kvm is usable (PMUVM_LABS="svm vmx" chooses)
#   make coverage   branch coverage of the vPMU model
#   make compare    the compare guest under QEMU/KVM and under pmuvm, side by side
#                   (COMPARE_ARGS="--pmu amd": pmuvm's AMD PMU)
#   make bench      measure what the virtual PMU costs (table + build/bench.json)
#   make install    PREFIX=/usr/local DESTDIR=  (pmuvm and pmuvm.1, the guest images,
#                   qemu-configs/, the guest SDK: library, headers, pmuvm-guest.pc)
#   make V=1        show the commands; WERROR=0 to not fail on warnings
#   make SANITIZE=1 ASan+UBSan build of pmuvm and the hosted tests (under build/asan)
#   make fuzz       build the libFuzzer targets (mk/fuzz.mk) and run each FUZZ_SECONDS=60

SANITIZE ?= 0
ifeq ($(SANITIZE),1)
O ?= build/asan
else
O ?= build
endif
V ?= 0
WERROR ?= 1
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
HOST_CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g $(WARNINGS) -Iinclude -Ivmm -Itests/lib $(CFLAGS)
HOST_LDLIBS := -lpthread -lrt -lZydis -ljson-c
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
GUEST_LINK_FLAGS := -nostdlib -static -no-pie -Wl,--build-id=none -Wl,-z,max-page-size=0x1000 \
	-Wl,-z,noexecstack
GUEST_LDFLAGS := $(GUEST_LINK_FLAGS) -T guest-shim/rt/guest.ld

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

.PHONY: all run check check-lab linux-image deps test-bins unit system coverage bench install clean
.DEFAULT_GOAL := all
.SECONDARY:

all: $(PMUVM) $(GUEST_ELFS)

# ---- host ------------------------------------------------------------------
$(O)/%.o: %.c
	@mkdir -p $(@D)
	$(E) CC $<
	$(Q)$(CC) $(HOST_CFLAGS) $(CHECK_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(LIBPMUVM): $(VMM_OBJS)
	$(E) AR $@
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(PMUVM): $(O)/vmm/main.o $(LIBPMUVM)
	$(E) LD $@
	$(Q)$(CC) $(HOST_LDFLAGS) -o $@ $^ $(HOST_LDLIBS)

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
	$(Q)$(CC) $(GUEST_CFLAGS) $(GUEST_LDFLAGS) -o $@ $< -Wl,--whole-archive $(LIBGUEST) -Wl,--no-whole-archive

$(O)/guests/demo.elf64: $(DEMO_SRCS:%.c=$(O)/guest/%.o) $(LIBGUEST) guest-shim/rt/guest.ld
	@mkdir -p $(@D)
	$(E) GUESTLD $@
	$(Q)$(CC) $(GUEST_CFLAGS) $(GUEST_LDFLAGS) -o $@ $(filter %.o,$^) -Wl,--whole-archive $(LIBGUEST) -Wl,--no-whole-archive

$(O)/guests/%.elf: $(O)/guests/%.elf64
	$(E) OBJCOPY $@
	$(Q)$(OBJCOPY) -O elf32-i386 $< $@

# ---- top-level commands ----------------------------------------------------
deps:
	@scripts/deps.sh

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
		tests/lab/pmuvm-lab --quiet $(DEMO_CMD); \
	else \
		echo "$(DEMO_CMD)"; \
		$(DEMO_CMD); \
	fi; st=$$?; [ $$st = 1 ] || { echo "pmuvm: demo failed (exit status $$st)"; exit 1; }

check:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory test-bins
	@SANITIZE=$(SANITIZE) scripts/run-tests.sh $(O)

# The system tests in the labs even where /dev/kvm is usable here.
check-lab:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory test-bins
	@scripts/run-tests.sh $(O) --lab

unit: $(UNIT_BIN)
	$(UNIT_BIN)

system: test-bins
	PMUVM=$(PMUVM) GUEST_DIR=$(O)/guests $(SYSTEM_BIN)

# The Linux guests' initramfs with Debian's perf and the test programs
# (README, "Linux guests"); it prints the cached kernel to boot it with.
.PHONY: linux-image
linux-image:
	@$(MAKE) --no-print-directory deps
	@mkdir -p $(O)/linux
	@[ -n "$$(ls $${PMUVM_LAB_CACHE:-/var/cache/pmuvm-lab} 2>/dev/null)" ] || tests/lab/pmuvm-lab --prepare
	@tests/linux/mkinitramfs --perf $(O)/linux/perf.cpio
	@echo "pmuvm: $(O)/linux/perf.cpio"

# QEMU/KVM and pmuvm side by side on the compare guest (README).
.PHONY: compare compare-linux
compare:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
	@scripts/pmuvm-compare --pmuvm $(PMUVM) --guest $(O)/guests/compare.elf $(COMPARE_ARGS)
	@echo
	@scripts/pmuvm-compare-linux --pmuvm $(PMUVM)

# Only the Linux guest's side-by-side table (perf under QEMU/KVM and pmuvm).
compare-linux:
	@$(MAKE) --no-print-directory deps
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
# headers, the linker script and a pkg-config file (README, "Building a
# guest out of tree").
SDK_HEADERS := $(sort $(wildcard include/nt/*.h include/pmu/*.h \
	guest-shim/include/*.h guest-shim/include/*/*.h))
SDK_INCDIR = $(PREFIX)/include/pmuvm-guest
SDK_LIBDIR = $(PREFIX)/lib/pmuvm-guest
PMUVM_VERSION := $(shell sed -n 's/^.define PMUVM_VERSION "\(.*\)"$$/\1/p' vmm/config.c)

install: all $(LIBGUEST)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/pmuvm/guests
	install -m 0755 $(PMUVM) $(DESTDIR)$(PREFIX)/bin/pmuvm
	install -m 0644 $(GUEST_ELFS) $(DESTDIR)$(PREFIX)/share/pmuvm/guests/
	install -d $(DESTDIR)$(PREFIX)/share/pmuvm/qemu-configs/libvirt
	install -m 0644 qemu-configs/*.cfg $(DESTDIR)$(PREFIX)/share/pmuvm/qemu-configs/
	install -m 0755 qemu-configs/qemu-run $(DESTDIR)$(PREFIX)/share/pmuvm/qemu-configs/
	install -m 0644 qemu-configs/libvirt/*.xml $(DESTDIR)$(PREFIX)/share/pmuvm/qemu-configs/libvirt/
	install -m 0755 qemu-configs/libvirt/mkdomain $(DESTDIR)$(PREFIX)/share/pmuvm/qemu-configs/libvirt/
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0644 doc/pmuvm.1 $(DESTDIR)$(PREFIX)/share/man/man1/pmuvm.1
	install -d $(DESTDIR)$(SDK_LIBDIR) $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 0644 $(LIBGUEST) $(DESTDIR)$(SDK_LIBDIR)/libpmuvm-guest.a
	install -m 0644 guest-shim/rt/guest.ld $(DESTDIR)$(SDK_LIBDIR)/pmuvm-guest.ld
	for h in $(SDK_HEADERS); do d=$${h#guest-shim/}; d=$${d#include/}; \
		install -D -m 0644 $$h $(DESTDIR)$(SDK_INCDIR)/$$d || exit 1; done
	sed -e 's|@prefix@|$(PREFIX)|' -e 's|@version@|$(PMUVM_VERSION)|' \
	    -e 's|@cflags@|$(GUEST_ARCH_CFLAGS)|' -e 's|@libs@|$(GUEST_LINK_FLAGS)|' \
	    guest-shim/pmuvm-guest.pc.in >$(DESTDIR)$(PREFIX)/lib/pkgconfig/pmuvm-guest.pc

clean:
	rm -rf build

include mk/fuzz.mk

ifeq ($(filter clean deps,$(MAKECMDGOALS)),)
-include $(DEPS)
endif
