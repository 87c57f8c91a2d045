// SPDX-License-Identifier: MIT
/* The built-in categories: diagnose/categories.csv, compiled in by the Makefile. */
#include "diagnose/categories_builtin.h"

const char nsight_categories_builtin[] =
#include "categories_csv.h"
	;
const char nsight_categories_builtin_name[] = "built-in categories.csv";
