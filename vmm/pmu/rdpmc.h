/* RDPMC emulation through a breakpoint on the guest's #GP handler (rdpmc.c): its state. */
#ifndef PMUVM_PMU_RDPMC_H
#define PMUVM_PMU_RDPMC_H

#include <stdint.h>

struct rdpmc_state {
	uint64_t idt_base;		/* IDTR the breakpoint was placed for */
	uint16_t idt_limit;
	uint64_t emulated;		/* RDPMCs completed by pmuvm */
	uint64_t passed_on;		/* other #GPs that went to the guest's handler */
};

#endif
