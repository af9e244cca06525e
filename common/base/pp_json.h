/* SPDX-License-Identifier: MIT */
/*
 * pp_json.h - a small JSON writer (RFC 8259) to a stream, and the figures
 * object of one run.
 *
 * The writer keeps a stack of open containers, so it puts the commas, and
 * refuses what would not be JSON: a value without a key in an object, a key
 * in an array, a second top-level value, closing the wrong container.  The
 * first error sticks: every later call does nothing and returns it, so a
 * caller may write a whole document and check once, at pp_json_finish().
 *
 * Strings are escaped as RFC 8259 requires ('"', '\\', and control
 * characters, as \n, \t, ... or \u00XX); bytes that are not valid UTF-8 are
 * written as U+FFFD, so the output is always valid UTF-8.  Doubles are
 * written with the fewest digits that read back to the same value (15, else
 * 17), with a '.' whatever the locale; NaN and infinities, which JSON
 * cannot represent, are written as null.
 */
#ifndef PP_JSON_H
#define PP_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pp_stats.h"

#define PP_JSON_MAX_DEPTH 16

struct pp_json {
	FILE *f;
	int err;	 /* the first error; 0 while all is well */
	bool pretty;	 /* newlines and two-space indents */
	bool want_value; /* a key was written: its value comes next */
	bool done;	 /* the top-level value is complete */
	unsigned int depth;
	struct {
		bool object;
		uint64_t members;
	} stack[PP_JSON_MAX_DEPTH];
};

/**
 * pp_json_init() - start a document
 * @j: the writer, initialised here
 * @f: stream to write to
 * @pretty: one member per line, indented by two spaces; else compact
 */
void pp_json_init(struct pp_json *j, FILE *f, bool pretty);

/**
 * pp_json_begin_object() - open an object, as a value
 * @j: the writer
 *
 * Return: 0; EINVAL (no value may come here); E2BIG (deeper than
 * PP_JSON_MAX_DEPTH); or an earlier error.
 */
int pp_json_begin_object(struct pp_json *j);

/**
 * pp_json_end_object() - close the innermost container, an object
 * @j: the writer
 *
 * Return: 0; EINVAL (it is an array, nothing is open, or a key waits for
 * its value); or an earlier error.
 */
int pp_json_end_object(struct pp_json *j);

/**
 * pp_json_begin_array() - open an array, as a value
 * @j: the writer
 *
 * Return: 0; EINVAL; E2BIG; or an earlier error (as pp_json_begin_object()).
 */
int pp_json_begin_array(struct pp_json *j);

/**
 * pp_json_end_array() - close the innermost container, an array
 * @j: the writer
 *
 * Return: 0; EINVAL (it is an object or nothing is open); or an earlier
 * error.
 */
int pp_json_end_array(struct pp_json *j);

/**
 * pp_json_key() - the name of the next member of the innermost object
 * @j: the writer
 * @key: the name, escaped like a string
 *
 * Return: 0; EINVAL (not in an object, a key already waits for its value,
 * or @key is NULL); or an earlier error.
 */
int pp_json_key(struct pp_json *j, const char *key);

/**
 * pp_json_string() - a string value
 * @j: the writer
 * @s: the text, UTF-8; NULL writes null
 *
 * Return: 0; EINVAL (no value may come here); or an earlier error.
 */
int pp_json_string(struct pp_json *j, const char *s);

/**
 * pp_json_int() - a signed integer value
 * @j: the writer
 * @v: the value
 *
 * Return: 0; EINVAL (no value may come here); or an earlier error.
 */
int pp_json_int(struct pp_json *j, int64_t v);

/**
 * pp_json_uint() - an unsigned integer value
 * @j: the writer
 * @v: the value (readers that use doubles are exact up to 2^53)
 *
 * Return: 0; EINVAL (no value may come here); or an earlier error.
 */
int pp_json_uint(struct pp_json *j, uint64_t v);

/**
 * pp_json_double() - a number value; null when @v is NaN or infinite
 * @j: the writer
 * @v: the value
 *
 * Return: 0; EINVAL (no value may come here); or an earlier error.
 */
int pp_json_double(struct pp_json *j, double v);

/**
 * pp_json_bool() - true or false
 * @j: the writer
 * @v: the value
 *
 * Return: 0; EINVAL (no value may come here); or an earlier error.
 */
int pp_json_bool(struct pp_json *j, bool v);

/**
 * pp_json_null() - null
 * @j: the writer
 *
 * Return: 0; EINVAL (no value may come here); or an earlier error.
 */
int pp_json_null(struct pp_json *j);

/*
 * A member of the innermost object in one call: pp_json_key() then the
 * value.  Same returns.
 */
int pp_json_key_string(struct pp_json *j, const char *key, const char *s);
int pp_json_key_int(struct pp_json *j, const char *key, int64_t v);
int pp_json_key_uint(struct pp_json *j, const char *key, uint64_t v);
int pp_json_key_double(struct pp_json *j, const char *key, double v);
int pp_json_key_bool(struct pp_json *j, const char *key, bool v);

/*
 * A member whose value may be unknown: @v, or null when !@known (an
 * integer), or when @s is NULL or empty (a string).  Same returns.
 */
int pp_json_key_int_or_null(struct pp_json *j, const char *key, bool known,
			    int64_t v);
int pp_json_key_string_or_null(struct pp_json *j, const char *key,
			       const char *s);

/**
 * pp_json_valid() - is @text exactly one JSON value (RFC 8259, white space
 * around it allowed, valid UTF-8, nested at most 64 deep)?
 * @text: NUL-terminated
 */
bool pp_json_valid(const char *text);

/**
 * pp_json_raw() - a value already written as JSON text (another program's
 * document), copied in after pp_json_valid() accepts it
 * @j: the writer
 * @text: NUL-terminated JSON text; the white space around it is dropped
 * Return: 0; EBADMSG (@text is not one JSON value: nothing is written and
 * the writer's state is unharmed, so the caller may write null instead);
 * EINVAL (no value may come here); or an earlier error.
 */
int pp_json_raw(struct pp_json *j, const char *text);

/**
 * pp_json_finish() - end the document with a newline and flush the stream
 * @j: the writer
 *
 * Return: 0; EINVAL (no complete top-level value: something is still open,
 * or nothing was written); EIO (the stream had an error); or the first
 * error of an earlier call.
 */
int pp_json_finish(struct pp_json *j);

/**
 * pp_json_figures() - the figures object of one run, as a value
 * @j: the writer
 * @s: the latency statistics, or NULL (the server, or no samples): then
 *	"latency_usec" is null
 * @size: message size in bytes
 * @iters: iterations completed
 * @seconds: wall time of those iterations
 *
 * Writes {"iterations", "bytes", "seconds", "usec_per_iter",
 * "mbit_per_sec", "msg_per_sec", "latency_usec": {"min", "median", "mean",
 * "stdev", "p50", "p90", "p99", "p99_9", "max", "samples"}}.  bytes counts
 * both directions (2 * @size * @iters) and msg_per_sec the messages sent and
 * received, as the text report does; a rate that cannot be computed (no
 * iterations, @seconds not positive) is null.  See docs/measurement.md.
 *
 * Return: 0; EINVAL (no value may come here); or an earlier error.
 */
int pp_json_figures(struct pp_json *j, const struct pp_stats *s, uint64_t size,
		    uint64_t iters, double seconds);

#endif /* PP_JSON_H */
