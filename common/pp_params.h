/* SPDX-License-Identifier: MIT */
/*
 * pp_params.h - the parameters of a run: their bounds, shared by the option
 * parser and the wire decoder.
 */
#ifndef PP_PARAMS_H
#define PP_PARAMS_H

/* Bounds that the wire decoder and the option parser share. */
#define PP_MIN_SIZE 1ULL
#define PP_MAX_SIZE (2ULL << 30)  /* 2 GiB: one SGE carries < 4 GiB */
#define PP_MAX_ITERS 100000000ULL /* one 8-byte sample each */
#define PP_MAX_RX_DEPTH 65536U
#define PP_MAX_QPS 1024U
#define PP_MAX_SL 15U
#define PP_MAX_GID_IDX 255U
#define PP_MAX_TIMEOUT_S 3600U
#define PP_MAX_WARMUP 1000000U
#define PP_MAX_DURATION_S 3600U
/* -D: room for this many samples per second (one round trip >= 1 us) */
#define PP_DURATION_RATE 1000000ULL
#define PP_SWEEP_TOP (8ULL << 20) /* -a without -s: up to 8 MiB */

#endif /* PP_PARAMS_H */
