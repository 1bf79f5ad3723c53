/* cgmem: see cli.c for the commands. */
#include "cli.h"

int main(int argc, char **argv)
{
	return cg_cli_main(argc, argv);
}
