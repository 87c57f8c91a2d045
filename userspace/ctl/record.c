// SPDX-License-Identifier: MIT
/*
 * nsightctl record: drain the per-CPU buffers while the capture runs, so
 * that a capture can last longer than its buffers hold.
 *
 * While a capture runs, a read of <debugfs>/nsight/cpuN returns only the
 * sub-buffers its CPU has finished (whole records) and poll() says when
 * there is one; the sub-buffer being written is read once the capture is
 * stopped. The stream is the one 'nsightctl dump' writes: header, RECORDS
 * chunks (here interleaved between CPUs, each CPU's in order), PHC, KSYMS,
 * PT, STATUS, END; with a PHC chunk also at the start and every 10 s, so
 * that each NIC clock's drift over the capture is known.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/nsight.h>

#include "cli.h"
#include "config.h"
#include "dump.h"
#include "format/filter.h"
#include "hwtstamp.h"
#include "nl.h"
#include "record.h"

/* Between polls at most; a CPU's pull reads at most this much at once. */
#define RECORD_POLL_MS		100
#define RECORD_PULL_BUDGET	(8U << 20)
/* How often the PTP hardware clocks are read while recording. */
#define RECORD_PHC_NS		(10ULL * 1000000000ULL)

static volatile sig_atomic_t record_stop;

static void on_stop_signal(int sig)
{
	static const char again[] =
		"\nnsightctl record: stopping: reading the last sub-buffers and ending the stream\n";

	(void)sig;
	/*
	 * A second signal while the stream is being finished: say why it goes
	 * on (stopping halfway would leave a stream cut short).
	 */
	if (record_stop && write(STDERR_FILENO, again, sizeof(again) - 1) < 0)
		return;
	record_stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int send_cmd(struct nsight_nl *nl, uint8_t cmd, struct nsight_diag *d)
{
	struct nl_msg *msg = nsight_nl_msg(nl, cmd);

	if (!msg)
		return nsight_diag_set(d, ENOMEM, "out of memory");
	return nsight_nl_request(nl, msg, NULL, NULL, d);
}

/*
 * A PHC chunk now (the last one is nsight_dump_finish()'s): readings over
 * the whole capture let nsight-analyze follow each PHC's drift. Quiet: a
 * clock that cannot be read is warned about once, at the end.
 */
static int record_phc(struct nsight_stream_writer *w, const struct nsight_dump_opts *o,
		      struct nsight_diag *d)
{
	struct nsight_phc_opts quiet;
	struct nsight_dump_result r = { 0 };

	if (!o->phc)
		return 0;
	quiet = *o->phc;
	quiet.warn = NULL;
	return nsight_dump_phc(w, &quiet, &r, d);
}

static int nl_status(void *ctx, struct nsight_status *st, struct nsight_diag *d)
{
	return nsight_status_get(ctx, st, d);
}

/* Open every CPU's relay file that exists; returns the number opened. */
static int open_cpus(const struct nsight_dump_opts *o, uint32_t nr_cpus,
		     struct nsight_dump_result *res, struct nsight_drain *dr,
		     char (*paths)[4096], struct nsight_diag *d)
{
	uint32_t cpu;
	int n = 0;

	for (cpu = 0; cpu < nr_cpus; cpu++) {
		int fd;

		snprintf(paths[cpu], sizeof(paths[cpu]), "%s/nsight/cpu%" PRIu32, o->debugfs, cpu);
		fd = open(paths[cpu], O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT)
				continue;	/* not a possible CPU: no buffer */
			return nsight_diag_set(d, errno, "cannot open %s: %s (is debugfs mounted at %s?)",
					       paths[cpu], strerror(errno), o->debugfs);
		}
		res->cpus[cpu].present = true;
		if (nsight_drain_init(&dr[n], fd, cpu, paths[cpu], o, &res->cpus[cpu], d)) {
			close(fd);
			return -ENOMEM;
		}
		n++;
	}
	return n;
}

/*
 * The first drops of each CPU, once: when (seen by the status of each
 * second) and where loss began. The kernel also multicasts BUFFER_FULL.
 */
static void loss_began(const struct nsight_status *st, uint32_t nr_cpus, bool *told,
		       uint64_t elapsed_ns, bool progress_line)
{
	size_t i;

	for (i = 0; i < st->n_cpus; i++) {
		const struct nsight_status_cpu *c = &st->cpus[i];

		if (c->id >= nr_cpus || told[c->id] || !c->records_dropped)
			continue;
		told[c->id] = true;
		fprintf(stderr, "%snsightctl record: cpu %" PRIu32 " began dropping records by %.1f s: its buffer filled faster than it was read (%" PRIu64 " dropped so far)\n",
			progress_line ? "\n" : "", c->id, (double)elapsed_ns / 1e9, c->records_dropped);
	}
}

static void progress(const struct nsight_record_result *rr, const struct nsight_flight *fl,
		     uint64_t elapsed_ns, bool last)
{
	fprintf(stderr, "\rnsightctl record: %.1f s, %" PRIu64 " records, %.1f MB written, %" PRIu64 " dropped",
		(double)elapsed_ns / 1e9, rr->records_written, (double)rr->bytes_written / 1e6,
		rr->records_dropped);
	if (fl)
		fprintf(stderr, ", %" PRIu64 " triggers in %zu windows", fl->triggers, fl->n_wins);
	fputs(last ? "\n" : "   ", stderr);
}

int nsight_record(struct nsight_nl *nl, struct nsight_stream_writer *w,
		  const struct nsight_record_opts *ro, struct nsight_status *after,
		  struct nsight_dump_result *res, struct nsight_record_result *rr,
		  struct nsight_diag *d)
{
	const struct nsight_dump_opts *o = ro->dump;
	struct nsight_status before = { 0 }, st = { 0 };
	struct nsight_drain *dr = NULL;
	struct nsight_flight flight, *fl = NULL;
	char (*paths)[4096] = NULL;
	struct pollfd *pfd = NULL;
	uint64_t start, last_progress = 0, last_phc;
	bool *loss_told = NULL;
	int n = 0, i, err, lock = -1;

	memset(after, 0, sizeof(*after));
	memset(res, 0, sizeof(*res));
	memset(rr, 0, sizeof(*rr));
	/* Before anything is started: a second reader would split the sub-buffers. */
	err = nsight_readers_lock(o->debugfs, &lock, d);
	if (err)
		goto out;
	err = nsight_status_get(nl, &st, d);
	if (err)
		goto out;
	if (!st.enabled) {
		err = send_cmd(nl, NSIGHT_CMD_START, d);
		if (err == -EALREADY)
			err = 0;	/* somebody else started it just now */
		if (err)
			goto out;
		rr->started = true;
	}
	start = now_ns();
	err = nsight_status_get(nl, &before, d);
	if (err)
		goto stop;
	res->cpus = calloc(before.nr_cpus ? before.nr_cpus : 1, sizeof(*res->cpus));
	dr = calloc(before.nr_cpus ? before.nr_cpus : 1, sizeof(*dr));
	paths = calloc(before.nr_cpus ? before.nr_cpus : 1, sizeof(*paths));
	pfd = calloc(before.nr_cpus ? before.nr_cpus : 1, sizeof(*pfd));
	loss_told = calloc(before.nr_cpus ? before.nr_cpus : 1, sizeof(*loss_told));
	if (!res->cpus || !dr || !paths || !pfd || !loss_told) {
		err = nsight_diag_set(d, ENOMEM, "out of memory");
		goto stop;
	}
	res->nr_cpus = before.nr_cpus;
	err = nsight_dump_header(w, &before, d);
	if (!err)
		err = record_phc(w, o, d);
	if (err)
		goto stop;
	last_phc = now_ns();
	n = open_cpus(o, before.nr_cpus, res, dr, paths, d);
	if (n < 0) {
		err = n;
		n = 0;
		goto stop;
	}
	if (ro->flight) {
		err = nsight_flight_init(&flight, ro->flight, before.nr_cpus, before.tsc_hz, w, d);
		if (err)
			goto stop;
		fl = &flight;
	}
	for (i = 0; i < n; i++) {
		pfd[i] = (struct pollfd){ .fd = dr[i].fd, .events = POLLIN };
		if (fl) {
			dr[i].sink = nsight_flight_records;
			dr[i].sink_ctx = fl;
		}
	}

	while (!record_stop) {
		uint64_t t = now_ns();

		if (ro->duration_ns && t - start >= ro->duration_ns)
			break;
		if (ro->max_bytes && w->record_bytes >= ro->max_bytes)
			break;
		/* Once a second: the counters, and whether the capture still runs. */
		if (t - last_progress >= 1000000000ULL) {
			nsight_status_free(&st);
			err = nsight_status_get(nl, &st, d);
			if (err)
				goto stop;
			rr->records_written = st.records_written;
			rr->records_dropped = st.records_dropped;
			rr->bytes_written = w->offset;
			loss_began(&st, before.nr_cpus, loss_told, t - start, ro->progress);
			if (ro->progress)
				progress(rr, fl, t - start, false);
			if (!st.enabled) {
				rr->stopped_elsewhere = true;
				break;
			}
			last_progress = t;
		}
		if (t - last_phc >= RECORD_PHC_NS) {
			err = record_phc(w, o, d);
			if (err)
				goto stop;
			last_phc = t;
		}
		if (poll(pfd, (nfds_t)n, RECORD_POLL_MS) < 0 && errno != EINTR) {
			err = nsight_diag_set(d, errno, "poll: %s", strerror(errno));
			goto stop;
		}
		for (i = 0; i < n; i++) {
			if (!(pfd[i].revents & POLLIN))
				continue;
			err = nsight_drain_pull(w, &dr[i], RECORD_PULL_BUDGET, false, d);
			if (err)
				goto stop;
		}
	}
	rr->elapsed_ns = now_ns() - start;

stop:
	/* The sub-buffers being written are read once writers stopped. */
	if (rr->started || !err) {
		struct nsight_diag sd = { 0 };
		int serr = send_cmd(nl, NSIGHT_CMD_STOP, &sd);

		if (serr && serr != -EALREADY && !err)
			err = nsight_diag_set(d, -serr, "%s", sd.msg);
	}
	for (i = 0; !err && i < n; i++) {
		err = nsight_drain_pull(w, &dr[i], 0, true, d);
		res->cpus_read++;
		res->bytes += res->cpus[dr[i].cpu].bytes;
		res->lost_bytes += res->cpus[dr[i].cpu].lost_bytes;
	}
	if (!err && fl)
		err = nsight_flight_finish(fl, d);
	if (fl) {
		rr->triggers = fl->triggers;
		rr->windows = fl->n_wins;
		rr->skipped_records = fl->skipped_records;
	}
	if (!err)
		err = nsight_dump_finish(w, o, &before, nl_status, nl, after, res, d);
	if (!err) {
		rr->records_written = after->records_written;
		rr->records_dropped = after->records_dropped;
		rr->bytes_written = w->offset;
		if (ro->progress)
			progress(rr, fl, rr->elapsed_ns, true);
	}
	if (fl)
		nsight_flight_fini(fl);
	for (i = 0; i < n; i++) {
		close(dr[i].fd);
		nsight_drain_free(&dr[i]);
	}
out:
	if (lock >= 0)
		close(lock);
	free(loss_told);
	free(dr);
	free(paths);
	free(pfd);
	nsight_status_free(&st);
	nsight_status_free(&before);
	return err;
}

/* ---------------------------------------------------------------------- */
/* nsightctl record                                                         */

void cmd_record_usage(FILE *f)
{
	fprintf(f,
		"Usage: nsightctl record [-o FILE|-] [--duration T] [--max-size S] [--debugfs DIR]\n"
		"                        [--no-phc] [--no-ksyms] [--compress] [--hw-timestamps IFACES]\n"
		"                        [--flight-recorder --trigger EXPR [--before T] [--after T]\n"
		"                         [--app COMM] [--port N]]\n"
		"\n"
		"Start a capture (or take over the one running), write its records as a\n"
		"stream for nsight-analyze while it runs, and stop it: on SIGINT or\n"
		"SIGTERM, after --duration, once --max-size bytes of records are\n"
		"written, or when somebody else stops the capture. Each CPU's buffer is\n"
		"read as its sub-buffers fill, so the capture can last far longer than\n"
		"the buffers hold; records are dropped (and counted) only when a CPU\n"
		"fills its whole buffer faster than it is read. The stream is the one\n"
		"'nsightctl dump' writes, with the PTP clocks, kernel symbols and Intel\n"
		"PT trace at the end; on stdout unless -o is given (stdout must not be\n"
		"a terminal). On a terminal, a progress line on stderr; at the end a\n"
		"summary.\n"
		"\n"
		"  -o, --output FILE   write the stream to FILE ('-' for stdout)\n"
		"  -D, --duration T    stop after T (seconds; or with a unit: ms, s, m, h)\n"
		"  -s, --max-size S    stop once S bytes of records are written (K, M or G;\n"
		"                      the final sub-buffers and the end of the stream follow)\n"
		"  -d, --debugfs DIR   where debugfs is mounted (default /sys/kernel/debug)\n"
		"      --no-phc        do not read the PTP hardware clocks\n"
		"      --no-ksyms      do not add the kernel symbols\n"
		"  -z, --compress      compress the stream with zstd (nsight-analyze reads it as is);\n"
		"                      --max-size counts the bytes before compression\n"
		"  -H, --hw-timestamps IFACES  NIC hardware stamps on these interfaces\n"
		"                      (comma-separated) for the capture, as 'nsightctl config\n"
		"                      --hw-timestamps'; at the end, these and those that\n"
		"                      config turned on are put back as they were\n"
		"\n"
		"Flight recorder: keep only the windows around slow messages.\n"
		"  -F, --flight-recorder  hold the records in memory and write only the windows\n"
		"                      around received messages that pass --trigger (and each\n"
		"                      CPU's first sub-buffer, which holds the clock records)\n"
		"  -t, --trigger EXPR  latency>DURATION (ns, us or ms; e.g. latency>500us): from\n"
		"                      a message's first receive record to the return of the\n"
		"                      application's receive\n"
		"      --before T      keep T before the slow message's first record (default 200ms)\n"
		"      --after T       keep T after its receive returned (default 50ms)\n"
		"      --app COMM      trigger only on receives by command COMM\n"
		"      --port N        trigger only on receives on local port N\n"
		"  -h, --help          show this help\n");
}

int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'D' },
		{ "max-size", required_argument, NULL, 's' },
		{ "debugfs", required_argument, NULL, 'd' },
		{ "no-phc", no_argument, NULL, 'P' },
		{ "no-ksyms", no_argument, NULL, 'K' },
		{ "compress", no_argument, NULL, 'z' },
		{ "flight-recorder", no_argument, NULL, 'F' },
		{ "trigger", required_argument, NULL, 't' },
		{ "before", required_argument, NULL, 'B' },
		{ "after", required_argument, NULL, 'A' },
		{ "app", required_argument, NULL, 'a' },
		{ "port", required_argument, NULL, 'p' },
		{ "hw-timestamps", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct nsight_flight_opts fo = {
		.before_ns = NSIGHT_FLIGHT_BEFORE_NS, .after_ns = NSIGHT_FLIGHT_AFTER_NS,
	};
	bool flight = false, flight_opt = false;
	const char *trigger = NULL, *hwts = NULL;
	struct nsight_status after = { 0 };
	struct nsight_dump_result res = { 0 };
	struct nsight_record_opts ro = { 0 };
	struct nsight_record_result rr = { 0 };
	struct nsight_diag d = { 0 };
	struct nsight_dump_cli cli;
	struct sigaction sa;
	struct nsight_nl nl;
	int c, err, ret = NSIGHT_EXIT_OK;

	nsight_dump_cli_init(&cli);
	ro.dump = &cli.o;
	while ((c = cli_getopt(argc, argv, "o:D:s:d:zFt:H:h", opts)) != -1) {
		if (nsight_dump_cli_option(&cli, c, optarg))
			continue;
		switch (c) {
		case 'D':
			if (nsight_parse_seconds(optarg, &ro.duration_ns))
				return cli_usage_error(argv[0], "bad duration '%s' (e.g. 30, 500ms, 10m)", optarg);
			break;
		case 's':
			if (nsight_parse_size(optarg, &ro.max_bytes) || !ro.max_bytes)
				return cli_usage_error(argv[0], "bad size '%s' (e.g. 100M)", optarg);
			break;
		case 'F':
			flight = true;
			break;
		case 't':
			trigger = optarg;
			break;
		case 'B':
		case 'A':
			if (nsight_parse_window(optarg, c == 'B' ? &fo.before_ns : &fo.after_ns))
				return cli_usage_error(argv[0], "bad --%s '%s' (e.g. 200ms, 1s)",
						       c == 'B' ? "before" : "after", optarg);
			flight_opt = true;
			break;
		case 'a':
			if (!*optarg || strlen(optarg) > 15)
				return cli_usage_error(argv[0], "bad --app '%s': a command name of 1 to 15 characters",
						       optarg);
			fo.app = optarg;
			flight_opt = true;
			break;
		case 'p': {
			uint32_t v;

			if (nsight_parse_uint(optarg, 1, 65535, &v))
				return cli_usage_error(argv[0], "bad --port '%s' (1 to 65535)", optarg);
			fo.port = (uint16_t)v;
			flight_opt = true;
			break;
		}
		case 'H': {
			char names[NSIGHT_HWTS_MAX][IF_NAMESIZE];
			size_t n;

			if (nsight_hwts_parse_list(optarg, names, &n, &d))
				return cli_usage_error(argv[0], "%s", d.msg);
			hwts = optarg;
			break;
		}
		case 'h':
			cmd_record_usage(stdout);
			return NSIGHT_EXIT_OK;
		default:
			return NSIGHT_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind]);
	if ((trigger || flight_opt) && !flight)
		return cli_usage_error(argv[0], "--trigger, --before, --after, --app and --port need --flight-recorder");
	if (flight && !trigger)
		return cli_usage_error(argv[0], "--flight-recorder needs --trigger (e.g. --trigger 'latency>500us')");
	if (trigger && nsight_trigger_parse(trigger, &fo.threshold_ns, &d))
		return cli_usage_error(argv[0], "%s", d.msg);
	if (nsight_dump_cli_check(&cli, argv[0]))
		return NSIGHT_EXIT_USAGE;
	ro.progress = isatty(STDERR_FILENO);
	if (flight)
		ro.flight = &fo;

	/* No SA_RESTART: a signal ends the wait in poll() at once. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* A reader that went away (nsight-analyze failed) is a write error. */
	signal(SIGPIPE, SIG_IGN);

	if (nsight_nl_open(&nl, &d))
		return cli_fail(&d);
	/* The stamps first: a refusal leaves no stream behind. */
	if (hwts && nsight_hwts_enable(hwts, getpid(), stderr, &d)) {
		nsight_nl_close(&nl);
		return cli_fail(&d);
	}
	err = nsight_dump_cli_open(&cli, &d);
	if (!err) {
		err = nsight_record(&nl, &cli.w, &ro, &after, &res, &rr, &d);
		err = nsight_dump_cli_close(&cli, err, &d);
	}
	nsight_nl_close(&nl);
	/* The capture stopped: the NICs' stamps go back, whoever set them. */
	nsight_hwts_put_back("the capture stopped");
	if (!err) {
		nsight_dump_report(&after, &res);
		fprintf(stderr, "nsightctl: recorded %.1f s%s: %" PRIu64 " records written, %" PRIu64 " dropped, %" PRIu64 " bytes of stream\n",
			(double)rr.elapsed_ns / 1e9,
			rr.stopped_elsewhere ? " (the capture was stopped elsewhere)" : "",
			rr.records_written, rr.records_dropped, rr.bytes_written);
		if (flight)
			fprintf(stderr, "nsightctl: flight recorder: %" PRIu64 " messages over %.3f ms, %" PRIu64 " windows saved; %" PRIu64 " records outside them not kept\n",
				rr.triggers, (double)fo.threshold_ns / 1e6, rr.windows, rr.skipped_records);
	}
	if (err)
		ret = cli_fail(&d);
	else if (res.lost_bytes)
		ret = NSIGHT_EXIT_FAIL;
	nsight_status_free(&after);
	nsight_dump_result_free(&res);
	return ret;
}
