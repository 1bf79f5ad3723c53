#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "cpus.h"

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The first line of root/path, without its newline; false when absent. */
static bool read_line(const char *root, const char *path, char *buf, size_t size)
{
	char full[4096];
	snprintf(full, sizeof full, "%s%s", root, path);
	FILE *f = fopen(full, "r");
	if (!f)
		return false;
	bool ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/* A positive decimal number followed by a space or the end, into *out. */
static bool positive(const char *s, const char **rest, uint64_t *out)
{
	if (*s < '0' || *s > '9')
		return false;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (v == 0 || (*end != '\0' && *end != ' '))
		return false;
	*out = v;
	*rest = end;
	return true;
}

/* ceil(quota / period) into *cpus when both are set; at least 1 CPU (a
 * quota of a tenth of a CPU still runs one thread). */
static void lower_by_quota(uint64_t quota, uint64_t period, unsigned *cpus)
{
	uint64_t n = quota / period + (quota % period != 0);
	if (n > 65536)
		return; /* beyond any machine: no limit worth the name */
	if (*cpus == 0 || n < *cpus)
		*cpus = (unsigned)n;
}

/* v2: cpu.max is "QUOTA PERIOD", QUOTA "max" when unlimited. */
static void quota_v2(const char *root, const char *dir, unsigned *cpus)
{
	char path[4096], line[128];
	snprintf(path, sizeof path, "%s/cpu.max", dir);
	const char *p;
	uint64_t quota, period;
	if (read_line(root, path, line, sizeof line) && positive(line, &p, &quota) && *p == ' ' &&
	    positive(p + 1, &p, &period) && *p == '\0')
		lower_by_quota(quota, period, cpus);
}

/* v1: cpu.cfs_quota_us is -1 when unlimited. */
static void quota_v1(const char *root, const char *dir, unsigned *cpus)
{
	char path[4096], q[64], per[64];
	const char *p;
	uint64_t quota, period;
	snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", dir);
	if (!read_line(root, path, q, sizeof q) || !positive(q, &p, &quota) || *p)
		return;
	snprintf(path, sizeof path, "%s/cpu.cfs_period_us", dir);
	if (read_line(root, path, per, sizeof per) && positive(per, &p, &period) && *p == '\0')
		lower_by_quota(quota, period, cpus);
}

/* Every level of a cgroup path under base, from the cgroup itself up to
 * the hierarchy's root: a parent's quota holds its children. Inside a
 * container the path names the host's cgroup, absent here, and the walk
 * reaches the container's own at base. */
static void levels(const char *root, const char *base, char *path,
		   void (*quota)(const char *root, const char *dir, unsigned *cpus), unsigned *cpus)
{
	for (;;) {
		char dir[4096];
		snprintf(dir, sizeof dir, "%s%s", base, strcmp(path, "/") == 0 ? "" : path);
		quota(root, dir, cpus);
		char *slash = strrchr(path, '/');
		if (!slash || strcmp(path, "/") == 0)
			return;
		if (slash == path)
			slash[1] = '\0'; /* "/a" -> "/" */
		else
			*slash = '\0';
	}
}

static bool has_controller(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

/* Where v1 mounts its cpu controller: alone, or with cpuacct under
 * either name (the other is usually a symbolic link to it). */
static const char *const v1_bases[] = {"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct",
				       "/sys/fs/cgroup/cpuacct,cpu"};
/* v2 alone, or beside v1 ("hybrid", systemd's unified folder). */
static const char *const v2_bases[] = {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"};

unsigned cg_cpus_quota_at(const char *root)
{
	char full[4096];
	snprintf(full, sizeof full, "%s/proc/self/cgroup", root);
	FILE *f = fopen(full, "r");
	if (!f)
		return 0;
	unsigned cpus = 0;
	char line[4096];
	/* "0::PATH" (v2) or "N:CONTROLLERS:PATH" (v1) */
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2 || c2[1] != '/')
			continue;
		*c2 = '\0';
		const char *controllers = c1 + 1;
		bool v2 = *controllers == '\0';
		if (!v2 && !has_controller(controllers, "cpu"))
			continue;
		const char *const *bases = v2 ? v2_bases : v1_bases;
		size_t nbases = v2 ? sizeof v2_bases / sizeof *v2_bases : sizeof v1_bases / sizeof *v1_bases;
		for (size_t b = 0; b < nbases; b++) {
			char path[4096];
			snprintf(path, sizeof path, "%s", c2 + 1);
			levels(root, bases[b], path, v2 ? quota_v2 : quota_v1, &cpus);
		}
	}
	fclose(f);
	return cpus;
}

/* CPUs of the affinity mask; 0 when it cannot be read. Masks wider than
 * cpu_set_t (more than 1024 CPUs) need a larger set. */
static unsigned affinity_count(void)
{
	for (int n = CPU_SETSIZE; n <= (1 << 20); n *= 2) {
		cpu_set_t *set = CPU_ALLOC(n);
		if (!set)
			return 0;
		size_t size = CPU_ALLOC_SIZE(n);
		CPU_ZERO_S(size, set);
		int rc = sched_getaffinity(0, size, set);
		unsigned count = rc == 0 ? (unsigned)CPU_COUNT_S(size, set) : 0;
		CPU_FREE(set);
		if (rc == 0)
			return count;
	}
	return 0;
}

unsigned cg_cpus_usable_at(const char *root)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned n = online < 1 ? 1 : online > 65536 ? 65536 : (unsigned)online;
	unsigned mask = affinity_count(), quota = cg_cpus_quota_at(root);
	if (mask && mask < n)
		n = mask;
	if (quota && quota < n)
		n = quota;
	return n;
}

unsigned cg_cpus_usable(void)
{
	return cg_cpus_usable_at("");
}
