#include "membudget.h"

#include "cgroup.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* The first number of a file; "max" (cgroup v2's no limit) reads as UINT64_MAX. */
static bool read_number(const char *root, const char *path, uint64_t *out)
{
	char buf[64];
	if (!cg_cgroup_read_line(root, path, buf, sizeof buf))
		return false;
	if (strncmp(buf, "max", 3) == 0) {
		*out = UINT64_MAX;
		return true;
	}
	char *end;
	unsigned long long v = strtoull(buf, &end, 10);
	if (end == buf)
		return false;
	*out = v;
	return true;
}

static uint64_t headroom(uint64_t limit, uint64_t used)
{
	return limit > used ? limit - used : 0;
}

static void lower(uint64_t *budget, uint64_t v)
{
	if (v < *budget)
		*budget = v;
}

/* RLIMIT_AS and RLIMIT_DATA less what /proc/self/statm says is mapped. */
static void rlimits(const char *root, uint64_t *budget)
{
	char full[4096];
	snprintf(full, sizeof full, "%s/proc/self/statm", root);
	unsigned long long size = 0, resident, shared, text, lib, data = 0;
	FILE *f = fopen(full, "r");
	if (f) {
		if (fscanf(f, "%llu %llu %llu %llu %llu %llu", &size, &resident, &shared, &text, &lib, &data) != 6)
			size = data = 0;
		fclose(f);
	}
	long page = sysconf(_SC_PAGESIZE);
	uint64_t pg = page > 0 ? (uint64_t)page : 4096;
	struct rlimit rl;
	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		lower(budget, headroom((uint64_t)rl.rlim_cur, (uint64_t)size * pg));
	if (getrlimit(RLIMIT_DATA, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		lower(budget, headroom((uint64_t)rl.rlim_cur, (uint64_t)data * pg));
}

/* One level's limit less its usage: v2 memory.max ("max": none) and
 * memory.current, v1 memory.limit_in_bytes and memory.usage_in_bytes. */
static void cgroup_level(const char *root, const char *dir, bool v2, void *ctx)
{
	char lim[8300], use[8300];
	snprintf(lim, sizeof lim, "%s/%s", dir, v2 ? "memory.max" : "memory.limit_in_bytes");
	snprintf(use, sizeof use, "%s/%s", dir, v2 ? "memory.current" : "memory.usage_in_bytes");
	uint64_t limit, usage = 0;
	if (read_number(root, lim, &limit)) {
		(void)read_number(root, use, &usage);
		lower(ctx, headroom(limit, usage));
	}
}

/* MemAvailable, or all physical memory on kernels before 3.14. */
static void system_memory(const char *root, uint64_t *budget)
{
	char full[4096];
	snprintf(full, sizeof full, "%s/proc/meminfo", root);
	FILE *f = fopen(full, "r");
	bool found = false;
	if (f) {
		char line[256];
		unsigned long long kb;
		while (!found && fgets(line, sizeof line, f))
			if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
				lower(budget, (uint64_t)kb * 1024);
				found = true;
			}
		fclose(f);
	}
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	if (!found && *root == '\0' && pages > 0 && page > 0)
		lower(budget, (uint64_t)pages * (uint64_t)page);
}

uint64_t cg_memory_budget_at(const char *root)
{
	uint64_t budget = UINT64_MAX;
	rlimits(root, &budget);
	cg_cgroup_each(root, "memory", cgroup_level, &budget);
	system_memory(root, &budget);
	return budget;
}

uint64_t cg_memory_budget(void)
{
	return cg_memory_budget_at("");
}
