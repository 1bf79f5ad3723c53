/* How many CPUs this process may use, to size the default thread count:
 * under Slurm, Kubernetes or taskset a job given 4 of 128 cores must not
 * start a thread per core of the machine.
 *
 *     unsigned n = cg_cpus_usable();   // at least 1
 */
#ifndef CG_CPUS_H
#define CG_CPUS_H

/* The least of: the CPUs online, the CPUs of the process's affinity mask
 * (sched_getaffinity), and the cgroup's CPU quota rounded up to whole
 * CPUs (cg_cpus_quota_at). At least 1. */
unsigned cg_cpus_usable(void);

/* The same, reading the /proc and /sys files under root ("" for the real
 * ones; tests give a folder of their own). The affinity mask and the CPUs
 * online are the real ones whatever root is. */
unsigned cg_cpus_usable_at(const char *root);

/* The CPU quota of the process's cgroup in whole CPUs, rounded up: the
 * least of ceil(quota / period) at every level from the cgroup of
 * /proc/self/cgroup up to the root of its hierarchy (v2 cpu.max "QUOTA
 * PERIOD", v1 cpu.cfs_quota_us and cpu.cfs_period_us). 0 when no level
 * sets one ("max", -1, or no file). */
unsigned cg_cpus_quota_at(const char *root);

#endif
