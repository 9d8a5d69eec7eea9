/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "config_filter.h"

/* The Makefile passes the version (scripts/version.sh); this is for other builds. */
#ifndef PMUVM_VERSION
#define PMUVM_VERSION "unknown"
#endif

static const char usage_text[] =
"Usage: pmuvm [options] GUEST.elf\n"
"  or:  pmuvm [options] [--initrd FILE] [--append CMDLINE] bzImage|vmlinux\n"
"  or:  pmuvm run [options] [--kernel FILE] [--] [COMMAND [ARG...]]\n"
"       (COMMAND in a Linux guest with this machine's files: pmuvm run --help)\n"
"Boot a guest under KVM with an emulated PMU: Intel's architectural PMU\n"
"(versions 1 to 5, with PEBS) or AMD's (PerfMonV2).  The guest is a multiboot\n"
"ELF image or a Linux kernel (a bzImage or vmlinux, booted with the Linux boot\n"
"protocol).\n"
"\n"
"Machine:\n"
"  --mem SIZE             guest RAM from address 0, 2M to 64G (K/M/G suffix;\n"
"                         default 256M)\n"
"  --cpus N               vCPUs, each on its own thread (default 1; above 255 the\n"
"                         guest must use x2APIC)\n"
"  --append CMDLINE       the kernel command line (multiboot or Linux)\n"
"  --module FILE          multiboot module (repeatable, up to 16)\n"
"  --initrd FILE          initial RAM disk of a Linux kernel\n"
"  --serial FILE          16550 UART output to FILE instead of stdout\n"
"  --virtiofs TAG=SOCKET  a virtio-fs device (virtio-mmio) whose vhost-user back\n"
"                         end, e.g. virtiofsd, listens on SOCKET; the guest mounts\n"
"                         it with mount -t virtiofs TAG (repeatable, up to 4)\n"
"  --timeout SECONDS      stop the guest after SECONDS of wall time\n"
"  --report FILE.json     write a machine-readable run summary\n"
"  --profile FILE         record counter overflows and write a symbolized profile\n"
"  --profile-folded FILE  ...and their stacks, folded for flame-graph tools\n"
"                         (each FILE above may be '-', standard output)\n"
"  -q, --quiet            no progress line while a guest is counted exactly\n"
"                         (SIGUSR1 still prints it)\n"
"  -v, --verbose          log unhandled guest accesses once each, registers at\n"
"                         --timeout (-vv: more, and the stacks)\n"
"\n"
"PMU:\n"
"  --pmu intel|amd|none   the PMU's vendor model (default intel)\n"
"  --cpu-vendor intel|amd|host  the CPU vendor the guest sees (default: the\n"
"                         --pmu vendor; host with --pmu none)\n"
"  --pmu-version N        Intel architectural PMU version, 0 (none) to 5\n"
"                         (default 5); AMD: 1 (legacy or core extension) or 2\n"
"                         (PerfMonV2, default)\n"
"  --gp-counters N        general-purpose counters, 0-8 (default 8; AMD: 4 or 6\n"
"                         with version 1, 1-6 with version 2, default 6)\n"
"  --gp-width BITS        general-purpose counter width, 32-63 (default 48;\n"
"                         AMD: 48)\n"
"  --fixed-counters N     fixed counters, 0-4 (default 3; version 1 and AMD\n"
"                         have none)\n"
"  --fixed-counter-mask MASK  version 5: the fixed counters as CPUID.0AH:ECX,\n"
"                         0-0xf (counter i exists if bit i is set or i is\n"
"                         below --fixed-counters, which then defaults to the\n"
"                         counters from 0 the mask names without a gap)\n"
"  --pmu-event-vector-len N  CPUID.0AH:EAX[31:24], the architectural events\n"
"                         enumerated, 0-32 (default 8; Linux needs 7)\n"
"  --pmu-events-unavailable MASK  CPUID.0AH:EBX bits to set, 0-0xffffffff:\n"
"                         the guest is told those events are unavailable,\n"
"                         but they still count (docs/counting.md)\n"
"  --full-width-writes on|off  IA32_A_PMCx and PERF_CAPABILITIES.FW_WRITE\n"
"                         (default on)\n"
"  --cpu-mhz MHZ          core clock for cycle events (default: TSC frequency)\n"
"  --cycles clock|model   cycle events from the time the vCPU ran (clock, default)\n"
"                         or from retired instructions x --cpi (model: stepped,\n"
"                         deterministic)\n"
"  --cpi X                cycles per instruction for --cycles model (default 1.0)\n"
"  --exact emulate|step|off  instructions and branches counted exactly: the\n"
"                         counted code run in an emulator and single-stepped\n"
"                         where it cannot run there (emulate, default; also\n"
"                         'on'), every instruction single-stepped (step: the\n"
"                         slow reference), or not offered (off: the guest\n"
"                         runs at full speed; Intel's CPUID marks them\n"
"                         unavailable)\n"
"  --event-filter FILE    allow/deny list of events, as KVM_SET_PMU_EVENT_FILTER\n"
"  --pebs on|off          DS save area and PEBS records (default on; needs\n"
"                         --pmu-version 2 or later, else off)\n"
"  --pebs-format 3|4|5    PEBS record format; 4 and 5 are adaptive (baseline)\n"
"                         (default 4)\n"
"\n"
"Other:\n"
"  -h, --help             print this text and exit\n"
"  --version              print the version and exit\n"
"\n"
"Exit status: (V << 1) | 1 when the guest writes V to port 0xf4; 0 guest power\n"
"off; 2 usage (also an output path refused); 4 KVM unavailable; 6 bad image;\n"
"8 triple fault or reset; 10 KVM error; 12 timeout; 14 host error (also an\n"
"output that failed); 128+N stopped by signal N (SIGINT, SIGTERM, SIGHUP).\n";

enum {
	OPT_MEM = 256, OPT_CPUS, OPT_APPEND, OPT_MODULE, OPT_SERIAL, OPT_TIMEOUT,
	OPT_REPORT, OPT_PROFILE, OPT_PMU_VERSION, OPT_GP_COUNTERS, OPT_GP_WIDTH,
	OPT_FIXED_COUNTERS, OPT_FULL_WIDTH, OPT_CPU_MHZ, OPT_CYCLES, OPT_CPI, OPT_VERSION,
	OPT_EVENT_FILTER, OPT_PEBS, OPT_PEBS_FORMAT, OPT_PMU, OPT_CPU_VENDOR, OPT_INITRD,
	OPT_EXACT, OPT_PROFILE_FOLDED, OPT_VIRTIOFS, OPT_KERNEL, OPT_FIXED_MASK,
	OPT_EVENT_VECTOR_LEN, OPT_EVENTS_UNAVAILABLE,
};

static const struct option long_opts[] = {
	{ "mem",		required_argument, NULL, OPT_MEM },
	{ "cpus",		required_argument, NULL, OPT_CPUS },
	{ "append",		required_argument, NULL, OPT_APPEND },
	{ "initrd",		required_argument, NULL, OPT_INITRD },
	{ "module",		required_argument, NULL, OPT_MODULE },
	{ "serial",		required_argument, NULL, OPT_SERIAL },
	{ "virtiofs",		required_argument, NULL, OPT_VIRTIOFS },
	{ "kernel",		required_argument, NULL, OPT_KERNEL },
	{ "timeout",		required_argument, NULL, OPT_TIMEOUT },
	{ "report",		required_argument, NULL, OPT_REPORT },
	{ "profile",		required_argument, NULL, OPT_PROFILE },
	{ "profile-folded",	required_argument, NULL, OPT_PROFILE_FOLDED },
	{ "quiet",		no_argument,       NULL, 'q' },
	{ "pmu",		required_argument, NULL, OPT_PMU },
	{ "cpu-vendor",		required_argument, NULL, OPT_CPU_VENDOR },
	{ "pmu-version",	required_argument, NULL, OPT_PMU_VERSION },
	{ "gp-counters",	required_argument, NULL, OPT_GP_COUNTERS },
	{ "gp-width",		required_argument, NULL, OPT_GP_WIDTH },
	{ "fixed-counters",	required_argument, NULL, OPT_FIXED_COUNTERS },
	{ "fixed-counter-mask",	required_argument, NULL, OPT_FIXED_MASK },
	{ "pmu-event-vector-len", required_argument, NULL, OPT_EVENT_VECTOR_LEN },
	{ "pmu-events-unavailable", required_argument, NULL, OPT_EVENTS_UNAVAILABLE },
	{ "full-width-writes",	required_argument, NULL, OPT_FULL_WIDTH },
	{ "cpu-mhz",		required_argument, NULL, OPT_CPU_MHZ },
	{ "cycles",		required_argument, NULL, OPT_CYCLES },
	{ "cpi",		required_argument, NULL, OPT_CPI },
	{ "exact",		required_argument, NULL, OPT_EXACT },
	{ "event-filter",	required_argument, NULL, OPT_EVENT_FILTER },
	{ "pebs",		required_argument, NULL, OPT_PEBS },
	{ "pebs-format",	required_argument, NULL, OPT_PEBS_FORMAT },
	{ "verbose",		no_argument,       NULL, 'v' },
	{ "help",		no_argument,       NULL, 'h' },
	{ "version",		no_argument,       NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

int config_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (*end) {
	case '\0':			break;
	case 'k': case 'K':	shift = 10; end++; break;
	case 'm': case 'M':	shift = 20; end++; break;
	case 'g': case 'G':	shift = 30; end++; break;
	default:		return -EINVAL;
	}
	if (*end == 'i' && shift)	/* accept "MiB"-style "Mi" */
		end++;
	if (*end == 'B' && shift)
		end++;
	if (*end || (shift && v > (ULLONG_MAX >> shift)))
		return -EINVAL;
	*out = v << shift;
	return 0;
}

static int parse_uint(const char *opt, const char *s, unsigned long lo,
		      unsigned long hi, unsigned int *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (*s < '0' || *s > '9' || *end || errno || v < lo || v > hi) {
		pr_err("%s: '%s' is not a whole number from %lu to %lu", opt, s, lo, hi);
		return -EINVAL;
	}
	*out = (unsigned int)v;
	return 0;
}

/* A bit mask, in hex (0x...) or decimal. */
static int parse_mask(const char *opt, const char *s, unsigned long hi, uint32_t *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (*s < '0' || *s > '9' || *end || errno || v > hi) {
		pr_err("%s: '%s' is not a mask from 0 to 0x%lx", opt, s, hi);
		return -EINVAL;
	}
	*out = (uint32_t)v;
	return 0;
}

static int parse_double(const char *opt, const char *s, double lo, double hi, double *out)
{
	double v;
	char *end;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(v) || v < lo || v > hi) {
		pr_err("%s: '%s' is not a number from %g to %g", opt, s, lo, hi);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int parse_onoff(const char *opt, const char *s, bool *out)
{
	if (!strcmp(s, "on") || !strcmp(s, "yes") || !strcmp(s, "1")) {
		*out = true;
		return 0;
	}
	if (!strcmp(s, "off") || !strcmp(s, "no") || !strcmp(s, "0")) {
		*out = false;
		return 0;
	}
	pr_err("%s: '%s' is not 'on' or 'off'", opt, s);
	return -EINVAL;
}

static int parse_virtiofs(struct pmuvm_config *cfg, const char *arg)
{
	const char *eq = strchr(arg, '=');
	struct pmuvm_virtiofs *v;
	size_t len = eq ? (size_t)(eq - arg) : 0;
	char *tag;

	if (cfg->nr_virtiofs == PMUVM_MAX_VIRTIOFS) {
		pr_err("--virtiofs: at most %d devices", PMUVM_MAX_VIRTIOFS);
		return -EINVAL;
	}
	if (!len || len > PMUVM_VIRTIOFS_TAG_MAX || !eq[1]) {
		pr_err("--virtiofs: '%s' is not TAG=SOCKET with a tag of 1 to %d bytes",
		       arg, PMUVM_VIRTIOFS_TAG_MAX);
		return -EINVAL;
	}
	tag = strndup(arg, len);
	if (!tag) {
		pr_err("out of memory");
		return -ENOMEM;
	}
	v = &cfg->virtiofs[cfg->nr_virtiofs++];
	v->tag = tag;
	v->socket = eq + 1;
	cfg->shared_ram = true;
	return 0;
}

static bool env_is_1(const char *name)
{
	const char *e = getenv(name);

	return e && !strcmp(e, "1");
}

static void config_defaults(struct pmuvm_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->mem_size = 256ULL << 20;
	cfg->nr_cpus = 1;
	cfg->cycles = CYCLES_CLOCK;
	cfg->cpi = 1.0;
	cfg->exact = true;
	cfg->exact_emulate = true;
	cfg->pmu.version = 5;
	cfg->pmu.nr_gp = 8;
	cfg->pmu.gp_width = 48;
	cfg->pmu.nr_fixed = 3;
	cfg->pmu.fixed_width = 48;
	cfg->pmu.full_width_write = true;
	cfg->pmu.event_vector_len = PMU_EV_VECTOR_LEN;
	cfg->bench_raw_step = env_is_1("PMUVM_BENCH_RAW_STEP");
	cfg->bench_timing = env_is_1("PMUVM_BENCH_TIMING");
	cfg->kvm_device = getenv("PMUVM_KVM_DEVICE");
	if (!cfg->kvm_device || !*cfg->kvm_device)
		cfg->kvm_device = "/dev/kvm";
	cfg->test_hide_cap = getenv("PMUVM_TEST_HIDE_CAP");
}

/* Minimum RAM: the low 1 MiB plus room for a small image. */
#define MIN_MEM_SIZE	(2ULL << 20)
/* Guest RAM above 4 GiB is supported; cap at 64 GiB of address space. */
#define MAX_MEM_SIZE	(64ULL << 30)

/* What the PEBS options asked for; applied once the PMU version is known. */
struct pebs_opts {
	bool set;		/* --pebs given */
	bool on;
	unsigned int format;	/* 0: default */
};

/* The PMU options as given, resolved once all are parsed (config_pmu()). */
struct pmu_opts {
	enum { PMU_OPT_INTEL, PMU_OPT_AMD, PMU_OPT_NONE } kind;
	bool vendor_set, version_set, gp_set, width_set, fixed_set, fw_set;
	/* The CPUID.0AH enumeration options (config_pmu_leaf_0a()). */
	bool fixed_mask_set, evlen_set, unavail_set;
	struct pebs_opts pebs;
};

static int parse_pmu_kind(const char *arg, struct pmu_opts *o)
{
	if (!strcmp(arg, "intel"))
		o->kind = PMU_OPT_INTEL;
	else if (!strcmp(arg, "amd"))
		o->kind = PMU_OPT_AMD;
	else if (!strcmp(arg, "none"))
		o->kind = PMU_OPT_NONE;
	else {
		pr_err("--pmu: '%s' is not 'intel', 'amd' or 'none'", arg);
		return -EINVAL;
	}
	return 0;
}

static int parse_cpu_vendor(const char *arg, struct pmuvm_config *cfg, struct pmu_opts *o)
{
	o->vendor_set = true;
	if (!strcmp(arg, "intel"))
		cfg->cpu_vendor = CPU_VENDOR_INTEL;
	else if (!strcmp(arg, "amd"))
		cfg->cpu_vendor = CPU_VENDOR_AMD;
	else if (!strcmp(arg, "host"))
		cfg->cpu_vendor = CPU_VENDOR_HOST;
	else {
		pr_err("--cpu-vendor: '%s' is not 'intel', 'amd' or 'host'", arg);
		return -EINVAL;
	}
	return 0;
}

/* The PMU and counting options (config_pmu() resolves them once all are parsed). */
static int parse_pmu_opt(struct pmuvm_config *cfg, int opt, const char *arg, struct pmu_opts *o)
{
	struct pebs_opts *pebs = &o->pebs;
	double d;

	switch (opt) {
	case OPT_PMU:
		return parse_pmu_kind(arg, o);
	case OPT_CPU_VENDOR:
		return parse_cpu_vendor(arg, cfg, o);
	case OPT_PMU_VERSION:
		o->version_set = true;
		return parse_uint("--pmu-version", arg, 0, 5, &cfg->pmu.version);
	case OPT_GP_COUNTERS:
		o->gp_set = true;
		return parse_uint("--gp-counters", arg, 0, VPMU_MAX_GP, &cfg->pmu.nr_gp);
	case OPT_GP_WIDTH:
		o->width_set = true;
		return parse_uint("--gp-width", arg, 32, 63, &cfg->pmu.gp_width);
	case OPT_FIXED_COUNTERS:
		o->fixed_set = true;
		return parse_uint("--fixed-counters", arg, 0, VPMU_MAX_FIXED, &cfg->pmu.nr_fixed);
	case OPT_FIXED_MASK:
		o->fixed_mask_set = true;
		return parse_mask("--fixed-counter-mask", arg, (1ul << VPMU_MAX_FIXED) - 1,
				  &cfg->pmu.fixed_bitmap);
	case OPT_EVENT_VECTOR_LEN:
		o->evlen_set = true;
		return parse_uint("--pmu-event-vector-len", arg, 0, VPMU_MAX_EVENT_VECTOR_LEN,
				  &cfg->pmu.event_vector_len);
	case OPT_EVENTS_UNAVAILABLE:
		o->unavail_set = true;
		return parse_mask("--pmu-events-unavailable", arg, 0xfffffffful,
				  &cfg->pmu.events_unavailable);
	case OPT_FULL_WIDTH:
		o->fw_set = true;
		return parse_onoff("--full-width-writes", arg, &cfg->pmu.full_width_write);
	case OPT_CPU_MHZ:
		if (parse_double("--cpu-mhz", arg, 1, 100000, &d))
			return -EINVAL;
		cfg->cpu_khz = (uint64_t)(d * 1000.0 + 0.5);
		return 0;
	case OPT_CYCLES:
		if (!strcmp(arg, "clock") || !strcmp(arg, "model")) {
			cfg->cycles = arg[0] == 'c' ? CYCLES_CLOCK : CYCLES_MODEL;
			return 0;
		}
		pr_err("--cycles: '%s' is not 'clock' or 'model'", arg);
		return -EINVAL;
	case OPT_CPI:
		return parse_double("--cpi", arg, 0.001, 1000, &cfg->cpi);
	case OPT_EVENT_FILTER:
		cfg->event_filter_path = arg;
		return 0;
	case OPT_EXACT:
		if (!strcmp(arg, "emulate") || !strcmp(arg, "on") || !strcmp(arg, "step")) {
			cfg->exact = true;
			cfg->exact_emulate = arg[0] != 's';
			return 0;
		}
		if (!strcmp(arg, "off")) {
			cfg->exact = false;
			cfg->exact_emulate = false;
			return 0;
		}
		pr_err("--exact: '%s' is not 'emulate', 'step', 'on' or 'off'", arg);
		return -EINVAL;
	case OPT_PEBS:
		pebs->set = true;
		return parse_onoff("--pebs", arg, &pebs->on);
	case OPT_PEBS_FORMAT:
		return parse_uint("--pebs-format", arg, 3, 5, &pebs->format);
	}
	return -EINVAL;
}

static int parse_one(struct pmuvm_config *cfg, int opt, const char *arg, struct pmu_opts *o)
{
	switch (opt) {
	case OPT_MEM:
		if (config_parse_size(arg, &cfg->mem_size) ||
		    cfg->mem_size < MIN_MEM_SIZE || cfg->mem_size > MAX_MEM_SIZE ||
		    (cfg->mem_size & 0xfff)) {
			pr_err("--mem: '%s' is not a size from 2M to 64G in whole 4K pages", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_CPUS:
		return parse_uint("--cpus", arg, 1, PMUVM_MAX_CPUS, &cfg->nr_cpus);
	case OPT_APPEND:
		cfg->append = arg;
		return 0;
	case OPT_INITRD:
		cfg->initrd = arg;
		return 0;
	case OPT_MODULE:
		if (cfg->nr_modules == PMUVM_MAX_MODULES) {
			pr_err("--module: at most %d modules", PMUVM_MAX_MODULES);
			return -EINVAL;
		}
		cfg->modules[cfg->nr_modules++] = arg;
		return 0;
	case OPT_SERIAL:
		cfg->serial_path = arg;
		return 0;
	case OPT_VIRTIOFS:
		return parse_virtiofs(cfg, arg);
	case OPT_REPORT:
		cfg->report_path = arg;
		return 0;
	case OPT_PROFILE:
		cfg->profile_path = arg;
		return 0;
	case OPT_PROFILE_FOLDED:
		cfg->profile_folded_path = arg;
		return 0;
	case OPT_TIMEOUT:
		return parse_double("--timeout", arg, 0.001, 1e7, &cfg->timeout_s);
	case 'v':
		log_verbosity++;
		return 0;
	case 'q':
		cfg->quiet = true;
		return 0;
	}
	return parse_pmu_opt(cfg, opt, arg, o);
}

/*
 * The AMD model (vmm/model/amd.c): versions 1 and 2, six 48-bit counters
 * by default, no fixed counters, PERF_CAPABILITIES or PEBS, which are
 * errors to ask for.
 */
static int config_pmu_amd(struct pmuvm_config *cfg, const struct pmu_opts *o)
{
	struct vpmu_config amd;

	vpmu_config_default_amd(&amd, o->version_set ? cfg->pmu.version : 2);
	if (o->version_set && (cfg->pmu.version < 1 || cfg->pmu.version > 2)) {
		pr_err("--pmu-version: the AMD PMU has versions 1 (legacy, core extension) and 2 (PerfMonV2)");
		return -EINVAL;
	}
	if (o->gp_set)
		amd.nr_gp = cfg->pmu.nr_gp;
	if (amd.version == 1 && o->gp_set && amd.nr_gp != 4 && amd.nr_gp != 6) {
		pr_err("--gp-counters: AMD PMU version 1 has 4 counters (legacy) or 6 (core extension)");
		return -EINVAL;
	}
	if (!amd.nr_gp || amd.nr_gp > 6) {
		pr_err("--gp-counters: the AMD PMU has 1 to 6 core counters");
		return -EINVAL;
	}
	if (o->width_set && cfg->pmu.gp_width != 48) {
		pr_err("--gp-width: AMD counters are 48 bits wide");
		return -EINVAL;
	}
	if ((o->fixed_set && cfg->pmu.nr_fixed) || (o->fw_set && cfg->pmu.full_width_write) ||
	    (o->pebs.set && o->pebs.on) || o->pebs.format) {
		pr_err("%s: the AMD PMU has no fixed counters, full-width writes or PEBS",
		       o->fixed_set ? "--fixed-counters" : o->fw_set ? "--full-width-writes" :
		       o->pebs.format ? "--pebs-format" : "--pebs");
		return -EINVAL;
	}
	if (o->fixed_mask_set || o->evlen_set || o->unavail_set) {
		pr_err("%s: CPUID leaf 0AH is Intel's; the AMD PMU has none",
		       o->fixed_mask_set ? "--fixed-counter-mask" :
		       o->evlen_set ? "--pmu-event-vector-len" : "--pmu-events-unavailable");
		return -EINVAL;
	}
	cfg->pmu = amd;
	return 0;
}

/*
 * The CPUID.0AH options that only change what the guest is told: the
 * version 5 fixed-counter bitmap (ECX), and the event vector (EAX[31:24],
 * EBX), which a version 0 CPU does not have.
 */
static int config_pmu_leaf_0a(struct pmuvm_config *cfg, const struct pmu_opts *o)
{
	uint32_t mask = cfg->pmu.fixed_bitmap;

	if (!cfg->pmu.version && (o->evlen_set || o->unavail_set)) {
		pr_err("%s: a CPU without a PMU (version 0) has no CPUID.0AH event vector",
		       o->evlen_set ? "--pmu-event-vector-len" : "--pmu-events-unavailable");
		return -EINVAL;
	}
	if (!o->fixed_mask_set)
		return 0;
	if (cfg->pmu.version != 5) {
		pr_err("--fixed-counter-mask: the fixed-counter bitmap (CPUID.0AH:ECX) needs --pmu-version 5");
		return -EINVAL;
	}
	/* EDX[4:0] counts the counters from 0 the mask names without a gap. */
	if (!o->fixed_set)
		cfg->pmu.nr_fixed = (unsigned int)__builtin_ctz(~mask);
	return 0;
}

/* The Intel model: fills in what version and PEBS imply. */
static int config_pmu_intel(struct pmuvm_config *cfg, const struct pmu_opts *o)
{
	struct pebs_opts pebs = o->pebs;

	if (config_pmu_leaf_0a(cfg, o))
		return -EINVAL;
	/* Version 1 has no fixed counters (SDM 18.2.1); asking for some is an error. */
	if (cfg->pmu.version == 1) {
		if (o->fixed_set && cfg->pmu.nr_fixed) {
			pr_err("--fixed-counters: architectural PMU version 1 has no fixed counters");
			return -EINVAL;
		}
		cfg->pmu.nr_fixed = 0;
	}
	/* PERF_CAPABILITIES (and so full-width writes) needs PDCM, a v2+ feature here. */
	cfg->pmu.pdcm = cfg->pmu.version >= 2;
	if (cfg->pmu.version == 0) {	/* a CPU without a PMU */
		cfg->pmu.nr_gp = 0;
		cfg->pmu.nr_fixed = 0;
		cfg->pmu.full_width_write = false;
	}
	/*
	 * PEBS needs PERF_CAPABILITIES and GLOBAL_CTRL (v2+): on by default
	 * where it can be, an error only when asked for explicitly.
	 */
	if (pebs.on && cfg->pmu.version < 2) {
		if (pebs.set || pebs.format) {
			pr_err("--pebs: PEBS needs --pmu-version 2 or later");
			return -EINVAL;
		}
		pebs.on = false;
	}
	if (!pebs.on && pebs.format) {
		pr_err("--pebs-format: PEBS is off");
		return -EINVAL;
	}
	cfg->pmu.pebs = pebs.on;
	if (pebs.on) {
		cfg->pmu.pebs_format = pebs.format ? pebs.format : 4;
		cfg->pmu.pebs_baseline = cfg->pmu.pebs_format >= 4;
	}
	return 0;
}

/*
 * --pmu picks the model; --cpu-vendor defaults to the same vendor (host
 * with --pmu none), and a PMU may only be offered under its own vendor: a
 * guest never sees one vendor's name with the other's PMU.
 */
static int config_pmu(struct pmuvm_config *cfg, const struct pmu_opts *o)
{
	int r;

	if (o->kind == PMU_OPT_NONE) {
		if (o->version_set && cfg->pmu.version) {
			pr_err("--pmu-version: --pmu none has no PMU");
			return -EINVAL;
		}
		cfg->pmu.version = 0;
	}
	r = o->kind == PMU_OPT_AMD ? config_pmu_amd(cfg, o) : config_pmu_intel(cfg, o);
	if (r)
		return r;
	if (!o->vendor_set)
		cfg->cpu_vendor = o->kind == PMU_OPT_AMD ? CPU_VENDOR_AMD :
				  o->kind == PMU_OPT_INTEL ? CPU_VENDOR_INTEL : CPU_VENDOR_HOST;
	if (cfg->pmu.version && o->kind == PMU_OPT_AMD && cfg->cpu_vendor != CPU_VENDOR_AMD) {
		pr_err("--cpu-vendor: the AMD PMU needs --cpu-vendor amd");
		return -EINVAL;
	}
	if (cfg->pmu.version && o->kind == PMU_OPT_INTEL && cfg->cpu_vendor != CPU_VENDOR_INTEL) {
		pr_err("--cpu-vendor: the Intel PMU needs --cpu-vendor intel (or --pmu amd, or --pmu none)");
		return -EINVAL;
	}
	if (vpmu_config_validate(&cfg->pmu)) {
		pr_err("invalid PMU configuration");
		return -EINVAL;
	}
	return 0;
}

static const char run_usage_text[] =
"Usage: pmuvm run [options] [--kernel FILE] [--] [COMMAND [ARG...]]\n"
"Boot a Linux kernel with pmuvm's PMU and run COMMAND in it, in the current\n"
"directory, as the calling user, with this machine's root file system shared\n"
"read-only and the current directory read-write (virtio-fs, virtiofsd).\n"
"Standard input and output are the guest's console; the exit status is\n"
"COMMAND's (127: not found, 128+N: killed by signal N). Without COMMAND, a\n"
"shell ($SHELL). The options are pmuvm's (pmuvm --help; --mem defaults to 1G\n"
"here), and:\n"
"  --kernel FILE          boot FILE (with the modules of its release from\n"
"                         /lib/modules) instead of Debian's linux-image-amd64,\n"
"                         which is fetched once into ~/.cache/pmuvm\n"
"See docs/run.md.\n";

/*
 * The options, up to the guest image (pmuvm) or to the command (pmuvm run,
 * run set: getopt stops at the first word that is not an option). Returns
 * 0 with *rest at the first positional argument, 1 for --help/--version,
 * or -EINVAL.
 */
static int parse_options(struct pmuvm_config *cfg, int argc, char **argv, bool run, int *rest)
{
	struct pmu_opts o = { .pebs.on = true };
	int opt;

	config_defaults(cfg);
	/* pmuvm run: room for perf and rr; stderr is the command's (SIGUSR1 still shows progress). */
	if (run) {
		cfg->mem_size = 1ULL << 30;
		cfg->quiet = true;
	}
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, run ? "+:vqh" : ":vqh", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			fputs(run ? run_usage_text : usage_text, stdout);
			return 1;
		case OPT_VERSION:
			printf("pmuvm %s\n", PMUVM_VERSION);
			return 1;
		case ':':
			pr_err("%s: missing value (see --help)", argv[optind - 1]);
			return -EINVAL;
		case '?':
			if (optopt)
				pr_err("unknown option '-%c' (see --help)", optopt);
			else
				pr_err("unknown option '%s' (see --help)", argv[optind - 1]);
			return -EINVAL;
		case OPT_KERNEL:
			if (!run) {
				pr_err("--kernel: only for pmuvm run (pmuvm takes the kernel as its argument)");
				return -EINVAL;
			}
			cfg->image = optarg;
			break;
		default:
			if (parse_one(cfg, opt, optarg, &o))
				return -EINVAL;
		}
	}
	*rest = optind;
	if (!cfg->exact && cfg->cycles == CYCLES_MODEL) {
		pr_err("--cycles model: counts cycles from single-stepped instructions, which --exact off turns off");
		return -EINVAL;
	}
	if (config_pmu(cfg, &o))
		return -EINVAL;
	if (cfg->event_filter_path && event_filter_load(cfg->event_filter_path, &cfg->event_filter))
		return -EINVAL;
	return 0;
}

int config_parse_run(struct pmuvm_config *cfg, int argc, char **argv, int *cmd)
{
	return parse_options(cfg, argc, argv, true, cmd);
}

int config_parse(struct pmuvm_config *cfg, int argc, char **argv)
{
	int r = parse_options(cfg, argc, argv, false, &optind);

	if (r)
		return r;
	if (optind >= argc) {
		pr_err("no guest image given (usage: pmuvm [options] GUEST.elf)");
		return -EINVAL;
	}
	if (optind + 1 < argc) {
		pr_err("unexpected argument '%s' after the guest image", argv[optind + 1]);
		return -EINVAL;
	}
	cfg->image = argv[optind];
	return 0;
}
