/* SPDX-License-Identifier: MIT */
/*
 * Kernel heap: every byte of RAM above the image and the multiboot modules
 * (multiboot mem_upper), handed out first-fit from one address-ordered free
 * list that merges neighbours on free.  One irqsave spinlock guards it, so
 * it may be used from any thread, CPU or interrupt handler.
 *
 * @align is a power of two (0 or anything below 16 means 16).  NULL when no
 * free block fits, or when fault injection says so.  rt_free(NULL) is a
 * no-op; freeing anything else that rt_alloc() did not return is fatal.
 */
#ifndef RT_ALLOC_H
#define RT_ALLOC_H

#include <stddef.h>
#include <stdint.h>

void *rt_alloc(size_t size, size_t align);
void *rt_zalloc(size_t size, size_t align);
void rt_free(void *p);
/* Bytes usable at @p, an rt_alloc() pointer: the size asked, rounded up. */
size_t rt_alloc_usable_size(const void *p);

/*
 * Fault injection for tests: the (n+1)-th allocation from now returns NULL
 * (n = 0: the next one), once; the ones after it succeed again.  n = -1
 * cancels a pending failure.
 */
void rt_alloc_fail_after(int n);

/*
 * What a chunk costs besides the bytes asked for, rounded up to 16, when
 * @align is 16 or less: its header.  rt_smp_start() takes each AP's stacks
 * (RT_STACK_SIZE and RT_USER_STACK_SIZE) from the heap that way.
 */
#define RT_ALLOC_HDR_SIZE	32

/* Free bytes (sum of free blocks, headers not subtracted) and heap size. */
size_t rt_alloc_free_bytes(void);
size_t rt_alloc_heap_size(void);

#endif
