// SPDX-License-Identifier: GPL-2.0
/*
 * insn-count: a QEMU TCG plugin for make bench that counts how many times
 * the guest executed each instruction at or above a virtual address (by
 * default the kernel's text and modules, 0xffffffff80000000). At exit it
 * writes "ADDRESS COUNT" lines, hexadecimal and decimal, one per
 * instruction executed, to the file out=PATH names. scripts/hook-insns.sh
 * folds them into instructions per call of each of nsight.ko's functions:
 * under -icount, a hook's cost is its instructions.
 *
 *   qemu-system-x86_64 -accel tcg,thread=single \
 *	-plugin build/bench/insn-count.so,arg=out=counts.txt ...
 *
 * Debian packages QEMU with plugin support but not qemu-plugin.h, so the
 * few entry points used are declared here as QEMU 7.2 exports them (plugin
 * API version 1). Counters are added inline by the translated code: under
 * single-threaded TCG no two vCPUs run at once.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
struct qemu_info_t;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_tb_trans_cb)(qemu_plugin_id_t, struct qemu_plugin_tb *);
typedef void (*qemu_plugin_udata_cb)(qemu_plugin_id_t, void *);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_tb_trans_cb cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
						enum qemu_plugin_op op, void *ptr,
						uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb cb,
				    void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* One counter per instruction address, in an open-addressed table. */
#define SLOT_BITS 22
#define SLOTS (1u << SLOT_BITS)

struct slot {
	uint64_t vaddr;
	uint64_t count;
};

static struct slot *slots;
static size_t used;
static uint64_t low = 0xffffffff80000000ull;
static const char *out_path = "insn-count.txt";

/* The counter of @vaddr, NULL when the table is full (reported at exit). */
static uint64_t *counter_of(uint64_t vaddr)
{
	size_t i = (vaddr * 0x9e3779b97f4a7c15ull) >> (64 - SLOT_BITS);

	for (;; i = (i + 1) & (SLOTS - 1)) {
		if (slots[i].vaddr == vaddr)
			return &slots[i].count;
		if (!slots[i].vaddr) {
			if (used >= SLOTS / 2)
				return NULL;
			used++;
			slots[i].vaddr = vaddr;
			return &slots[i].count;
		}
	}
}

static bool table_full;

/* Each block as it is translated: a counter added to by each instruction. */
static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t vaddr = qemu_plugin_insn_vaddr(insn);
		uint64_t *c;

		if (vaddr < low)
			continue;
		c = counter_of(vaddr);
		if (!c) {
			table_full = true;
			continue;
		}
		qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, c, 1);
	}
}

static void on_exit_write(qemu_plugin_id_t id, void *p)
{
	FILE *f = fopen(out_path, "w");
	size_t i;

	(void)id;
	(void)p;
	if (!f) {
		perror(out_path);
		return;
	}
	if (table_full)
		fprintf(f, "# table full: instructions at more than %u addresses were not counted\n",
			SLOTS / 2);
	for (i = 0; i < SLOTS; i++)
		if (slots[i].count)
			fprintf(f, "%llx %llu\n", (unsigned long long)slots[i].vaddr,
				(unsigned long long)slots[i].count);
	if (fclose(f))
		perror(out_path);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const struct qemu_info_t *info, int argc,
			char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			out_path = argv[i] + 4;
		} else if (!strncmp(argv[i], "low=", 4)) {
			low = strtoull(argv[i] + 4, NULL, 16);
		} else {
			fprintf(stderr, "insn-count: unknown argument %s (out=PATH, low=HEX)\n",
				argv[i]);
			return -1;
		}
	}
	slots = calloc(SLOTS, sizeof(*slots));
	if (!slots)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_exit_write, NULL);
	return 0;
}
