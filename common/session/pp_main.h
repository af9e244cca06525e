/* SPDX-License-Identifier: MIT */
/*
 * pp_main.h - the whole life of a tool, written once for all four.
 */
#ifndef PP_MAIN_H
#define PP_MAIN_H

#include "pp_opts.h"

/**
 * pp_tool_main() - parse the command line of @tool and run it
 * @tool: which binary this is
 * @argc: from main
 * @argv: from main
 *
 * The steps, in order: parse options (a bad one: one line, exit 2; --help:
 * usage, exit 0; --version: one line, exit 0); open the device and port;
 * connect or wait for a client and agree on parameters; create resources, exchange addresses, bring the QPs to
 * RTS; run; print the address lines, the results and the latency summary.
 * A failing step prints one line to stderr ("prog: ..." or, for the peer's
 * reason, "prog: server: ...") and tells the peer.
 *
 * Return: the exit status: PP_EXIT_OK, PP_EXIT_FAIL, PP_EXIT_USAGE or
 * PP_EXIT_DATA.
 */
int pp_tool_main(enum pp_tool tool, int argc, char **argv);

#endif /* PP_MAIN_H */
