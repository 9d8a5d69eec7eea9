/* SPDX-License-Identifier: MIT */
/*
 * ntpmu's event loggers: start, stop, the record buffer and its consumer
 * view (nt/ntwmi.h).  Each logger has one non-paged buffer that
 * records are appended to under the ntpmu lock; a record that does not fit
 * is counted as lost.  Stopping a logger releases its PMC sources
 * (docs/windows-api.md 4.6.7: they stay until the logger stops).
 *
 * Choices (Windows' StartTrace/ControlTrace statuses are not in the spec):
 * a NULL name or handle, or a buffer under one record, is
 * STATUS_INVALID_PARAMETER; a name already running is
 * STATUS_WMI_ALREADY_ENABLED; no free logger slot is
 * STATUS_INSUFFICIENT_RESOURCES; stopping a logger that is not running is
 * STATUS_WMI_INSTANCE_NOT_FOUND, one a configure call holds
 * STATUS_DEVICE_BUSY.
 */
#include "ntpmu_etw.h"

#define NTPMU_LOGGER_MAX_BYTES	(16u << 20)

struct ntpmu_logger ntpmu_loggers[NTPMU_MAX_LOGGERS];

static size_t wlen(PCWSTR s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

static bool wsame(PCWSTR a, PCWSTR b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

struct ntpmu_logger *ntpmu_logger_find(TRACEHANDLE h)
{
	USHORT id = (USHORT)(h & 0xFFFF);
	unsigned int i;

	for (i = 0; i < NTPMU_MAX_LOGGERS; i++)
		if (ntpmu_loggers[i].active && ntpmu_loggers[i].id == id)
			return &ntpmu_loggers[i];
	return NULL;
}

uint32_t ntpmu_thread_id(void *thread)
{
	if (!thread || !ntpmu.ops->thread_id)
		return 0;
	return ntpmu.ops->thread_id(ntpmu.ctx, thread);
}

/* The lowest logger ID from 1 no running logger has. */
static USHORT free_id(void)
{
	USHORT id;

	for (id = 1;; id++)
		if (!ntpmu_logger_find(id))
			return id;
}

NTSTATUS ntpmu_logger_start(PCWSTR Name, ULONG LogFileMode, ULONG BufferBytes, ULONG Access,
			    PTRACEHANDLE Handle)
{
	struct ntpmu_logger *lg = NULL;
	size_t len;
	uint8_t *buf;
	unsigned long flags;
	unsigned int i;
	NTSTATUS st = STATUS_SUCCESS;

	if (!Name || !Handle)
		return STATUS_INVALID_PARAMETER;
	len = wlen(Name, 64);
	if (!len || len >= 64)
		return STATUS_INVALID_PARAMETER;
	if (BufferBytes < sizeof(NTPMU_TRACE_HEADER) || BufferBytes > NTPMU_LOGGER_MAX_BYTES)
		return STATUS_INVALID_PARAMETER;
	buf = ntpmu.ops->zalloc(ntpmu.ctx, BufferBytes);
	if (!buf)
		return STATUS_NO_MEMORY;

	flags = ntpmu_lock();
	for (i = 0; i < NTPMU_MAX_LOGGERS; i++) {
		if (ntpmu_loggers[i].active && wsame(ntpmu_loggers[i].name, Name))
			st = STATUS_WMI_ALREADY_ENABLED;
		else if (!ntpmu_loggers[i].active && !lg)
			lg = &ntpmu_loggers[i];
	}
	if (st == STATUS_SUCCESS && !lg)
		st = STATUS_INSUFFICIENT_RESOURCES;
	if (st == STATUS_SUCCESS) {
		*lg = (struct ntpmu_logger){ .mode = LogFileMode, .access = Access,
					     .buf = buf, .size = BufferBytes & ~7u };
		__builtin_memcpy(lg->name, Name, (len + 1) * sizeof(WCHAR));
		lg->id = wsame(Name, KERNEL_LOGGER_NAMEW) ? KERNEL_LOGGER_ID : free_id();
		lg->active = true;
		*Handle = lg->id;
	}
	ntpmu_unlock(flags);
	if (st != STATUS_SUCCESS)
		ntpmu.ops->free(ntpmu.ctx, buf);
	return st;
}

static void logger_free(struct ntpmu_logger *lg, struct ntpmu_pmc_support *pmc, uint8_t *buf)
{
	if (pmc) {
		ntpmu_pmc_set_release(&pmc->list);
		ntpmu_pmc_set_release(&pmc->profile);
		ntpmu.ops->free(ntpmu.ctx, pmc);
	}
	ntpmu.ops->free(ntpmu.ctx, buf);
}

NTSTATUS ntpmu_logger_stop(TRACEHANDLE Handle)
{
	struct ntpmu_logger *lg;
	struct ntpmu_pmc_support *pmc = NULL;
	uint8_t *buf = NULL;
	unsigned long flags = ntpmu_lock();
	NTSTATUS st = STATUS_SUCCESS;

	lg = ntpmu_logger_find(Handle);
	if (!lg) {
		st = STATUS_WMI_INSTANCE_NOT_FOUND;
	} else if (lg->busy) {
		st = STATUS_DEVICE_BUSY;
	} else {
		/* From here the switch hook and the PMI no longer see it. */
		lg->active = false;
		pmc = lg->pmc;
		buf = lg->buf;
		lg->pmc = NULL;
		lg->buf = NULL;
	}
	ntpmu_unlock(flags);
	if (st == STATUS_SUCCESS)
		logger_free(lg, pmc, buf);
	return st;
}

void ntpmu_logger_write(struct ntpmu_logger *lg, USHORT hook, const void *payload,
			USHORT len, const uint64_t *pmc, unsigned int npmc)
{
	NTPMU_TRACE_HEADER h = { 0 };
	ULONG size = (ULONG)sizeof(h) + ((len + 7u) & ~7u) + npmc * 8u;
	uint8_t *p;

	if (size > lg->size - lg->used) {
		lg->lost++;
		return;
	}
	p = lg->buf + lg->used;
	h.Size = (USHORT)size;
	h.HookId = hook;
	h.Processor = (USHORT)ntpmu.ops->cpu_id(ntpmu.ctx);
	h.PmcCount = (USHORT)npmc;
	h.ThreadId = ntpmu_thread_id(ntpmu.ops->current_thread(ntpmu.ctx));
	h.TimeStamp = ntpmu.ops->rdtsc(ntpmu.ctx);
	__builtin_memcpy(p, &h, sizeof(h));
	__builtin_memcpy(p + sizeof(h), payload, len);
	if (npmc)
		__builtin_memcpy(p + sizeof(h) + ((len + 7u) & ~7u), pmc, npmc * 8u);
	/* The consumer reads `used` without the lock: publish after the record. */
	__atomic_store_n(&lg->used, lg->used + size, __ATOMIC_RELEASE);
}

NTSTATUS ntpmu_logger_buffer(TRACEHANDLE Handle, const void **Buffer, ULONG *Used, ULONG *Lost)
{
	struct ntpmu_logger *lg;
	unsigned long flags;
	NTSTATUS st = STATUS_SUCCESS;

	if (!Buffer || !Used || !Lost)
		return STATUS_INVALID_PARAMETER;
	flags = ntpmu_lock();
	lg = ntpmu_logger_find(Handle);
	if (!lg) {
		st = STATUS_WMI_INSTANCE_NOT_FOUND;
	} else {
		*Buffer = lg->buf;
		*Used = __atomic_load_n(&lg->used, __ATOMIC_ACQUIRE);
		*Lost = lg->lost;
	}
	ntpmu_unlock(flags);
	return st;
}

void ntpmu_etw_reset(void)
{
	unsigned int i;

	for (i = 0; i < NTPMU_MAX_LOGGERS; i++) {
		struct ntpmu_logger *lg = &ntpmu_loggers[i];

		if (lg->active)
			logger_free(lg, lg->pmc, lg->buf);
		*lg = (struct ntpmu_logger){ 0 };
	}
	ntpmu_source_reset();
}
