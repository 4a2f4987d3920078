#include <string.h>
#include "check.h"

/* Appends the CRC to hand-written CBOR, so tests reach the checks behind the CRC. */
static size_t with_crc(const char *cbor_hex, uint8_t *out) {
    size_t n = hex(cbor_hex, out, 200);
    uint32_t c = etb_crc32(0, out, n);
    out[n] = (uint8_t)(c >> 24);
    out[n + 1] = (uint8_t)(c >> 16);
    out[n + 2] = (uint8_t)(c >> 8);
    out[n + 3] = (uint8_t)c;
    return n + 4;
}

static int decode_hex(const char *cbor_hex, etb_ack_t *a) {
    uint8_t buf[256];
    size_t n = with_crc(cbor_hex, buf);
    return etb_ack_decode(buf, n, a);
}

static uint32_t rng_state = 12345;
static uint32_t rnd(void) {
    rng_state = rng_state * 1103515245u + 12345u;
    return rng_state >> 8;
}

void test_ack(void) {
    uint8_t buf[ETB_MAX_ACK_BYTES], want[32], copy[ETB_MAX_ACK_BYTES + 8];
    size_t len = 0, wn, i, bit;
    etb_ack_t a;
    int rc;

    /* Known bytes: same as the TypeScript encodeAck test. */
    wn = hex("A4 00 02 01 62 6E 31 06 18 FF 07 03 E7 F7 B0 40", want, sizeof want);
    CHECK_RC(etb_ack_encode("n1", 3, 255, buf, sizeof buf, &len), ETB_OK);
    CHECK_BYTES(buf, len, want, wn);
    CHECK_RC(etb_ack_decode(buf, len, &a), ETB_OK);
    CHECK(strcmp(a.device_id, "n1") == 0 && a.seq == 255 && a.boot == 3);
    CHECK_RC(etb_ack_encode("n1", 0, 255, buf, sizeof buf, &len), ETB_ERR_RANGE); /* boot 0 */

    /* A signed ack: the MAC pair ends the map (bytes from Node's crypto, as in the TypeScript tests). */
    {
        static const uint8_t key[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
        uint8_t other[16];
        uint8_t swant[40];
        size_t sn = hex("A5 00 02 01 62 6E 31 06 18 FF 07 03 08 48 9B 93 15 F8 99 CA FD 7C 44 0C FC 47", swant, sizeof swant);
        CHECK_RC(etb_ack_encode_mac("n1", 3, 255, key, sizeof key, buf, sizeof buf, &len), ETB_OK);
        CHECK_BYTES(buf, len, swant, sn);
        CHECK_RC(etb_ack_decode(buf, len, &a), ETB_OK);
        CHECK(a.has_mac == 1 && a.seq == 255 && a.boot == 3);
        CHECK_RC(etb_ack_verify(buf, len, key, sizeof key), ETB_OK);
        memcpy(other, key, sizeof other);
        other[15] ^= 1;
        CHECK_RC(etb_ack_verify(buf, len, other, sizeof other), ETB_ERR_AUTH);
        CHECK_RC(etb_ack_verify(buf, len, key, 15), ETB_ERR_INVALID);
        CHECK_RC(etb_ack_encode_mac("n1", 3, 255, key, 15, buf, sizeof buf, &len), ETB_ERR_INVALID);
        CHECK_RC(etb_ack_encode("n1", 3, 255, buf, sizeof buf, &len), ETB_OK);
        CHECK_RC(etb_ack_decode(buf, len, &a), ETB_OK);
        CHECK(a.has_mac == 0);
        CHECK_RC(etb_ack_verify(buf, len, key, sizeof key), ETB_ERR_AUTH); /* unsigned */
        /* the largest signed ack fills ETB_MAX_ACK_BYTES exactly */
        CHECK_RC(etb_ack_encode_mac("abcdefghijklmnopqrstuvwxyz012345", 0xFFFFFFFFu, 0xFFFFFFFFu, key, sizeof key, buf,
                                    sizeof buf, &len), ETB_OK);
        CHECK(len == ETB_MAX_ACK_BYTES);
        CHECK_RC(etb_ack_verify(buf, len, key, sizeof key), ETB_OK);
    }

    CHECK_RC(etb_ack_encode("abcdefghijklmnopqrstuvwxyz012345", 0xFFFFFFFFu, 0xFFFFFFFFu, buf, sizeof buf, &len), ETB_OK);
    CHECK(len == 54); /* the largest ack */
    CHECK_RC(etb_ack_decode(buf, len, &a), ETB_OK);
    CHECK(strcmp(a.device_id, "abcdefghijklmnopqrstuvwxyz012345") == 0 && a.seq == 0xFFFFFFFFu && a.boot == 0xFFFFFFFFu);
    CHECK_RC(etb_ack_encode("n1", 1, 0, buf, sizeof buf, &len), ETB_OK);
    CHECK_RC(etb_ack_decode(buf, len, &a), ETB_OK);
    CHECK(a.seq == 0);
    CHECK_RC(etb_ack_encode("n 1", 1, 0, buf, sizeof buf, &len), ETB_ERR_INVALID);
    CHECK_RC(etb_ack_encode("n1", 1, 255, buf, 15, &len), ETB_ERR_BUFFER_TOO_SMALL);

    /* Every single-bit flip is caught by the CRC; every truncation is refused. */
    CHECK_RC(etb_ack_encode("node-7", 1, 123456, buf, sizeof buf, &len), ETB_OK);
    for (i = 0; i < len; i++) {
        for (bit = 0; bit < 8; bit++) {
            memcpy(copy, buf, len);
            copy[i] ^= (uint8_t)(1u << bit);
            if (etb_ack_decode(copy, len, &a) != ETB_ERR_CRC) CHECK(!"bit flip not caught");
        }
    }
    for (i = 0; i < len; i++) {
        rc = etb_ack_decode(buf, i, &a);
        if (rc != (i < 5 ? ETB_ERR_TRUNCATED : ETB_ERR_CRC)) CHECK_RC(rc, ETB_ERR_CRC);
    }
    memset(copy, 0, sizeof copy);
    CHECK_RC(etb_ack_decode(copy, ETB_MAX_ACK_BYTES + 1, &a), ETB_ERR_TOO_LARGE);

    /* Content behind a valid CRC. */
    CHECK_RC(decode_hex("A4 06 05 07 09 01 61 61 00 02", &a), ETB_OK); /* any key order */
    CHECK(a.seq == 5 && a.boot == 9 && strcmp(a.device_id, "a") == 0);
    CHECK_RC(decode_hex("A5 00 02 01 61 61 06 05 07 01 10 82 01 A1 61 6B 80", &a), ETB_OK); /* extension key 16 skipped */
    CHECK_RC(decode_hex("A5 00 02 01 61 61 06 05 07 01 19 FF FF C1 FB 00 00 00 00 00 00 00 00", &a), ETB_OK);
    CHECK_RC(decode_hex("A3 00 01 01 61 61 06 05", &a), ETB_ERR_VERSION);  /* a version 1 ack */
    CHECK_RC(decode_hex("A3 00 03 01 61 61 06 05", &a), ETB_ERR_VERSION);
    CHECK_RC(decode_hex("A2 00 03 03 61 61", &a), ETB_ERR_VERSION); /* version wins over unknown shape */
    CHECK_RC(decode_hex("A3 01 61 61 06 05 07 01", &a), ETB_ERR_MALFORMED); /* no version */
    CHECK_RC(decode_hex("A3 00 02 06 05 07 01", &a), ETB_ERR_MALFORMED);    /* no device */
    CHECK_RC(decode_hex("A3 00 02 01 61 61 07 01", &a), ETB_ERR_MALFORMED); /* no acked */
    CHECK_RC(decode_hex("A3 00 02 01 61 61 06 05", &a), ETB_ERR_MALFORMED); /* no boot */
    CHECK_RC(decode_hex("A4 00 02 01 61 61 06 05 07 00", &a), ETB_ERR_MALFORMED); /* boot 0 */
    CHECK_RC(decode_hex("A4 00 02 01 61 61 06 05 07 1B 00 00 00 01 00 00 00 00", &a), ETB_ERR_MALFORMED);
    CHECK_RC(decode_hex("A5 00 02 01 61 61 06 05 07 01 09 00", &a), ETB_ERR_MALFORMED); /* unknown key < 16 */
    CHECK_RC(decode_hex("A5 00 02 01 61 61 06 05 07 01 02 01", &a), ETB_ERR_MALFORMED); /* a frame key */
    CHECK_RC(decode_hex("A5 00 02 01 61 61 06 05 07 01 06 05", &a), ETB_ERR_MALFORMED); /* duplicate */
    CHECK_RC(decode_hex("BF 00 02 01 61 61 06 05 07 01 FF", &a), ETB_ERR_MALFORMED);    /* indefinite */
    CHECK_RC(decode_hex("A4 00 02 61 64 61 61 06 05 07 01", &a), ETB_ERR_MALFORMED);    /* text key */
    CHECK_RC(decode_hex("A4 00 02 01 61 61 06 1B 00 00 00 01 00 00 00 00 07 01", &a), ETB_ERR_MALFORMED);
    CHECK_RC(decode_hex("A4 00 02 01 61 61 06 20 07 01", &a), ETB_ERR_MALFORMED);       /* negative */
    CHECK_RC(decode_hex("A4 00 02 01 61 2F 06 05 07 01", &a), ETB_ERR_MALFORMED);       /* '/' in id */
    CHECK_RC(decode_hex("A4 00 02 01 60 06 05 07 01", &a), ETB_ERR_MALFORMED);          /* empty id */
    CHECK_RC(decode_hex("A4 00 02 01 41 61 06 05 07 01", &a), ETB_ERR_MALFORMED);       /* bytes id */
    CHECK_RC(decode_hex("A4 00 02 01 61 61 06 05 07 01 00", &a), ETB_ERR_MALFORMED);    /* trailing */
    CHECK_RC(decode_hex("A5 00 02 01 61 61 06 05 07 01", &a), ETB_ERR_MALFORMED);       /* short map */
    CHECK_RC(decode_hex("A4 00 02 01 7A FF FF FF FF 06 05 07 01", &a), ETB_ERR_MALFORMED);
    CHECK_RC(decode_hex("83 00 02 02", &a), ETB_ERR_MALFORMED);                         /* not a map */
    CHECK_RC(decode_hex("A5 00 02 01 61 61 06 05 07 01 10 81 81 81 81 81 81 81 81 81 81 00", &a), ETB_ERR_MALFORMED);
    CHECK_RC(decode_hex("A5 00 02 01 61 61 06 05 07 01 10 9B FF FF FF FF FF FF FF FF", &a), ETB_ERR_MALFORMED);
    CHECK_RC(decode_hex("A5 00 02 01 61 61 06 05 07 01 10 BB FF FF FF FF FF FF FF FF", &a), ETB_ERR_MALFORMED);
    CHECK_RC(decode_hex("A5 00 02 01 61 61 06 05 07 01 10 1C", &a), ETB_ERR_MALFORMED); /* reserved info */
    CHECK_RC(decode_hex("A5 00 02 01 61 61 06 05 07 01 08 48 01 02 03 04 05 06 07 08", &a), ETB_OK);
    CHECK(a.has_mac == 1);
    CHECK_RC(decode_hex("A5 00 02 08 48 01 02 03 04 05 06 07 08 01 61 61 06 05 07 01", &a), ETB_ERR_MALFORMED); /* MAC not last */
    CHECK_RC(decode_hex("A5 00 02 01 61 61 06 05 07 01 08 44 01 02 03 04", &a), ETB_ERR_MALFORMED);  /* 4-byte MAC */
    CHECK_RC(decode_hex("A5 00 02 01 61 61 06 05 07 01 08 48 01 02 03", &a), ETB_ERR_MALFORMED);     /* cut MAC */

    /* Fuzz: random CBOR-ish bodies with a valid CRC never crash (ASan/UBSan watch) and an OK
     * result always carries a valid device id. */
    for (i = 0; i < 200000; i++) {
        size_t n = 1 + rnd() % (ETB_MAX_ACK_BYTES - 4), k;
        uint32_t c;
        for (k = 0; k < n; k++) {
            uint32_t r = rnd();
            copy[k] = (uint8_t)(r % 4 == 0 ? want[r % 12] : r >> 8);
        }
        if (i % 2) copy[0] = 0xA4;
        c = etb_crc32(0, copy, n);
        copy[n] = (uint8_t)(c >> 24); copy[n + 1] = (uint8_t)(c >> 16);
        copy[n + 2] = (uint8_t)(c >> 8); copy[n + 3] = (uint8_t)c;
        rc = etb_ack_decode(copy, n + 4, &a);
        if (rc == ETB_OK && (strlen(a.device_id) == 0 || strlen(a.device_id) > 32)) CHECK(!"fuzz: bad OK");
        if (rc != ETB_OK && rc != ETB_ERR_MALFORMED && rc != ETB_ERR_VERSION) CHECK_RC(rc, ETB_ERR_MALFORMED);
    }
}
