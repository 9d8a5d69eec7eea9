/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * 16550A UART at COM1 (0x3f8).  LSR always reports the transmitter empty,
 * so guests that poll THRE never wait.  Input (pmuvm run: uart_input.c)
 * arrives in a 16-byte receive FIFO, only while the guest holds RTS (MCR
 * bit 1), which Linux drops when its tty buffer is full (CRTSCTS): no byte
 * is lost to a guest that reads slowly; and only once it has set OUT1 (MCR
 * bit 2, TIOCM_OUT1), which pmuvm run's init does when the terminal is set
 * up, so that no input meets the tty's defaults.
 * A byte leaves at once, so with the THR-empty interrupt enabled (IER bit 1,
 * and MCR OUT2, which gates COM1's IRQ 4 on the PC) the interrupt is pending
 * again after every write, as Linux's 8250 driver expects to keep sending
 * (reading IIR takes it, as on the 16550). Output goes to stdout or
 * --serial FILE (out/outfile.h), flushed at each newline and at exit so
 * nothing the guest printed is lost.  An output that fails (a full disk, a
 * reader that went away) is said once and stops the VM as a host error:
 * the rest of the guest's output would be lost.
 */
#include <errno.h>
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
#define UART_LSR_DR	0x01
#define UART_LSR_THRE	0x20
#define UART_LSR_TEMT	0x40
#define UART_IIR_NO_INT	0x01
#define UART_IIR_THRI	0x02
#define UART_IIR_RDI	0x04
#define UART_IER_RDI	0x01
#define UART_IER_THRI	0x02
#define UART_MCR_RTS	0x02
#define UART_MCR_OUT1	0x04
#define UART_MCR_OUT2	0x08
#define UART_IRQ	4
#define UART_IIR_FIFO	0xc0
#define UART_MSR_DCD_DSR_CTS	0xb0
#define UART_RX_FIFO	16

struct uart {
	pthread_mutex_t lock;
	pthread_cond_t rx_room;		/* the FIFO drained or RTS went up */
	uint8_t rx[UART_RX_FIFO];
	unsigned int rx_head, rx_len;
	bool rx_closed;			/* uart_exit(): no more input */
	struct vm *vm;
	struct outfile out;
	uint8_t ier, lcr, mcr, scr, fcr, dll, dlm;
	char buf[4096];
	size_t len;
	bool thri;		/* THR-empty interrupt pending */
	bool irq_level;		/* what IRQ 4 was last set to */
	int vm_fd;		/* KVM_IRQ_LINE */
};

static bool uart_rdi(const struct uart *u)
{
	return u->rx_len && (u->ier & UART_IER_RDI);
}

static void uart_update_irq(struct uart *u)
{
	bool level = (uart_rdi(u) || (u->thri && (u->ier & UART_IER_THRI))) &&
		     (u->mcr & UART_MCR_OUT2);
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

	uint8_t c;

	switch (off) {
	case UART_RBR_THR:
		if (dlab)
			return u->dll;
		if (!u->rx_len)
			return 0;
		c = u->rx[u->rx_head];
		u->rx_head = (u->rx_head + 1) % UART_RX_FIFO;
		u->rx_len--;
		pthread_cond_broadcast(&u->rx_room);
		return c;
	case UART_IER:		return dlab ? u->dlm : u->ier;
	case UART_IIR_FCR:
		/* Received data first (16550 priority), then THR empty. */
		if (uart_rdi(u))
			return UART_IIR_RDI | ((u->fcr & 1) ? UART_IIR_FIFO : 0);
		if (u->thri && (u->ier & UART_IER_THRI)) {
			u->thri = false;	/* reading IIR takes the THRE interrupt */
			return UART_IIR_THRI | ((u->fcr & 1) ? UART_IIR_FIFO : 0);
		}
		return UART_IIR_NO_INT | ((u->fcr & 1) ? UART_IIR_FIFO : 0);
	case UART_LCR:		return u->lcr;
	case UART_MCR:		return u->mcr;
	case UART_LSR:		return UART_LSR_THRE | UART_LSR_TEMT | (u->rx_len ? UART_LSR_DR : 0);
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
	case UART_MCR:
		u->mcr = v & 0x1f;
		pthread_cond_broadcast(&u->rx_room);
		break;
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
	pthread_cond_init(&u->rx_room, NULL);
	u->vm = vm;
	u->vm_fd = vm->vm_fd;
	vm->uart = u;
	if (outfile_open(&u->out, vm->cfg->serial_path ? "--serial" : "serial output",
			 vm->cfg->serial_path ? vm->cfg->serial_path : "-", OUTFILE_STREAM))
		return PMUVM_EXIT_USAGE;
	return pio_register(vm, &dev);
}

int uart_receive(struct vm *vm, uint8_t c)
{
	struct uart *u = vm->uart;

	pthread_mutex_lock(&u->lock);
	while (!u->rx_closed && (u->rx_len == UART_RX_FIFO ||
				 (u->mcr & (UART_MCR_RTS | UART_MCR_OUT1)) != (UART_MCR_RTS | UART_MCR_OUT1)))
		pthread_cond_wait(&u->rx_room, &u->lock);
	if (u->rx_closed) {
		pthread_mutex_unlock(&u->lock);
		return -ESHUTDOWN;
	}
	u->rx[(u->rx_head + u->rx_len) % UART_RX_FIFO] = c;
	u->rx_len++;
	uart_update_irq(u);
	pthread_mutex_unlock(&u->lock);
	return 0;
}

void uart_close_input(struct vm *vm)
{
	struct uart *u = vm->uart;

	if (!u)
		return;
	pthread_mutex_lock(&u->lock);
	u->rx_closed = true;
	pthread_cond_broadcast(&u->rx_room);
	pthread_mutex_unlock(&u->lock);
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
