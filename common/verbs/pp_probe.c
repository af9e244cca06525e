// SPDX-License-Identifier: MIT
/*
 * pp_probe.c - --probe's pairing rules and the step of a failed row: pure
 * functions (pp_probe.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp_probe.h"

static bool is_roce(uint8_t type)
{
	return type == PP_GID_TYPE_ROCE_V1 || type == PP_GID_TYPE_ROCE_V2;
}

bool pp_probe_compatible(const struct pp_gid_entry *local,
			 const struct pp_gid_entry *remote)
{
	enum pp_gid_family lf = pp_gid_family(local->raw);
	enum pp_gid_family rf = pp_gid_family(remote->raw);

	if (!local->populated || !remote->populated)
		return false;
	if (!is_roce(local->type) || local->type != remote->type)
		return false;
	/* IPv4, IPv6 and link-local are three families here */
	return lf != PP_GID_FAM_NONE && lf == rf;
}

/* Positions of @tbl in index order (a table may come in any order). */
static void by_index(const struct pp_gid_entry *tbl, int n, int *pos)
{
	int i, j, t;

	for (i = 0; i < n; i++)
		pos[i] = i;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && tbl[pos[j - 1]].index > tbl[pos[j]].index;
		     j--) {
			t = pos[j];
			pos[j] = pos[j - 1];
			pos[j - 1] = t;
		}
}

size_t pp_probe_pairs(const struct pp_gid_entry *loc, int nl,
		      const struct pp_gid_entry *rem, int nr,
		      struct pp_probe_pair *out, size_t max)
{
	int *lp, *rp, i, j;
	size_t n = 0;

	if (nl <= 0 || nr <= 0)
		return 0;
	lp = calloc((size_t)nl, sizeof(*lp));
	rp = calloc((size_t)nr, sizeof(*rp));
	if (!lp || !rp)
		goto out;
	by_index(loc, nl, lp);
	by_index(rem, nr, rp);
	for (i = 0; i < nl; i++)
		for (j = 0; j < nr && n < max; j++)
			if (pp_probe_compatible(&loc[lp[i]], &rem[rp[j]]))
				out[n++] = (struct pp_probe_pair){
					.local = lp[i],
					.remote = rp[j],
				};
out:
	free(lp);
	free(rp);
	return n;
}

size_t pp_probe_mtus(uint32_t local_active, uint32_t remote_active,
		     uint32_t *out)
{
	uint32_t top = local_active, m;
	size_t n = 0;

	if (!top || (remote_active && remote_active < top))
		top = remote_active;
	for (m = 256; m <= top && m <= 4096 && n < PP_PROBE_MTUS; m *= 2)
		out[n++] = m;
	return n;
}

enum pp_probe_step pp_probe_step_of(int phase, int ret, const char *msg,
				    uint64_t completed)
{
	if (!ret)
		return PP_PROBE_OK;
	if (phase <= 0)
		return PP_PROBE_HANDSHAKE;
	if (phase == 1) {
		/* pp_qp_modify()'s line, ours or the server's in its ERROR */
		if (msg && strstr(msg, " to RTR failed"))
			return PP_PROBE_RTR;
		if (msg && strstr(msg, " to RTS failed"))
			return PP_PROBE_RTS;
		return PP_PROBE_HANDSHAKE;
	}
	if (ret == EILSEQ)
		return PP_PROBE_DATA;
	return completed ? PP_PROBE_RUN : PP_PROBE_FIRST;
}

const char *pp_probe_step_name(enum pp_probe_step step)
{
	switch (step) {
	case PP_PROBE_OK:
		return "ok";
	case PP_PROBE_HANDSHAKE:
		return "handshake";
	case PP_PROBE_RTR:
		return "RTR";
	case PP_PROBE_RTS:
		return "RTS";
	case PP_PROBE_FIRST:
		return "first completion";
	case PP_PROBE_RUN:
		return "run";
	case PP_PROBE_DATA:
		return "data check";
	case PP_PROBE_DEADLINE:
		return "row deadline";
	}
	return "?";
}

bool pp_probe_try_again(enum pp_probe_step step)
{
	return step == PP_PROBE_FIRST || step == PP_PROBE_RUN;
}

/* @in with every hexadecimal number written "0x...", into @out. */
static void note_key(const char *in, char *out, size_t len)
{
	size_t o = 0;

	while (*in && o + 1 < len) {
		if (in[0] == '0' && in[1] == 'x' &&
		    isxdigit((unsigned char)in[2])) {
			in += 2;
			while (isxdigit((unsigned char)*in))
				in++;
			o += (size_t)snprintf(out + o, len - o, "0x...");
			if (o >= len)
				o = len - 1;
			continue;
		}
		out[o++] = *in++;
	}
	out[o] = '\0';
}

size_t pp_probe_note(struct pp_probe_notes *notes, const char *reason)
{
	char key[PP_PROBE_NOTE_LEN];
	size_t i;

	note_key(reason, key, sizeof(key));
	for (i = 0; i < notes->n; i++)
		if (!strcmp(notes->text[i], key))
			return i + 1;
	if (notes->n == PP_PROBE_NOTES)
		return 0;
	memcpy(notes->text[notes->n], key, sizeof(key));
	return ++notes->n;
}
