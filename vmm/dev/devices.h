/* The device models, where QEMU's pc machine has them (vmm/board.c lists them). */
#ifndef PMUVM_DEVICES_H
#define PMUVM_DEVICES_H

#include "machine/pio.h"

/* Each device's constructor: registers its ports; returns 0 or a PMUVM_EXIT_* code. */
int uart_init(struct vm *vm);
void uart_exit(struct vm *vm);
/* Writes what the guest printed so far: 0, or -errno if its output failed. */
int uart_flush(struct vm *vm);
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
