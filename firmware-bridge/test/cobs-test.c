#include <stdio.h>
#include <string.h>
#include "check.h"

/* A port that records writes into a buffer and can fail its Nth write. */
typedef struct rec {
    uint8_t buf[1200];
    size_t len;
    int writes;
    int fail_at; /* 1-based write number to fail; 0 = never */
} rec_t;

static uint64_t rec_now(void *ctx) { (void)ctx; return 0; }
static int rec_write(void *ctx, const uint8_t *d, size_t n) {
    rec_t *r = ctx;
    if (++r->writes == r->fail_at) return ETB_ERR_IO;
    if (n > sizeof r->buf - r->len) return ETB_ERR_IO;
    memcpy(r->buf + r->len, d, n);
    r->len += n;
    return ETB_OK;
}

static void vector(const char *raw_hex, const char *enc_hex) {
    uint8_t raw[600], enc[600], out[700], back[700];
    size_t rn = hex(raw_hex, raw, sizeof raw), en = hex(enc_hex, enc, sizeof enc), on = 0, bn = 0;
    CHECK_RC(etb_cobs_encode(raw, rn, out, sizeof out, &on), ETB_OK);
    CHECK_BYTES(out, on, enc, en);
    CHECK_RC(etb_cobs_decode(enc, en, back, sizeof back, &bn), ETB_OK);
    CHECK_BYTES(back, bn, raw, rn);
}

/* Fills buf with a pattern: kind 0 = no zeros, 1 = all zeros, 2 = zero every `step` bytes. */
static void pattern(uint8_t *buf, size_t n, int kind, size_t step) {
    size_t i;
    for (i = 0; i < n; i++) {
        if (kind == 1) buf[i] = 0;
        else if (kind == 2 && step && i % step == step - 1) buf[i] = 0;
        else buf[i] = (uint8_t)(1 + (i * 7) % 255);
    }
}

static void round_trips(void) {
    static const size_t steps[] = {0, 1, 2, 100, 253, 254, 255, 256};
    uint8_t raw[700], enc[720], back[720];
    size_t n, s, en, bn;
    int kind;
    for (n = 0; n <= 600; n++) {
        for (kind = 0; kind < 3; kind++) {
            for (s = 0; s < sizeof steps / sizeof steps[0]; s++) {
                rec_t r;
                etb_port_t port = {0, rec_now, rec_write, NULL};
                int ok = 1;
                if (kind != 2 && s > 0) break;
                pattern(raw, n, kind, steps[s]);
                ok &= etb_cobs_encode(raw, n, enc, sizeof enc, &en) == ETB_OK;
                ok &= en <= ETB_COBS_MAX_ENCODED(n);
                ok &= memchr(enc, 0, en) == NULL;
                ok &= etb_cobs_decode(enc, en, back, sizeof back, &bn) == ETB_OK;
                ok &= bn == n && memcmp(back, raw, n) == 0;
                /* in place */
                memcpy(back, enc, en);
                ok &= etb_cobs_decode(back, en, back, sizeof back, &bn) == ETB_OK;
                ok &= bn == n && memcmp(back, raw, n) == 0;
                /* the streaming writer sends exactly encode + 0x00 */
                memset(&r, 0, sizeof r);
                port.ctx = &r;
                ok &= etb_cobs_write(&port, raw, n) == ETB_OK;
                ok &= r.len == en + 1 && memcmp(r.buf, enc, en) == 0 && r.buf[en] == 0;
                if (!ok) {
                    CHECK(!"COBS round trip");
                    return;
                }
            }
        }
    }
    CHECK(1);
}

void test_cobs(void) {
    uint8_t raw[600], enc[700], out[700];
    size_t i, n, on;
    char raw_hex[1000], enc_hex[1100];

    /* Published examples (Cheshire & Baker; the usual reference list). */
    vector("", "01");
    vector("00", "01 01");
    vector("00 00", "01 01 01");
    vector("00 11 00", "01 02 11 01");
    vector("11 22 00 33", "03 11 22 02 33");
    vector("11 22 33 44", "05 11 22 33 44");
    vector("11 00 00 00", "02 11 01 01 01");
    /* 01..FE (254 bytes) -> FF 01..FE: a full block at the end gets no 01 block */
    for (i = 0; i < 254; i++) sprintf(raw_hex + 3 * i, "%02X ", (unsigned)(i + 1));
    sprintf(enc_hex, "FF %s", raw_hex);
    vector(raw_hex, enc_hex);
    /* 00 01..FE -> 01 FF 01..FE */
    sprintf(enc_hex, "01 FF %s", raw_hex);
    { char z[1100]; sprintf(z, "00 %s", raw_hex); vector(z, enc_hex); }
    /* 01..FF (255 bytes) -> FF 01..FE 02 FF */
    for (i = 0; i < 255; i++) sprintf(raw_hex + 3 * i, "%02X ", (unsigned)(i + 1));
    for (i = 0; i < 254; i++) sprintf(enc_hex + 3 + 3 * i, "%02X ", (unsigned)(i + 1));
    memcpy(enc_hex, "FF ", 3);
    strcat(enc_hex, "02 FF");
    vector(raw_hex, enc_hex);
    /* 02..FF 00 (254 non-zero then zero) -> FF 02..FF 01 01 */
    for (i = 0; i < 254; i++) sprintf(raw_hex + 3 * i, "%02X ", (unsigned)(i + 2));
    strcat(raw_hex, "00");
    memcpy(enc_hex, "FF ", 3);
    for (i = 0; i < 254; i++) sprintf(enc_hex + 3 + 3 * i, "%02X ", (unsigned)(i + 2));
    strcat(enc_hex, "01 01");
    vector(raw_hex, enc_hex);

    /* The longer form with a trailing 01 block after a full block is accepted too. */
    n = hex("FF", enc, sizeof enc);
    pattern(enc + 1, 254, 0, 0);
    enc[255] = 0x01;
    CHECK_RC(etb_cobs_decode(enc, 256, out, sizeof out, &on), ETB_OK);
    CHECK(on == 254 && memcmp(out, enc + 1, 254) == 0);
    (void)n;

    round_trips();

    /* Malformed input: a zero inside, a code running past the end. */
    n = hex("03 11 00 22", enc, sizeof enc);
    CHECK_RC(etb_cobs_decode(enc, n, out, sizeof out, &on), ETB_ERR_COBS);
    n = hex("05 11 22", enc, sizeof enc);
    CHECK_RC(etb_cobs_decode(enc, n, out, sizeof out, &on), ETB_ERR_COBS);
    n = hex("00", enc, sizeof enc);
    CHECK_RC(etb_cobs_decode(enc, n, out, sizeof out, &on), ETB_ERR_COBS);

    /* Every too-small output buffer is reported, never overrun (ASan watches). */
    pattern(raw, 300, 2, 100);
    CHECK_RC(etb_cobs_encode(raw, 300, enc, sizeof enc, &n), ETB_OK);
    for (i = 0; i < n; i++) {
        uint8_t small[400];
        size_t got;
        if (etb_cobs_encode(raw, 300, small, i, &got) != ETB_ERR_BUFFER_TOO_SMALL) {
            CHECK(!"encode cap smaller than output must fail");
            break;
        }
    }
    for (i = 0; i < 300; i++) {
        uint8_t small[400];
        size_t got;
        if (etb_cobs_decode(enc, n, small, i, &got) != ETB_ERR_BUFFER_TOO_SMALL) {
            CHECK(!"decode cap smaller than output must fail");
            break;
        }
    }
    CHECK_RC(etb_cobs_encode(raw, 300, enc, 0, &on), ETB_ERR_BUFFER_TOO_SMALL);

    /* Write faults: each of the writes can fail and is reported as ETB_ERR_IO. */
    {
        rec_t r;
        etb_port_t port = {0, rec_now, rec_write, NULL};
        int k;
        port.ctx = &r;
        pattern(raw, 300, 2, 100);
        for (k = 1; k <= 8; k++) {
            memset(&r, 0, sizeof r);
            r.fail_at = k;
            CHECK_RC(etb_cobs_write(&port, raw, 300), ETB_ERR_IO);
        }
        memset(&r, 0, sizeof r);
        r.fail_at = 9;
        CHECK_RC(etb_cobs_write(&port, raw, 300), ETB_OK);
        CHECK(r.writes == 8); /* 3 x (code + data), a final empty block, the delimiter */
    }

    /* Receiver: messages, empty messages, oversize messages, invalid messages, resync. */
    {
        uint8_t rxbuf[8], stream[64];
        etb_cobs_rx_t rx;
        const uint8_t *msg = NULL;
        size_t msg_len = 0, sn, k;
        int results[64], nres = 0, rc;
        uint8_t got[8][8];
        size_t got_len[8];
        int ngot = 0;
        CHECK_RC(etb_cobs_rx_init(&rx, rxbuf, sizeof rxbuf), ETB_OK);
        /* 00 | 03 11 22 02 33 00 | 00 | 09 1 2 3 4 5 6 7 8 00 (too long for 8) | 05 11 00 | 02 44 00 */
        sn = hex("00 03 11 22 02 33 00 00 09 01 02 03 04 05 06 07 08 00 05 11 00 02 44 00", stream, sizeof stream);
        for (k = 0; k < sn; k++) {
            rc = etb_cobs_rx_push(&rx, stream[k], &msg, &msg_len);
            if (rc == 1) {
                memcpy(got[ngot], msg, msg_len);
                got_len[ngot++] = msg_len;
            } else if (rc != 0) {
                results[nres++] = rc;
            }
        }
        CHECK(ngot == 2);
        CHECK_BYTES(got[0], got_len[0], (const uint8_t *)"\x11\x22\x00\x33", 4);
        CHECK_BYTES(got[1], got_len[1], (const uint8_t *)"\x44", 1);
        CHECK(nres == 2);
        CHECK_RC(results[0], ETB_ERR_TOO_LARGE);
        CHECK_RC(results[1], ETB_ERR_COBS);
    }
}
