/* SPDX-License-Identifier: MIT */
/* The program that spends its time in libhot.so's hot_loop: uses-hot N (iterations). */
#include <stdint.h>
#include <stdlib.h>

uint64_t hot_loop(uint64_t n);

int main(int argc, char **argv)
{
	return (int)(hot_loop(argc > 1 ? strtoull(argv[1], NULL, 10) : 100000000) & 1) * 0;
}
