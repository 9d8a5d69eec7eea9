/* SPDX-License-Identifier: MIT */
/*
 * RT_BIT(n): bit n, unsigned in C (1u << 31 is defined, 1 << 31 is not)
 * and a plain number in assembly, whose integer constants take no "u"
 * suffix in clang's integrated assembler.
 */
#ifndef RT_BITS_H
#define RT_BITS_H

#ifdef __ASSEMBLY__
#define RT_BIT(n)	(1 << (n))
#else
#define RT_BIT(n)	(1u << (n))
#endif

#endif
