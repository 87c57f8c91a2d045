// SPDX-License-Identifier: MIT
/* NIC hardware timestamps for a capture: set, saved, put back (hwtstamp.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/net_tstamp.h>
#include <linux/sockios.h>

#include "format/filter.h"
#include "hwtstamp.h"

const char *nsight_hwts_path(void)
{
	const char *p = getenv("NSIGHT_HWTS_STATE");

	return p && *p ? p : NSIGHT_HWTS_STATE;
}

const char *nsight_hwts_describe(int tx_type, int rx_filter, char *buf, size_t len)
{
	static const char *const tx[] = { "off", "on", "one-step sync", "one-step p2p" };
	const char *rx = rx_filter == HWTSTAMP_FILTER_NONE ? "none" :
			 rx_filter == HWTSTAMP_FILTER_ALL ? "all" :
			 rx_filter == HWTSTAMP_FILTER_SOME ? "some" :
			 rx_filter == HWTSTAMP_FILTER_NTP_ALL ? "ntp" : NULL;

	if (tx_type >= 0 && tx_type < (int)(sizeof(tx) / sizeof(tx[0])))
		snprintf(buf, len, "tx %s", tx[tx_type]);
	else
		snprintf(buf, len, "tx %d", tx_type);
	if (rx)
		snprintf(buf + strlen(buf), len - strlen(buf), ", rx %s", rx);
	else
		snprintf(buf + strlen(buf), len - strlen(buf), ", rx ptp filter %d", rx_filter);
	return buf;
}

/* ---------------------------------------------------------------------- */
/* The state file                                                           */

/* A decimal from @lo to INT_MAX into the int *@out. */
static int parse_int(const char *s, uint32_t lo, int *out)
{
	uint32_t v;

	if (nsight_parse_uint(s, lo, INT_MAX, &v))
		return -1;
	*out = (int)v;
	return 0;
}

int nsight_hwts_state_read(const char *path, struct nsight_hwts_state *st,
			   struct nsight_diag *d)
{
	char line[256];
	unsigned int ln = 0;
	FILE *f;
	int err = 0;

	memset(st, 0, sizeof(*st));
	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			return -ENOENT;
		return nsight_diag_set(d, errno, "%s: %s", path, strerror(errno));
	}
	while (!err && fgets(line, sizeof(line), f)) {
		char *tok[6], *save = NULL, *p;
		int nt = 0, owner;

		ln++;
		if (!strchr(line, '\n') && !feof(f)) {
			err = nsight_diag_set(d, EINVAL, "%s:%u: line too long", path, ln);
			break;
		}
		for (p = strtok_r(line, " \t\n", &save); p && nt < 6; p = strtok_r(NULL, " \t\n", &save))
			tok[nt++] = p;
		if (!nt || tok[0][0] == '#')
			continue;
		if (!strcmp(tok[0], "owner")) {
			if (nt != 2 || parse_int(tok[1], 0, &owner))
				err = nsight_diag_set(d, EINVAL, "%s:%u: expected 'owner PID'", path, ln);
			else
				st->owner = (pid_t)owner;
			continue;
		}
		if (nt != 5) {
			err = nsight_diag_set(d, EINVAL,
					      "%s:%u: expected 'IFNAME IFINDEX TX_TYPE RX_FILTER FLAGS'",
					      path, ln);
			continue;
		}
		if (st->n == NSIGHT_HWTS_MAX) {
			err = nsight_diag_set(d, EINVAL, "%s:%u: more than %d interfaces",
					      path, ln, NSIGHT_HWTS_MAX);
			continue;
		}
		if (strlen(tok[0]) >= IF_NAMESIZE ||
		    parse_int(tok[1], 1, &st->ifs[st->n].ifindex) ||
		    parse_int(tok[2], 0, &st->ifs[st->n].tx_type) ||
		    parse_int(tok[3], 0, &st->ifs[st->n].rx_filter) ||
		    parse_int(tok[4], 0, &st->ifs[st->n].flags)) {
			err = nsight_diag_set(d, EINVAL, "%s:%u: bad interface line", path, ln);
			continue;
		}
		strcpy(st->ifs[st->n].ifname, tok[0]);
		st->n++;
	}
	if (!err && ferror(f))
		err = nsight_diag_set(d, EIO, "%s: read error", path);
	fclose(f);
	return err;
}

/* mkdir -p of @path's directory, mode 0700. */
static int make_dir_of(const char *path, struct nsight_diag *d)
{
	char dir[PATH_MAX];
	char *p;

	if (strlen(path) >= sizeof(dir))
		return nsight_diag_set(d, ENAMETOOLONG, "%s: path too long", path);
	strcpy(dir, path);
	p = strrchr(dir, '/');
	if (!p || p == dir)
		return 0;
	*p = '\0';
	for (p = dir + 1;; p++) {
		char c = *p;

		if (c && c != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0700) && errno != EEXIST)
			return nsight_diag_set(d, errno, "cannot create %s: %s", dir, strerror(errno));
		*p = c;
		if (!c)
			return 0;
	}
}

int nsight_hwts_state_write(const char *path, const struct nsight_hwts_state *st,
			    struct nsight_diag *d)
{
	char tmp[PATH_MAX];
	size_t i;
	FILE *f;
	int fd, err;

	if (!st->n) {
		if (unlink(path) && errno != ENOENT)
			return nsight_diag_set(d, errno, "cannot remove %s: %s", path, strerror(errno));
		return 0;
	}
	err = make_dir_of(path, d);
	if (err)
		return err;
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return nsight_diag_set(d, ENAMETOOLONG, "%s: path too long", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return nsight_diag_set(d, errno, "cannot write %s: %s", tmp, strerror(errno));
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return nsight_diag_set(d, ENOMEM, "out of memory");
	}
	fprintf(f, "# nsightctl: the hardware timestamping to restore when the capture stops\n");
	fprintf(f, "owner %d\n", (int)st->owner);
	for (i = 0; i < st->n; i++)
		fprintf(f, "%s %d %d %d %d\n", st->ifs[i].ifname, st->ifs[i].ifindex,
			st->ifs[i].tx_type, st->ifs[i].rx_filter, st->ifs[i].flags);
	if (fflush(f) || fsync(fd)) {
		err = errno;
		fclose(f);
		unlink(tmp);
		return nsight_diag_set(d, err, "cannot write %s: %s", tmp, strerror(err));
	}
	if (fclose(f)) {
		err = errno;
		unlink(tmp);
		return nsight_diag_set(d, err, "cannot write %s: %s", tmp, strerror(err));
	}
	if (rename(tmp, path)) {
		err = errno;
		unlink(tmp);
		return nsight_diag_set(d, err, "cannot rename %s to %s: %s", tmp, path, strerror(err));
	}
	return 0;
}

int nsight_hwts_parse_list(const char *list, char names[][IF_NAMESIZE], size_t *n,
			   struct nsight_diag *d)
{
	const char *p = list;

	*n = 0;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		size_t i;

		if (!len || len >= IF_NAMESIZE)
			return nsight_diag_set(d, EINVAL, "bad interface list '%s': %s", list,
					       len ? "a name longer than 15 characters" : "an empty name");
		if (*n == NSIGHT_HWTS_MAX)
			return nsight_diag_set(d, EINVAL, "bad interface list '%s': more than %d interfaces",
					       list, NSIGHT_HWTS_MAX);
		memcpy(names[*n], p, len);
		names[*n][len] = '\0';
		for (i = 0; i < *n; i++)
			if (!strcmp(names[i], names[*n]))
				return nsight_diag_set(d, EINVAL, "bad interface list '%s': %s twice",
						       list, names[i]);
		(*n)++;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

/* ---------------------------------------------------------------------- */
/* The drivers                                                              */

static int hwts_ioctl(int sock, unsigned long req, const char *ifname, struct hwtstamp_config *c)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, ifname, strlen(ifname) + 1);
	ifr.ifr_data = (char *)c;
	return ioctl(sock, req, &ifr) ? -errno : 0;
}

static int set_saved(int sock, const struct nsight_hwts_saved *s)
{
	struct hwtstamp_config c = {
		.flags = s->flags, .tx_type = s->tx_type, .rx_filter = s->rx_filter,
	};

	return hwts_ioctl(sock, SIOCSHWTSTAMP, s->ifname, &c);
}

static int open_sock(struct nsight_diag *d)
{
	int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (sock < 0)
		return nsight_diag_set(d, errno, "socket: %s", strerror(errno));
	return sock;
}

static ssize_t find_saved(const struct nsight_hwts_state *st, const char *ifname)
{
	size_t i;

	for (i = 0; i < st->n; i++)
		if (!strcmp(st->ifs[i].ifname, ifname))
			return (ssize_t)i;
	return -1;
}

/* Put back entry @i of @st; a line on @out, or a warning on stderr. */
static int restore_one(int sock, const struct nsight_hwts_saved *s, const char *why, FILE *out)
{
	char what[64];
	int err;

	if ((int)if_nametoindex(s->ifname) != s->ifindex) {
		fprintf(stderr, "nsightctl: %s: not restored: the interface (index %d) is gone\n",
			s->ifname, s->ifindex);
		return -ENODEV;
	}
	err = set_saved(sock, s);
	nsight_hwts_describe(s->tx_type, s->rx_filter, what, sizeof(what));
	if (err) {
		fprintf(stderr, "nsightctl: %s: hardware timestamping not restored to %s: %s\n",
			s->ifname, what, strerror(-err));
		return err;
	}
	if (out)
		fprintf(out, "nsightctl: %s: hardware timestamping restored (%s): %s\n",
			s->ifname, what, why);
	return 0;
}

int nsight_hwts_restore(const char *why, FILE *out, struct nsight_diag *d)
{
	const char *path = nsight_hwts_path();
	struct nsight_hwts_state st;
	int sock, err, failed = 0;
	size_t i;

	err = nsight_hwts_state_read(path, &st, d);
	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	sock = open_sock(d);
	if (sock < 0)
		return sock;
	for (i = 0; i < st.n; i++)
		failed += restore_one(sock, &st.ifs[i], why, out) != 0;
	close(sock);
	st.n = 0;
	err = nsight_hwts_state_write(path, &st, d);
	if (err)
		return err;
	if (failed)
		return nsight_diag_set(d, EIO, "%d interface%s not restored", failed,
				       failed == 1 ? "" : "s");
	return 0;
}

/*
 * Ask @ifname's driver for TX stamps and RX stamps of every packet; on
 * success *@got is what the driver set.
 */
static int set_on(int sock, const char *ifname, struct hwtstamp_config *got,
		  struct nsight_diag *d)
{
	struct hwtstamp_config c = { .tx_type = HWTSTAMP_TX_ON, .rx_filter = HWTSTAMP_FILTER_ALL };
	int err = hwts_ioctl(sock, SIOCSHWTSTAMP, ifname, &c);

	if (err == -EOPNOTSUPP || err == -EINVAL)
		return nsight_diag_set(d, -err, "%s: the driver does not timestamp packets (SIOCSHWTSTAMP: %s)",
				       ifname, strerror(-err));
	if (err == -ERANGE)
		return nsight_diag_set(d, -err, "%s: the driver cannot stamp every received packet, or cannot stamp sent ones (SIOCSHWTSTAMP tx on, rx all: %s)",
				       ifname, strerror(-err));
	if (err)
		return nsight_diag_set(d, -err, "%s: SIOCSHWTSTAMP: %s", ifname, strerror(-err));
	if (c.rx_filter != HWTSTAMP_FILTER_ALL && c.rx_filter != HWTSTAMP_FILTER_NTP_ALL) {
		char what[64];

		nsight_hwts_describe(c.tx_type, c.rx_filter, what, sizeof(what));
		*got = c;
		return nsight_diag_set(d, ERANGE, "%s: the driver answered %s, not rx all: NIC delay would be missing for most packets",
				       ifname, what);
	}
	*got = c;
	return 0;
}

int nsight_hwts_enable(const char *list, pid_t owner, FILE *out, struct nsight_diag *d)
{
	const char *path = nsight_hwts_path();
	char names[NSIGHT_HWTS_MAX][IF_NAMESIZE];
	bool changed[NSIGHT_HWTS_MAX] = { false }, keep[NSIGHT_HWTS_MAX] = { false };
	struct nsight_hwts_state st;
	size_t n, i, j;
	int sock, err;

	err = nsight_hwts_parse_list(list, names, &n, d);
	if (err)
		return err;
	for (i = 0; i < n; i++)
		if (!if_nametoindex(names[i]))
			return nsight_diag_set(d, ENODEV, "%s: no such interface", names[i]);
	err = nsight_hwts_state_read(path, &st, d);
	if (err && err != -ENOENT)
		return err;
	sock = open_sock(d);
	if (sock < 0)
		return sock;

	/* Saved interfaces left out of @list go back first. */
	for (i = 0, j = 0; i < st.n; i++) {
		bool wanted = false;
		size_t k;

		for (k = 0; k < n; k++)
			wanted |= !strcmp(names[k], st.ifs[i].ifname);
		if (wanted)
			st.ifs[j++] = st.ifs[i];
		else
			restore_one(sock, &st.ifs[i], "not in the new list", out);
	}
	st.n = j;
	for (i = 0; i < st.n; i++)
		keep[i] = true;

	/* Save each new interface's setting before changing any driver. */
	for (i = 0; i < n; i++) {
		struct nsight_hwts_saved *s;
		struct hwtstamp_config c = { 0 };

		if (find_saved(&st, names[i]) >= 0)
			continue;
		s = &st.ifs[st.n];
		memset(s, 0, sizeof(*s));
		strcpy(s->ifname, names[i]);
		s->ifindex = (int)if_nametoindex(names[i]);
		err = hwts_ioctl(sock, SIOCGHWTSTAMP, names[i], &c);
		if (err == -EOPNOTSUPP || err == -EINVAL) {
			err = nsight_diag_set(d, -err, "%s: the driver does not timestamp packets (SIOCGHWTSTAMP: %s)",
					      names[i], strerror(-err));
			goto undo;
		}
		if (err) {
			err = nsight_diag_set(d, -err, "%s: SIOCGHWTSTAMP: %s", names[i], strerror(-err));
			goto undo;
		}
		s->tx_type = c.tx_type;
		s->rx_filter = c.rx_filter;
		s->flags = c.flags;
		st.n++;
	}
	st.owner = owner;
	err = nsight_hwts_state_write(path, &st, d);
	if (err)
		goto undo;

	for (i = 0; i < st.n; i++) {
		struct hwtstamp_config got = { 0 };
		char was[64], now[64];

		err = set_on(sock, st.ifs[i].ifname, &got, d);
		if (err) {
			/* The driver may have changed something before answering. */
			changed[i] = true;
			goto undo;
		}
		changed[i] = true;
		if (out && !keep[i])
			fprintf(out, "nsightctl: %s: hardware timestamps on (%s; was %s)\n",
				st.ifs[i].ifname,
				nsight_hwts_describe(got.tx_type, got.rx_filter, now, sizeof(now)),
				nsight_hwts_describe(st.ifs[i].tx_type, st.ifs[i].rx_filter,
						     was, sizeof(was)));
	}
	close(sock);
	return 0;

undo:
	/* Put back what this call changed; the state keeps only the rest. */
	for (i = 0, j = 0; i < st.n; i++) {
		if (changed[i] && !keep[i])
			restore_one(sock, &st.ifs[i], "the request was refused", out);
		if (keep[i])
			st.ifs[j++] = st.ifs[i];
	}
	st.n = j;
	close(sock);
	nsight_hwts_state_write(path, &st, NULL);
	return err;
}

void nsight_hwts_restore_stale(const char *module_dir)
{
	struct nsight_diag d = { 0 };
	struct nsight_hwts_state st;
	const char *why = NULL;
	struct stat sb;
	int err;

	err = nsight_hwts_state_read(nsight_hwts_path(), &st, &d);
	if (err == -ENOENT)
		return;
	if (err) {
		fprintf(stderr, "nsightctl: %s\n", d.msg);
		return;
	}
	if (stat(module_dir, &sb))
		why = "the nsight module was unloaded";
	else if (st.owner > 0 && kill(st.owner, 0) && errno == ESRCH)
		why = "the nsightctl record that set it ended without restoring it";
	if (why)
		nsight_hwts_put_back(why);
}

void nsight_hwts_put_back(const char *why)
{
	struct nsight_diag d = { 0 };

	if (nsight_hwts_restore(why, stderr, &d))
		fprintf(stderr, "nsightctl: %s\n", d.msg);
}

void nsight_hwts_print(FILE *f, const char *prefix)
{
	struct nsight_diag d = { 0 };
	struct nsight_hwts_state st;
	size_t i;
	int err;

	err = nsight_hwts_state_read(nsight_hwts_path(), &st, &d);
	if (err == -ENOENT)
		return;
	if (err) {
		fprintf(f, "%s(unreadable: %s)\n", prefix, d.msg);
		return;
	}
	for (i = 0; i < st.n; i++) {
		char was[64];

		fprintf(f, "%s%s on (restored to %s when the capture stops", prefix, st.ifs[i].ifname,
			nsight_hwts_describe(st.ifs[i].tx_type, st.ifs[i].rx_filter, was, sizeof(was)));
		if (st.owner)
			fprintf(f, " or nsightctl record [%d] ends", (int)st.owner);
		fprintf(f, ")\n");
	}
}

struct json_object *nsight_hwts_json(void)
{
	struct nsight_hwts_state st;
	struct json_object *a;
	size_t i;
	int err;

	err = nsight_hwts_state_read(nsight_hwts_path(), &st, NULL);
	if (err && err != -ENOENT)
		return NULL;
	a = json_object_new_array();
	for (i = 0; a && i < st.n; i++) {
		struct json_object *o = json_object_new_object();

		if (!o || json_object_array_add(a, o)) {
			json_object_put(o);
			json_object_put(a);
			return NULL;
		}
		json_object_object_add(o, "ifname", json_object_new_string(st.ifs[i].ifname));
		json_object_object_add(o, "ifindex", json_object_new_int(st.ifs[i].ifindex));
		json_object_object_add(o, "restore_tx_type", json_object_new_int(st.ifs[i].tx_type));
		json_object_object_add(o, "restore_rx_filter", json_object_new_int(st.ifs[i].rx_filter));
		json_object_object_add(o, "owner_pid", json_object_new_int(st.owner));
	}
	return a;
}
