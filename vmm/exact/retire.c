/* SPDX-License-Identifier: GPL-2.0-only */
/* Retirement and what it counts, pure (retire.h). */
#include "exact/retire.h"
#include "model/vpmu.h"

static bool expected_target(const struct insn *in, uint64_t rip, uint64_t new_rip)
{
	return new_rip == rip + in->len ||
	       ((in->flags & INSN_RELATIVE) && new_rip == insn_rel_target(in, rip));
}

bool retire_needs_frame(const struct insn *in, uint64_t rip, uint64_t new_rip)
{
	if (expected_target(in, rip, new_rip))
		return false;
	return !((in->flags & INSN_REP) && new_rip == rip);
}

/* An event frame ([err,] RIP, CS) naming `rip` in `cs` at the new RSP. */
static bool frame_names(const struct step_result *res, uint64_t rip, uint16_t cs)
{
	if (!res->frame_valid)
		return false;
	for (unsigned int i = 0; i + 1 < sizeof(res->frame) / sizeof(res->frame[0]); i++)
		if (res->frame[i] == rip && (uint16_t)res->frame[i + 1] == cs)
			return true;
	return false;
}

enum retire retire_completed(const struct insn *in, uint64_t rip, uint64_t new_rip)
{
	if (!(in->flags & INSN_BRANCH))
		return RETIRE_YES;
	if (in->flags & (INSN_NEAR_UNCOND | INSN_FAR))
		return RETIRE_TAKEN;
	/* Conditional: taken unless it fell through (a jump to the next RIP is not taken). */
	return new_rip == rip + in->len ? RETIRE_YES : RETIRE_TAKEN;
}

enum retire retire_decide(const struct insn *in, uint64_t rip, uint16_t cs,
			  struct step_result *res)
{
	uint64_t next = rip + in->len;

	res->event = false;
	if (expected_target(in, rip, res->new_rip))
		return retire_completed(in, rip, res->new_rip);
	if ((in->flags & INSN_REP) && res->new_rip == rip)
		return RETIRE_NO;
	/*
	 * Still at it with RSP where it was: it did not run (a debug exit
	 * before it, docs/counting.md "Per host kind"), as a CALL, RET, IRET
	 * or INT n that runs pushes or pops.
	 */
	if ((in->flags & INSN_STACK_BRANCH) && res->new_rip == rip && res->rsp_kept)
		return RETIRE_NO;
	res->event = true;
	if (frame_names(res, rip, cs))
		return RETIRE_NO;
	/* An event delivered right after it: the frame says where it went. */
	if (frame_names(res, next, cs))
		return retire_completed(in, rip, next);
	if ((in->flags & INSN_RELATIVE) && frame_names(res, insn_rel_target(in, rip), cs))
		return RETIRE_TAKEN;
	res->event = false;
	/*
	 * Indirect and far branches go anywhere.  Anything else that ended up
	 * somewhere unexpected without a frame naming it was diverted by an
	 * event whose frame we cannot see: not retired.
	 */
	if (in->flags & INSN_BRANCH && !(in->flags & INSN_RELATIVE))
		return RETIRE_TAKEN;
	return RETIRE_NO;
}

/* The branch events one retired branch is (events.h). */
static uint32_t branch_events(uint32_t flags, bool taken)
{
	uint32_t ev = 1u << PMU_EV_BRANCHES;

	if (flags & INSN_COND)
		ev |= 1u << PMU_EV_BR_COND |
		      1u << (taken ? PMU_EV_BR_COND_TAKEN : PMU_EV_BR_COND_NTAKEN);
	if (flags & INSN_NEAR_CALL)
		ev |= 1u << PMU_EV_BR_NEAR_CALL;
	if (flags & INSN_NEAR_RET)
		ev |= 1u << PMU_EV_BR_NEAR_RETURN;
	if (flags & INSN_FAR)
		ev |= 1u << PMU_EV_BR_FAR | 1u << PMU_EV_BR_TAKEN;
	else if (taken)
		ev |= 1u << PMU_EV_BR_NEAR_TAKEN | 1u << PMU_EV_BR_TAKEN;
	return ev;
}

uint32_t retire_events(const struct insn *in, enum retire how)
{
	uint32_t events = 1u << PMU_EV_INSTRUCTIONS;

	if (in->flags & INSN_BRANCH)
		events |= branch_events(in->flags, how == RETIRE_TAKEN);
	return events;
}
