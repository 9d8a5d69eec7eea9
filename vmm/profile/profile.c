/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --profile: each counter overflow pmuvm delivers becomes one sample of
 * (vCPU, counter, guest RIP, caller chain).  The chain follows the guest's
 * frame pointers (RBP) through its page tables, so it is only as good as the
 * guest's frame-pointer discipline; a frame that does not translate ends it.
 *
 * At exit up to two files are written, each only where asked for:
 * --profile FILE, a top-functions table (self samples per function,
 * resolved against the image's ELF symbols), and --profile-folded FILE, one
 * "counter;outermost;...;leaf count" line per distinct stack, the format
 * flame-graph tools (flamegraph.pl, speedscope, inferno) read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/symbols.h"
#include "exitcode.h"
#include "machine/vm.h"
#include "log.h"
#include "mem/pagewalk.h"
#include "out/outfile.h"
#include "profile/profile.h"
#include "pmu/vcpu_pmu.h"

#define PROFILE_MAX_FRAMES	32
#define PROFILE_MAX_SAMPLES	(1u << 22)	/* per vCPU; beyond this, counted only */

struct profile_sample {
	uint16_t vcpu;
	uint8_t counter;	/* global PMC index: GP x, fixed 32+i */
	uint8_t nr_frames;
	uint64_t frames[PROFILE_MAX_FRAMES];	/* [0] = RIP, then return addresses */
};

struct profile_buf {
	struct profile_sample *s;
	size_t nr, cap;
	uint64_t dropped;
};

static unsigned int walk_frames(struct vcpu *vcpu, uint64_t *frames)
{
	const struct kvm_sregs *sr = &vcpu->run->s.regs.sregs;
	const struct kvm_regs *r = &vcpu->run->s.regs.regs;
	struct paging_state ps = { sr->cr0, sr->cr3, sr->cr4, sr->efer };
	uint64_t fp = r->rbp, prev = 0;
	unsigned int n = 0;

	frames[n++] = r->rip;
	while (n < PROFILE_MAX_FRAMES && fp > prev && !(fp & 7)) {
		uint64_t pair[2];	/* saved RBP, return address */

		if (guest_linear_read(&vcpu->vm->mem, &ps, fp, pair, sizeof(pair)) || !pair[1])
			break;
		frames[n++] = pair[1];
		prev = fp;
		fp = pair[0];
	}
	return n;
}

/* One sample per counter that overflowed since the last exit. */
static void profile_after_run(struct vcpu *vcpu)
{
	uint64_t overflow_bits = vpmu_take_overflows(&vcpu->pmu->model);
	struct profile_buf *pb = vcpu->pmu->profile;
	uint64_t frames[PROFILE_MAX_FRAMES];
	unsigned int nf, bit;

	if (!overflow_bits)
		return;
	nf = walk_frames(vcpu, frames);
	for (bit = 0; bit < 64; bit++) {
		struct profile_sample *s;

		if (!(overflow_bits & (1ULL << bit)))
			continue;
		if (pb->nr == pb->cap) {
			size_t ncap = pb->cap ? pb->cap * 2 : 1024;
			struct profile_sample *ns;

			if (ncap > PROFILE_MAX_SAMPLES ||
			    !(ns = realloc(pb->s, ncap * sizeof(*ns)))) {
				pb->dropped++;
				continue;
			}
			pb->s = ns;
			pb->cap = ncap;
		}
		s = &pb->s[pb->nr++];
		s->vcpu = (uint16_t)vcpu->id;
		s->counter = (uint8_t)bit;
		s->nr_frames = (uint8_t)nf;
		memcpy(s->frames, frames, nf * sizeof(frames[0]));
	}
}

/* Only with --profile, and where kvm_run carries the registers (the RIP of every exit). */
static int profile_vcpu_init(struct vcpu *vcpu)
{
	const struct pmuvm_config *cfg = vcpu->vm->cfg;

	if ((!cfg->profile_path && !cfg->profile_folded_path) || !vcpu->sync_sregs)
		return VCPU_FEATURE_OFF;
	vcpu->pmu->profile = calloc(1, sizeof(*vcpu->pmu->profile));
	if (!vcpu->pmu->profile) {
		pr_err("out of memory");
		return PMUVM_EXIT_HOST_ERROR;
	}
	return 0;
}

static void profile_vcpu_exit(struct vcpu *vcpu)
{
	if (vcpu->pmu->profile)
		free(vcpu->pmu->profile->s);
	free(vcpu->pmu->profile);
	vcpu->pmu->profile = NULL;
}

const struct vcpu_feature profile_feature = {
	.name = "profile",
	.vcpu_init = profile_vcpu_init,
	.vcpu_exit = profile_vcpu_exit,
	.after_run = profile_after_run,
};

static const char *counter_name(unsigned int idx, char *buf, size_t len)
{
	if (idx >= 32)
		snprintf(buf, len, "fixed%u", idx - 32);
	else
		snprintf(buf, len, "pmc%u", idx);
	return buf;
}

static const char *frame_name(const struct symtab *t, uint64_t addr, char *buf, size_t len)
{
	const struct symbol *s = symtab_lookup(t, addr);

	if (s)
		return s->name;
	snprintf(buf, len, "0x%llx", (unsigned long long)addr);
	return buf;
}

struct count {
	char *key;
	uint64_t n;
};

struct counts {
	struct count *c;
	size_t nr, cap;
};

/* Linear probing would be faster; profiles have few distinct keys. */
static int counts_add(struct counts *cs, const char *key)
{
	size_t i;

	for (i = 0; i < cs->nr; i++)
		if (!strcmp(cs->c[i].key, key)) {
			cs->c[i].n++;
			return 0;
		}
	if (cs->nr == cs->cap) {
		size_t ncap = cs->cap ? cs->cap * 2 : 64;
		struct count *nc = realloc(cs->c, ncap * sizeof(*nc));

		if (!nc)
			return -ENOMEM;
		cs->c = nc;
		cs->cap = ncap;
	}
	cs->c[cs->nr].key = strdup(key);
	if (!cs->c[cs->nr].key)
		return -ENOMEM;
	cs->c[cs->nr++].n = 1;
	return 0;
}

static int cmp_count_desc(const void *a, const void *b)
{
	const struct count *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->key, y->key);
}

/* Most first; a run without samples has no array at all (qsort wants one). */
static void counts_sort(struct counts *cs)
{
	if (cs->nr)
		qsort(cs->c, cs->nr, sizeof(*cs->c), cmp_count_desc);
}

static void counts_free(struct counts *cs)
{
	size_t i;

	for (i = 0; i < cs->nr; i++)
		free(cs->c[i].key);
	free(cs->c);
}

/* Builds the self-sample table and the folded stacks of every vCPU's samples. */
static int profile_aggregate(struct vm *vm, const struct symtab *t, struct counts *self,
			     struct counts *folded, struct counts *per_counter, uint64_t *total,
			     uint64_t *dropped)
{
	char stack[PROFILE_MAX_FRAMES * 96], nbuf[32], cbuf[16];
	unsigned int v;
	size_t i;

	for (v = 0; v < vm->nr_vcpus; v++) {
		struct profile_buf *pb = vm->vcpus[v].pmu ? vm->vcpus[v].pmu->profile : NULL;

		if (!pb)
			continue;
		*dropped += pb->dropped;
		for (i = 0; i < pb->nr; i++) {
			const struct profile_sample *s = &pb->s[i];
			size_t len;
			int f;

			counter_name(s->counter, cbuf, sizeof(cbuf));
			len = (size_t)snprintf(stack, sizeof(stack), "%s", cbuf);
			for (f = s->nr_frames - 1; f >= 0 && len < sizeof(stack); f--)
				len += (size_t)snprintf(stack + len, sizeof(stack) - len, ";%s",
							frame_name(t, s->frames[f], nbuf,
								   sizeof(nbuf)));
			if (counts_add(folded, stack) || counts_add(per_counter, cbuf) ||
			    counts_add(self, frame_name(t, s->frames[0], nbuf, sizeof(nbuf))))
				return -ENOMEM;
			(*total)++;
		}
	}
	return 0;
}

/* Builds a file's text in memory (open_memstream), then writes it whole. */
static int profile_emit_file(struct outfile *out, void (*fill)(FILE *f, const void *arg),
			     const void *arg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	if (!outfile_on(out))
		return 0;
	f = open_memstream(&text, &len);
	if (!f) {
		pr_err("%s: out of memory", out->opt);
		return -ENOMEM;
	}
	fill(f, arg);
	if (fclose(f)) {
		free(text);
		pr_err("%s: out of memory", out->opt);
		return -ENOMEM;
	}
	r = outfile_replace(out, text, len);
	free(text);
	return r;
}

struct profile_text {
	const struct counts *self, *folded, *per_counter;
	uint64_t total, dropped;
	const char *image;
	const struct outfile *folded_out;
};

static void profile_fill_table(FILE *f, const void *arg)
{
	const struct profile_text *p = arg;
	size_t i;

	fprintf(f, "# pmuvm profile of %s: %llu samples (counter overflows delivered)\n", p->image,
		(unsigned long long)p->total);
	if (p->dropped)
		fprintf(f, "# %llu samples not stored (memory limit)\n",
			(unsigned long long)p->dropped);
	fprintf(f, "# by counter:");
	for (i = 0; i < p->per_counter->nr; i++)
		fprintf(f, " %s=%llu", p->per_counter->c[i].key,
			(unsigned long long)p->per_counter->c[i].n);
	fprintf(f, "\n");
	if (outfile_on(p->folded_out))
		fprintf(f, "# folded stacks: %s\n", p->folded_out->name);
	fprintf(f, "#\n#  samples       %%  function\n");
	for (i = 0; i < p->self->nr; i++)
		fprintf(f, "%10llu  %5.1f%%  %s\n", (unsigned long long)p->self->c[i].n,
			100.0 * (double)p->self->c[i].n / (double)(p->total ? p->total : 1),
			p->self->c[i].key);
}

static void profile_fill_folded(FILE *f, const void *arg)
{
	const struct profile_text *p = arg;
	size_t i;

	for (i = 0; i < p->folded->nr; i++)
		fprintf(f, "%s %llu\n", p->folded->c[i].key, (unsigned long long)p->folded->c[i].n);
}

int profile_write(struct vm *vm, const uint8_t *image, size_t image_size, struct outfile *table,
		  struct outfile *folded_out)
{
	struct counts self = { 0 }, folded = { 0 }, per_counter = { 0 };
	struct profile_text text = {
		.self = &self, .folded = &folded, .per_counter = &per_counter,
		.image = vm->cfg->image, .folded_out = folded_out,
	};
	struct symtab t;
	int r, r2;

	if (symtab_load(&t, image, image_size))
		memset(&t, 0, sizeof(t));
	r = profile_aggregate(vm, &t, &self, &folded, &per_counter, &text.total, &text.dropped);
	if (r) {
		pr_err("--profile: out of memory");
	} else {
		counts_sort(&self);
		counts_sort(&folded);
		counts_sort(&per_counter);
		r = profile_emit_file(table, profile_fill_table, &text);
		r2 = profile_emit_file(folded_out, profile_fill_folded, &text);
		r = r ? r : r2;
	}
	counts_free(&self);
	counts_free(&folded);
	counts_free(&per_counter);
	symtab_free(&t);
	return r ? PMUVM_EXIT_HOST_ERROR : 0;
}
