// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/nsight/: control and counters, one value per file (the names
 * are documented in uapi/linux/nsight.h). Writes need CAP_SYS_ADMIN.
 */
#include <linux/kobject.h>
#include <linux/sysfs.h>
#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/slab.h>
#include <linux/kernel.h>
#include "sysfs.h"
#include "control.h"
#include "buffer.h"
#include "pt.h"

static struct kobject *nsight_kobj;

static ssize_t enable_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	struct nsight_status st;

	nsight_get_status(&st);
	return sysfs_emit(buf, "%d\n", st.enabled);
}

/* A write of "0" or "1" (a trailing newline is fine) by an administrator. */
static int nsight_store_flag(const char *buf, bool *on)
{
	unsigned int val;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (kstrtouint(buf, 10, &val) || val > 1)
		return -EINVAL;
	*on = val;
	return 0;
}

/* Starting twice is not an error. */
static ssize_t enable_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	bool on;
	int ret;

	ret = nsight_store_flag(buf, &on);
	if (ret)
		return ret;
	ret = on ? nsight_start() : nsight_stop();
	if (ret == -EALREADY)
		ret = 0;
	return ret ? ret : count;
}

static ssize_t sources_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	struct nsight_status st;
	int len;

	nsight_get_status(&st);
	len = nsight_sources_format(st.config.sources, buf, PAGE_SIZE - 1);
	buf[len++] = '\n';
	return len;
}

static ssize_t sources_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	u32 mask;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = nsight_sources_parse(buf, &mask);
	if (ret)
		return ret;
	ret = nsight_set_config(&(struct nsight_config_req){ .sources = &mask },
				NULL);
	return ret ? ret : count;
}

static ssize_t buffer_size_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	struct nsight_status st;

	nsight_get_status(&st);
	return sysfs_emit(buf, "%u\n", st.config.buffer_size);
}

static ssize_t buffer_size_store(struct kobject *kobj,
				 struct kobj_attribute *attr,
				 const char *buf, size_t count)
{
	u32 size;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = kstrtou32(buf, 0, &size);
	if (ret)
		return -EINVAL;
	ret = nsight_set_config(&(struct nsight_config_req){ .buffer_size = &size },
				NULL);
	return ret ? ret : count;
}

static ssize_t sample_period_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	struct nsight_status st;

	nsight_get_status(&st);
	return sysfs_emit(buf, "%u\n", st.config.sample_period);
}

static ssize_t sample_period_store(struct kobject *kobj,
				   struct kobj_attribute *attr,
				   const char *buf, size_t count)
{
	u32 period;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (kstrtou32(buf, 0, &period))
		return -EINVAL;
	ret = nsight_set_config(&(struct nsight_config_req){
					.sample_period = &period }, NULL);
	return ret ? ret : count;
}

static ssize_t filter_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	struct nsight_status st;
	int len;

	nsight_get_status(&st);
	len = nsight_filter_format(&st.filter, buf, PAGE_SIZE - 1);
	buf[len++] = '\n';
	return len;
}

static ssize_t filter_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	struct nsight_filter f;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = nsight_filter_parse(buf, &f);
	if (ret)
		return ret;
	ret = nsight_set_config(&(struct nsight_config_req){ .filter = &f }, NULL);
	return ret ? ret : count;
}

/* Intel PT: state and capabilities, or why it cannot be used. */
static ssize_t pt_show(struct kobject *kobj, struct kobj_attribute *attr,
		       char *buf)
{
	return nsight_pt_show(buf, PAGE_SIZE);
}

static ssize_t pt_filter_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	int len = nsight_pt_filter_show(buf, PAGE_SIZE - 1);

	buf[len++] = '\n';
	return len;
}

/* PT IP filter ranges or "none"; -EBUSY during any capture. */
static ssize_t pt_filter_store(struct kobject *kobj,
			       struct kobj_attribute *attr,
			       const char *buf, size_t count)
{
	struct nsight_status st;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	nsight_get_status(&st);
	if (st.enabled)
		return -EBUSY;
	ret = nsight_pt_filter_store(buf);
	return ret ? ret : count;
}

static ssize_t profile_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	struct nsight_status st;

	nsight_get_status(&st);
	return sysfs_emit(buf, "%d\n", st.profile);
}

/* Profile the hooks of the captures that follow. */
static ssize_t profile_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	bool on;
	int ret;

	ret = nsight_store_flag(buf, &on);
	if (ret)
		return ret;
	ret = nsight_set_config(&(struct nsight_config_req){ .profile = &on },
				NULL);
	return ret ? ret : count;
}

static ssize_t probes_missed_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	struct nsight_status st;

	nsight_get_status(&st);
	return sysfs_emit(buf, "%llu\n", st.probes_missed);
}

static ssize_t tsc_hz_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	struct nsight_status st;

	nsight_get_status(&st);
	return sysfs_emit(buf, "%llu\n", st.clock_hz);
}

enum nsight_counter { NSIGHT_HITS, NSIGHT_WRITTEN, NSIGHT_DROPPED,
		      NSIGHT_USED };

static u64 nsight_counter_of(const struct nsight_cpu_snapshot *s,
			     enum nsight_counter c)
{
	switch (c) {
	case NSIGHT_HITS:
		return s->hits;
	case NSIGHT_WRITTEN:
		return s->written;
	case NSIGHT_DROPPED:
		return s->dropped;
	case NSIGHT_USED:
		return s->used;
	}
	return 0;
}

static ssize_t nsight_total_show(char *buf, enum nsight_counter c)
{
	struct nsight_cpu_snapshot s;
	unsigned int cpu;
	u64 sum = 0;

	for_each_possible_cpu(cpu) {
		nsight_buffer_snapshot(&nsight_buf, cpu, &s);
		sum += nsight_counter_of(&s, c);
	}
	return sysfs_emit(buf, "%llu\n", sum);
}

static ssize_t hook_hits_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	return nsight_total_show(buf, NSIGHT_HITS);
}

static ssize_t records_written_show(struct kobject *kobj,
				    struct kobj_attribute *attr, char *buf)
{
	return nsight_total_show(buf, NSIGHT_WRITTEN);
}

static ssize_t records_dropped_show(struct kobject *kobj,
				    struct kobj_attribute *attr, char *buf)
{
	return nsight_total_show(buf, NSIGHT_DROPPED);
}

static struct kobj_attribute enable_attr = __ATTR_RW(enable);
static struct kobj_attribute sources_attr = __ATTR_RW(sources);
static struct kobj_attribute buffer_size_attr = __ATTR_RW(buffer_size);
static struct kobj_attribute sample_period_attr = __ATTR_RW(sample_period);
static struct kobj_attribute filter_attr = __ATTR_RW(filter);
static struct kobj_attribute pt_attr = __ATTR_RO(pt);
static struct kobj_attribute pt_filter_attr = __ATTR_RW(pt_filter);
static struct kobj_attribute profile_attr = __ATTR_RW(profile);
static struct kobj_attribute probes_missed_attr = __ATTR_RO(probes_missed);
static struct kobj_attribute tsc_hz_attr = __ATTR_RO(tsc_hz);
static struct kobj_attribute hook_hits_attr = __ATTR_RO(hook_hits);
static struct kobj_attribute records_written_attr = __ATTR_RO(records_written);
static struct kobj_attribute records_dropped_attr = __ATTR_RO(records_dropped);

static struct attribute *nsight_attrs[] = {
	&enable_attr.attr,
	&sources_attr.attr,
	&buffer_size_attr.attr,
	&sample_period_attr.attr,
	&filter_attr.attr,
	&pt_attr.attr,
	&pt_filter_attr.attr,
	&profile_attr.attr,
	&probes_missed_attr.attr,
	&tsc_hz_attr.attr,
	&hook_hits_attr.attr,
	&records_written_attr.attr,
	&records_dropped_attr.attr,
	NULL,
};

static const struct attribute_group nsight_attr_group = {
	.attrs = nsight_attrs,
};

/* cpuN/: a kobject per possible CPU, whose name gives the CPU. */
struct nsight_cpu_kobj {
	struct kobject kobj;
	unsigned int cpu;
};

static struct nsight_cpu_kobj **nsight_cpu_kobjs;

static ssize_t nsight_cpu_show(struct kobject *kobj, char *buf,
			       enum nsight_counter c)
{
	struct nsight_cpu_kobj *ck = container_of(kobj, struct nsight_cpu_kobj,
						  kobj);
	struct nsight_cpu_snapshot s;

	nsight_buffer_snapshot(&nsight_buf, ck->cpu, &s);
	return sysfs_emit(buf, "%llu\n", nsight_counter_of(&s, c));
}

#define NSIGHT_CPU_ATTR(_name, _counter)				\
static ssize_t cpu_##_name##_show(struct kobject *kobj,			\
				  struct kobj_attribute *attr, char *buf) \
{									\
	return nsight_cpu_show(kobj, buf, _counter);			\
}									\
static struct kobj_attribute cpu_##_name##_attr =			\
	__ATTR(_name, 0444, cpu_##_name##_show, NULL)

NSIGHT_CPU_ATTR(hook_hits, NSIGHT_HITS);
NSIGHT_CPU_ATTR(records_written, NSIGHT_WRITTEN);
NSIGHT_CPU_ATTR(records_dropped, NSIGHT_DROPPED);
NSIGHT_CPU_ATTR(buffer_used, NSIGHT_USED);

static struct attribute *nsight_cpu_attrs[] = {
	&cpu_hook_hits_attr.attr,
	&cpu_records_written_attr.attr,
	&cpu_records_dropped_attr.attr,
	&cpu_buffer_used_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(nsight_cpu);

static void nsight_cpu_kobj_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct nsight_cpu_kobj, kobj));
}

static const struct kobj_type nsight_cpu_ktype = {
	.release = nsight_cpu_kobj_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = nsight_cpu_groups,
};

static void nsight_cpu_kobjs_put(void)
{
	unsigned int cpu;

	if (!nsight_cpu_kobjs)
		return;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (nsight_cpu_kobjs[cpu])
			kobject_put(&nsight_cpu_kobjs[cpu]->kobj);
	kfree(nsight_cpu_kobjs);
	nsight_cpu_kobjs = NULL;
}

static int nsight_cpu_kobjs_add(void)
{
	unsigned int cpu;
	int ret;

	nsight_cpu_kobjs = kcalloc(nr_cpu_ids, sizeof(*nsight_cpu_kobjs),
				   GFP_KERNEL);
	if (!nsight_cpu_kobjs)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct nsight_cpu_kobj *ck = kzalloc(sizeof(*ck), GFP_KERNEL);

		if (!ck)
			goto err_nomem;
		ck->cpu = cpu;
		nsight_cpu_kobjs[cpu] = ck;
		ret = kobject_init_and_add(&ck->kobj, &nsight_cpu_ktype,
					   nsight_kobj, "cpu%u", cpu);
		if (ret)
			goto err;
	}
	return 0;

err_nomem:
	ret = -ENOMEM;
err:
	/* kobject_put() frees a kobject even when adding it failed. */
	nsight_cpu_kobjs_put();
	return ret;
}

int nsight_sysfs_init(void)
{
	int ret;

	nsight_kobj = kobject_create_and_add("nsight", kernel_kobj);
	if (!nsight_kobj)
		return -ENOMEM;
	ret = sysfs_create_group(nsight_kobj, &nsight_attr_group);
	if (ret)
		goto err_kobj;
	ret = nsight_cpu_kobjs_add();
	if (ret)
		goto err_group;
	return 0;

err_group:
	sysfs_remove_group(nsight_kobj, &nsight_attr_group);
err_kobj:
	kobject_put(nsight_kobj);
	return ret;
}

void nsight_sysfs_exit(void)
{
	nsight_cpu_kobjs_put();
	sysfs_remove_group(nsight_kobj, &nsight_attr_group);
	kobject_put(nsight_kobj);
}
