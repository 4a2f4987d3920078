/* A tiny test harness: CHECK macros count passes and report failures with file:line. */
#ifndef ETB_CHECK_H
#define ETB_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include "edgetable_node.h"

void check_result(int ok, const char *file, int line, const char *expr);
void check_bytes(const uint8_t *got, size_t got_len, const uint8_t *want, size_t want_len,
                 const char *file, int line, const char *expr);
void check_rc(int got, int want, const char *file, int line, const char *expr);
/* Parses "A6 00 01" style hex into out; returns the byte count. */
size_t hex(const char *s, uint8_t *out, size_t cap);

#define CHECK(cond) check_result((cond) ? 1 : 0, __FILE__, __LINE__, #cond)
#define CHECK_RC(got, want) check_rc((got), (want), __FILE__, __LINE__, #got)
#define CHECK_BYTES(got, got_len, want, want_len) \
    check_bytes((got), (got_len), (want), (want_len), __FILE__, __LINE__, #got)

void test_crc32(void);
void test_cobs(void);
void test_frame(void);
void test_ack(void);
void test_ring(void);
void test_node(void);
void test_sha256(void);

#endif
