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

#endif /* PP_DOC_H */
