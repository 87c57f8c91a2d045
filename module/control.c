// SPDX-License-Identifier: GPL-2.0
/*
 * Capture control.
 *
 * One mutex serializes start, stop and configuration, whether they come
 * from sysfs or netlink. Probes are attached only while a capture runs, and
 * the buffers are reset or reallocated only while none runs: once
 * nsight_stop() returns, every probe is detached and synchronized, so
 * nothing writes into the buffer any more.
 */
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/debugfs.h>
#include <linux/netlink.h>
#include "control.h"
#include "buffer.h"
#include "names.h"
#include "socks.h"
#include "ctx_hooks.h"
#include "net_hooks.h"
#include "app_hooks.h"
#include "clock.h"
#include "pkt.h"
#include "notify.h"
#include "sample.h"
#include "pt.h"
#include "mark.h"
#include "request.h"
#include "profile.h"
#include "fentry.h"
#include "compat.h"

static DEFINE_MUTEX(nsight_control_lock);
static bool nsight_enabled;
static bool nsight_shutting_down;
static struct dentry *nsight_debugfs;
static struct nsight_config nsight_config = {
	.sources = NSIGHT_SOURCES_DEFAULT,
	.buffer_size = NSIGHT_BUFFER_DEFAULT,
	.sample_period = NSIGHT_SAMPLE_PERIOD_DEFAULT,
};

static const char *const nsight_source_names[] = NSIGHT_SOURCE_NAMES;

static_assert(ARRAY_SIZE(nsight_source_names) == __NSIGHT_SRC_COUNT);

/**
 * nsight_sources_parse - parse a list of source names.
 * @buf:  names separated by commas, spaces or newlines; or "all" or "none"
 * @mask: the resulting bit mask of enum nsight_source
 *
 * Returns 0, or -EINVAL for an unknown name or an empty list.
 */
int nsight_sources_parse(const char *buf, u32 *mask)
{
	const char *p = buf;
	bool any = false;
	u32 m = 0;

	while (*p) {
		size_t len = strcspn(p, ", \t\n");
		unsigned int i;

		if (!len) {
			p++;
			continue;
		}
		any = true;
		if (len == 3 && !strncmp(p, "all", 3)) {
			m |= NSIGHT_SOURCES_ALL;
		} else if (len == 4 && !strncmp(p, "none", 4)) {
			/* nothing */
		} else {
			for (i = 0; i < __NSIGHT_SRC_COUNT; i++)
				if (strlen(nsight_source_names[i]) == len &&
				    !strncmp(p, nsight_source_names[i], len))
					break;
			if (i == __NSIGHT_SRC_COUNT)
				return -EINVAL;
			m |= BIT(i);
		}
		p += len;
	}
	if (!any)
		return -EINVAL;
	*mask = m;
	return 0;
}

/* Comma-separated names of @mask, "none" if empty; returns the length. */
int nsight_sources_format(u32 mask, char *buf, size_t size)
{
	unsigned int i;
	int len = 0;

	if (!size)
		return 0;
	buf[0] = '\0';
	for (i = 0; i < __NSIGHT_SRC_COUNT; i++) {
		if (!(mask & BIT(i)))
			continue;
		len += scnprintf(buf + len, size - len, "%s%s",
				 len ? "," : "", nsight_source_names[i]);
	}
	if (!len)
		len = scnprintf(buf, size, "none");
	return len;
}

/*
 * Detach everything and wait until no probe runs. Lock held. The
 * synchronize_rcu() in tracepoint_synchronize_unregister() also waits for
 * the marks that saw the gate open (see mark.c).
 */
static void nsight_detach_all(void)
{
	nsight_mark_allow(false);
	nsight_request_allow(false);
	nsight_pt_stop();
	nsight_sample_detach();
	nsight_app_detach();
	nsight_net_detach();
	nsight_ctx_detach();
	nsight_clock_detach();
	tracepoint_synchronize_unregister();
	nsight_notify_sync();
}

int nsight_start(void)
{
	u32 sources;
	int ret;

	mutex_lock(&nsight_control_lock);
	if (nsight_shutting_down) {
		ret = -ENODEV;
		goto out;
	}
	if (nsight_enabled) {
		ret = -EALREADY;
		goto out;
	}
	if (!nsight_buf.chan) {
		ret = -ENOMEM;
		goto out;
	}
	sources = nsight_config.sources;
	nsight_buffer_reset(&nsight_buf);
	nsight_names_reset();
	nsight_socks_reset();
	nsight_prof_reset();
	nsight_pkt_forget();
	nsight_buffer_set_live(&nsight_buf, true);
	nsight_clock_sync_record();

	ret = nsight_clock_attach(sources);
	if (ret)
		goto err;
	ret = nsight_ctx_attach(sources);
	if (ret)
		goto err;
	ret = nsight_net_attach(sources);
	if (ret)
		goto err;
	ret = nsight_app_attach(sources);
	if (ret)
		goto err;
	ret = nsight_sample_attach(sources, nsight_config.sample_period);
	if (ret)
		goto err;
	/*
	 * Intel PT, buffer_size bytes per CPU too. Absent, busy or failing,
	 * it does not stop the capture: the pt state says why.
	 */
	if (sources & BIT(NSIGHT_SRC_PT))
		nsight_pt_start(nsight_config.buffer_size);
	nsight_mark_allow(true);
	nsight_request_allow(sources & BIT(NSIGHT_SRC_REQUEST));
	nsight_enabled = true;
	mutex_unlock(&nsight_control_lock);
	return 0;

err:
	nsight_detach_all();
	nsight_buffer_set_live(&nsight_buf, false);
out:
	mutex_unlock(&nsight_control_lock);
	return ret;
}

static int __nsight_stop(void)
{
	if (!nsight_enabled)
		return -EALREADY;
	nsight_detach_all();
	nsight_buffer_set_live(&nsight_buf, false);
	nsight_enabled = false;
	return 0;
}

int nsight_stop(void)
{
	int ret;

	mutex_lock(&nsight_control_lock);
	ret = __nsight_stop();
	mutex_unlock(&nsight_control_lock);
	return ret;
}

/*
 * Replace the buffers with ones of @size bytes per CPU. On failure, try to
 * get the old size back; if even that fails there is no buffer and starting
 * fails with -ENOMEM until a later resize succeeds.
 */
static int nsight_resize(u32 size)
{
	u32 old = nsight_config.buffer_size;
	int ret;

	nsight_buffer_close(&nsight_buf);
	ret = nsight_buffer_open(&nsight_buf, nsight_debugfs, size);
	if (!ret) {
		nsight_config.buffer_size = size;
		return 0;
	}
	if (nsight_buffer_open(&nsight_buf, nsight_debugfs, old))
		pr_err("no capture buffer: cannot allocate %u bytes per CPU\n",
		       old);
	return ret;
}

/**
 * nsight_set_config - change sources, buffer size, sample period, filter.
 * @req:    the new values; NULL members are left as they are
 * @extack: for error messages, may be NULL
 *
 * -EBUSY while a capture runs, -EINVAL for values out of range; nothing
 * is changed then.
 */
int nsight_set_config(const struct nsight_config_req *req,
		      struct netlink_ext_ack *extack)
{
	const u32 *sources = req->sources, *buffer_size = req->buffer_size;
	const u32 *period = req->sample_period;
	int ret = 0;

	if (period && (*period < NSIGHT_SAMPLE_PERIOD_MIN ||
		       *period > NSIGHT_SAMPLE_PERIOD_MAX)) {
		NL_SET_ERR_MSG(extack, "sample period out of range");
		return -EINVAL;
	}
	if (sources && (*sources & ~NSIGHT_SOURCES_ALL)) {
		NL_SET_ERR_MSG(extack, "unknown source bits");
		return -EINVAL;
	}
	if (buffer_size && (*buffer_size < NSIGHT_BUFFER_MIN ||
			    *buffer_size > NSIGHT_BUFFER_MAX)) {
		NL_SET_ERR_MSG(extack, "buffer size out of range");
		return -EINVAL;
	}

	mutex_lock(&nsight_control_lock);
	if (nsight_enabled) {
		NL_SET_ERR_MSG(extack, "capture running: stop it first");
		ret = -EBUSY;
		goto out;
	}
	if (nsight_shutting_down) {
		ret = -ENODEV;
		goto out;
	}
	if (buffer_size && (*buffer_size != nsight_config.buffer_size ||
			    !nsight_buf.chan)) {
		ret = nsight_resize(*buffer_size);
		if (ret) {
			NL_SET_ERR_MSG(extack, "cannot allocate the buffers");
			goto out;
		}
	}
	if (sources)
		nsight_config.sources = *sources;
	if (period)
		nsight_config.sample_period = *period;
	if (req->profile)
		nsight_prof_set(*req->profile);
	/* Probes read it unlocked; they are all detached now. */
	if (req->filter)
		nsight_filter = *req->filter;
out:
	mutex_unlock(&nsight_control_lock);
	return ret;
}

void nsight_get_status(struct nsight_status *st)
{
	mutex_lock(&nsight_control_lock);
	st->enabled = nsight_enabled;
	st->config = nsight_config;
	st->subbuf_size = nsight_buf.chan ? nsight_buf.subbuf_size : 0;
	st->n_subbufs = nsight_buf.chan ? nsight_buf.n_subbufs : 0;
	st->clock_hz = nsight_clock_hz();
	st->probes_missed = nsight_app_missed() +
			    nsight_ctx_missed();
	st->filter = nsight_filter;
	st->profile = nsight_prof_enabled();
	mutex_unlock(&nsight_control_lock);
}

int nsight_control_init(void)
{
	int ret;

	ret = nsight_ctx_init();
	if (ret)
		return ret;
	ret = nsight_net_init();
	if (ret)
		return ret;
	ret = nsight_app_init();
	if (ret)
		return ret;
	ret = nsight_names_init();
	if (ret)
		return ret;
	ret = nsight_socks_init();
	if (ret)
		goto err_names;
	nsight_pkt_init_key();

	nsight_debugfs = debugfs_create_dir("nsight", NULL);
	if (IS_ERR(nsight_debugfs)) {
		ret = PTR_ERR(nsight_debugfs);
		pr_err("cannot create debugfs directory: %d\n", ret);
		goto err_socks;
	}
	nsight_buf.on_full = nsight_notify_full;
	ret = nsight_buffer_open(&nsight_buf, nsight_debugfs,
				 nsight_config.buffer_size);
	if (ret)
		goto err_debugfs;
	ret = nsight_pt_init(nsight_debugfs);
	if (ret)
		goto err_buffer;
	ret = nsight_prof_init(nsight_debugfs);
	if (ret)
		goto err_pt;
	return 0;

err_pt:
	nsight_pt_exit();
err_buffer:
	nsight_buffer_close(&nsight_buf);
err_debugfs:
	debugfs_remove(nsight_debugfs);
err_socks:
	nsight_socks_exit();
err_names:
	nsight_names_exit();
	return ret;
}

/*
 * Stop for good: a capture still running is stopped (every probe detached
 * and synchronized, no notification pending), later starts and
 * configuration changes fail. The buffers stay for sysfs readers until
 * nsight_control_exit().
 */
void nsight_control_shutdown(void)
{
	mutex_lock(&nsight_control_lock);
	nsight_shutting_down = true;
	__nsight_stop();
	mutex_unlock(&nsight_control_lock);
}

/* After nsight_control_shutdown() and after sysfs and netlink are gone. */
void nsight_control_exit(void)
{
	nsight_fentries_release();
	nsight_prof_exit_module();
	nsight_pt_exit();
	nsight_buffer_close(&nsight_buf);
	debugfs_remove(nsight_debugfs);
	nsight_socks_exit();
	nsight_names_exit();
}
