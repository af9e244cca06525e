/* SPDX-License-Identifier: MIT */
/*
 * pp_doc.h - the --json document of one run (docs/measurement.md, schema
 * 1), from the session as it stands.
 */
#ifndef PP_DOC_H
#define PP_DOC_H

#include <stdio.h>

#include "pp_session.h"

/**
 * pp_doc_write() - --json: the document of the run
 * (docs/measurement.md, schema 1) on one line
 * @s: the session, in any state after pp_session_open() was called
 * @f: stream (stdout)
 * @exit_status: the exit status the program returns
 * @error: the line printed on stderr, or NULL
 *
 * Return: 0, or the writer's error.
 */
int pp_doc_write(const struct pp_session *s, FILE *f, int exit_status,
		 const char *error);

struct pp_run_interval;

/**
 * pp_doc_interval() - --json --interval: one interval as one line
 * {"interval": {"index", "size", "start_s", "end_s", "figures"}}, written
 * as the interval ends, before the document (docs/measurement.md)
 * @f: stream (stdout)
 * @iv: the interval
 *
 * Return: 0, or the writer's error.
 */
int pp_doc_interval(FILE *f, const struct pp_run_interval *iv);

#endif /* PP_DOC_H */
