/* SPDX-License-Identifier: MIT */
/*
 * IDT setup and the C side of interrupt dispatch (policy in rt/idt.h).
 */
#include <stdint.h>
#include <rt/apic.h>
#include <rt/exit.h>
#include <rt/extable.h>
#include <rt/idt.h>
#include <rt/layout.h>
#include <rt/printf.h>
#include <rt/smp.h>
#include <rt/ucall.h>
#include <rt/x86.h>
#include "internal.h"

/* 64-bit interrupt gate descriptor (SDM 6.14.1, figure 6-8). */
struct idt_gate {
	uint16_t offset_lo;
	uint16_t selector;
	uint8_t ist;
	uint8_t type_attr;	/* P | DPL | type */
	uint16_t offset_mid;
	uint32_t offset_hi;
	uint32_t reserved;
} __attribute__((packed));

#define GATE_INTR	0x8e	/* P=1, DPL=0, 64-bit interrupt gate: IF cleared */
#define GATE_INTR_USER	0xee	/* same, DPL=3: reachable with INT n from CPL3 */

extern const uint64_t idt_stub_table[256];	/* vectors.S */

static struct idt_gate idt[256] __attribute__((aligned(16)));
static rt_handler_t handlers[256];

uint64_t idt_stub_addr(int vector)
{
	return idt_stub_table[vector & 0xff];
}

void idt_init(void)
{
	for (int v = 0; v < 256; v++) {
		uint64_t a = idt_stub_addr(v);

		idt[v] = (struct idt_gate){
			.offset_lo = (uint16_t)a,
			.selector = SEG_KCODE64,
			.type_attr = v == VEC_BP ? GATE_INTR_USER : GATE_INTR,
			.offset_mid = (uint16_t)(a >> 16),
			.offset_hi = (uint32_t)(a >> 32),
		};
	}
}

void idt_load(void)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) desc = { sizeof(idt) - 1, (uint64_t)idt };

	asm volatile("lidt %0" : : "m"(desc));
}

void rt_set_exception_hook(int vector, rt_handler_t fn)
{
	if (vector >= 0 && vector < 32)
		handlers[vector] = fn;
}

void rt_set_irq_handler(int vector, rt_handler_t fn)
{
	if (vector >= 32 && vector < 256)
		handlers[vector] = fn;
}

const char *exception_name(int vector)
{
	static const char *const names[32] = {
		[VEC_DE] = "#DE", [VEC_DB] = "#DB", [VEC_NMI] = "NMI",
		[VEC_BP] = "#BP", [VEC_OF] = "#OF", [VEC_BR] = "#BR",
		[VEC_UD] = "#UD", [VEC_NM] = "#NM", [VEC_DF] = "#DF",
		[VEC_TS] = "#TS", [VEC_NP] = "#NP", [VEC_SS] = "#SS",
		[VEC_GP] = "#GP", [VEC_PF] = "#PF", [VEC_MF] = "#MF",
		[VEC_AC] = "#AC", [VEC_MC] = "#MC", [VEC_XM] = "#XM",
		[VEC_VE] = "#VE", [VEC_CP] = "#CP",
	};

	if (vector < 0 || vector >= 32)
		return "IRQ";
	return names[vector] ? names[vector] : "reserved";
}

void rt_dump_frame(const struct rt_frame *f)
{
	printf("  rip=%016lx cs=%04lx rflags=%08lx rsp=%016lx ss=%04lx\n"
	       "  rax=%016lx rbx=%016lx rcx=%016lx rdx=%016lx\n"
	       "  rsi=%016lx rdi=%016lx rbp=%016lx r8 =%016lx\n"
	       "  r9 =%016lx r10=%016lx r11=%016lx r12=%016lx\n"
	       "  r13=%016lx r14=%016lx r15=%016lx cr2=%016lx\n",
	       f->rip, f->cs, f->rflags, f->rsp, f->ss,
	       f->rax, f->rbx, f->rcx, f->rdx, f->rsi, f->rdi, f->rbp, f->r8,
	       f->r9, f->r10, f->r11, f->r12, f->r13, f->r14, f->r15,
	       read_cr2());
}

/* A fatal exception as a failed ucall: the vector, error code and RIP as its values. */
void rt_report_fatal(const struct rt_frame *f, int vector, const char *name)
{
	const uint64_t values[] = { (uint64_t)vector, f->error_code, f->rip };
	char text[80];

	snprintf(text, sizeof(text), "unexpected exception %d (%s) on cpu %d", vector, name,
		 rt_cpu_id());
	ucall_fail(__FILE__, __LINE__, text, 3, values);
}

static __attribute__((noreturn)) void unexpected(struct rt_frame *f)
{
	int v = (int)f->vector;

	/* A fault inside printf on this CPU must not deadlock the report. */
	console_break_lock();
	printf("FAIL: unexpected exception %d (%s) on cpu %d, error code 0x%lx\n",
	       v, exception_name(v), rt_cpu_id(), f->error_code);
	rt_dump_frame(f);
	rt_report_fatal(f, v, exception_name(v));
	rt_exit(RT_EXIT_FAIL);
}

void rt_irq_eoi(struct rt_frame *f)
{
	if (!(f->vector & RT_FRAME_EOI_SENT)) {
		f->vector |= RT_FRAME_EOI_SENT;
		apic_eoi();
	}
}

void idt_dispatch(struct rt_frame *f)
{
	int v = (int)(uint8_t)f->vector;

	if (v < 32) {
		if (extable_fixup(f))
			return;
		if (handlers[v]) {
			handlers[v](f);
			return;
		}
		unexpected(f);
	}
	if (v == RT_VEC_SPURIOUS)	/* no EOI for spurious (SDM 10.9) */
		return;
	if (handlers[v])
		handlers[v](f);
	if (!(f->vector & RT_FRAME_EOI_SENT))
		apic_eoi();
}
