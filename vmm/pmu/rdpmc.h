/* RDPMC emulation through a breakpoint on the guest's #GP handler (rdpmc.c): its state. */
#ifndef PMUVM_PMU_RDPMC_H
#define PMUVM_PMU_RDPMC_H

#include <stdint.h>

#include "mem/pagewalk.h"

struct rdpmc_state {
	uint64_t idt_base;		/* IDTR the breakpoint was placed for */
	uint16_t idt_limit;
	const uint8_t *gate;		/* the #GP gate in host memory, NULL: walk */
	uint64_t gate_la;		/* ...for this linear address */
	struct paging_state gate_ps;	/* ...and these paging registers */
	uint8_t gate_bytes[16];		/* the gate as last read */
	uint64_t emulated;		/* RDPMCs completed by pmuvm */
	uint64_t passed_on;		/* other #GPs that went to the guest's handler */
};

#endif
