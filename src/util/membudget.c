#include "membudget.h"

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
	char full[4096];
	snprintf(full, sizeof full, "%s%s", root, path);
	FILE *f = fopen(full, "r");
	if (!f)
		return false;
	char buf[64];
	bool ok = fgets(buf, sizeof buf, f) != NULL;
	fclose(f);
	if (!ok)
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

/* Every level of a cgroup path, from the cgroup itself up to the root of
 * the hierarchy mounted at base: a parent's limit holds its children. */
static void cgroup_levels(const char *root, const char *base, char *path, const char *limit_file,
			  const char *usage_file, uint64_t *budget)
{
	for (;;) {
		char lim[4096], use[4096];
		uint64_t limit, usage = 0;
		snprintf(lim, sizeof lim, "%s%s/%s", base, strcmp(path, "/") == 0 ? "" : path, limit_file);
		snprintf(use, sizeof use, "%s%s/%s", base, strcmp(path, "/") == 0 ? "" : path, usage_file);
		if (read_number(root, lim, &limit)) {
			(void)read_number(root, use, &usage);
			lower(budget, headroom(limit, usage));
		}
		char *slash = strrchr(path, '/');
		if (!slash || strcmp(path, "/") == 0)
			return;
		if (slash == path)
			slash[1] = '\0'; /* "/a" -> "/" */
		else
			*slash = '\0';
	}
}

/* The memory cgroup of /proc/self/cgroup: "0::PATH" (v2) or
 * "N:...memory...:PATH" (v1). */
static void cgroups(const char *root, uint64_t *budget)
{
	char full[4096];
	snprintf(full, sizeof full, "%s/proc/self/cgroup", root);
	FILE *f = fopen(full, "r");
	if (!f)
		return;
	char line[4096];
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2 || c2[1] != '/')
			continue;
		*c2 = '\0';
		const char *controllers = c1 + 1;
		char *path = c2 + 1;
		if (*controllers == '\0') {
			cgroup_levels(root, "/sys/fs/cgroup", path, "memory.max", "memory.current", budget);
		} else {
			bool memory = false;
			for (const char *p = controllers; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
				memory |= strncmp(p, "memory", 6) == 0 && (p[6] == ',' || p[6] == '\0');
			if (memory)
				cgroup_levels(root, "/sys/fs/cgroup/memory", path, "memory.limit_in_bytes",
					      "memory.usage_in_bytes", budget);
		}
	}
	fclose(f);
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
	cgroups(root, &budget);
	system_memory(root, &budget);
	return budget;
}

uint64_t cg_memory_budget(void)
{
	return cg_memory_budget_at("");
}
