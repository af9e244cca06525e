// SPDX-License-Identifier: MIT
/*
 * pp_compgen - write the option list of a tool's bash completion from the
 * option table, so completion offers exactly the options the tool parses.
 *
 * Usage: pp_compgen rc_pingpong|ud_pingpong|srq_pingpong|xrc_pingpong TEMPLATE
 *
 * It copies TEMPLATE (completion/pingpong.bash) to stdout, and writes in
 * place of its line %OPTIONS% the tool's options: one shell variable, _pingpong_spec_TOOL, with a line per option: its short letter
 * (or -), its long name and the kind of value it takes, which
 * _pingpong_complete turns into what it offers:
 *
 *   device  the RDMA devices in /sys/class/infiniband
 *   port    the ports of the device given with -d (or the default one)
 *   gid     the populated GID indexes of that device and port
 *   mtu     the five IB MTUs
 *   op      the operations of --op (pp_op.h)
 *   file    file names
 *   host    host names
 *   value   a value we cannot guess (a number): nothing
 *   -       none: a flag
 *
 * and the `complete` line that binds it to the tool.
 */
#include <stdio.h>
#include <string.h>

#include "pp_opts.h"

static const char *value_kind(const struct pp_opt_info *o)
{
	if (!o->arg)
		return "-";
	switch (o->id) {
	case PP_OPT_IB_DEV:
		return "device";
	case PP_OPT_IB_PORT:
		return "port";
	case PP_OPT_GID_IDX:
		return "gid";
	case PP_OPT_MTU:
		return "mtu";
	case PP_OPT_OP:
		return "op";
	case PP_OPT_BIND:
	case PP_OPT_MESH_ROOT:
		return "host";
	default:
		return strcmp(o->arg, "FILE") ? "value" : "file";
	}
}

static void write_spec(FILE *f, enum pp_tool tool)
{
	struct pp_opt_info opts[PP_OPT_COUNT];
	const char *name = pp_tool_name(tool);
	size_t i, n = pp_opts_list(tool, opts);

	fprintf(f,
		"# The options of %s, from the option table of common/base/pp_opts.c\n"
		"# (written by completion/pp_compgen): short letter or -, long name,\n"
		"# kind of value.\n"
		"_pingpong_spec_%s='",
		name, name);
	for (i = 0; i < n; i++) {
		fprintf(f, "%s%c %s %s", i ? "\n" : "",
			opts[i].letter ? opts[i].letter : '-', opts[i].name,
			value_kind(&opts[i]));
	}
	fprintf(f, "'\ncomplete -F _pingpong_complete %s\n", name);
}

/* Copy @template to stdout with @tool's options in place of %OPTIONS%. */
static int write_completion(enum pp_tool tool, const char *template)
{
	FILE *in = fopen(template, "r");
	char line[1024];
	int placed = 0;

	if (!in) {
		perror(template);
		return 1;
	}
	while (fgets(line, sizeof(line), in)) {
		if (!strcmp(line, "%OPTIONS%\n")) {
			write_spec(stdout, tool);
			placed++;
		} else {
			fputs(line, stdout);
		}
	}
	if (ferror(in) || placed != 1) {
		fprintf(stderr, "pp_compgen: %s: %s\n", template,
			ferror(in) ? "read error" : "needs one line %OPTIONS%");
		fclose(in);
		return 1;
	}
	fclose(in);
	return fflush(stdout) ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const enum pp_tool tools[] = { PP_TOOL_RC, PP_TOOL_UD,
					      PP_TOOL_SRQ, PP_TOOL_XRC };
	size_t i;

	for (i = 0; argc == 3 && i < sizeof(tools) / sizeof(tools[0]); i++) {
		if (!strcmp(argv[1], pp_tool_name(tools[i])))
			return write_completion(tools[i], argv[2]);
	}
	fprintf(stderr,
		"usage: pp_compgen rc_pingpong|ud_pingpong|srq_pingpong|xrc_pingpong TEMPLATE\n");
	return 2;
}
