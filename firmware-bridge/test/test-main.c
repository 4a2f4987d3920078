#include <stdio.h>
#include <string.h>
#include "check.h"

static int passed, failed;

void check_result(int ok, const char *file, int line, const char *expr) {
    if (ok) {
        passed++;
        return;
    }
    failed++;
    fprintf(stderr, "FAIL %s:%d: %s\n", file, line, expr);
}

void check_rc(int got, int want, const char *file, int line, const char *expr) {
    if (got == want) {
        passed++;
        return;
    }
    failed++;
    fprintf(stderr, "FAIL %s:%d: %s = %s (%d), want %s (%d)\n", file, line, expr, etb_strerror(got), got,
            etb_strerror(want), want);
}

void check_bytes(const uint8_t *got, size_t got_len, const uint8_t *want, size_t want_len,
                 const char *file, int line, const char *expr) {
    size_t i;
    if (got_len == want_len && (want_len == 0 || memcmp(got, want, want_len) == 0)) {
        passed++;
        return;
    }
    failed++;
    fprintf(stderr, "FAIL %s:%d: %s\n  got  (%zu):", file, line, expr, got_len);
    for (i = 0; i < got_len; i++) fprintf(stderr, " %02X", got[i]);
    fprintf(stderr, "\n  want (%zu):", want_len);
    for (i = 0; i < want_len; i++) fprintf(stderr, " %02X", want[i]);
    fprintf(stderr, "\n");
}

size_t hex(const char *s, uint8_t *out, size_t cap) {
    size_t n = 0;
    unsigned v;
    int k;
    while (*s) {
        if (*s == ' ') { s++; continue; }
        if (n == cap || sscanf(s, "%2x%n", &v, &k) != 1 || k != 2) break;
        out[n++] = (uint8_t)v;
        s += 2;
    }
    return n;
}

int main(void) {
    struct { const char *name; void (*run)(void); } suites[] = {
        {"crc32", test_crc32}, {"cobs", test_cobs}, {"frame", test_frame},
        {"ack", test_ack},     {"ring", test_ring}, {"node", test_node},
        {"sha256", test_sha256},
    };
    size_t i;
    for (i = 0; i < sizeof suites / sizeof suites[0]; i++) {
        int before = failed;
        suites[i].run();
        printf("%-6s %s\n", suites[i].name, failed == before ? "ok" : "FAILED");
    }
    printf("firmware-bridge host tests: %d checks passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
