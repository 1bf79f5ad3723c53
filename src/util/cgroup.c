#include "cgroup.h"

#include <stdio.h>
#include <string.h>

bool cg_cgroup_read_line(const char *root, const char *path, char *buf, size_t size)
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

static void levels(const char *root, const char *base, const char *cgroup, bool v2, cg_cgroup_visit visit,
		   void *ctx)
{
	char path[4096];
	snprintf(path, sizeof path, "%s", cgroup);
	for (;;) {
		char dir[8192];
		snprintf(dir, sizeof dir, "%s%s", base, strcmp(path, "/") == 0 ? "" : path);
		visit(root, dir, v2, ctx);
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

void cg_cgroup_each(const char *root, const char *controller, cg_cgroup_visit visit, void *ctx)
{
	char full[4096];
	snprintf(full, sizeof full, "%s/proc/self/cgroup", root);
	FILE *f = fopen(full, "r");
	if (!f)
		return;
	static const char *const v2_bases[] = {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"};
	/* cpu shares its mount with cpuacct under either name (the other is
	 * usually a symbolic link to it) */
	static const char *const cpu_aliases[] = {"cpu,cpuacct", "cpuacct,cpu"};
	char line[4096];
	/* "0::PATH" (v2) or "N:CONTROLLERS:PATH" (v1) */
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2 || c2[1] != '/')
			continue;
		*c2 = '\0';
		const char *controllers = c1 + 1, *cgroup = c2 + 1;
		if (*controllers == '\0') {
			for (size_t b = 0; b < sizeof v2_bases / sizeof *v2_bases; b++)
				levels(root, v2_bases[b], cgroup, true, visit, ctx);
			continue;
		}
		if (!has_controller(controllers, controller))
			continue;
		char base[256];
		snprintf(base, sizeof base, "/sys/fs/cgroup/%s", controller);
		levels(root, base, cgroup, false, visit, ctx);
		if (strcmp(controller, "cpu") == 0)
			for (size_t b = 0; b < sizeof cpu_aliases / sizeof *cpu_aliases; b++) {
				snprintf(base, sizeof base, "/sys/fs/cgroup/%s", cpu_aliases[b]);
				levels(root, base, cgroup, false, visit, ctx);
			}
	}
	fclose(f);
}
