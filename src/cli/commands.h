/* The commands of cgmem, one file each (cmd_*.c); main.c lists them. */
#ifndef CG_COMMANDS_H
#define CG_COMMANDS_H

#include "args.h"

extern const cg_command cg_cmd_report;  /* cmd_report.c */
extern const cg_command cg_cmd_summary; /* cmd_summary.c */
extern const cg_command cg_cmd_diff;    /* cmd_diff.c */
extern const cg_command cg_cmd_check;   /* cmd_check.c */
extern const cg_command cg_cmd_merge;   /* cmd_merge.c */

#endif
