/* SPDX-License-Identifier: MIT */
/*
 * Run the built nsight-analyze ($NSIGHT_ANALYZE, by default
 * build-asan/nsight-analyze) with arguments and collect its exit status,
 * stdout and stderr (through files in a temporary directory).
 */
#ifndef NSIGHT_TEST_CLIRUN_H
#define NSIGHT_TEST_CLIRUN_H

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

struct cli {
	char dir[64];
	char out_path[128], err_path[128];
};

struct cli_result {
	int status;		/* exit code, or 128 + signal */
	char *out;
	char *err;
};

static inline int cli_init(struct cli *c)
{
	snprintf(c->dir, sizeof(c->dir), "/tmp/nsight-cli-test-XXXXXX");
	if (!mkdtemp(c->dir))
		return -1;
	snprintf(c->out_path, sizeof(c->out_path), "%s/stdout", c->dir);
	snprintf(c->err_path, sizeof(c->err_path), "%s/stderr", c->dir);
	return 0;
}

/* @path inside the temporary directory. */
static inline const char *cli_path(const struct cli *c, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", c->dir, name);
	return buf;
}

/* cli_path() into one of 8 static buffers, for tests naming a few files at once. */
static inline const char *cli_file(const struct cli *c, const char *name)
{
	static char buf[8][192];
	static int k;

	k = (k + 1) % 8;
	return cli_path(c, name, buf[k], sizeof(buf[k]));
}

static inline char *cli_slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long len;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)len + 1);
	if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* Run with @args (NULL-terminated, at most 10), stdin from @in (NULL: /dev/null). */
static inline void cli_run(const struct cli *c, struct cli_result *r, const char *in,
			   const char *const *args)
{
	const char *bin = getenv("NSIGHT_ANALYZE");
	const char *argv[24];
	int i, status;
	pid_t pid;

	if (!bin)
		bin = "build-asan/nsight-analyze";
	argv[0] = bin;
	for (i = 0; args[i] && i < 22; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int fd0 = open(in ? in : "/dev/null", O_RDONLY);
		int fd1 = open(c->out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int fd2 = open(c->err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd0 < 0 || fd1 < 0 || fd2 < 0)
			_exit(127);
		dup2(fd0, 0);
		dup2(fd1, 1);
		dup2(fd2, 2);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	r->status = -1;
	if (pid > 0 && waitpid(pid, &status, 0) == pid)
		r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	r->out = cli_slurp(c->out_path);
	r->err = cli_slurp(c->err_path);
}

/* cli_run() with "--verbose" first: the full text, which these tests read. */
static inline void cli_run_verbose(const struct cli *c, struct cli_result *r, const char *in,
				   const char *const *args)
{
	const char *v[11] = { "--verbose" };
	int i;

	for (i = 0; args[i] && i < 9; i++)
		v[i + 1] = args[i];
	v[i + 1] = NULL;
	cli_run(c, r, in, v);
}

static inline void cli_result_free(struct cli_result *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

/* Remove the files named in @names (NULL-terminated) and the directory. */
static inline int cli_fini(const struct cli *c, const char *const *names)
{
	char path[192];

	for (; names && *names; names++)
		unlink(cli_path(c, *names, path, sizeof(path)));
	unlink(c->out_path);
	unlink(c->err_path);
	return rmdir(c->dir);
}

#endif /* NSIGHT_TEST_CLIRUN_H */
