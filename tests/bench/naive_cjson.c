/* The benchmark's reference: what a naive cJSON tool pays to read a trace.
 * Every line through cJSON_ParseWithLength and cJSON_Delete, nothing else.
 *
 *   naive_cjson FILE      prints the number of lines cJSON parsed */
#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: naive_cjson FILE\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	unsigned long long parsed = 0, failed = 0;
	while ((n = getline(&line, &cap, f)) > 0) {
		cJSON *j = cJSON_ParseWithLength(line, (size_t)n);
		if (j)
			parsed++;
		else
			failed++;
		cJSON_Delete(j);
	}
	free(line);
	fclose(f);
	printf("%llu lines parsed, %llu failed\n", parsed, failed);
	return 0;
}
