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

#include "pp_mesh_env.h"
#include "pp_mesh_odd.h"
#include "pp_mesh_wire.h"

/* One rank as rank 0 saw it. */
struct pp_mesh_rank {
	bool joined;
	bool gone;			 /* died or stopped answering */
	char gone_why[PP_MESH_TEXT_MAX]; /* ... in what round, how */
	char addr[PP_MESH_HOST_MAX];	 /* where the others reach it */
	char label[PP_MESH_HOST_MAX];	 /* its name in the matrix */
	struct pp_mesh_join facts;	 /* what it said when it joined */
};

/* One side of a pair: the RESULT its rank sent (doc: an owned copy). */
struct pp_mesh_side {
	bool have;
	struct pp_mesh_result r;
	char *doc; /* its --json document, NUL-terminated; NULL: none */
};

/*
 * What a pair's two sides said (side[0] is the lower rank, the server;
 * side[1] the client), and rank 0's own reason: kept for a pair that
 * failed, and for every pair when the document wants them (--json).
 */
struct pp_mesh_detail {
	char why[PP_MESH_TEXT_MAX]; /* rank 0's own reason (GONE, ABSENT) */
	struct pp_mesh_side side[2];
};

/* One pair: a few bytes, so that a mesh of thousands fits. */
struct pp_mesh_cell {
	bool ran;	   /* RUN was sent to both */
	uint8_t code;	   /* enum pp_mesh_code */
	uint32_t round;	   /* the round it ran in */
	uint32_t path_mtu; /* 0: not known */
	double median_us;  /* the client's median round trip; NaN: none */
	struct pp_mesh_detail *d; /* NULL: passed, and no --json */
};

/**
 * pp_mesh_cell_detail() - the detail of @c, allocated (zeroed) when it has
 * none yet
 * @c: the cell
 *
 * Return: the detail, or NULL (out of memory).
 */
struct pp_mesh_detail *pp_mesh_cell_detail(struct pp_mesh_cell *c);

struct pp_mesh_view {
	const char *tool;      /* "rc_pingpong" */
	const char *transport; /* "rc" */
	const char *what;      /* "send, 2 bytes, 1000 iterations" */
	enum pp_mesh_launcher launcher;
	const char *root;
	uint32_t port;
	uint32_t n;
	bool serial;
	uint32_t rounds;     /* rounds of the schedule (or pairs, serial) */
	uint32_t pair_ms;    /* a pair's bound */
	double bound_s;	     /* the mesh's bound, said before it began */
	double elapsed_s;    /* what it took */
	const char *stopped; /* the mesh did not finish: why; else NULL */
	struct pp_mesh_rank *ranks; /* n */
	struct pp_mesh_cell *cells; /* n * (n - 1) / 2, pp_mesh_pair_index() */
	/* filled by pp_mesh_view_judge() */
	struct pp_mesh_odd odd;
	double *added_us; /* n: what each rank adds (pp_mesh_odd.h) */
	bool *slow;	  /* n */
	uint32_t passed, failed, joined;
	int exit_status; /* 0 only when every pair passed */
};

/**
 * pp_mesh_view_judge() - the labels, counts, odd ones out and exit status
 * @v: a view whose ranks and cells are filled; allocates @v->added_us and
 *     @v->slow (pp_mesh_view_free())
 *
 * A rank's label is its host's short name (up to the first '.'), with
 * "#rank" after it when several ranks share the host.
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
 * pp_mesh_print_text() - the matrix with its legend, the host table with
 * the facts that differ, the odd ones out and the last line
 * @v: a judged view
 * @f: stream
 */
void pp_mesh_print_text(const struct pp_mesh_view *v, FILE *f);

/**
 * pp_mesh_write_json() - --json: one document on one line (keys in
 * docs/mesh.md): "mesh", "hosts", "pairs", "matrix", "summary"
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
 * pp_mesh_cell_text() - a matrix cell as printed: "-" for the diagonal, the
 * median ("31.2", "2034") or the code ("RTR")
 * @v: a judged view
 * @a: row rank
 * @b: column rank
 * @buf: room for 16 bytes
 */
const char *pp_mesh_cell_text(const struct pp_mesh_view *v, uint32_t a,
			      uint32_t b, char *buf);

#endif /* PP_MESH_REPORT_H */
