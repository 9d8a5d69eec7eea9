/* SPDX-License-Identifier: GPL-2.0-only */
/* The device models, where QEMU's pc machine has them (vmm/board.c lists them). */
#ifndef PMUVM_DEVICES_H
#define PMUVM_DEVICES_H

#include "machine/pio.h"

/* Each device's constructor: registers its ports; returns 0 or a PMUVM_EXIT_* code. */
int uart_init(struct vm *vm);
void uart_exit(struct vm *vm);
/* Writes what the guest printed so far: 0, or -errno if its output failed. */
int uart_flush(struct vm *vm);
/*
 * One byte of input, into the receive FIFO: waits while it is full or the
 * guest holds RTS down. 0, or -ESHUTDOWN once uart_close_input() was called.
 */
int uart_receive(struct vm *vm, uint8_t c);
/* Ends input: uart_receive() returns at once from now on. */
void uart_close_input(struct vm *vm);
int debug_exit_init(struct vm *vm);
int fw_cfg_init(struct vm *vm);
int rtc_init(struct vm *vm);
int i8042_init(struct vm *vm);
int acpi_pm_init(struct vm *vm);
void fw_cfg_exit(struct vm *vm);
/* One virtio-fs device per --virtiofs, connected to its back end (virtio_fs.c). */
int virtio_fs_init(struct vm *vm);
void virtio_fs_exit(struct vm *vm);

#endif
