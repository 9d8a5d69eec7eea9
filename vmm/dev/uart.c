/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * 16550A UART at COM1 (0x3f8), output only.  LSR always reports the
 * transmitter empty, so guests that poll THRE never wait; there is no input.
 * A byte leaves at once, so with the THR-empty interrupt enabled (IER bit 1,
 * and MCR OUT2, which gates COM1's IRQ 4 on the PC) the interrupt is pending
 * again after every write, as Linux's 8250 driver expects to keep sending
 * (reading IIR takes it, as on the 16550). Output goes to stdout or
 * --serial FILE (out/outfile.h), flushed at each newline and at exit so
 * nothing the guest printed is lost.  An output that fails (a full disk, a
 * reader that went away) is said once and stops the VM as a host error:
 * the rest of the guest's output would be lost.
 */
#include <pthread.h>
#include <sys/ioctl.h>
#include <stdlib.h>

#include "dev/devices.h"
#include "exitcode.h"
#include "machine/vm.h"
#include "log.h"
#include "out/outfile.h"

#define UART_BASE	0x3f8
#define UART_LEN	8

#define UART_RBR_THR	0	/* DLL when LCR.DLAB */
#define UART_IER	1	/* DLM when LCR.DLAB */
#define UART_IIR_FCR	2
#define UART_LCR	3
#define UART_MCR	4
#define UART_LSR	5
#define UART_MSR	6
#define UART_SCR	7

#define UART_LCR_DLAB	0x80
#define UART_LSR_THRE	0x20
#define UART_LSR_TEMT	0x40
#define UART_IIR_NO_INT	0x01
#define UART_IIR_THRI	0x02
#define UART_IER_THRI	0x02
#define UART_MCR_OUT2	0x08
#define UART_IRQ	4
#define UART_IIR_FIFO	0xc0
#define UART_MSR_DCD_DSR_CTS	0xb0

struct uart {
	pthread_mutex_t lock;
	struct vm *vm;
	struct outfile out;
	uint8_t ier, lcr, mcr, scr, fcr, dll, dlm;
	char buf[4096];
	size_t len;
	bool thri;		/* THR-empty interrupt pending */
	bool irq_level;		/* what IRQ 4 was last set to */
	int vm_fd;		/* KVM_IRQ_LINE */
};

static void uart_update_irq(struct uart *u)
{
	bool level = u->thri && (u->ier & UART_IER_THRI) && (u->mcr & UART_MCR_OUT2);
	struct kvm_irq_level irq = { .irq = UART_IRQ, .level = level };

	if (level == u->irq_level)
		return;
	if (ioctl(u->vm_fd, KVM_IRQ_LINE, &irq) == 0)
		u->irq_level = level;
}

static void uart_flush_locked(struct uart *u)
{
	bool failed = u->out.error;

	if (u->len && outfile_write(&u->out, u->buf, u->len) && !failed && !vm_stopping(u->vm))
		vm_stop(u->vm, VM_STOP_HOST_ERROR);
	u->len = 0;
}

static void uart_putc(struct uart *u, char c)
{
	u->buf[u->len++] = c;
	if (c == '\n' || u->len == sizeof(u->buf))
		uart_flush_locked(u);
}

static uint8_t uart_read(struct uart *u, uint16_t off)
{
	bool dlab = u->lcr & UART_LCR_DLAB;

	switch (off) {
	case UART_RBR_THR:	return dlab ? u->dll : 0;
	case UART_IER:		return dlab ? u->dlm : u->ier;
	case UART_IIR_FCR:
		if (u->thri && (u->ier & UART_IER_THRI)) {
			u->thri = false;	/* reading IIR takes the THRE interrupt */
			return UART_IIR_THRI | ((u->fcr & 1) ? UART_IIR_FIFO : 0);
		}
		return UART_IIR_NO_INT | ((u->fcr & 1) ? UART_IIR_FIFO : 0);
	case UART_LCR:		return u->lcr;
	case UART_MCR:		return u->mcr;
	case UART_LSR:		return UART_LSR_THRE | UART_LSR_TEMT;
	case UART_MSR:		return UART_MSR_DCD_DSR_CTS;
	default:		return u->scr;
	}
}

static void uart_write(struct uart *u, uint16_t off, uint8_t v)
{
	bool dlab = u->lcr & UART_LCR_DLAB;

	switch (off) {
	case UART_RBR_THR:
		if (dlab) {
			u->dll = v;
		} else {
			uart_putc(u, (char)v);
			u->thri = true;		/* sent at once: THR empty again */
		}
		break;
	case UART_IER:
		if (dlab) {
			u->dlm = v;
		} else {
			/* Enabling it with THR empty raises the interrupt at once. */
			if ((v & UART_IER_THRI) && !(u->ier & UART_IER_THRI))
				u->thri = true;
			u->ier = v & 0x0f;
		}
		break;
	case UART_IIR_FCR:	u->fcr = v; break;
	case UART_LCR:		u->lcr = v; break;
	case UART_MCR:		u->mcr = v & 0x1f; break;
	case UART_SCR:		u->scr = v; break;
	default:		break;	/* LSR and MSR are read-only */
	}
}

static void uart_io(struct vcpu *vcpu, void *opaque, uint16_t offset, bool is_write,
		    uint8_t *data, unsigned int size)
{
	struct uart *u = opaque;
	unsigned int i;

	(void)vcpu;
	pthread_mutex_lock(&u->lock);
	/* A wider access touches consecutive registers, as on an ISA bus. */
	for (i = 0; i < size; i++) {
		uint16_t off = (offset + i) & (UART_LEN - 1);

		if (is_write)
			uart_write(u, off, data[i]);
		else
			data[i] = uart_read(u, off);
	}
	uart_update_irq(u);
	pthread_mutex_unlock(&u->lock);
}

int uart_init(struct vm *vm)
{
	struct uart *u = calloc(1, sizeof(*u));
	struct pio_device dev = {
		.name = "uart", .base = UART_BASE, .len = UART_LEN, .io = uart_io, .opaque = u,
	};

	if (!u) {
		pr_err("out of memory");
		return PMUVM_EXIT_HOST_ERROR;
	}
	pthread_mutex_init(&u->lock, NULL);
	u->vm = vm;
	u->vm_fd = vm->vm_fd;
	vm->uart = u;
	if (outfile_open(&u->out, vm->cfg->serial_path ? "--serial" : "serial output",
			 vm->cfg->serial_path ? vm->cfg->serial_path : "-", OUTFILE_STREAM))
		return PMUVM_EXIT_USAGE;
	return pio_register(vm, &dev);
}

int uart_flush(struct vm *vm)
{
	struct uart *u = vm->uart;
	int r;

	if (!u)
		return 0;
	pthread_mutex_lock(&u->lock);
	uart_flush_locked(u);
	r = u->out.error;
	pthread_mutex_unlock(&u->lock);
	return r;
}

void uart_exit(struct vm *vm)
{
	struct uart *u = vm->uart;

	if (!u)
		return;
	uart_flush(vm);
	outfile_close(&u->out);
	free(u);
	vm->uart = NULL;
}
