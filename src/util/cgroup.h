/* The process's cgroups, for the limits a job scheduler sets (Slurm,
 * Kubernetes, systemd): cpus.c reads the CPU quota, membudget.c the memory
 * limit, both through this one walk of /proc/self/cgroup.
 *
 *     cg_cgroup_each("", "memory", visit, &budget);  // visit(root, dir, v2, ctx)
 */
#ifndef CG_CGROUP_H
#define CG_CGROUP_H

#include <stdbool.h>
#include <stddef.h>

/* Called with each cgroup folder dir (under root) and whether it belongs
 * to the unified v2 hierarchy. */
typedef void (*cg_cgroup_visit)(const char *root, const char *dir, bool v2, void *ctx);

/* Calls visit for every level of the process's cgroup that may hold a
 * limit of the controller ("cpu", "memory"), from its own cgroup up to
 * the root of the hierarchy (a parent's limit holds its children), under
 * every folder the hierarchy may be mounted at: v2 at /sys/fs/cgroup or,
 * beside v1, /sys/fs/cgroup/unified; v1 at /sys/fs/cgroup/CONTROLLER
 * (cpu also at cpu,cpuacct and cpuacct,cpu). Inside a container the path
 * of /proc/self/cgroup names the host's cgroup, absent there, and the walk
 * reaches the container's own at the mount's root. root prefixes every
 * path: "" for the real files, a folder of their own for tests. */
void cg_cgroup_each(const char *root, const char *controller, cg_cgroup_visit visit, void *ctx);

/* The first line of root/path without its newline into buf; false when
 * the file cannot be read. */
bool cg_cgroup_read_line(const char *root, const char *path, char *buf, size_t size);

#endif
