/* SPDX-License-Identifier: MIT */
/*
 * The whole capture's diagnosis from its time windows (nsight-analyze
 * --window --whole-diagnosis; diagnose.h, struct nsight_dxs): after the
 * windows' own pass, which counted each with nsight_analysis_dxs_window()
 * pass 1, two more passes over them, each window analysed again with one
 * key table that all of them share.
 */
#ifndef NSIGHT_WINDOW_DX_H
#define NSIGHT_WINDOW_DX_H

#include "diagnose/categories.h"
#include "diagnose/critpath.h"
#include "diagnose/diagnose.h"
#include "pipeline/analysis.h"
#include "pipeline/window.h"

/*
 * Plan @s, profile the reference (pass 2) and diagnose the tail (pass 3)
 * over @w's windows, analysed with @ao and the shared table @keys (which
 * gets their keys: the anomalies' names), into @dx (nsight_dx_fini() it
 * either way), and, when @paths is not NULL, the critical path of its
 * groups' tails into *@paths (@dx->n of them, in its groups' order, as
 * nsight_cp_group_build() gives them for the capture analysed whole;
 * nsight_cp_groups_free()). @ao's progress hooks, if any, hear each pass
 * and the records read in it. Returns 0 or a negative enum nsight_errcode.
 */
int nsight_windows_whole_dx(struct nsight_windows *w, struct nsight_dxs *s,
			    const struct nsight_analysis_opts *ao, struct nsight_keys *keys,
			    const struct nsight_cats *cats, struct nsight_dx *dx,
			    struct nsight_cp_group **paths, struct nsight_diag *d);

#endif /* NSIGHT_WINDOW_DX_H */
