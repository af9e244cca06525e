// SPDX-License-Identifier: MIT
/*
 * test_json.c - pp_json: escaping, commas and nesting, numbers (NaN and
 * infinities as null), misuse, and the figures object, checked by a strict
 * validator here and by Python's json module (python3 is required).
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check_main.h"
#include "pp_json.h"
#include "pp_stats.h"

/* --- A strict RFC 8259 validator: true when @p holds one JSON text. ---- */

static void skip_ws(const char **p)
{
	while (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r')
		(*p)++;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool parse_value(const char **p, int depth);

static bool parse_string(const char **p)
{
	const unsigned char *s = (const unsigned char *)*p;
	int i;

	if (*s++ != '"')
		return false;
	for (;;) {
		if (*s == '"')
			break;
		if (*s < 0x20) /* also the end of the text */
			return false;
		if (*s == '\\') {
			s++;
			if (*s == 'u') {
				for (i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF",
						    s[i]) ||
					    !s[i])
						return false;
				s += 5;
				continue;
			}
			if (!*s || !strchr("\"\\/bfnrt", *s))
				return false;
		}
		s++;
	}
	*p = (const char *)s + 1;
	return true;
}

static bool parse_number(const char **p)
{
	const char *s = *p;

	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		while (is_digit(*s))
			s++;
	else
		return false;
	if (*s == '.') {
		s++;
		if (!is_digit(*s))
			return false;
		while (is_digit(*s))
			s++;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!is_digit(*s))
			return false;
		while (is_digit(*s))
			s++;
	}
	*p = s;
	return true;
}

static bool parse_word(const char **p, const char *w)
{
	size_t n = strlen(w);

	if (strncmp(*p, w, n))
		return false;
	*p += n;
	return true;
}

static bool parse_container(const char **p, int depth, bool object)
{
	char close = object ? '}' : ']';

	(*p)++;
	skip_ws(p);
	if (**p == close) {
		(*p)++;
		return true;
	}
	for (;;) {
		skip_ws(p);
		if (object) {
			if (!parse_string(p))
				return false;
			skip_ws(p);
			if (*(*p)++ != ':')
				return false;
		}
		if (!parse_value(p, depth + 1))
			return false;
		skip_ws(p);
		if (**p == ',') {
			(*p)++;
			continue;
		}
		if (**p != close)
			return false;
		(*p)++;
		return true;
	}
}

static bool parse_value(const char **p, int depth)
{
	if (depth > 64)
		return false;
	skip_ws(p);
	switch (**p) {
	case '{':
		return parse_container(p, depth, true);
	case '[':
		return parse_container(p, depth, false);
	case '"':
		return parse_string(p);
	case 't':
		return parse_word(p, "true");
	case 'f':
		return parse_word(p, "false");
	case 'n':
		return parse_word(p, "null");
	default:
		return parse_number(p);
	}
}

static bool json_valid(const char *text)
{
	const char *p = text;

	if (!parse_value(&p, 0))
		return false;
	skip_ws(&p);
	return *p == '\0';
}

/* --- Helpers -------------------------------------------------------- */

struct doc {
	char *buf;
	size_t len;
	FILE *f;
	struct pp_json j;
};

static void doc_open(struct doc *d, bool pretty)
{
	d->buf = NULL;
	d->len = 0;
	d->f = open_memstream(&d->buf, &d->len);
	ck_assert_ptr_nonnull(d->f);
	pp_json_init(&d->j, d->f, pretty);
}

/* Finish the document (expecting @err) and return its text, to be freed. */
static char *doc_close(struct doc *d, int err)
{
	ck_assert_int_eq(pp_json_finish(&d->j), err);
	ck_assert_int_eq(fclose(d->f), 0);
	return d->buf;
}

/* A string value written alone. */
static char *one_string(const char *s)
{
	struct doc d;

	doc_open(&d, false);
	ck_assert_int_eq(pp_json_string(&d.j, s), 0);
	return doc_close(&d, 0);
}

static char *one_double(double v)
{
	struct doc d;

	doc_open(&d, false);
	ck_assert_int_eq(pp_json_double(&d.j, v), 0);
	return doc_close(&d, 0);
}

static void expect_string(const char *in, const char *out)
{
	char *text = one_string(in);

	ck_assert_str_eq(text, out);
	ck_assert(json_valid(text));
	free(text);
}

static void expect_double(double v, const char *out)
{
	char *text = one_double(v);

	ck_assert_str_eq(text, out);
	ck_assert(json_valid(text));
	free(text);
}

/* --- Tests ---------------------------------------------------------- */

START_TEST(test_validator_itself)
{
	/* The validator must reject what the writer must never produce. */
	ck_assert(json_valid("{\"a\":[1,-2.5e+3,true,null,\"x\\u00e9\"]}"));
	ck_assert(!json_valid("{\"a\":1,}"));
	ck_assert(!json_valid("[1 2]"));
	ck_assert(!json_valid("nan"));
	ck_assert(!json_valid("[inf]"));
	ck_assert(!json_valid("\"a\nb\""));
	ck_assert(!json_valid("01"));
	ck_assert(!json_valid("1."));
	ck_assert(!json_valid("{} {}"));
	ck_assert(!json_valid("\"\\x\""));
	ck_assert(!json_valid("{1:2}"));
}
END_TEST

START_TEST(test_escape)
{
	expect_string("plain", "\"plain\"\n");
	expect_string("", "\"\"\n");
	expect_string("a\"b\\c", "\"a\\\"b\\\\c\"\n");
	expect_string("\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"\n");
	expect_string("\x01\x1f", "\"\\u0001\\u001f\"\n");
	expect_string("x\x7f/y", "\"x\x7f/y\"\n"); /* DEL and / need none */
	/* Valid UTF-8 passes through: e-acute, euro sign, U+1F600. */
	expect_string("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
		      "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"\n");
	/* Invalid bytes become U+FFFD: a stray continuation, a truncated
	 * sequence, an overlong '/', a surrogate, 0xff. */
	expect_string("a\x80z", "\"a\\ufffdz\"\n");
	expect_string("\xc3", "\"\\ufffd\"\n");
	expect_string("\xc0\xaf", "\"\\ufffd\\ufffd\"\n");
	expect_string("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"\n");
	expect_string("\xff", "\"\\ufffd\"\n");
}
END_TEST

START_TEST(test_escape_keys)
{
	struct doc d;
	char *text;

	doc_open(&d, false);
	pp_json_begin_object(&d.j);
	pp_json_key_string(&d.j, "k\"\n", "v\x02");
	pp_json_end_object(&d.j);
	text = doc_close(&d, 0);
	ck_assert_str_eq(text, "{\"k\\\"\\n\":\"v\\u0002\"}\n");
	ck_assert(json_valid(text));
	free(text);
}
END_TEST

START_TEST(test_nesting_commas)
{
	struct doc d;
	char *text;

	doc_open(&d, false);
	pp_json_begin_object(&d.j);
	pp_json_key(&d.j, "a");
	pp_json_begin_array(&d.j);
	pp_json_int(&d.j, 1);
	pp_json_int(&d.j, -2);
	pp_json_begin_object(&d.j);
	pp_json_key_bool(&d.j, "b", true);
	pp_json_key_bool(&d.j, "c", false);
	pp_json_end_object(&d.j);
	pp_json_begin_array(&d.j);
	pp_json_end_array(&d.j);
	pp_json_end_array(&d.j);
	pp_json_key(&d.j, "n");
	pp_json_null(&d.j);
	pp_json_key(&d.j, "e");
	pp_json_begin_object(&d.j);
	pp_json_end_object(&d.j);
	pp_json_key_uint(&d.j, "u", UINT64_MAX);
	pp_json_key_int(&d.j, "i", INT64_MIN);
	pp_json_end_object(&d.j);
	text = doc_close(&d, 0);
	ck_assert_str_eq(text,
			 "{\"a\":[1,-2,{\"b\":true,\"c\":false},[]],\"n\":null,"
			 "\"e\":{},\"u\":18446744073709551615,"
			 "\"i\":-9223372036854775808}\n");
	ck_assert(json_valid(text));
	free(text);
}
END_TEST

START_TEST(test_or_null)
{
	struct doc d;
	char *text;

	doc_open(&d, false);
	pp_json_begin_object(&d.j);
	ck_assert_int_eq(pp_json_key_int_or_null(&d.j, "k", true, -3), 0);
	ck_assert_int_eq(pp_json_key_int_or_null(&d.j, "zero", true, 0), 0);
	ck_assert_int_eq(pp_json_key_int_or_null(&d.j, "u", false, 7), 0);
	ck_assert_int_eq(pp_json_key_string_or_null(&d.j, "s", "x"), 0);
	ck_assert_int_eq(pp_json_key_string_or_null(&d.j, "e", ""), 0);
	ck_assert_int_eq(pp_json_key_string_or_null(&d.j, "n", NULL), 0);
	pp_json_end_object(&d.j);
	text = doc_close(&d, 0);
	ck_assert_str_eq(text, "{\"k\":-3,\"zero\":0,\"u\":null,\"s\":\"x\","
			       "\"e\":null,\"n\":null}\n");
	ck_assert(json_valid(text));
	free(text);
}
END_TEST

START_TEST(test_pretty)
{
	struct doc d;
	char *text;

	doc_open(&d, true);
	pp_json_begin_object(&d.j);
	pp_json_key_int(&d.j, "schema", 1);
	pp_json_key(&d.j, "list");
	pp_json_begin_array(&d.j);
	pp_json_string(&d.j, "x");
	pp_json_begin_object(&d.j);
	pp_json_end_object(&d.j);
	pp_json_end_array(&d.j);
	pp_json_key(&d.j, "empty");
	pp_json_begin_array(&d.j);
	pp_json_end_array(&d.j);
	pp_json_end_object(&d.j);
	text = doc_close(&d, 0);
	ck_assert_str_eq(text, "{\n"
			       "  \"schema\": 1,\n"
			       "  \"list\": [\n"
			       "    \"x\",\n"
			       "    {}\n"
			       "  ],\n"
			       "  \"empty\": []\n"
			       "}\n");
	ck_assert(json_valid(text));
	free(text);
}
END_TEST

START_TEST(test_doubles)
{
	char *text;

	expect_double(NAN, "null\n");
	expect_double(INFINITY, "null\n");
	expect_double(-INFINITY, "null\n");
	expect_double(0.1, "0.1\n");
	expect_double(12.345, "12.345\n");
	expect_double(1.0, "1\n");
	expect_double(-0.0, "-0\n");
	expect_double(1e300, "1e+300\n");
	expect_double(5e-324, "4.94065645841247e-324\n"); /* reads back */

	/* Enough digits to read back exactly. */
	text = one_double(1.0 / 3.0);
	ck_assert(strtod(text, NULL) == 1.0 / 3.0);
	free(text);
	text = one_double(0.1 + 0.2);
	ck_assert(strtod(text, NULL) == 0.1 + 0.2);
	ck_assert_str_eq(text, "0.30000000000000004\n");
	free(text);
}
END_TEST

START_TEST(test_nan_in_array)
{
	struct doc d;
	char *text;

	doc_open(&d, false);
	pp_json_begin_array(&d.j);
	pp_json_double(&d.j, NAN);
	pp_json_double(&d.j, 2.5);
	pp_json_double(&d.j, -INFINITY);
	pp_json_end_array(&d.j);
	text = doc_close(&d, 0);
	ck_assert_str_eq(text, "[null,2.5,null]\n");
	ck_assert(json_valid(text));
	free(text);
}
END_TEST

START_TEST(test_misuse)
{
	struct doc d;
	int i;

	/* A value in an object needs a key; the error sticks. */
	doc_open(&d, false);
	pp_json_begin_object(&d.j);
	ck_assert_int_eq(pp_json_int(&d.j, 1), EINVAL);
	ck_assert_int_eq(pp_json_key(&d.j, "a"), EINVAL);
	free(doc_close(&d, EINVAL));

	/* A key in an array. */
	doc_open(&d, false);
	pp_json_begin_array(&d.j);
	ck_assert_int_eq(pp_json_key(&d.j, "a"), EINVAL);
	free(doc_close(&d, EINVAL));

	/* Two keys in a row; closing with a key pending; NULL key. */
	doc_open(&d, false);
	pp_json_begin_object(&d.j);
	ck_assert_int_eq(pp_json_key(&d.j, "a"), 0);
	ck_assert_int_eq(pp_json_key(&d.j, "b"), EINVAL);
	free(doc_close(&d, EINVAL));
	doc_open(&d, false);
	pp_json_begin_object(&d.j);
	pp_json_key(&d.j, "a");
	ck_assert_int_eq(pp_json_end_object(&d.j), EINVAL);
	free(doc_close(&d, EINVAL));
	doc_open(&d, false);
	pp_json_begin_object(&d.j);
	ck_assert_int_eq(pp_json_key(&d.j, NULL), EINVAL);
	free(doc_close(&d, EINVAL));

	/* Closing the wrong container, or nothing. */
	doc_open(&d, false);
	pp_json_begin_object(&d.j);
	ck_assert_int_eq(pp_json_end_array(&d.j), EINVAL);
	free(doc_close(&d, EINVAL));
	doc_open(&d, false);
	ck_assert_int_eq(pp_json_end_object(&d.j), EINVAL);
	free(doc_close(&d, EINVAL));

	/* A second top-level value; an empty document; one left open. */
	doc_open(&d, false);
	ck_assert_int_eq(pp_json_int(&d.j, 1), 0);
	ck_assert_int_eq(pp_json_int(&d.j, 2), EINVAL);
	free(doc_close(&d, EINVAL));
	doc_open(&d, false);
	free(doc_close(&d, EINVAL));
	doc_open(&d, false);
	pp_json_begin_array(&d.j);
	free(doc_close(&d, EINVAL));

	/* Too deep. */
	doc_open(&d, false);
	for (i = 0; i < PP_JSON_MAX_DEPTH; i++)
		ck_assert_int_eq(pp_json_begin_array(&d.j), 0);
	ck_assert_int_eq(pp_json_begin_array(&d.j), E2BIG);
	free(doc_close(&d, E2BIG));
}
END_TEST

START_TEST(test_stream_error)
{
	struct pp_json j;
	FILE *f = fopen("/dev/full", "w");
	int i;

	if (!f)
		return; /* no /dev/full here: nothing to test */
	pp_json_init(&j, f, false);
	pp_json_begin_array(&j);
	for (i = 0; i < 10000; i++) /* more than a stdio buffer */
		pp_json_string(&j, "0123456789");
	pp_json_end_array(&j);
	ck_assert_int_eq(pp_json_finish(&j), EIO);
	fclose(f);
}
END_TEST

static const char *const figure_keys[] = {
	"iterations",	"bytes",       "seconds",      "usec_per_iter",
	"mbit_per_sec", "msg_per_sec", "latency_usec",
};

static const char *const latency_keys[] = {
	"min", "median", "mean",  "stdev", "p50",
	"p90", "p99",	 "p99_9", "max",   "samples",
};

/* Python's json module parses @text and finds every field (exit 0).  No
 * python3 is a failure: tests/install-deps.sh installs it. */
static int python_check(const char *text, bool latency)
{
	char cmd[1024];
	FILE *p;
	int st;

	ck_assert_msg(!system("command -v python3 >/dev/null 2>&1"),
		      "python3 not found: install it (tests/install-deps.sh)");
	snprintf(
		cmd, sizeof(cmd),
		"python3 -c '"
		"import json, math, sys\n"
		"d = json.load(sys.stdin)\n"
		"top = %s\n"
		"lat = %s\n"
		"assert sorted(d) == sorted(top), d\n"
		"assert isinstance(d[\"iterations\"], int)\n"
		"assert isinstance(d[\"bytes\"], int)\n"
		"if %s:\n"
		"    assert sorted(d[\"latency_usec\"]) == sorted(lat)\n"
		"    assert isinstance(d[\"latency_usec\"][\"samples\"], int)\n"
		"else:\n"
		"    assert d[\"latency_usec\"] is None\n"
		"'",
		"[\"iterations\", \"bytes\", \"seconds\", \"usec_per_iter\", \"mbit_per_sec\", \"msg_per_sec\", \"latency_usec\"]",
		"[\"min\", \"median\", \"mean\", \"stdev\", \"p50\", \"p90\", \"p99\", \"p99_9\", \"max\", \"samples\"]",
		latency ? "True" : "False");
	p = popen(cmd, "w");
	ck_assert_ptr_nonnull(p);
	fputs(text, p);
	st = pclose(p);
	ck_assert_int_ne(st, -1);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static char *figures_text(const struct pp_stats *s, uint64_t size,
			  uint64_t iters, double seconds, bool pretty)
{
	struct doc d;

	doc_open(&d, pretty);
	ck_assert_int_eq(pp_json_figures(&d.j, s, size, iters, seconds), 0);
	return doc_close(&d, 0);
}

/* "key": in the compact text. */
static bool has_key(const char *text, const char *key)
{
	char pat[64];

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	return strstr(text, pat) != NULL;
}

START_TEST(test_figures)
{
	uint64_t ns[1000];
	struct pp_stats st;
	char *text;
	size_t i;
	int py;

	for (i = 0; i < 1000; i++)
		ns[i] = (i + 1) * 1000; /* 1..1000 us */
	ck_assert_int_eq(pp_stats_compute(ns, 1000, &st), 0);
	text = figures_text(&st, 4096, 1000, 0.5, false);
	ck_assert(json_valid(text));
	for (i = 0; i < sizeof(figure_keys) / sizeof(figure_keys[0]); i++)
		ck_assert_msg(has_key(text, figure_keys[i]), "no %s in %s",
			      figure_keys[i], text);
	for (i = 0; i < sizeof(latency_keys) / sizeof(latency_keys[0]); i++)
		ck_assert_msg(has_key(text, latency_keys[i]), "no %s in %s",
			      latency_keys[i], text);
	ck_assert_ptr_nonnull(strstr(text, "\"iterations\":1000,"));
	ck_assert_ptr_nonnull(strstr(text, "\"bytes\":8192000,"));
	ck_assert_ptr_nonnull(strstr(text, "\"seconds\":0.5,"));
	ck_assert_ptr_nonnull(strstr(text, "\"usec_per_iter\":500,"));
	ck_assert_ptr_nonnull(strstr(text, "\"mbit_per_sec\":131.072,"));
	ck_assert_ptr_nonnull(strstr(text, "\"msg_per_sec\":4000,"));
	ck_assert_ptr_nonnull(strstr(text, "\"min\":1,"));
	ck_assert_ptr_nonnull(strstr(text, "\"median\":500.5,"));
	ck_assert_ptr_nonnull(strstr(text, "\"p99_9\":999,"));
	ck_assert_ptr_nonnull(strstr(text, "\"max\":1000,"));
	ck_assert_ptr_nonnull(strstr(text, "\"samples\":1000}}"));
	py = python_check(text, true);
	ck_assert_msg(py == 0, "python3 rejected: %s", text);
	free(text);

	/* Pretty, the same figures: still valid, same fields. */
	text = figures_text(&st, 4096, 1000, 0.5, true);
	ck_assert(json_valid(text));
	py = python_check(text, true);
	ck_assert_msg(py == 0, "python3 rejected: %s", text);
	free(text);
}
END_TEST

/* No samples and no time: rates and latency are null, never nan. */
START_TEST(test_figures_nothing)
{
	char *text;
	int py;

	text = figures_text(NULL, 1, 0, 0.0, false);
	ck_assert_str_eq(text, "{\"iterations\":0,\"bytes\":0,\"seconds\":0,"
			       "\"usec_per_iter\":null,\"mbit_per_sec\":null,"
			       "\"msg_per_sec\":null,\"latency_usec\":null}\n");
	ck_assert(json_valid(text));
	py = python_check(text, false);
	ck_assert_msg(py == 0, "python3 rejected: %s", text);
	free(text);

	text = figures_text(NULL, 64, 10, NAN, false);
	ck_assert(json_valid(text));
	ck_assert_ptr_null(strstr(text, "nan"));
	ck_assert_ptr_nonnull(strstr(text, "\"seconds\":null,"));
	free(text);
}
END_TEST

/* As a member of a larger document (the sweep of docs/measurement.md). */
START_TEST(test_figures_in_document)
{
	uint64_t ns[] = { 2000, 4000, 3000 };
	struct pp_stats st;
	struct doc d;
	char *text;
	int i;

	ck_assert_int_eq(pp_stats_compute(ns, 3, &st), 0);
	doc_open(&d, true);
	pp_json_begin_object(&d.j);
	pp_json_key_int(&d.j, "schema", 1);
	pp_json_key(&d.j, "results");
	pp_json_begin_array(&d.j);
	for (i = 0; i < 3; i++) {
		pp_json_begin_object(&d.j);
		pp_json_key_uint(&d.j, "size", 1u << (4 * i));
		pp_json_key(&d.j, "figures");
		pp_json_figures(&d.j, &st, 1u << (4 * i), 3, 9e-6);
		pp_json_end_object(&d.j);
	}
	pp_json_end_array(&d.j);
	pp_json_end_object(&d.j);
	text = doc_close(&d, 0);
	ck_assert(json_valid(text));
	free(text);
}
END_TEST

static Suite *json_suite(void)
{
	Suite *s = suite_create("json");
	TCase *tw = tcase_create("writer");
	TCase *tf = tcase_create("figures");

	tcase_add_test(tw, test_validator_itself);
	tcase_add_test(tw, test_escape);
	tcase_add_test(tw, test_escape_keys);
	tcase_add_test(tw, test_nesting_commas);
	tcase_add_test(tw, test_or_null);
	tcase_add_test(tw, test_pretty);
	tcase_add_test(tw, test_doubles);
	tcase_add_test(tw, test_nan_in_array);
	tcase_add_test(tw, test_misuse);
	tcase_add_test(tw, test_stream_error);
	suite_add_tcase(s, tw);

	/* python3 can take seconds to start on a loaded machine. */
	tcase_set_timeout(tf, 60);
	tcase_add_test(tf, test_figures);
	tcase_add_test(tf, test_figures_nothing);
	tcase_add_test(tf, test_figures_in_document);
	suite_add_tcase(s, tf);
	return s;
}

PP_CHECK_MAIN(json_suite)
