// SPDX-License-Identifier: MIT
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/analysis_thread.h"
#include "format/records.h"
#include "format/tscguard.h"

/* Chunks in flight: enough to ride out one side's slower stretch. */
#define QUEUE_LEN	16

struct item {
	struct nsight_chunk ch;		/* payload: a copy, owned */
	bool end;
};

struct nsight_ctxthr {
	struct nsight_analysis *a;
	uint32_t nr_cpus;
	struct nsight_cdec *dec;	/* per CPU: its own compact decoder */
	struct nsight_tscguard guard;	/* its own, same answers per chunk */

	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct item q[QUEUE_LEN];
	size_t head, n;

	int err;			/* the first one; later chunks are dropped */
	struct nsight_diag diag;
};

/* The records of a chunk as the reading side's walk yields them (summary.c). */
static int walk(struct nsight_ctxthr *t, const struct nsight_chunk *ch)
{
	struct nsight_tscguard_walk gw;
	struct nsight_rec_walker w;
	struct nsight_rec rec;
	int ret, err;

	nsight_rec_walker_init_chunk(&w, ch->type, ch->payload, (size_t)ch->size, ch->cpu,
				     ch->payload_offset, &t->dec[ch->cpu]);
	err = nsight_tscguard_walk_init(&gw, &t->guard, &w, &t->diag);
	if (err)
		return err;
	while ((ret = nsight_tscguard_walk_good(&gw, &rec, &t->diag)) > 0) {
		err = nsight_analysis_context_record(t->a, &rec, &t->diag);
		if (err)
			return err;
	}
	return ret;
}

static int handle(struct nsight_ctxthr *t, const struct nsight_chunk *ch)
{
	if (nsight_chunk_has_records(ch->type))
		return ch->cpu < t->nr_cpus ? walk(t, ch) : 0;
	return nsight_ptev_add_chunk(&t->a->ptev, ch, &t->diag);
}

static void *run(void *arg)
{
	struct nsight_ctxthr *t = arg;

	for (;;) {
		struct item it;

		pthread_mutex_lock(&t->lock);
		while (!t->n)
			pthread_cond_wait(&t->changed, &t->lock);
		it = t->q[t->head];
		t->head = (t->head + 1) % QUEUE_LEN;
		t->n--;
		pthread_cond_signal(&t->changed);
		pthread_mutex_unlock(&t->lock);
		if (it.end)
			break;
		if (!t->err)
			t->err = handle(t, &it.ch);
		free((void *)it.ch.payload);
	}
	return NULL;
}

bool nsight_ctxthr_takes(uint32_t type)
{
	return nsight_chunk_has_records(type) || type == NSIGHT_CHUNK_PT ||
	       type == NSIGHT_CHUNK_KTEXT || type == NSIGHT_CHUNK_UTEXT;
}

static void push(struct nsight_ctxthr *t, const struct item *it)
{
	pthread_mutex_lock(&t->lock);
	while (t->n == QUEUE_LEN)
		pthread_cond_wait(&t->changed, &t->lock);
	t->q[(t->head + t->n) % QUEUE_LEN] = *it;
	t->n++;
	pthread_cond_signal(&t->changed);
	pthread_mutex_unlock(&t->lock);
}

static void destroy(struct nsight_ctxthr *t)
{
	for (uint32_t i = 0; t->dec && i < t->nr_cpus; i++)
		nsight_cdec_fini(&t->dec[i]);
	free(t->dec);
	nsight_tscguard_fini(&t->guard);
	pthread_mutex_destroy(&t->lock);
	pthread_cond_destroy(&t->changed);
	free(t);
}

int nsight_ctxthr_start(struct nsight_ctxthr **tp, struct nsight_analysis *a, uint32_t nr_cpus,
			uint64_t tsc_hz, struct nsight_diag *d)
{
	struct nsight_ctxthr *t = calloc(1, sizeof(*t));

	*tp = NULL;
	if (!t)
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	t->a = a;
	t->nr_cpus = nr_cpus;
	nsight_tscguard_init(&t->guard, tsc_hz);
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->changed, NULL);
	t->dec = calloc(nr_cpus ? nr_cpus : 1, sizeof(*t->dec));
	if (!t->dec) {
		destroy(t);
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	}
	for (uint32_t i = 0; i < nr_cpus; i++)
		nsight_cdec_init(&t->dec[i]);
	if (pthread_create(&t->thread, NULL, run, t)) {
		destroy(t);
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "cannot start a thread");
	}
	*tp = t;
	return 0;
}

int nsight_ctxthr_put(struct nsight_ctxthr *t, const struct nsight_chunk *ch,
		      struct nsight_diag *d)
{
	struct item it = { .ch = *ch };
	void *copy = malloc(ch->size ? ch->size : 1);

	if (!copy)
		return nsight_diag_set(d, NSIGHT_E_NOMEM, "out of memory");
	if (ch->size)
		memcpy(copy, ch->payload, ch->size);
	it.ch.payload = copy;
	push(t, &it);
	return 0;
}

int nsight_ctxthr_join(struct nsight_ctxthr *t, struct nsight_diag *d)
{
	struct item end = { .end = true };
	int err;

	if (!t)
		return 0;
	push(t, &end);
	pthread_join(t->thread, NULL);
	err = t->err;
	if (err)
		*d = t->diag;
	destroy(t);
	return err;
}

static void *task_run(void *arg)
{
	struct nsight_task *task = arg;

	task->ret = task->fn(task->arg);
	return NULL;
}

void nsight_task_start(struct nsight_task *task, int (*fn)(void *arg), void *arg)
{
	task->fn = fn;
	task->arg = arg;
	task->ret = 0;
	task->started = !pthread_create(&task->thread, NULL, task_run, task);
}

int nsight_task_join(struct nsight_task *task)
{
	if (task->started)
		pthread_join(task->thread, NULL);
	else
		task->ret = task->fn(task->arg);
	return task->ret;
}
