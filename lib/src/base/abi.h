/* SPDX-License-Identifier: MIT */
/*
 * The one way the library copies a caller's versioned struct (its size_t size first), in and
 * out, as libpfm4's pfmlib_check_struct does: a caller built against an older, smaller struct
 * and one built against a newer, larger struct are both served (the rule is said for callers
 * in pbench/base.h). Check the struct first (PB_CHECK_STRUCT(): p set, .size at least the
 * size field).
 */
#ifndef PB_BASE_ABI_H
#define PB_BASE_ABI_H

#include <stddef.h>
#include <string.h>

/*
 * In: the caller's struct src over the library's own dst (of dst_size, the current size),
 * which the library has filled with the defaults first (what the struct's _OPTS_INIT gives,
 * or zeros). The caller's prefix replaces them; the fields an older caller's struct does not
 * have keep the defaults, and a newer caller's fields past dst_size are not read. dst->size
 * becomes dst_size.
 */
static inline void pb_copy_in(void *dst, size_t dst_size, const void *src)
{
	size_t have = *(const size_t *)src, n = have < dst_size ? have : dst_size;

	if (n > sizeof(size_t))	/* PB_CHECK_STRUCT() refused less; nothing to copy then */
		memcpy((char *)dst + sizeof(size_t), (const char *)src + sizeof(size_t),
		       n - sizeof(size_t));
	*(size_t *)dst = dst_size;
}

/*
 * Out: the library's src (of src_size) into the caller's dst. An older caller's struct gets
 * the prefix it knows; a newer caller's struct gets ours and the rest of its bytes zeroed.
 * dst->size becomes the bytes the library filled (the smaller of the two), so a newer caller
 * tells a field this library does not know (past .size) from a field that is 0.
 */
static inline void pb_copy_out(void *dst, const void *src, size_t src_size)
{
	size_t want = *(const size_t *)dst, n = want < src_size ? want : src_size;

	memcpy((char *)dst + sizeof(size_t), (const char *)src + sizeof(size_t),
	       n - sizeof(size_t));
	if (want > n)
		memset((char *)dst + n, 0, want - n);
	*(size_t *)dst = n;
}

#endif /* PB_BASE_ABI_H */
