/* SPDX-License-Identifier: MIT */
/*
 * pp_mesh_report.h - what rank 0 knows at the end of a mesh, and its three
 * views: the text (matrix, host table, odd ones out), the --json document
 * and the SVG heatmap (docs/mesh.md).  Plain data in, text out: the tests
 * build a mesh by hand and read what is printed.
 */
#ifndef PP_MESH_REPORT_H
#define PP_MESH_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pp_json.h"
#include "pp_mesh_env.h"
#include "pp_mesh_odd.h"
#include "pp_mesh_sched.h"
#include "pp_mesh_verdict.h"
#include "pp_mesh_wire.h"

/* One rank as rank 0 saw it. */
struct pp_mesh_rank {
	bool joined;
	bool gone;			 /* died or stopped answering */
	char gone_why[PP_MESH_TEXT_MAX]; /* ... in what round, how */
	char addr[PP_MESH_HOST_MAX];	 /* where the others reach it */
	char label[PP_MESH_HOST_MAX];	 /* its name: host:device */
	uint32_t local;		   /* its local index on its host (JOIN's) */
	struct pp_mesh_join facts; /* what it said when it joined */
};

/* One side of a pair: the RESULT its rank sent (doc: an owned copy). */
struct pp_mesh_side {
	bool have;
	struct pp_mesh_result r;
	char *doc; /* its --json document, NUL-terminated; NULL: none */
};

/*
 * What a pair's two sides said (side[0] is the lower rank, the server;
 * side[1] the client), and rank 0's own reason: held only while the pair
 * runs, from its first word to pp_mesh_view_settle(), then written out and
 * freed.
 */
struct pp_mesh_detail {
	uint32_t a, b;		    /* the pair, a < b */
	char why[PP_MESH_TEXT_MAX]; /* rank 0's own reason (GONE, ABSENT) */
	struct pp_mesh_side side[2];
};

/* One pair: 16 bytes, so that a mesh of thousands fits. */
struct pp_mesh_cell {
	double median_us;  /* the client's median round trip; NaN: none */
	uint32_t round;	   /* the round it ran in */
	uint16_t path_mtu; /* 0: not known */
	uint8_t code;	   /* enum pp_mesh_code */
	bool ran : 1;	   /* RUN was sent to both */
	bool settled : 1;  /* pp_mesh_view_settle(): final, written out */
	bool why : 1;	   /* rank 0 gave a reason */
	bool unsel : 1;	   /* not selected (--mesh-pairs): not run, no result */
};

/* The text report's caps (docs/mesh.md, "Reading the output"). */
#define PP_MESH_TEXT_COLS 160  /* the matrix is printed within this width */
#define PP_MESH_GROUPS 16      /* reasons kept, grouped, of pairs or ranks */
#define PP_MESH_EXAMPLES 3     /* examples a group names */
#define PP_MESH_LIST 20	       /* lines of a list of ranks or pairs */
#define PP_MESH_HOST_ROWS 64   /* the host table's rows, at most */
#define PP_MESH_SVG_FULL 256   /* the SVG has a square a pair up to this N */
#define PP_MESH_SVG_BLOCKS 128 /* ... beyond, this many blocks a side */

/*
 * Failed pairs that share a reason: the same code and the same error lines
 * once each run of digits is read as one (rank, round, QP number, port and
 * address apart); a side that only heard of the failure from its peer
 * counts by its step alone.  The first PP_MESH_EXAMPLES pairs are kept whole.
 */
struct pp_mesh_group {
	uint64_t hash; /* of the normalised reason */
	uint64_t count;
	uint8_t code;
	uint32_t a[PP_MESH_EXAMPLES], b[PP_MESH_EXAMPLES];
	char why[PP_MESH_EXAMPLES][PP_MESH_TEXT_MAX];
	char side[PP_MESH_EXAMPLES][2][PP_MESH_TEXT_MAX]; /* "": no failure */
	bool have[PP_MESH_EXAMPLES][2];
};

/* What rank 0 keeps of failed pairs: bounded whatever N. */
struct pp_mesh_store {
	struct pp_mesh_group group[PP_MESH_GROUPS];
	uint32_t ngroups;
	uint64_t other; /* failed pairs of reasons beyond PP_MESH_GROUPS */
	struct pp_mesh_detail **open; /* n: a pair running, by its lower rank */
	struct pp_json json;	      /* the --json document being written */
	FILE *json_f;		      /* NULL: none */
};
struct pp_mesh_view {
	const char *tool;      /* "rc_pingpong" */
	const char *transport; /* "rc" */
	const char *mesh_id;   /* the mesh's id (pp_mesh_env.h) */
	const char *what;      /* "send, 2 bytes, 1000 iterations" */
	enum pp_mesh_launcher launcher;
	const char *root;
	uint32_t port;
	uint32_t n;
	bool serial;
	enum pp_mesh_pairs pairs; /* --mesh-pairs: all, rail, remote */
	uint64_t selected;	  /* the pairs it selects */
	uint32_t rounds;     /* rounds of the schedule (or pairs, serial) */
	uint32_t pair_ms;    /* a pair's bound */
	double bound_s;	     /* the mesh's bound, said before it began */
	double elapsed_s;    /* what it took */
	const char *stopped; /* the mesh did not finish: why; else NULL */
	/*
	 * The thresholds rank 0 judges each pair that ran whole by, when it
	 * is settled (pp_thresh.h): a path MTU below expect_mtu is MTU, a
	 * median (of rtt_size bytes) above max_rtt_us is SLOW; 0: none.
	 * asked_mtu is -m (0: none).
	 */
	uint32_t expect_mtu, asked_mtu;
	double max_rtt_us;
	uint64_t rtt_size;
	struct pp_mesh_rank *ranks;  /* n */
	struct pp_mesh_cell *cells;  /* n * (n - 1) / 2, pp_mesh_pair_index() */
	struct pp_mesh_store *store; /* made when first needed; NULL: none */
	/* where the pairs' time went: every side that reported, summed */
	struct {
		uint64_t sum_us[PP_MESH_T_COUNT];
		uint32_t max_us[PP_MESH_T_COUNT];
		uint32_t sides;
	} times;
	/* filled by pp_mesh_view_judge() */
	struct pp_mesh_odd odd;
	double *added_us;  /* n: what each rank adds (pp_mesh_odd.h) */
	double *row_us;	   /* n: each rank's row median (pp_mesh_odd.h) */
	bool *slow;	   /* n */
	uint32_t *host_id; /* n: ranks of one host share it */
	struct pp_mesh_verdicts *verdicts; /* pp_mesh_verdict.h */
	uint32_t passed, failed, joined;
	uint64_t not_selected; /* pairs --mesh-pairs leaves out */
	uint32_t dev_failed;   /* joined ranks whose device did not open */
	uint32_t flagged[PP_MESH_CODE_COUNT]; /* by code: MTU, SLOW */
	uint32_t nflagged;		      /* their sum: ran, not passed */
	/*
	 * 0 when every rank joined and every selected pair passed with no
	 * verdict; 4 when every selected pair ran whole and some are flagged
	 * or a verdict exists; else 1
	 */
	int exit_status;
};

/**
 * pp_mesh_view_judge() - the labels, counts, odd ones out, verdicts and
 * exit status
 * @v: a view whose ranks and cells are filled; allocates @v->added_us,
 *     @v->slow, @v->host_id and @v->verdicts (pp_mesh_view_free())
 *
 * A rank's label is its host's short name (up to the first '.') and its
 * device, "node1:mlx5_0" (the host alone when it names none), with
 * "#rank" after it when several ranks share both.  Pairs not selected
 * count neither as passed nor as failed; a rank whose device did not open
 * fails the mesh even when it is in no selected pair.
 * The exit status is PP_EXIT_FAIL when a rank is missing, a device did
 * not open, a pair failed or the mesh stopped; else PP_EXIT_FLAGGED when
 * there is a verdict; else 0.
 *
 * Return: 0 or ENOMEM.
 */
int pp_mesh_view_judge(struct pp_mesh_view *v);

/**
 * pp_mesh_view_free() - free what pp_mesh_view_judge() and the cells'
 * details hold (not @v->ranks or @v->cells themselves)
 * @v: the view
 */
void pp_mesh_view_free(struct pp_mesh_view *v);

/**
 * pp_mesh_view_side() - one side's RESULT for the pair @rank - @peer: held
 * until pp_mesh_view_settle(); the GID its sessions use goes into the rank
 * table
 * @v: the view
 * @rank: the rank that sent it
 * @peer: its peer in the pair
 * @r: the record (its document, if any, is copied)
 *
 * Return: 0 or ENOMEM (the side is lost: the pair ends GONE).
 */
int pp_mesh_view_side(struct pp_mesh_view *v, uint32_t rank, uint32_t peer,
		      const struct pp_mesh_result *r);

/**
 * pp_mesh_view_why() - rank 0's own reason for the pair @a - @b (GONE,
 * ABSENT, not run), printed with it; held until pp_mesh_view_settle()
 * @v: the view
 * @a: a rank of the pair
 * @b: the other
 * @fmt: printf format
 */
__attribute__((format(printf, 4, 5))) void
pp_mesh_view_why(struct pp_mesh_view *v, uint32_t a, uint32_t b,
		 const char *fmt, ...);

/**
 * pp_mesh_view_has_why() - has the pair @a - @b a reason of rank 0's?
 * @v: the view
 * @a: a rank of the pair
 * @b: the other
 */
bool pp_mesh_view_has_why(const struct pp_mesh_view *v, uint32_t a, uint32_t b);

/**
 * pp_mesh_view_unselect() - the pair @a - @b is not selected
 * (--mesh-pairs): it never runs, is shown as such ('.') and is left out of
 * the --json document's pairs
 * @v: the view
 * @a: a rank of the pair
 * @b: the other
 */
void pp_mesh_view_unselect(struct pp_mesh_view *v, uint32_t a, uint32_t b);

/**
 * pp_mesh_view_settle() - the pair @a - @b is over: its cell's code from its
 * two sides (a pair that ran) or as set (one that did not), then, for a pair
 * that passed, the thresholds (MTU, SLOW: the line of pp_thresh.h is rank
 * 0's reason); a failure's or a flag's reasons into the bounded store, the
 * pair into the --json document being written; what was held for it is
 * freed.  A second call does nothing.
 * @v: the view
 * @a: a rank of the pair
 * @b: the other
 *
 * A pair that ran with a side missing is GONE ("rank N sent no result",
 * unless rank 0 gave a reason).  Of two sides that failed, the code is the
 * step of the side whose own step failed; of two such, the earlier step.
 */
void pp_mesh_view_settle(struct pp_mesh_view *v, uint32_t a, uint32_t b);

/**
 * pp_mesh_view_begin_json() - start the --json document on @f: "mesh" and
 * the opening of "pairs"; each pair settled from now on is written at once,
 * on a line of its own
 * @v: a view whose header fields are filled (not judged yet)
 * @f: stream
 *
 * Return: 0, or the writer's error.
 */
int pp_mesh_view_begin_json(struct pp_mesh_view *v, FILE *f);

/**
 * pp_mesh_view_end_json() - end the document: the pairs not settled yet,
 * then "hosts", "matrix" (a line per row) and "summary"
 * @v: a judged view with a document begun
 *
 * Return: 0, or the writer's error.
 */
int pp_mesh_view_end_json(struct pp_mesh_view *v);

/**
 * pp_mesh_print_text() - the matrix with its legend, the host table with
 * the facts that differ, the odd ones out and the last line
 * @v: a judged view
 * @f: stream
 */
void pp_mesh_print_text(const struct pp_mesh_view *v, FILE *f);

/**
 * pp_mesh_write_json() - --json of a view whose pairs are all settled,
 * in one go: pp_mesh_view_begin_json() and pp_mesh_view_end_json()
 * @v: a judged view
 * @f: stream
 *
 * Return: 0, or the writer's error.
 */
int pp_mesh_write_json(const struct pp_mesh_view *v, FILE *f);

/**
 * pp_mesh_write_svg() - --mesh-svg: the matrix as an SVG heatmap: one
 * square per pair, coloured from the fastest pair (green) to the slowest
 * (red) on a log scale, failed pairs black with their code, the labels on
 * both axes, a colour key
 * @v: a judged view
 * @f: stream
 *
 * Return: 0, or EIO when the stream failed.
 */
int pp_mesh_write_svg(const struct pp_mesh_view *v, FILE *f);

/**
 * pp_mesh_matrix_fits() - does the text's matrix fit in PP_MESH_TEXT_COLS
 * columns (6 + the widest label + N columns of 8 to 12)?  Else the text
 * has a summary per rank instead.
 * @v: a judged view
 */
bool pp_mesh_matrix_fits(const struct pp_mesh_view *v);

/**
 * pp_mesh_cell_text() - a matrix cell as printed: "-" for the diagonal, the
 * median ("31.2", "2034"), the code ("RTR") or "." for a pair not selected
 * @v: a judged view
 * @a: row rank
 * @b: column rank
 * @buf: room for 16 bytes
 */
const char *pp_mesh_cell_text(const struct pp_mesh_view *v, uint32_t a,
			      uint32_t b, char *buf);

/* Between pp_mesh_store.c and pp_mesh_report.c. */

/* The pair @a < @b as a member of "pairs"; @d: its sides, or NULL. */
void pp_mesh_json_pair(const struct pp_mesh_view *v, struct pp_json *j,
		       uint32_t a, uint32_t b, const struct pp_mesh_detail *d);

/* @v->store, made (empty) when it has none; NULL: out of memory. */
struct pp_mesh_store *pp_mesh_store_get(struct pp_mesh_view *v);

/* Free @v->store and the details it holds. */
void pp_mesh_store_free(struct pp_mesh_view *v);

#endif /* PP_MESH_REPORT_H */
