/* cgmem: see cli.c for the commands. */
#include "charts.h"
#include "cli.h"

int main(int argc, char **argv)
{
	int status = cg_cli_main(argc, argv);
	cg_charts_shutdown();
	return status;
}
