// SPDX-License-Identifier: MIT
/*
 * pp_json.c - a small JSON writer with a stack of open containers, and the
 * figures object of one run.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp_json.h"

void pp_json_init(struct pp_json *j, FILE *f, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->pretty = pretty;
}

static int fail(struct pp_json *j, int err)
{
	if (!j->err)
		j->err = err;
	return j->err;
}

static void newline_indent(struct pp_json *j, unsigned int depth)
{
	unsigned int i;

	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (i = 0; i < depth; i++)
		fputs("  ", j->f);
}

/*
 * Everything that comes before a value: nothing after a key, else the
 * comma and the indent of an array element.  Checks that a value may come.
 */
static int before_value(struct pp_json *j)
{
	if (j->err)
		return j->err;
	if (!j->depth) {
		if (j->done)
			return fail(j, EINVAL);
		return 0;
	}
	if (j->want_value) {
		j->want_value = false;
		return 0;
	}
	if (j->stack[j->depth - 1].object)
		return fail(j, EINVAL); /* a value needs a key first */
	if (j->stack[j->depth - 1].members++)
		fputc(',', j->f);
	newline_indent(j, j->depth);
	return 0;
}

/* A scalar or a closed container completes the document at depth 0. */
static void after_value(struct pp_json *j)
{
	if (!j->depth)
		j->done = true;
}

/* The length of the valid UTF-8 sequence at @s, or 0 if it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	uint32_t cp;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) /* also stops at the NUL */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0; /* overlong, out of range, or a surrogate */
	return n;
}

static void put_string(struct pp_json *j, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n;

	fputc('"', j->f);
	while (*s) {
		switch (*s) {
		case '"':
			fputs("\\\"", j->f);
			break;
		case '\\':
			fputs("\\\\", j->f);
			break;
		case '\b':
			fputs("\\b", j->f);
			break;
		case '\f':
			fputs("\\f", j->f);
			break;
		case '\n':
			fputs("\\n", j->f);
			break;
		case '\r':
			fputs("\\r", j->f);
			break;
		case '\t':
			fputs("\\t", j->f);
			break;
		default:
			if (*s < 0x20) {
				fprintf(j->f, "\\u%04x", *s);
				break;
			}
			n = utf8_len(s);
			if (!n) {
				fputs("\\ufffd", j->f);
				break;
			}
			fwrite(s, 1, n, j->f);
			s += n;
			continue;
		}
		s++;
	}
	fputc('"', j->f);
}

static int begin(struct pp_json *j, bool object)
{
	if (before_value(j))
		return j->err;
	if (j->depth >= PP_JSON_MAX_DEPTH)
		return fail(j, E2BIG);
	fputc(object ? '{' : '[', j->f);
	j->stack[j->depth].object = object;
	j->stack[j->depth].members = 0;
	j->depth++;
	return 0;
}

static int end(struct pp_json *j, bool object)
{
	if (j->err)
		return j->err;
	if (!j->depth || j->stack[j->depth - 1].object != object ||
	    j->want_value)
		return fail(j, EINVAL);
	j->depth--;
	if (j->stack[j->depth].members)
		newline_indent(j, j->depth);
	fputc(object ? '}' : ']', j->f);
	after_value(j);
	return 0;
}

int pp_json_begin_object(struct pp_json *j)
{
	return begin(j, true);
}

int pp_json_end_object(struct pp_json *j)
{
	return end(j, true);
}

int pp_json_begin_array(struct pp_json *j)
{
	return begin(j, false);
}

int pp_json_end_array(struct pp_json *j)
{
	return end(j, false);
}

int pp_json_key(struct pp_json *j, const char *key)
{
	if (j->err)
		return j->err;
	if (!key || !j->depth || !j->stack[j->depth - 1].object ||
	    j->want_value)
		return fail(j, EINVAL);
	if (j->stack[j->depth - 1].members++)
		fputc(',', j->f);
	newline_indent(j, j->depth);
	put_string(j, key);
	fputs(j->pretty ? ": " : ":", j->f);
	j->want_value = true;
	return 0;
}

int pp_json_string(struct pp_json *j, const char *s)
{
	if (before_value(j))
		return j->err;
	if (s)
		put_string(j, s);
	else
		fputs("null", j->f);
	after_value(j);
	return 0;
}

int pp_json_int(struct pp_json *j, int64_t v)
{
	if (before_value(j))
		return j->err;
	fprintf(j->f, "%" PRId64, v);
	after_value(j);
	return 0;
}

int pp_json_uint(struct pp_json *j, uint64_t v)
{
	if (before_value(j))
		return j->err;
	fprintf(j->f, "%" PRIu64, v);
	after_value(j);
	return 0;
}

int pp_json_double(struct pp_json *j, double v)
{
	char buf[40], *p;

	if (before_value(j))
		return j->err;
	if (!isfinite(v)) {
		fputs("null", j->f);
	} else {
		/* The shortest of %.15g and %.17g that reads back as @v. */
		snprintf(buf, sizeof(buf), "%.15g", v);
		if (strtod(buf, NULL) != v)
			snprintf(buf, sizeof(buf), "%.17g", v);
		for (p = buf; *p; p++)
			if (*p == ',') /* a locale's decimal comma */
				*p = '.';
		fputs(buf, j->f);
	}
	after_value(j);
	return 0;
}

int pp_json_bool(struct pp_json *j, bool v)
{
	if (before_value(j))
		return j->err;
	fputs(v ? "true" : "false", j->f);
	after_value(j);
	return 0;
}

int pp_json_null(struct pp_json *j)
{
	if (before_value(j))
		return j->err;
	fputs("null", j->f);
	after_value(j);
	return 0;
}

int pp_json_key_string(struct pp_json *j, const char *key, const char *s)
{
	int ret = pp_json_key(j, key);

	return ret ? ret : pp_json_string(j, s);
}

int pp_json_key_int(struct pp_json *j, const char *key, int64_t v)
{
	int ret = pp_json_key(j, key);

	return ret ? ret : pp_json_int(j, v);
}

int pp_json_key_uint(struct pp_json *j, const char *key, uint64_t v)
{
	int ret = pp_json_key(j, key);

	return ret ? ret : pp_json_uint(j, v);
}

int pp_json_key_int_or_null(struct pp_json *j, const char *key, bool known,
			    int64_t v)
{
	int ret = pp_json_key(j, key);

	if (ret)
		return ret;
	return known ? pp_json_int(j, v) : pp_json_null(j);
}

int pp_json_key_string_or_null(struct pp_json *j, const char *key,
			       const char *s)
{
	int ret = pp_json_key(j, key);

	if (ret)
		return ret;
	return s && *s ? pp_json_string(j, s) : pp_json_null(j);
}

int pp_json_key_double(struct pp_json *j, const char *key, double v)
{
	int ret = pp_json_key(j, key);

	return ret ? ret : pp_json_double(j, v);
}

int pp_json_key_bool(struct pp_json *j, const char *key, bool v)
{
	int ret = pp_json_key(j, key);

	return ret ? ret : pp_json_bool(j, v);
}

int pp_json_finish(struct pp_json *j)
{
	if (j->err)
		return j->err;
	if (j->depth || !j->done)
		return fail(j, EINVAL);
	fputc('\n', j->f);
	if (fflush(j->f) || ferror(j->f))
		return fail(j, EIO);
	return 0;
}

int pp_json_figures(struct pp_json *j, const struct pp_stats *s, uint64_t size,
		    uint64_t iters, double seconds)
{
	bool rate = seconds > 0.0 && isfinite(seconds);
	double bytes = 2.0 * (double)size * (double)iters;

	pp_json_begin_object(j);
	pp_json_key_uint(j, "iterations", iters);
	pp_json_key_uint(j, "bytes", 2 * size * iters);
	pp_json_key_double(j, "seconds", seconds);
	pp_json_key_double(j, "usec_per_iter",
			   rate && iters ? seconds * 1e6 / (double)iters : NAN);
	pp_json_key_double(j, "mbit_per_sec",
			   rate ? bytes * 8.0 / (seconds * 1e6) : NAN);
	pp_json_key_double(j, "msg_per_sec",
			   rate ? 2.0 * (double)iters / seconds : NAN);
	pp_json_key(j, "latency_usec");
	if (!s) {
		pp_json_null(j);
	} else {
		pp_json_begin_object(j);
		pp_json_key_double(j, "min", s->min);
		pp_json_key_double(j, "median", s->median);
		pp_json_key_double(j, "mean", s->mean);
		pp_json_key_double(j, "stdev", s->stdev);
		pp_json_key_double(j, "p50", s->p50);
		pp_json_key_double(j, "p90", s->p90);
		pp_json_key_double(j, "p99", s->p99);
		pp_json_key_double(j, "p99_9", s->p999);
		pp_json_key_double(j, "max", s->max);
		pp_json_key_uint(j, "samples", s->n);
		pp_json_end_object(j);
	}
	return pp_json_end_object(j);
}

/* The strict reader of pp_json_valid(): @p moves past one value. */
struct vr {
	const unsigned char *p;
	unsigned int depth;
};

static void skip_ws(struct vr *r)
{
	while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')
		r->p++;
}

static bool v_lit(struct vr *r, const char *lit)
{
	size_t n = strlen(lit);

	if (strncmp((const char *)r->p, lit, n))
		return false;
	r->p += n;
	return true;
}

static bool v_string(struct vr *r)
{
	size_t n;
	int i;

	if (*r->p != '"')
		return false;
	r->p++;
	for (;;) {
		if (*r->p == '"') {
			r->p++;
			return true;
		}
		if (*r->p < 0x20)
			return false; /* a control character, or the end */
		if (*r->p == '\\') {
			r->p++;
			if (*r->p == 'u') {
				for (i = 1; i <= 4; i++)
					if (!isxdigit(r->p[i]))
						return false;
				r->p += 5;
			} else if (*r->p && strchr("\"\\/bfnrt", *r->p)) {
				r->p++;
			} else {
				return false;
			}
			continue;
		}
		n = utf8_len(r->p);
		if (!n)
			return false;
		r->p += n;
	}
}

static bool v_digits(struct vr *r)
{
	if (!isdigit(*r->p))
		return false;
	while (isdigit(*r->p))
		r->p++;
	return true;
}

static bool v_number(struct vr *r)
{
	if (*r->p == '-')
		r->p++;
	if (*r->p == '0')
		r->p++;
	else if (!v_digits(r))
		return false;
	if (*r->p == '.') {
		r->p++;
		if (!v_digits(r))
			return false;
	}
	if (*r->p == 'e' || *r->p == 'E') {
		r->p++;
		if (*r->p == '+' || *r->p == '-')
			r->p++;
		if (!v_digits(r))
			return false;
	}
	return true;
}

static bool v_value(struct vr *r);

/* An object (@close '}') or an array (']') after its opening bracket. */
static bool v_container(struct vr *r, char close)
{
	bool ok = true;

	if (++r->depth > 64)
		return false;
	skip_ws(r);
	if (*r->p == close) {
		r->p++;
		r->depth--;
		return true;
	}
	for (;;) {
		if (close == '}') {
			ok = v_string(r);
			skip_ws(r);
			if (!ok || *r->p != ':')
				return false;
			r->p++;
		}
		if (!v_value(r))
			return false;
		if (*r->p == ',') {
			r->p++;
			skip_ws(r);
			continue;
		}
		if (*r->p != close)
			return false;
		r->p++;
		r->depth--;
		return true;
	}
}

/* One value with the white space around it. */
static bool v_value(struct vr *r)
{
	bool ok;

	skip_ws(r);
	switch (*r->p) {
	case '{':
		r->p++;
		ok = v_container(r, '}');
		break;
	case '[':
		r->p++;
		ok = v_container(r, ']');
		break;
	case '"':
		ok = v_string(r);
		break;
	case 't':
		ok = v_lit(r, "true");
		break;
	case 'f':
		ok = v_lit(r, "false");
		break;
	case 'n':
		ok = v_lit(r, "null");
		break;
	default:
		ok = v_number(r);
	}
	if (ok)
		skip_ws(r);
	return ok;
}

bool pp_json_valid(const char *text)
{
	struct vr r = { .p = (const unsigned char *)text };

	if (!text || !v_value(&r))
		return false;
	return *r.p == '\0';
}

int pp_json_raw(struct pp_json *j, const char *text)
{
	size_t len;

	if (j->err)
		return j->err;
	if (!pp_json_valid(text))
		return EBADMSG; /* nothing written: the writer goes on */
	while (*text == ' ' || *text == '\t' || *text == '\n' || *text == '\r')
		text++;
	len = strlen(text);
	while (len && strchr(" \t\n\r", text[len - 1]))
		len--;
	if (before_value(j))
		return j->err;
	fwrite(text, 1, len, j->f);
	after_value(j);
	return 0;
}
