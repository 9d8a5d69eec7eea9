/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Zydis-based classification (DEVELOPERS: no hand-written decoder).  The
 * branch classes follow BR_INST_RETIRED's umasks (SDM vol. 3B 20.x, e.g.
 * Skylake: 0x01 COND, 0x02 NEAR_CALL, 0x08 NEAR_RETURN, 0x20 NEAR_TAKEN,
 * 0x40 FAR_BRANCH); ALL_BRANCHES (0x00, architectural) is their union.
 * Software interrupts, IRET and SYSCALL/SYSRET are far branches.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>

#include <Zydis/Zydis.h>

#include "x86/decode.h"

static ZydisDecoder decoders[3];
static pthread_once_t decoders_once = PTHREAD_ONCE_INIT;

static void decoders_init(void)
{
	ZydisDecoderInit(&decoders[INSN_MODE_16], ZYDIS_MACHINE_MODE_LEGACY_16,
			 ZYDIS_STACK_WIDTH_16);
	ZydisDecoderInit(&decoders[INSN_MODE_32], ZYDIS_MACHINE_MODE_LEGACY_32,
			 ZYDIS_STACK_WIDTH_32);
	ZydisDecoderInit(&decoders[INSN_MODE_64], ZYDIS_MACHINE_MODE_LONG_64,
			 ZYDIS_STACK_WIDTH_64);
}

static uint32_t branch_flags(const ZydisDecodedInstruction *zi)
{
	bool far = zi->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR;

	switch (zi->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
		return INSN_BRANCH | INSN_COND;
	case ZYDIS_CATEGORY_UNCOND_BR:
		return INSN_BRANCH | (far ? INSN_FAR : INSN_NEAR_UNCOND);
	case ZYDIS_CATEGORY_CALL:
		return INSN_BRANCH | INSN_STACK_BRANCH |
		       (far ? INSN_FAR : INSN_NEAR_CALL | INSN_NEAR_UNCOND);
	case ZYDIS_CATEGORY_RET:
		if (far || zi->mnemonic != ZYDIS_MNEMONIC_RET)
			return INSN_BRANCH | INSN_STACK_BRANCH | INSN_FAR;	/* RETF, IRET */
		return INSN_BRANCH | INSN_STACK_BRANCH | INSN_NEAR_RET | INSN_NEAR_UNCOND;
	case ZYDIS_CATEGORY_INTERRUPT:
		return INSN_BRANCH | INSN_STACK_BRANCH | INSN_FAR;
	case ZYDIS_CATEGORY_SYSCALL:
	case ZYDIS_CATEGORY_SYSRET:
		return INSN_BRANCH | INSN_FAR;
	default:
		return 0;
	}
}

static int16_t fault_vec(const ZydisDecodedInstruction *zi)
{
	switch (zi->mnemonic) {
	case ZYDIS_MNEMONIC_DIV:
	case ZYDIS_MNEMONIC_IDIV:
		return X86_VEC_DE;
	case ZYDIS_MNEMONIC_INT3:
		return X86_VEC_BP;
	case ZYDIS_MNEMONIC_INTO:
		return X86_VEC_OF;
	case ZYDIS_MNEMONIC_INT:
		return (int16_t)zi->raw.imm[0].value.u;
	case ZYDIS_MNEMONIC_UD0:
	case ZYDIS_MNEMONIC_UD1:
	case ZYDIS_MNEMONIC_UD2:
		return X86_VEC_UD;
	case ZYDIS_MNEMONIC_RDPMC:
	case ZYDIS_MNEMONIC_RDMSR:
	case ZYDIS_MNEMONIC_WRMSR:
		return X86_VEC_GP;
	default:
		return (zi->attributes & ZYDIS_ATTRIB_IS_PRIVILEGED) ? X86_VEC_GP : INSN_NO_FAULT_VEC;
	}
}

/* Categories of general-purpose instructions: registers, flags, stack and memory only. */
static bool plain_category(ZydisInstructionCategory c)
{
	switch (c) {
	case ZYDIS_CATEGORY_BINARY:
	case ZYDIS_CATEGORY_BITBYTE:
	case ZYDIS_CATEGORY_CALL:
	case ZYDIS_CATEGORY_CMOV:
	case ZYDIS_CATEGORY_COND_BR:
	case ZYDIS_CATEGORY_CONVERT:
	case ZYDIS_CATEGORY_DATAXFER:
	case ZYDIS_CATEGORY_FLAGOP:
	case ZYDIS_CATEGORY_LOGICAL:
	case ZYDIS_CATEGORY_MISC:
	case ZYDIS_CATEGORY_NOP:
	case ZYDIS_CATEGORY_POP:
	case ZYDIS_CATEGORY_PUSH:
	case ZYDIS_CATEGORY_RET:
	case ZYDIS_CATEGORY_ROTATE:
	case ZYDIS_CATEGORY_SEMAPHORE:
	case ZYDIS_CATEGORY_SETCC:
	case ZYDIS_CATEGORY_SHIFT:
	case ZYDIS_CATEGORY_STRINGOP:
	case ZYDIS_CATEGORY_UNCOND_BR:
	case ZYDIS_CATEGORY_WIDENOP:
		return true;
	default:
		return false;
	}
}

/* General-purpose by category, yet reading or writing system state. */
static bool system_mnemonic(ZydisMnemonic m)
{
	switch (m) {
	case ZYDIS_MNEMONIC_CLI:
	case ZYDIS_MNEMONIC_STI:
	case ZYDIS_MNEMONIC_POPF:
	case ZYDIS_MNEMONIC_POPFD:
	case ZYDIS_MNEMONIC_POPFQ:
	case ZYDIS_MNEMONIC_CPUID:
	case ZYDIS_MNEMONIC_RDTSC:
	case ZYDIS_MNEMONIC_RDTSCP:
	case ZYDIS_MNEMONIC_RDPMC:
	case ZYDIS_MNEMONIC_XGETBV:
	case ZYDIS_MNEMONIC_UD0:
	case ZYDIS_MNEMONIC_UD1:
	case ZYDIS_MNEMONIC_UD2:
		return true;
	default:
		return false;
	}
}

/* A general register, RFLAGS or RIP. */
static bool plain_register(ZydisRegister reg)
{
	switch (ZydisRegisterGetClass(reg)) {
	case ZYDIS_REGCLASS_GPR8:
	case ZYDIS_REGCLASS_GPR16:
	case ZYDIS_REGCLASS_GPR32:
	case ZYDIS_REGCLASS_GPR64:
	case ZYDIS_REGCLASS_FLAGS:
	case ZYDIS_REGCLASS_IP:
		return true;
	default:
		return false;
	}
}

/* Registers of the x87, MMX and SSE state an emulator can be given (INSN_FPU). */
static bool fpu_register(ZydisRegister reg)
{
	switch (ZydisRegisterGetClass(reg)) {
	case ZYDIS_REGCLASS_X87:
	case ZYDIS_REGCLASS_MMX:
	case ZYDIS_REGCLASS_XMM:
		return true;
	default:
		return reg == ZYDIS_REGISTER_X87CONTROL || reg == ZYDIS_REGISTER_X87STATUS ||
		       reg == ZYDIS_REGISTER_X87TAG || reg == ZYDIS_REGISTER_MXCSR;
	}
}

/*
 * Whether any operand, hidden ones too, is a register beyond the plain
 * ones and, with `fpu`, the x87/MMX/SSE state (fpu_register()).
 */
static bool system_operand(const ZydisDecodedOperand *ops, unsigned int n, bool fpu)
{
	for (unsigned int i = 0; i < n; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER && !plain_register(ops[i].reg.value) &&
		    !(fpu && fpu_register(ops[i].reg.value)))
			return true;
	return false;
}

/*
 * INSN_FPU (decode.h): an x87, MMX or SSE instruction of the legacy
 * encoding whose registers are general ones, RFLAGS, RIP or that state.
 */
static bool fpu_insn(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *ops)
{
	switch (zi->meta.isa_ext) {
	case ZYDIS_ISA_EXT_X87:
	case ZYDIS_ISA_EXT_MMX:
	case ZYDIS_ISA_EXT_SSE:
	case ZYDIS_ISA_EXT_SSE2:
	case ZYDIS_ISA_EXT_SSE3:
	case ZYDIS_ISA_EXT_SSSE3:
	case ZYDIS_ISA_EXT_SSE4:
		break;
	default:
		return false;
	}
	switch (zi->mnemonic) {
	case ZYDIS_MNEMONIC_FNSAVE:
	case ZYDIS_MNEMONIC_FRSTOR:
	case ZYDIS_MNEMONIC_FNSTENV:
	case ZYDIS_MNEMONIC_FLDENV:
	case ZYDIS_MNEMONIC_FXSAVE:
	case ZYDIS_MNEMONIC_FXSAVE64:
	case ZYDIS_MNEMONIC_FXRSTOR:
	case ZYDIS_MNEMONIC_FXRSTOR64:
		return false;
	default:
		break;
	}
	return zi->encoding == ZYDIS_INSTRUCTION_ENCODING_LEGACY &&
	       !(zi->attributes & ZYDIS_ATTRIB_IS_PRIVILEGED) &&
	       !system_operand(ops, zi->operand_count, true);
}

/* INSN_SYSTEM, INSN_FPU and INSN_LOCKED (decode.h). */
static uint32_t emulation_flags(const ZydisDecoder *dec, const ZydisDecoderContext *ctx,
				const ZydisDecodedInstruction *zi, uint32_t flags)
{
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	uint32_t out = 0;

	if (!ZYAN_SUCCESS(ZydisDecoderDecodeOperands(dec, ctx, zi, ops, zi->operand_count)))
		return INSN_SYSTEM;
	if (fpu_insn(zi, ops))
		out |= INSN_FPU;
	else if (!plain_category(zi->meta.category) || (flags & INSN_FAR) ||
		 (zi->attributes & ZYDIS_ATTRIB_IS_PRIVILEGED) || system_mnemonic(zi->mnemonic) ||
		 system_operand(ops, zi->operand_count, false))
		out |= INSN_SYSTEM;
	if ((zi->attributes & ZYDIS_ATTRIB_HAS_LOCK) ||
	    (zi->mnemonic == ZYDIS_MNEMONIC_XCHG &&
	     (ops[0].type == ZYDIS_OPERAND_TYPE_MEMORY || ops[1].type == ZYDIS_OPERAND_TYPE_MEMORY)))
		out |= INSN_LOCKED;
	return out;
}

int insn_decode(const uint8_t *bytes, size_t avail, enum insn_mode mode, struct insn *out)
{
	ZydisDecoderContext ctx;
	ZydisDecodedInstruction zi;

	pthread_once(&decoders_once, decoders_init);
	if (mode > INSN_MODE_64 ||
	    !ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&decoders[mode], &ctx, bytes, avail, &zi)))
		return -EINVAL;

	out->len = zi.length;
	out->flags = branch_flags(&zi);
	out->flags |= emulation_flags(&decoders[mode], &ctx, &zi, out->flags);
	out->fault_vec = fault_vec(&zi);
	out->rel = 0;
	out->addr_bits = zi.operand_width;
	if ((out->flags & INSN_BRANCH) && !(out->flags & INSN_FAR) &&
	    (zi.attributes & ZYDIS_ATTRIB_IS_RELATIVE)) {
		out->flags |= INSN_RELATIVE;
		out->rel = zi.raw.imm[0].value.s;
	}
	if ((zi.attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE |
			      ZYDIS_ATTRIB_HAS_REPNE)) &&
	    zi.meta.category == ZYDIS_CATEGORY_STRINGOP)
		out->flags |= INSN_REP;
	if (zi.mnemonic == ZYDIS_MNEMONIC_HLT)
		out->flags |= INSN_HLT;
	else if (zi.mnemonic == ZYDIS_MNEMONIC_STI)
		out->flags |= INSN_STI;
	else if (zi.mnemonic == ZYDIS_MNEMONIC_WRMSR)
		out->flags |= INSN_WRMSR;
	else if (zi.mnemonic == ZYDIS_MNEMONIC_RDPMC)
		out->flags |= INSN_RDPMC;
	else if (zi.mnemonic == ZYDIS_MNEMONIC_RDTSC)
		out->flags |= INSN_RDTSC;
	else if (zi.mnemonic == ZYDIS_MNEMONIC_SYSRET)
		out->flags |= INSN_SYSRET;
	else if (zi.mnemonic == ZYDIS_MNEMONIC_IRET || zi.mnemonic == ZYDIS_MNEMONIC_IRETD ||
		 zi.mnemonic == ZYDIS_MNEMONIC_IRETQ)
		out->flags |= INSN_IRET | INSN_LOADS_RFLAGS;
	switch (zi.mnemonic) {
	case ZYDIS_MNEMONIC_POPF:
	case ZYDIS_MNEMONIC_POPFD:
	case ZYDIS_MNEMONIC_POPFQ:
	case ZYDIS_MNEMONIC_SYSCALL:
	case ZYDIS_MNEMONIC_SYSRET:
	case ZYDIS_MNEMONIC_SYSENTER:
	case ZYDIS_MNEMONIC_SYSEXIT:
		out->flags |= INSN_LOADS_RFLAGS;
		break;
	default:
		break;
	}
	switch (zi.mnemonic) {
	case ZYDIS_MNEMONIC_PUSHF:
	case ZYDIS_MNEMONIC_PUSHFD:
	case ZYDIS_MNEMONIC_PUSHFQ:
	case ZYDIS_MNEMONIC_SYSCALL:
		out->flags |= INSN_SAVES_RFLAGS;
		break;
	case ZYDIS_MNEMONIC_INVLPG:
	case ZYDIS_MNEMONIC_INVLPGA:
	case ZYDIS_MNEMONIC_INVPCID:
		out->flags |= INSN_TLB;
		break;
	default:
		break;
	}
	return 0;
}

uint64_t insn_rel_target(const struct insn *in, uint64_t rip)
{
	uint64_t t = rip + in->len + (uint64_t)in->rel;

	if (in->addr_bits == 16)
		return t & 0xffff;
	if (in->addr_bits == 32)
		return t & 0xffffffffu;
	return t;
}
