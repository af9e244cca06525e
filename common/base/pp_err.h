/* SPDX-License-Identifier: MIT */
/*
 * pp_err.h - the error detail that common/ hands back to the program.
 *
 * The error rule of the project: actions return 0 or a positive errno value
 * (as ibv_modify_qp does); constructors return a pointer, or NULL with errno
 * set; predicates return bool.  common/ never exits, and prints only where
 * printing is the job (the reports, --show-gids, --trace, the JSON document,
 * the sequence in pp_main.c), to a stream its caller chooses.  Where a bare
 * errno is not enough to tell the user what happened (a handshake mismatch, a
 * message from the peer, a data mismatch), the function also fills a struct
 * pp_err with one line of text, and the program prints it.
 */
#ifndef PP_ERR_H
#define PP_ERR_H

#include <stdbool.h>
#include <stddef.h>

#define PP_ERR_LEN 512

/* Exit statuses of every tool, explained in pp_exit_docs[]. */
enum pp_exit {
	PP_EXIT_OK = 0,	     /* every iteration completed, data matched */
	PP_EXIT_FAIL = 1,    /* a runtime failure, here or at the peer */
	PP_EXIT_USAGE = 2,   /* bad command line */
	PP_EXIT_DATA = 3,    /* -c found received data that did not match */
	PP_EXIT_FLAGGED = 4, /* a threshold or verdict flagged */
	PP_EXIT_INTR = 130,  /* SIGINT/SIGTERM stopped a run (128 + SIGINT) */
};

/*
 * What each exit status means: the one written list, from which pp_mangen
 * writes the EXIT STATUS section of every man page (pandoc Markdown).
 */
struct pp_exit_doc {
	int status;	  /* enum pp_exit */
	const char *text; /* one paragraph */
};

extern const struct pp_exit_doc pp_exit_docs[];
extern const size_t pp_exit_ndocs;

struct pp_err {
	char msg[PP_ERR_LEN]; /* one line, no newline; "" when unset */
	bool remote;	      /* msg is the peer's, received over TCP */
};

/**
 * pp_err_set() - record one line of error detail
 * @e: where to record it (may be NULL: then nothing is recorded)
 * @fmt: printf format of the line, no trailing newline
 *
 * Clears @e->remote.  Control characters in the result are replaced by '?'.
 */
void pp_err_set(struct pp_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * pp_err_clear() - forget any recorded detail
 * @e: the detail to clear (may be NULL)
 */
void pp_err_clear(struct pp_err *e);

#endif /* PP_ERR_H */
