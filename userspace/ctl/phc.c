// SPDX-License-Identifier: MIT
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/ptp_clock.h>

#include "phc.h"

#define IFNAME_LEN	sizeof(((struct nsight_phc_sample *)0)->ifname)

static int64_t ptp_ns(const struct ptp_clock_time *t)
{
	return (int64_t)t->sec * 1000000000LL + (int64_t)t->nsec;
}

int nsight_phc_sample_ioctl(int fd, struct nsight_phc_sample *out, size_t max,
			    char *why, size_t whylen)
{
	struct ptp_sys_offset_precise p;
	struct ptp_sys_offset_extended e;
	int precise_err, i;

	if (!max) {
		snprintf(why, whylen, "no room for a reading");
		return -EINVAL;
	}
	memset(&p, 0, sizeof(p));
	if (!ioctl(fd, PTP_SYS_OFFSET_PRECISE, &p)) {
		out[0].method = NSIGHT_PHC_PRECISE;
		out[0].phc_ns = ptp_ns(&p.device);
		out[0].sys_before_ns = ptp_ns(&p.sys_realtime);
		out[0].sys_after_ns = out[0].sys_before_ns;
		return 1;
	}
	precise_err = errno;

	/* Zeroed reserved fields: CLOCK_REALTIME where the kernel has a clockid. */
	memset(&e, 0, sizeof(e));
	e.n_samples = NSIGHT_PHC_EXTENDED_SAMPLES < max ? NSIGHT_PHC_EXTENDED_SAMPLES : (unsigned int)max;
	if (ioctl(fd, PTP_SYS_OFFSET_EXTENDED, &e)) {
		int err = errno;

		snprintf(why, whylen, "PTP_SYS_OFFSET_PRECISE: %s; PTP_SYS_OFFSET_EXTENDED: %s",
			 strerror(precise_err), strerror(err));
		return -err;
	}
	for (i = 0; i < (int)e.n_samples; i++) {
		out[i].method = NSIGHT_PHC_EXTENDED;
		out[i].sys_before_ns = ptp_ns(&e.ts[i][0]);
		out[i].phc_ns = ptp_ns(&e.ts[i][1]);
		out[i].sys_after_ns = ptp_ns(&e.ts[i][2]);
	}
	return i;
}

/* ---------------------------------------------------------------------- */
/* Enumeration                                                              */

struct ctx {
	const struct nsight_phc_opts *o;
	const char *sysfs, *dev;
	nsight_phc_sample_fn sample;
	nsight_ifname_fn ifindex;
	struct nsight_phc_set *set;
	size_t cap;
	struct nsight_diag *d;
};

static void __attribute__((format(printf, 2, 3))) warn(struct ctx *c, const char *fmt, ...)
{
	char msg[NSIGHT_DIAG_LEN];
	va_list ap;

	if (!c->o->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->o->warn(c->o->warn_ctx, msg);
}

/* "ptp12" -> 12; -1 for anything else. */
static int64_t ptp_index(const char *name)
{
	uint64_t v = 0;
	const char *p;

	if (strncmp(name, "ptp", 3) || !name[3])
		return -1;
	for (p = name + 3; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > UINT32_MAX)
			return -1;
	}
	return (int64_t)v;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The PHC indexes under <sysfs>/class/ptp, sorted; *n 0 if there is none. */
static int list_clocks(struct ctx *c, uint32_t **out, size_t *n)
{
	size_t cap = 0;
	char path[4096];
	struct dirent *de;
	DIR *dir;

	*out = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "%s/class/ptp", c->sysfs);
	dir = opendir(path);
	if (!dir) {
		if (errno != ENOENT)
			warn(c, "no PHC samples: cannot read %s: %s", path, strerror(errno));
		return 0;
	}
	while ((de = readdir(dir))) {
		int64_t idx = ptp_index(de->d_name);

		if (idx < 0)
			continue;
		if (*n == cap) {
			uint32_t *p = realloc(*out, (cap ? cap * 2 : 8) * sizeof(**out));

			if (!p) {
				closedir(dir);
				return nsight_diag_set(c->d, ENOMEM, "out of memory");
			}
			*out = p;
			cap = cap ? cap * 2 : 8;
		}
		(*out)[(*n)++] = (uint32_t)idx;
	}
	closedir(dir);
	if (*n)
		qsort(*out, *n, sizeof(**out), cmp_u32);
	return 0;
}

/*
 * The network interfaces of clock @idx, sorted, as an array of
 * IFNAME_LEN-byte names; *n 0 if it has none (or they cannot be read).
 */
static int list_ifnames(struct ctx *c, uint32_t idx, char (**out)[IFNAME_LEN], size_t *n)
{
	char path[4096];
	struct dirent *de;
	size_t cap = 0;
	DIR *dir;

	*out = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "%s/class/ptp/ptp%" PRIu32 "/device/net", c->sysfs, idx);
	dir = opendir(path);
	if (!dir) {
		if (errno != ENOENT && errno != ENOTDIR)
			warn(c, "ptp%" PRIu32 ": cannot read %s: %s; its NIC is not known",
			     idx, path, strerror(errno));
		return 0;
	}
	while ((de = readdir(dir))) {
		size_t len = strlen(de->d_name);

		if (de->d_name[0] == '.')
			continue;
		if (len >= IFNAME_LEN) {
			warn(c, "ptp%" PRIu32 ": interface name '%s' is too long, left out", idx, de->d_name);
			continue;
		}
		if (*n == cap) {
			char (*p)[IFNAME_LEN] = realloc(*out, (cap ? cap * 2 : 4) * IFNAME_LEN);

			if (!p) {
				closedir(dir);
				return nsight_diag_set(c->d, ENOMEM, "out of memory");
			}
			*out = p;
			cap = cap ? cap * 2 : 4;
		}
		memset((*out)[*n], 0, IFNAME_LEN);
		memcpy((*out)[*n], de->d_name, len);
		(*n)++;
	}
	closedir(dir);
	if (*n)
		qsort(*out, *n, IFNAME_LEN, cmp_name);
	return 0;
}

static int append(struct ctx *c, const struct nsight_phc_sample *s, size_t n)
{
	struct nsight_phc_set *set = c->set;

	if (set->n + n > c->cap) {
		size_t cap = c->cap ? c->cap : 16;
		struct nsight_phc_sample *p;

		while (cap < set->n + n)
			cap *= 2;
		p = realloc(set->samples, cap * sizeof(*p));
		if (!p)
			return nsight_diag_set(c->d, ENOMEM, "out of memory");
		set->samples = p;
		c->cap = cap;
	}
	memcpy(set->samples + set->n, s, n * sizeof(*s));
	set->n += n;
	return 0;
}

/* Read clock @idx and append its samples, once per NIC. */
static int do_clock(struct ctx *c, uint32_t idx)
{
	struct nsight_phc_sample s[NSIGHT_PHC_MAX_PER_CLOCK];
	char (*names)[IFNAME_LEN] = NULL;
	char path[4096], why[256] = "", label[64];
	size_t n_names, i, k;
	int fd, n, err;

	err = list_ifnames(c, idx, &names, &n_names);
	if (err)
		return err;
	if (n_names)
		snprintf(label, sizeof(label), "ptp%" PRIu32 " (%s%s)", idx, names[0],
			 n_names > 1 ? ", ..." : "");
	else
		snprintf(label, sizeof(label), "ptp%" PRIu32, idx);

	snprintf(path, sizeof(path), "%s/ptp%" PRIu32, c->dev, idx);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		warn(c, "skipping PHC %s: cannot open %s: %s", label, path, strerror(errno));
		goto skip;
	}
	memset(s, 0, sizeof(s));
	n = c->sample(fd, s, NSIGHT_PHC_MAX_PER_CLOCK, why, sizeof(why));
	close(fd);
	if (n <= 0 || n > NSIGHT_PHC_MAX_PER_CLOCK) {
		warn(c, "skipping PHC %s: cannot read it against CLOCK_REALTIME: %s", label,
		     n <= 0 && why[0] ? why : "no readings");
		goto skip;
	}

	for (k = 0; k < (n_names ? n_names : 1); k++) {
		for (i = 0; i < (size_t)n; i++) {
			s[i].phc_index = idx;
			s[i].pad = 0;
			memset(s[i].ifname, 0, IFNAME_LEN);
			s[i].ifindex = 0;
			if (n_names) {
				memcpy(s[i].ifname, names[k], IFNAME_LEN);
				s[i].ifindex = c->ifindex(names[k]);
			}
		}
		err = append(c, s, (size_t)n);
		if (err)
			break;
	}
	free(names);
	if (!err)
		c->set->clocks++;
	return err;
skip:
	free(names);
	c->set->skipped++;
	return 0;
}

int nsight_phc_collect(const struct nsight_phc_opts *o, struct nsight_phc_set *set,
		       struct nsight_diag *d)
{
	struct ctx c = {
		.o = o,
		.sysfs = o->sysfs ? o->sysfs : "/sys",
		.dev = o->dev ? o->dev : "/dev",
		.sample = o->sample ? o->sample : nsight_phc_sample_ioctl,
		.ifindex = o->ifindex ? o->ifindex : if_nametoindex,
		.set = set,
		.d = d,
	};
	uint32_t *clocks;
	size_t n, i;
	int err;

	memset(set, 0, sizeof(*set));
	err = list_clocks(&c, &clocks, &n);
	for (i = 0; !err && i < n; i++)
		err = do_clock(&c, clocks[i]);
	free(clocks);
	return err;
}

void nsight_phc_set_free(struct nsight_phc_set *set)
{
	free(set->samples);
	set->samples = NULL;
	set->n = 0;
}
