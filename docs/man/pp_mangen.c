// SPDX-License-Identifier: MIT
/*
 * pp_mangen - write the OPTIONS section of a tool's man page from the option
 * table, so the man pages quote the same defaults as --help; given
 * "exit-status", the EXIT STATUS section from pp_exit_docs[]; given
 * "exit-table", the same as a Markdown table (README.md quotes it); given
 * "facts", the numbers the documents quote (wire record sizes, defaults,
 * limits, exit statuses), one "name value" line each, which
 * tests/unit/doc_facts.py checks the documents against.
 *
 * Usage: pp_mangen rc_pingpong|ud_pingpong|srq_pingpong|xrc_pingpong|
 *                  exit-status|exit-table|facts
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pp_err.h"
#include "pp_opts.h"
#include "pp_wire.h"

/* The text of an exit status for Markdown outside a man page: "\-" is "-". */
static void put_plain(const char *s)
{
	for (; *s; s++) {
		if (s[0] == '\\' && s[1] == '-')
			continue;
		putchar(*s);
	}
}

static void exit_table(void)
{
	size_t i;

	printf("| status | meaning |\n|---|---|\n");
	for (i = 0; i < pp_exit_ndocs; i++) {
		printf("| %d | ", pp_exit_docs[i].status);
		put_plain(pp_exit_docs[i].text);
		printf(" |\n");
	}
}

static void facts(void)
{
	struct pp_opts o;
	size_t i;

	pp_opts_init(&o, PP_TOOL_RC, "rc_pingpong");
	printf("wire_header %d\n", PP_WIRE_HDR_LEN);
	printf("wire_hello %d\n", PP_WIRE_HELLO_LEN);
	printf("wire_addr %d\n", PP_WIRE_ADDR_LEN);
	printf("wire_gid %d\n", PP_WIRE_GID_LEN);
	printf("wire_done %d\n", PP_WIRE_DONE_LEN);
	printf("wire_alive %d\n", PP_WIRE_ALIVE_LEN);
	printf("wire_error %d\n", PP_WIRE_ERROR_LEN);
	printf("wire_version %d\n", PP_WIRE_VERSION);
	printf("default_port %" PRIu32 "\n", o.port);
	printf("default_size %" PRIu64 "\n", (uint64_t)o.size);
	printf("default_iters %" PRIu64 "\n", (uint64_t)o.iters);
	printf("default_rx_depth %" PRIu64 "\n", (uint64_t)o.rx_depth);
	printf("default_timeout_s %" PRIu32 "\n", o.timeout_ms / 1000);
	printf("default_hop_limit %d\n", PP_DEFAULT_HOP_LIMIT);
	printf("max_qps %u\n", PP_MAX_QPS);
	printf("max_size %llu\n", (unsigned long long)PP_MAX_SIZE);
	for (i = 0; i < pp_exit_ndocs; i++)
		printf("exit_status %d\n", pp_exit_docs[i].status);
}

int main(int argc, char **argv)
{
	static const enum pp_tool tools[] = { PP_TOOL_RC, PP_TOOL_UD,
					      PP_TOOL_SRQ, PP_TOOL_XRC };
	size_t i;

	if (argc == 2 && !strcmp(argv[1], "exit-status")) {
		for (i = 0; i < pp_exit_ndocs; i++)
			printf("**%d**\n:   %s\n\n", pp_exit_docs[i].status,
			       pp_exit_docs[i].text);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "exit-table")) {
		exit_table();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "facts")) {
		facts();
		return 0;
	}
	for (i = 0; argc == 2 && i < sizeof(tools) / sizeof(tools[0]); i++) {
		if (!strcmp(argv[1], pp_tool_name(tools[i]))) {
			pp_opts_write_man(stdout, tools[i]);
			return 0;
		}
	}
	fprintf(stderr,
		"usage: pp_mangen rc_pingpong|ud_pingpong|srq_pingpong|xrc_pingpong|exit-status|exit-table|facts\n");
	return 2;
}
