/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The RDPMC instructions of the guest image, found before it runs, for
 * hosts where KVM answers RDPMC itself (rdpmc/watch.c).  Windows after PMU
 * MSR accesses find only the RDPMCs that run shortly after one; an RDPMC a
 * thread runs at CPL3 long after its counters were programmed (a thread
 * profile read, a self-monitoring loop) is never found that way.  An ELF
 * image with a symbol table says where its functions are: each one is
 * decoded from its first byte to its last (Zydis, x86/decode.c), and an
 * RDPMC found at an instruction boundary is a place the guest can read a
 * counter.  Bytes 0F 33 inside another instruction or in data are not
 * found, and would be harmless: an execution breakpoint fires only where an
 * instruction starts (SDM vol. 3B 17.2.4).
 *
 * A function that does not decode to its end, one without a size, or the
 * bytes 0F 33 anywhere in executable sections outside the functions (code
 * under an assembly label without .type, which cannot be decoded from a
 * known start) make the scan incomplete: then the windows look for them.
 * A function that does not decode to its end gives no RDPMC at all: after
 * bytes that are no instruction, none of its boundaries is to be trusted.
 * A complete scan's RDPMCs are watched with breakpoints where there are
 * enough of them (three); otherwise those found are turned into RDMSRs
 * (rdpmc/trap.c), and where the scan is incomplete the windows look for
 * the rest.
 *
 * Every function is decoded as 64-bit code: pmuvm's guests run in long
 * mode, and a multiboot image is 64-bit code in an ELF32 container.  A
 * 32-bit boot stub that decodes to its end as 64-bit code could name an
 * RDPMC that is none there, and turning it into an RDMSR would change that
 * code: boot stubs are assembly without .size, which the scan skips, and
 * the bytes must be 0F 33 in guest memory, as loaded, to be changed.
 */
#include <errno.h>
#include <string.h>

#include "boot/symbols.h"
#include "log.h"
#include "machine/vm.h"
#include "pmu/vcpu_pmu.h"
#include "rdpmc/rdpmc.h"
#include "x86/decode.h"

/*
 * KVM's forced emulation prefix, UD2 and the bytes "kvm" (KVM's
 * force_emulation_prefix parameter; kvm-unit-tests and KVM's selftests put
 * it before instructions they want emulated): no instruction, though the
 * bytes after UD2 would decode as one, and the next instruction after it.
 */
static const uint8_t kvm_fep[] = { 0x0f, 0x0b, 'k', 'v', 'm' };

/* Bytes 0F 33 outside every sized function: an RDPMC the decode cannot see. */
static bool rdpmc_bytes_outside_functions(const struct symtab *t)
{
	for (size_t c = 0; c < t->nr_code; c++) {
		const struct code_section *cs = &t->code[c];

		for (uint64_t j = 0; j + 1 < cs->size; j++) {
			const struct symbol *f;

			if (cs->bytes[j] != 0x0f || cs->bytes[j + 1] != 0x33)
				continue;
			f = symtab_lookup(t, cs->addr + j);
			if (!f || !f->size || !f->code)
				return true;
		}
	}
	return false;
}

int rdpmc_sites_scan(const struct symtab *t, uint64_t *sites, unsigned int max, bool *complete)
{
	unsigned int n = 0;
	size_t i;

	*complete = true;
	for (i = 0; i < t->nr; i++) {
		const struct symbol *f = &t->syms[i];
		unsigned int first = n;
		uint64_t off = 0;

		if (!f->code)
			continue;
		if (!f->size) {
			*complete = false;	/* hand-written, no .size: its extent is unknown */
			continue;
		}
		while (off < f->size) {
			struct insn in;

			if (f->size - off >= sizeof(kvm_fep) &&
			    !memcmp(f->code + off, kvm_fep, sizeof(kvm_fep))) {
				off += sizeof(kvm_fep);
				continue;
			}
			if (insn_decode(f->code + off, f->size - off, INSN_MODE_64, &in) || !in.len) {
				/*
				 * Data in the function, or code of another mode:
				 * none of its boundaries is to be trusted.
				 */
				*complete = false;
				while (n > first)
					if (--n < max)
						sites[n] = 0;
				break;
			}
			if (in.flags & INSN_RDPMC) {
				if (n < max)
					sites[n] = f->addr + off;
				n++;
			}
			off += in.len;
		}
	}
	if (rdpmc_bytes_outside_functions(t))
		*complete = false;
	return (int)n;
}

void rdpmc_sites_from_image(struct vm *vm, const uint8_t *image, size_t size)
{
	struct rdpmc_vm *v = vm->pmu ? vm->pmu->rdpmc : NULL;
	uint64_t sites[MEM_PATCH_MAX];
	struct symtab t;
	bool complete;
	int n, r;

	if (!v || !vm->pmu->caps.rdpmc_by_kvm || !vm->pmu->caps.hw_breakpoints)
		return;
	if (symtab_load(&t, image, size) || !t.nr) {
		symtab_free(&t);
		return;
	}
	n = rdpmc_sites_scan(&t, sites, MEM_PATCH_MAX, &complete);
	symtab_free(&t);
	/* Breakpoints leave the guest's code as it is: first choice. */
	if (complete && n <= GUEST_DEBUG_WATCH_MAX) {
		memcpy(v->image, sites, sizeof(sites[0]) * (unsigned int)n);
		v->nr_image = n;
		pr_info("RDPMC: the image's %d RDPMC instruction(s) are watched with breakpoints", n);
		return;
	}
	r = !n ? 0 : n > MEM_PATCH_MAX ? -E2BIG : rdpmc_trap_image(vm, sites, (unsigned int)n);
	if (r)
		pr_info("RDPMC: the image's %d RDPMC instructions cannot be turned into RDMSRs (%s)",
			n, strerror(-r));
	else if (n)
		pr_info("RDPMC: the image's %d RDPMC instructions are turned into RDMSRs that exit to pmuvm",
			n);
	if (!complete || r) {
		pr_info("RDPMC: %s: they are found after PMU MSR accesses",
			complete ? "the image's RDPMCs stay as they are" :
			"not all of the image's functions decode, or it has RDPMCs outside them");
		return;
	}
	v->nr_image = 0;	/* all known: no discovery windows */
}
