/* How much memory this process may still allocate, to size the default
 * record limit (--max-records) so that a trace too big for the machine
 * fails with a message instead of being killed by the out-of-memory killer
 * or by a failed allocation half way. */
#ifndef CG_MEMBUDGET_H
#define CG_MEMBUDGET_H

#include <stdint.h>

/* The least of: RLIMIT_AS less the address space mapped now, RLIMIT_DATA
 * less the data mapped now, the memory cgroup's limit less its usage at
 * every level from the process's cgroup up to the root (v2 memory.max and
 * memory.current, v1 memory.limit_in_bytes and memory.usage_in_bytes), and
 * MemAvailable of /proc/meminfo (physical memory when that is missing).
 * UINT64_MAX when none of them is known. */
uint64_t cg_memory_budget(void);

/* The same, reading the /proc and /sys files under root ("" for the real
 * ones; tests give a folder of their own). */
uint64_t cg_memory_budget_at(const char *root);

#endif
