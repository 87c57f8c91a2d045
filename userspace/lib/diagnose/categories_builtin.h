/* SPDX-License-Identifier: MIT */
/* The categories nsight-analyze ships with (diagnose/categories.csv). */
#ifndef NSIGHT_CATEGORIES_BUILTIN_H
#define NSIGHT_CATEGORIES_BUILTIN_H

extern const char nsight_categories_builtin[];
extern const char nsight_categories_builtin_name[];

#endif /* NSIGHT_CATEGORIES_BUILTIN_H */
