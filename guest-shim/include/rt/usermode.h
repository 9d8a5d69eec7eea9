/* SPDX-License-Identifier: MIT */
/*
 * Running code at CPL3 (user mode), where guest code runs natively instead
 * of through KVM's instruction emulator (kvm_pvm: docs/counting.md, "kvm_pvm").
 *
 *	uint64_t r = rt_run_user(fn, arg);
 *
 * calls fn(arg) at CPL3 on a user stack (RT_USER_STACK_SIZE): the calling
 * thread's own (rt/thread.h, allocated on first use), or this CPU's for
 * main() and code outside threads, with
 * CS = SEG_UCODE64|3, SS = SEG_UDATA|3 and RFLAGS.IF = 1, so interrupts
 * (the PMI, timers, IPIs) are taken while it runs, through the per-CPU TSS
 * whose RSP0 points just below rt_run_user()'s frame on the kernel stack.
 *
 * Return path: fn returns into a user-side trampoline (rt_user_trap in
 * usermode_entry.S) that executes UD2 with the result in RAX.  The #UD
 * hook this file installs (rt_set_exception_hook(VEC_UD), so a guest must
 * not install its own) recognises that RIP with a CPL3 CS and rewrites the
 * frame to IRET to rt_user_resume at CPL0 on the kernel stack saved for
 * this CPU (it and TSS.RSP0 go with the thread at a switch), which restores the callee-saved registers and RFLAGS (so IF is
 * as the caller had it) and returns RAX.  The same hook serves
 * rt_syscall() (rt/syscall.h); other #UDs stay fatal.
 * Why UD2: on the kvm_pvm hosts neither INT n to a DPL3 gate (execution
 * just continued after the INT) nor SYSCALL (it reached IA32_LSTAR but
 * with CS still 0x2b, i.e. at CPL3) got back to CPL0; exceptions do.
 *
 * The whole identity map is user-accessible (pgtable.S), so fn can be any
 * function of the guest and use any memory, but it runs at CPL3: no port
 * I/O, MSRs, HLT, CLI/STI or printf (the console does port I/O).  RDTSC
 * works (CR4.TSD = 0); RDPMC only with CR4.PCE.  GS base stays the kernel
 * per-CPU pointer (no SWAPGS), so handlers interrupting fn may use
 * rt_cpu_id() (and so may fn).  Not reentrant: do not call it from an
 * interrupt handler, rt_run_on_cpu() work run by the wake-up IPI included.
 *
 * The first call on a CPU loads the runtime's writable GDT (boot_gdt plus
 * one TSS descriptor per CPU) and that CPU's TSS (LTR).
 */
#ifndef RT_USERMODE_H
#define RT_USERMODE_H

#include <stdint.h>

#define RT_USER_STACK_SIZE	16384

uint64_t rt_run_user(uint64_t (*fn)(uint64_t), uint64_t arg);

/* CS of user code, as found in an interrupt frame taken at CPL3. */
#define RT_USER_CS		(SEG_UCODE64 | 3)

#endif
