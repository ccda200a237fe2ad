/* SPDX-License-Identifier: MIT */
/*
 * What the exports share of text (export.h): the length of one UTF-8 character, so that a
 * name with bytes that are not UTF-8 (a symbol table is bytes) becomes U+FFFD in the flame
 * graph's XML and in pprof's strings (proto3 strings must be UTF-8: Go's decoders refuse
 * others), and a name is cut at a character, never inside one.
 */
#include <stdint.h>

#include "profile/export.h"

int pb_utf8_len(const unsigned char *s, int xml)
{
	uint32_t c;
	int n;

	if (s[0] < 0x80)
		return !xml || s[0] >= 0x20 || s[0] == '\t' || s[0] == '\n' ? 1 : 0;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, c = s[0] & 0x07;
	else
		return 0;
	for (int k = 1; k < n; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[k] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff) || (xml && (c == 0xfffe || c == 0xffff)))
		return 0;
	return n;
}
