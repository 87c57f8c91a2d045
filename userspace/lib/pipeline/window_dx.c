// SPDX-License-Identifier: MIT
#include <string.h>

#include "pipeline/window_dx.h"

int nsight_windows_whole_dx(struct nsight_windows *w, struct nsight_dxs *s,
			    const struct nsight_analysis_opts *ao, struct nsight_keys *keys,
			    const struct nsight_cats *cats, struct nsight_dx *dx,
			    struct nsight_cp_group **paths, struct nsight_diag *d)
{
	struct nsight_cp_windows cpw = { 0 };
	static const char *const what[] = { "whole diagnosis: the reference (pass 2 of 3)",
					    "whole diagnosis: the tail (pass 3 of 3)" };
	const struct nsight_analysis_progress *pr = ao->progress;
	struct nsight_analysis_opts wo = *ao;
	int pass, err;

	memset(dx, 0, sizeof(*dx));
	if (paths)
		*paths = NULL;
	/* The progress is this loop's, not each window's. */
	wo.progress = NULL;
	wo.keys = keys;
	err = nsight_dxs_plan(s, d);
	for (pass = 2; pass <= 3 && !err; pass++) {
		uint64_t read = 0;

		nsight_windows_rewind(w);
		nsight_dxs_pass(s);
		if (pr)
			pr->pass(pr->arg, what[pass - 2]);
		while (!err && w->next < w->n_windows) {
			struct nsight_analysis a;
			uint64_t records;

			err = nsight_window_analyze(w, &a, &wo, &records, d);
			if (!err && records)
				err = nsight_analysis_dxs_window(s, &a, pass, cats,
								 paths ? &cpw : NULL, d);
			nsight_analysis_fini(&a);
			read += records;
			if (pr)
				pr->update(pr->arg, read, 0);
		}
		if (!err && pass == 2)
			err = nsight_dxs_reference_done(s, d);
	}
	if (!err)
		err = nsight_dxs_finish(s, dx, d);
	if (!err && paths) {
		err = nsight_cp_windows_finish(&cpw, dx, paths);
		if (err)
			nsight_diag_set(d, -err, err == -NSIGHT_E_NOMEM ? "out of memory" :
					"a tail message without its critical path");
	}
	nsight_cp_windows_fini(&cpw);
	return err;
}
