/*
 * ack-decode: reads one ack from stdin (raw, or with --cobs COBS + optional trailing 0x00) and
 * prints "device=ID boot=B seq=N[ mac]" with exit 0 (with --key HEX: only when its MAC verifies), or the library's error name with exit 1.
 */
#include <stdio.h>
#include <string.h>
#include "edgetable_node.h"

/* Hex text -> bytes; returns the byte count, or 0 when it is not 2*n hex digits that fit. */
static size_t parse_hex(const char *s, uint8_t *out, size_t cap) {
    size_t n = 0;
    unsigned v;
    while (s[0] && s[1] && n < cap && sscanf(s, "%2x", &v) == 1 && strchr("0123456789abcdefABCDEF", s[1])) {
        out[n++] = (uint8_t)v;
        s += 2;
    }
    return *s ? 0 : n;
}

int main(int argc, char **argv) {
    uint8_t in[1024], raw[1024];
    size_t n, len;
    etb_ack_t ack;
    uint8_t key[ETB_MAX_KEY_BYTES];
    size_t key_len = 0;
    int rc, cobs = 0, i;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--cobs") == 0) cobs = 1;
        else if (strcmp(argv[i], "--key") == 0 && i + 1 < argc && (key_len = parse_hex(argv[i + 1], key, sizeof key)) > 0) i++;
        else break;
    }
    if (i < argc) {
        fprintf(stderr, "usage: ack-decode [--cobs] [--key HEX] < ack-bytes\n");
        return 2;
    }
    n = fread(in, 1, sizeof in, stdin);
    if (cobs) {
        if (n > 0 && in[n - 1] == 0) n--;
        rc = etb_cobs_decode(in, n, raw, sizeof raw, &len);
    } else {
        memcpy(raw, in, n);
        len = n;
        rc = ETB_OK;
    }
    if (rc == ETB_OK) rc = etb_ack_decode(raw, len, &ack);
    if (rc == ETB_OK && key_len) rc = etb_ack_verify(raw, len, key, key_len);
    if (rc != ETB_OK) {
        printf("%s\n", etb_strerror(rc));
        return 1;
    }
    printf("device=%s boot=%lu seq=%lu%s\n", ack.device_id, (unsigned long)ack.boot, (unsigned long)ack.seq,
           ack.has_mac ? " mac" : "");
    return 0;
}
