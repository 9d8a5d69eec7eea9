/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The --event-filter text format, one directive per line, '#' starts a
 * comment, numbers in C syntax (0x3c, 60):
 *
 *   action allow|deny                 required, once
 *   fixed_counter_bitmap N            optional, once (default 0)
 *   event SEL UMASK                   exact event select (12 bits, AMD) + unit mask
 *   masked SEL MASK MATCH [exclude]   KVM masked event: (umask & MASK) == MATCH
 *
 * It maps one-to-one onto struct kvm_pmu_event_filter (action, events[],
 * fixed_counter_bitmap; masked entries as with
 * KVM_PMU_EVENT_FLAG_MASKED_EVENTS), and has KVM's 300-entry limit.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "config_filter.h"

#define MAX_WORDS	6

struct parser {
	const char *name;
	unsigned int line;
	bool have_action, have_bitmap;
};

static int bad(const struct parser *p, const char *msg, const char *word)
{
	if (word)
		pr_err("--event-filter: %s:%u: %s '%s'", p->name, p->line, msg, word);
	else
		pr_err("--event-filter: %s:%u: %s", p->name, p->line, msg);
	return -EINVAL;
}

static int number(const struct parser *p, const char *what, const char *s,
		  unsigned long long max, unsigned long long *out)
{
	char msg[80];
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 0);
	if (*s >= '0' && *s <= '9' && !*end && !errno && *out <= max)
		return 0;
	snprintf(msg, sizeof(msg), "%s must be a number from 0 to 0x%llx, not", what, max);
	return bad(p, msg, s);
}

static int add_entry(struct parser *p, struct vpmu_filter *f, char **w, unsigned int n)
{
	struct vpmu_filter_entry e = { 0 };
	unsigned long long sel, a, b;
	bool masked = !strcmp(w[0], "masked");

	if (n != (masked ? 4u : 3u) && !(masked && n == 5 && !strcmp(w[4], "exclude")))
		return bad(p, masked ? "expected 'masked SEL MASK MATCH [exclude]'" :
				       "expected 'event SEL UMASK'", NULL);
	if (number(p, "event select", w[1], 0xfff, &sel) ||
	    number(p, masked ? "unit mask mask" : "unit mask", w[2], 0xff, &a) ||
	    (masked && number(p, "unit mask match", w[3], 0xff, &b)))
		return -EINVAL;
	e.event = (uint16_t)sel;
	e.umask_mask = masked ? (uint8_t)a : 0xff;
	e.umask_match = masked ? (uint8_t)b : (uint8_t)a;
	e.exclude = n == 5;
	switch (vpmu_filter_add(f, &e)) {
	case 0:
		return 0;
	case -E2BIG:
		return bad(p, "more than 300 events (KVM's limit)", NULL);
	default:
		return bad(p, "MATCH has bits outside MASK, so it can never match:", w[3]);
	}
}

static int directive(struct parser *p, struct vpmu_filter *f, char **w, unsigned int n)
{
	unsigned long long v;

	if (!strcmp(w[0], "action")) {
		if (p->have_action)
			return bad(p, "second 'action' line", NULL);
		if (n != 2 || (strcmp(w[1], "allow") && strcmp(w[1], "deny")))
			return bad(p, "expected 'action allow' or 'action deny'", NULL);
		f->action = strcmp(w[1], "allow") ? VPMU_FILTER_DENY : VPMU_FILTER_ALLOW;
		p->have_action = true;
		return 0;
	}
	if (!strcmp(w[0], "fixed_counter_bitmap")) {
		if (p->have_bitmap)
			return bad(p, "second 'fixed_counter_bitmap' line", NULL);
		if (n != 2)
			return bad(p, "expected 'fixed_counter_bitmap N'", NULL);
		if (number(p, "fixed_counter_bitmap", w[1], 0xffffffffULL, &v))
			return -EINVAL;
		f->fixed_counter_bitmap = (uint32_t)v;
		p->have_bitmap = true;
		return 0;
	}
	if (!strcmp(w[0], "event") || !strcmp(w[0], "masked"))
		return add_entry(p, f, w, n);
	return bad(p, "unknown directive", w[0]);
}

int event_filter_parse(const char *name, const char *text, struct vpmu_filter *f)
{
	struct parser p = { .name = name };
	const char *s = text;
	int r;

	vpmu_filter_init(f, VPMU_FILTER_ALLOW, 0);
	while (*s) {
		size_t len = strcspn(s, "\n");
		char buf[256], *w[MAX_WORDS], *save = NULL, *tok;
		unsigned int n = 0;

		p.line++;
		if (len >= sizeof(buf))
			return bad(&p, "line longer than 255 characters", NULL);
		memcpy(buf, s, len);
		buf[len] = '\0';
		s += len + (s[len] == '\n');
		buf[strcspn(buf, "#")] = '\0';
		for (tok = strtok_r(buf, " \t\r", &save); tok; tok = strtok_r(NULL, " \t\r", &save)) {
			if (n == MAX_WORDS)
				return bad(&p, "too many words", NULL);
			w[n++] = tok;
		}
		if (!n)
			continue;
		r = directive(&p, f, w, n);
		if (r)
			return r;
	}
	if (!p.have_action) {
		pr_err("--event-filter: %s: no 'action allow' or 'action deny' line", name);
		return -EINVAL;
	}
	return 0;
}

/* Filter files are a few KiB at most; anything larger is not one. */
#define MAX_FILE_SIZE	(1 << 20)

int event_filter_load(const char *path, struct vpmu_filter *f)
{
	FILE *fp = fopen(path, "r");
	char *text;
	size_t n;
	int r;

	if (!fp) {
		r = -errno;
		pr_err("--event-filter: cannot read '%s': %s", path, strerror(-r));
		return r;
	}
	text = malloc(MAX_FILE_SIZE + 1);
	if (!text) {
		fclose(fp);
		pr_err("--event-filter: out of memory");
		return -ENOMEM;
	}
	n = fread(text, 1, MAX_FILE_SIZE + 1, fp);
	if (ferror(fp) || n > MAX_FILE_SIZE || memchr(text, '\0', n)) {
		pr_err("--event-filter: '%s' is not a filter file (%s)", path,
		       ferror(fp) ? "read error" : n > MAX_FILE_SIZE ? "larger than 1 MiB" :
		       "contains NUL bytes");
		r = -EINVAL;
	} else {
		text[n] = '\0';
		r = event_filter_parse(path, text, f);
	}
	fclose(fp);
	free(text);
	return r;
}
