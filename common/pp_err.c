// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>

#include "pp_err.h"

void pp_err_set(struct pp_err *e, const char *fmt, ...)
{
	va_list ap;
	char *p;

	if (!e)
		return;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	for (p = e->msg; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f)
			*p = '?';
	e->remote = false;
}

void pp_err_clear(struct pp_err *e)
{
	if (!e)
		return;
	e->msg[0] = '\0';
	e->remote = false;
}
