// SPDX-License-Identifier: MIT
/*
 * pp_clock.c - calibrate the cycle counter against CLOCK_MONOTONIC.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp_clock.h"

#define CALIBRATE_NS 10000000LL /* 10 ms */

struct pp_clock pp_clock;
static bool chosen;

/* One (monotonic, ticks) pair, the ticks read on both sides of the clock. */
static void pair(int64_t *mono, uint64_t *ticks)
{
	uint64_t a = pp_clock_ticks();

	*mono = pp_now_ns();
	*ticks = a + (pp_clock_ticks() - a) / 2;
}

bool pp_clock_init(void)
{
	const char *env = getenv("PP_CLOCK");
	uint64_t t0, t1;
	int64_t m0, m1;
	double scale;

	if (chosen)
		return pp_clock.ticks;
	chosen = true;
	if ((env && !strcmp(env, "monotonic")) || !pp_clock_ticks())
		return false;
	pair(&m0, &t0);
	do
		pair(&m1, &t1);
	while (m1 - m0 < CALIBRATE_NS);
	if (t1 <= t0)
		return false;
	scale = (double)(m1 - m0) / (double)(t1 - t0);
	/* a counter from 1 MHz to 100 GHz; anything else is not one */
	if (!(scale > 0.01 && scale < 1000.0))
		return false;
	pp_clock = (struct pp_clock){
		.ticks = true,
		.tick0 = t1,
		.mono0 = m1,
		.ns_per_tick = scale,
	};
	return true;
}

const char *pp_clock_name(char *buf, unsigned long len)
{
	if (pp_clock.ticks)
		snprintf(buf, len, "cycle counter (%.3f GHz)",
			 1.0 / pp_clock.ns_per_tick);
	else
		snprintf(buf, len, "CLOCK_MONOTONIC");
	return buf;
}
