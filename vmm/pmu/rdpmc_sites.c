/*
 * The RDPMC instructions of the guest image, found before it runs, for
 * hosts where KVM answers RDPMC itself (rdpmc_watch.c).  Windows after PMU
 * MSR accesses find only the RDPMCs that run shortly after one; an RDPMC a
 * thread runs at CPL3 long after its counters were programmed (a thread
 * profile read, a self-monitoring loop) is never found that way.  An ELF
 * image with a symbol table says where its functions are: each one is
 * decoded from its first byte to its last (Zydis, exact/decode.c), and an
 * RDPMC found at an instruction boundary is a place the guest can read a
 * counter.  Bytes 0F 33 inside another instruction or in data are not
 * found, and would be harmless: an execution breakpoint fires only where an
 * instruction starts (SDM vol. 3B 17.2.4).
 *
 * A function that does not decode to its end, one without a size, or the
 * bytes 0F 33 anywhere in executable sections outside the functions (code
 * under an assembly label without .type, which cannot be decoded from a
 * known start) make the scan incomplete: then the windows look for them.
 *
 * Every function is decoded as 64-bit code: pmuvm's guests run in long
 * mode, and a multiboot image is 64-bit code in an ELF32 container.  The
 * few instructions of a 32-bit boot stub may decode differently, which can
 * at worst name an RDPMC that never runs there.
 */
#include "exact/decode.h"
#include "log.h"
#include "machine/vm.h"
#include "pmu/rdpmc.h"
#include "pmu/vcpu_pmu.h"
#include "profile/symbols.h"

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
		uint64_t off = 0;

		if (!f->code)
			continue;
		if (!f->size) {
			*complete = false;	/* hand-written, no .size: its extent is unknown */
			continue;
		}
		while (off < f->size) {
			struct insn in;

			if (insn_decode(f->code + off, f->size - off, INSN_MODE_64, &in) || !in.len) {
				*complete = false;	/* data in the function: the rest is unknown */
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
	struct vm_pmu *p = vm->pmu;
	struct symtab t;
	bool complete;
	int n;

	if (!p || !p->caps.rdpmc_by_kvm || !p->caps.hw_breakpoints)
		return;
	if (symtab_load(&t, image, size) || !t.nr) {
		symtab_free(&t);
		return;
	}
	n = rdpmc_sites_scan(&t, p->image_rdpmc, GUEST_DEBUG_WATCH_MAX, &complete);
	symtab_free(&t);
	if (n > GUEST_DEBUG_WATCH_MAX || !complete) {
		pr_info("RDPMC: %s: they are found after PMU MSR accesses",
			complete ? "the image has more RDPMC instructions than breakpoints" :
				   "not all of the image's functions decode");
		return;
	}
	p->nr_image_rdpmc = n;
	pr_info("RDPMC: the image's %d RDPMC instruction(s) are watched with breakpoints", n);
}
