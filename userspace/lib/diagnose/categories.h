/* SPDX-License-Identifier: MIT */
/*
 * Categories (nsight.rst "Diagnosis"): what an anomaly is called in the
 * diagnosis, from rules in a CSV text, one per line:
 *
 *   kind,pattern,category
 *
 * kind is a context key kind (task, irq, softirq, work, fault, idle, hol,
 * app, unknown); pattern an fnmatch(3) glob on the key's name (a task's
 * comm, an irq's handler name, a softirq's vector name, a work function, a
 * fault's "user" or "kernel", an idle gap's "<key of the activity before
 * it>"; hol, app and unknown have the empty name); category is the rest of
 * the line, where "<name>" stands for the matched name. Fields are trimmed;
 * there is no quoting. Blank lines and lines starting with '#' are
 * skipped, and so is a first line "kind,pattern,category". The first rule
 * that matches wins.
 *
 * A function key (func) is named "<outer key> > <symbol>": its pattern is
 * matched against the symbol, and "<outer>" in its category stands for the
 * category of the context it ran in ("Receive processing: ip_rcv").
 */
#ifndef NSIGHT_CATEGORIES_H
#define NSIGHT_CATEGORIES_H

#include <stddef.h>
#include <stdint.h>

#include "capture/keys.h"
#include "base/diag.h"

struct nsight_cat_rule {
	uint8_t kind;		/* enum nsight_key_kind */
	char *pattern;
	char *category;
};

struct nsight_cats {
	struct nsight_cat_rule *v;
	size_t n, cap;
};

void nsight_cats_init(struct nsight_cats *c);
void nsight_cats_fini(struct nsight_cats *c);

/*
 * Append the rules of @len bytes of CSV @text; errors are
 * -NSIGHT_E_FORMAT with "@fname:LINE: what" in @d, or -NSIGHT_E_NOMEM.
 */
int nsight_cats_parse(struct nsight_cats *c, const char *text, size_t len, const char *fname,
		      struct nsight_diag *d);

/* Append the rules of the file @path (-NSIGHT_E_IO if unreadable). */
int nsight_cats_load(struct nsight_cats *c, const char *path, struct nsight_diag *d);

/*
 * The category of (@kind, @name) into @buf: the first matching rule's,
 * with <name> replaced; with no rule, "<kind>:<name>".
 */
const char *nsight_cats_name(const struct nsight_cats *c, enum nsight_key_kind kind,
			     const char *name, char *buf, size_t len);

#endif /* NSIGHT_CATEGORIES_H */
