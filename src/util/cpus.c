#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "cpus.h"

#include "cgroup.h"

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* One level's quota: v2 cpu.max is "QUOTA PERIOD", QUOTA "max" when
 * unlimited; v1 cpu.cfs_quota_us is -1 when unlimited. */
static void quota_at(const char *root, const char *dir, bool v2, void *ctx)
{
	unsigned *cpus = ctx;
	char path[8300], q[128], per[64];
	const char *p;
	uint64_t quota, period;
	if (v2) {
		snprintf(path, sizeof path, "%s/cpu.max", dir);
		if (cg_cgroup_read_line(root, path, q, sizeof q) && positive(q, &p, &quota) && *p == ' ' &&
		    positive(p + 1, &p, &period) && *p == '\0')
			lower_by_quota(quota, period, cpus);
		return;
	}
	snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", dir);
	if (!cg_cgroup_read_line(root, path, q, sizeof q) || !positive(q, &p, &quota) || *p)
		return;
	snprintf(path, sizeof path, "%s/cpu.cfs_period_us", dir);
	if (cg_cgroup_read_line(root, path, per, sizeof per) && positive(per, &p, &period) && *p == '\0')
		lower_by_quota(quota, period, cpus);
}

unsigned cg_cpus_quota_at(const char *root)
{
	unsigned cpus = 0;
	cg_cgroup_each(root, "cpu", quota_at, &cpus);
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
