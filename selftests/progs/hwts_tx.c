// SPDX-License-Identifier: GPL-2.0
/*
 * hwts_tx: a NIC's hardware stamps of sent packets, as the sending socket
 * gets them and as nsight's capture holds them
 * (selftests/nsight/44-hwtstamp-igb.sh).
 *
 *   hwts_tx send IFNAME ADDR COUNT OUT
 *	turn TX stamping on in IFNAME's driver (SIOCSHWTSTAMP tx_type ON,
 *	rx_filter NONE: what a socket needs for hardware TX stamps, which
 *	nsightctl --hw-timestamps does not ask alone), send COUNT UDP
 *	datagrams to the IPv4 ADDR port 9 from a socket bound to IFNAME that
 *	asks for them (SOF_TIMESTAMPING_TX_HARDWARE | RAW_HARDWARE), each
 *	once the stamp of the one before came back (igb stamps one packet at
 *	a time), and write each stamp (ns of the NIC's clock) on a line of
 *	OUT. The driver's setting before (SIOCGHWTSTAMP) is put back at the
 *	end, whatever happened. Exit 4 if the driver refuses TX stamps, 1 if
 *	a stamp did not come within 10 s or was 0.
 *   hwts_tx check OUT CAPTURE
 *	the TX_TSTAMP packet records of CAPTURE (read with libnsight) that
 *	carry a hardware stamp against the stamps of OUT: exit 0 if OUT has
 *	at least one, every one of them is a record's and every record's is
 *	one of them; else 1. Prints the counts and the values that did not
 *	match.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/zstdio.h"
#include "pipeline/analysis.h"

#define MAX_STAMPS 1000
#define STAMP_WAIT_MS 10000

static int hwts_ioctl(int s, unsigned long req, const char *ifname, struct hwtstamp_config *c)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)c;
	return ioctl(s, req, &ifr) ? -errno : 0;
}

/* The hardware TX stamp of the next message on @s's error queue, or 0. */
static int64_t tx_stamp(int s)
{
	char data[256], ctl[512];
	struct iovec io = { data, sizeof(data) };
	struct msghdr m = {
		.msg_iov = &io, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct pollfd p = { .fd = s, .events = POLLERR };
	struct cmsghdr *c;

	if (poll(&p, 1, STAMP_WAIT_MS) <= 0) {
		fprintf(stderr, "hwts_tx: no TX stamp within %d ms\n", STAMP_WAIT_MS);
		return 0;
	}
	if (recvmsg(s, &m, MSG_ERRQUEUE) < 0) {
		perror("hwts_tx: recvmsg(MSG_ERRQUEUE)");
		return 0;
	}
	for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMPING) {
			struct scm_timestamping ts;

			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			return (int64_t)ts.ts[2].tv_sec * 1000000000 + ts.ts[2].tv_nsec;
		}
	}
	fprintf(stderr, "hwts_tx: an error-queue message without SCM_TIMESTAMPING\n");
	return 0;
}

static int send_stamped(int s, const char *ifname, const char *addr, long count, FILE *out)
{
	int flags = SOF_TIMESTAMPING_TX_HARDWARE | SOF_TIMESTAMPING_RAW_HARDWARE;
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(9) };
	long i;

	if (inet_pton(AF_INET, addr, &dst.sin_addr) != 1) {
		fprintf(stderr, "hwts_tx: %s: not an IPv4 address\n", addr);
		return 1;
	}
	if (setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, ifname, strlen(ifname)) ||
	    setsockopt(s, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags))) {
		perror("hwts_tx: setsockopt");
		return 1;
	}
	for (i = 0; i < count; i++) {
		char msg[32];
		int len = snprintf(msg, sizeof(msg), "hwts_tx %ld", i);
		int64_t ns;

		if (sendto(s, msg, (size_t)len, 0, (struct sockaddr *)&dst, sizeof(dst)) != len) {
			perror("hwts_tx: sendto");
			return 1;
		}
		ns = tx_stamp(s);
		if (!ns) {
			fprintf(stderr, "hwts_tx: datagram %ld: no hardware TX stamp\n", i);
			return 1;
		}
		fprintf(out, "%" PRId64 "\n", ns);
	}
	return 0;
}

static int cmd_send(const char *ifname, const char *addr, const char *count_s, const char *path)
{
	struct hwtstamp_config before = { 0 }, on = { .tx_type = HWTSTAMP_TX_ON,
						      .rx_filter = HWTSTAMP_FILTER_NONE };
	long count = strtol(count_s, NULL, 10);
	int s, err, rc;
	FILE *out;

	if (count < 1 || count > MAX_STAMPS) {
		fprintf(stderr, "hwts_tx: COUNT from 1 to %d\n", MAX_STAMPS);
		return 2;
	}
	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0) {
		perror("hwts_tx: socket");
		return 1;
	}
	err = hwts_ioctl(s, SIOCGHWTSTAMP, ifname, &before);
	if (!err)
		err = hwts_ioctl(s, SIOCSHWTSTAMP, ifname, &on);
	if (err) {
		fprintf(stderr, "hwts_tx: %s: no TX stamps from the driver (SIOC[GS]HWTSTAMP: %s)\n",
			ifname, strerror(-err));
		close(s);
		return 4;
	}
	printf("%s: tx_type %d rx_filter %d, now tx_type %d rx_filter %d\n", ifname,
	       before.tx_type, before.rx_filter, on.tx_type, on.rx_filter);
	out = fopen(path, "w");
	if (!out) {
		perror(path);
		rc = 1;
	} else {
		rc = send_stamped(s, ifname, addr, count, out);
		if (fclose(out)) {
			perror(path);
			rc = 1;
		}
	}
	err = hwts_ioctl(s, SIOCSHWTSTAMP, ifname, &before);
	if (err) {
		fprintf(stderr, "hwts_tx: %s: setting back tx_type %d rx_filter %d: %s\n", ifname,
			before.tx_type, before.rx_filter, strerror(-err));
		rc = 1;
	}
	close(s);
	return rc;
}

static int has(const int64_t *v, size_t n, int64_t x)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

static int cmd_check(const char *stamps, const char *capture)
{
	static int64_t sock[MAX_STAMPS];
	struct nsight_analysis_opts o;
	struct nsight_diag d = { 0 };
	struct nsight_analysis a;
	size_t ns = 0, nrec = 0, nhw = 0, matched = 0, foreign = 0, i;
	int64_t *rec = NULL;
	long long v;
	FILE *f, *in;
	int rc = 0;

	f = fopen(stamps, "r");
	if (!f) {
		perror(stamps);
		return 1;
	}
	while (ns < MAX_STAMPS && fscanf(f, "%lld", &v) == 1)
		sock[ns++] = v;
	fclose(f);
	f = fopen(capture, "rb");
	if (!f) {
		perror(capture);
		return 1;
	}
	in = nsight_zstd_open_read(f);
	if (!in) {
		fclose(f);
		fprintf(stderr, "hwts_tx: out of memory\n");
		return 1;
	}
	memset(&a, 0, sizeof(a));
	memset(&o, 0, sizeof(o));
	if (nsight_analysis_run(&a, in, &o, &d)) {
		fprintf(stderr, "hwts_tx: %s: %s\n", capture, d.msg);
		rc = 1;
		goto out;
	}
	/* The records' hardware stamps, each of them the socket's? */
	rec = calloc(a.cap.n_pkts + 1, sizeof(*rec));
	if (!rec) {
		fprintf(stderr, "hwts_tx: out of memory\n");
		rc = 1;
		goto out;
	}
	for (i = 0; i < a.cap.n_pkts; i++) {
		const struct nsight_rec_pkt *p = &a.cap.pkts[i].r;

		if (p->stage != NSIGHT_PKT_TX_TSTAMP)
			continue;
		nrec++;
		if (!(p->flags & NSIGHT_PKT_F_HWTSTAMP))
			continue;
		rec[nhw++] = p->hw_tstamp;
		if (!has(sock, ns, p->hw_tstamp)) {
			foreign++;
			printf("a TX_TSTAMP record's hardware stamp %lld (ifindex %d) is none of the socket's\n",
			       (long long)p->hw_tstamp, (int)p->ifindex);
		}
	}
	/* Each of the socket's stamps in a record? */
	for (i = 0; i < ns; i++) {
		if (has(rec, nhw, sock[i]))
			matched++;
		else
			printf("the socket's stamp %lld is in no TX_TSTAMP record\n", (long long)sock[i]);
	}
	printf("%zu socket stamps, %zu TX_TSTAMP records (%zu with a hardware stamp): %zu of the socket's stamps in records, %zu records' stamps not the socket's\n",
	       ns, nrec, nhw, matched, foreign);
	if (!ns || matched != ns || foreign)
		rc = 1;
out:
	free(rec);
	nsight_analysis_fini(&a);
	fclose(in);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "send"))
		return cmd_send(argv[2], argv[3], argv[4], argv[5]);
	if (argc == 4 && !strcmp(argv[1], "check"))
		return cmd_check(argv[2], argv[3]);
	fprintf(stderr, "usage: hwts_tx send IFNAME ADDR COUNT OUT\n"
			"       hwts_tx check OUT CAPTURE\n");
	return 2;
}
