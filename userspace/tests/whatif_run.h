/* SPDX-License-Identifier: MIT */
/*
 * What-if runs on synthetic captures (scenario.h), for test_whatif and
 * test_capacity: the capture analysed, the builtin categories, the specs
 * applied together.
 */
#ifndef NSIGHT_TEST_WHATIF_RUN_H
#define NSIGHT_TEST_WHATIF_RUN_H

#include "diagnose/categories_builtin.h"
#include "scenario.h"
#include "diagnose/whatif.h"

struct run {
	struct nsight_analysis a;
	struct nsight_cats cats;
	struct nsight_whatif wi;
};

/* Predict @sc under the @n specs at @spec_s, applied together. */
static inline int predict_n(struct scen *sc, const char *const *spec_s, size_t n, struct run *r)
{
	struct nsight_wi_spec spec[NSIGHT_WI_MAX_SPECS + 1];
	struct nsight_profiler prof;
	struct nsight_diag d = { 0 };
	size_t i;
	int err;

	synth_flush(&sc->s);
	nsight_cats_init(&r->cats);
	for (i = 0; i < n; i++)
		if (nsight_whatif_parse(&spec[i], spec_s[i], &d)) {
			printf("# %s\n", d.msg);
			return -1;
		}
	if (nsight_cats_parse(&r->cats, nsight_categories_builtin, strlen(nsight_categories_builtin),
			      "builtin", &d) || synth_analyze(&sc->s, &r->a)) {
		printf("# %s\n", d.msg);
		return -1;
	}
	err = nsight_profiler_init(&prof, &r->a.tl, &r->a.cap, &r->a.tc, SYN_HZ, &d);
	if (!err)
		err = nsight_whatif_run(&r->wi, spec, n, &r->a.lt, &prof, r->a.keys, &r->cats, 1000, &d);
	nsight_profiler_fini(&prof);
	if (err)
		printf("# %s\n", d.msg);
	return err;
}

static inline int predict(struct scen *sc, const char *spec_s, struct run *r)
{
	return predict_n(sc, &spec_s, 1, r);
}

static inline void run_fini(struct run *r, struct scen *sc)
{
	nsight_whatif_fini(&r->wi);
	nsight_analysis_fini(&r->a);
	nsight_cats_fini(&r->cats);
	synth_free(&sc->s);
}

#endif /* NSIGHT_TEST_WHATIF_RUN_H */
