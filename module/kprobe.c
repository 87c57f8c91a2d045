// SPDX-License-Identifier: GPL-2.0
/*
 * Kprobes and kretprobes attached for the length of a capture. A kprobe
 * cannot be registered again without being cleared, so every attach starts
 * from a zeroed struct. Hits the kprobe layer skips (a probe firing inside
 * another probe's handler, or a kretprobe with every instance in use) are
 * counted, so the loss is reported rather than silent.
 */
#include <linux/string.h>
#include <linux/printk.h>
#include "kprobe.h"

int nsight_kprobes_attach(struct nsight_kprobe *kps, unsigned int n,
			  u32 sources)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		struct nsight_kprobe *k = &kps[i];

		k->missed = 0;
		if (!(sources & BIT(k->source)))
			continue;
		memset(&k->kp, 0, sizeof(k->kp));
		k->kp.symbol_name = k->symbol;
		k->kp.pre_handler = k->pre;
		ret = register_kprobe(&k->kp);
		if (ret) {
			pr_err("cannot probe %s: %d\n", k->symbol, ret);
			nsight_kprobes_detach(kps, i);
			return ret;
		}
		k->attached = true;
	}
	return 0;
}

/* Detach the first @n; every handler has finished when this returns. */
void nsight_kprobes_detach(struct nsight_kprobe *kps, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct nsight_kprobe *k = &kps[i];

		if (!k->attached)
			continue;
		unregister_kprobe(&k->kp);
		k->missed += k->kp.nmissed;
		k->attached = false;
	}
}

unsigned long nsight_kprobes_missed(const struct nsight_kprobe *kps,
				    unsigned int n)
{
	unsigned long sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		sum += kps[i].missed +
		       (kps[i].attached ? READ_ONCE(kps[i].kp.nmissed) : 0);
	return sum;
}

int nsight_kretprobes_attach(struct nsight_kretprobe *rps, unsigned int n,
			     u32 sources)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		struct nsight_kretprobe *r = &rps[i];

		r->missed = 0;
		if (!(sources & BIT(r->source)))
			continue;
		memset(&r->rp, 0, sizeof(r->rp));
		r->rp.kp.symbol_name = r->symbol;
		r->rp.entry_handler = r->entry;
		r->rp.handler = r->ret;
		r->rp.data_size = r->data_size;
		r->rp.maxactive = r->maxactive;
		ret = register_kretprobe(&r->rp);
		if (ret) {
			pr_err("cannot probe the return of %s: %d\n",
			       r->symbol, ret);
			nsight_kretprobes_detach(rps, i);
			return ret;
		}
		r->attached = true;
	}
	return 0;
}

/* Detach the first @n; every handler has finished when this returns. */
void nsight_kretprobes_detach(struct nsight_kretprobe *rps, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct nsight_kretprobe *r = &rps[i];

		if (!r->attached)
			continue;
		unregister_kretprobe(&r->rp);
		r->missed += r->rp.nmissed + r->rp.kp.nmissed;
		r->attached = false;
	}
}

unsigned long nsight_kretprobes_missed(const struct nsight_kretprobe *rps,
				       unsigned int n)
{
	unsigned long sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		sum += rps[i].missed;
		if (rps[i].attached)
			sum += READ_ONCE(rps[i].rp.nmissed) +
			       READ_ONCE(rps[i].rp.kp.nmissed);
	}
	return sum;
}
