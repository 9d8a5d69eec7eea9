/*
 * 16550A UART at COM1 (0x3f8), output only.  LSR always reports the
 * transmitter empty, so guests that poll THRE never wait; there is no input.
 * A byte leaves at once, so with the THR-empty interrupt enabled (IER bit 1,
 * and MCR OUT2, which gates COM1's IRQ 4 on the PC) the interrupt is pending
 * again after every write, as Linux's 8250 driver expects to keep sending
 * (reading IIR takes it, as on the 16550). Output goes to stdout or
 * --serial FILE, flushed at each newline and at exit so nothing the guest
 * printed is lost.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dev/devices.h"
#include "exitcode.h"
#include "machine/vm.h"
#include "log.h"

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
	int fd;
	bool own_fd;
	uint8_t ier, lcr, mcr, scr, fcr, dll, dlm;
	char buf[4096];
	size_t len;
	bool write_failed;
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
	size_t off = 0;

	while (off < u->len) {
		ssize_t n = write(u->fd, u->buf + off, u->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!u->write_failed)
				pr_err("serial output: %s", n < 0 ? strerror(errno) : "short write");
			u->write_failed = true;
			break;
		}
		off += n;
	}
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
	u->fd = STDOUT_FILENO;
	u->vm_fd = vm->vm_fd;
	vm->uart = u;
	if (vm->cfg->serial_path) {
		u->fd = open(vm->cfg->serial_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (u->fd < 0) {
			pr_err("--serial: cannot open '%s': %s", vm->cfg->serial_path,
			       strerror(errno));
			return PMUVM_EXIT_USAGE;
		}
		u->own_fd = true;
	}
	return pio_register(vm, &dev);
}

void uart_exit(struct vm *vm)
{
	struct uart *u = vm->uart;

	if (!u)
		return;
	pthread_mutex_lock(&u->lock);
	uart_flush_locked(u);
	pthread_mutex_unlock(&u->lock);
	if (u->own_fd)
		close(u->fd);
	free(u);
	vm->uart = NULL;
}
