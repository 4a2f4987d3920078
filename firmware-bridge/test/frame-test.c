#include <math.h>
#include <stdio.h>
#include <string.h>
#include "check.h"

#define TS UINT64_C(1700000000000)

/* Encodes one field with the builder; returns the value's bytes (after the name) in out. */
static int one_value(double v, uint8_t *out, size_t *n) {
    uint8_t buf[ETB_MAX_FRAME_BYTES];
    etb_frame_t f;
    size_t len;
    int rc;
    etb_frame_begin(&f, buf, sizeof buf, "d", 1, 1, 1, 0);
    rc = etb_frame_add_double(&f, "x", v);
    if (rc != ETB_OK) return rc;
    rc = etb_frame_finish(&f, &len);
    /* A7 00 02 01 61 64 02 01 03 00 04 A1 61 78 <value> 05 01 07 01 crc */
    *n = len - 14 - 4 - 4;
    memcpy(out, buf + 14, *n);
    return rc;
}

static void known_bytes(void) {
    uint8_t buf[ETB_MAX_FRAME_BYTES], want[128], again[ETB_MAX_FRAME_BYTES];
    etb_frame_t f;
    size_t len = 0, wn, alen = 0;
    etb_field_t fields[5];
    /* Same bytes as docs/sensor-frame.md's worked example and the TypeScript tests. */
    wn = hex("A7 00 02 01 62 6E 31 02 07 03 1B 00 00 01 8B CF E5 68 00 04 A5"
             " 61 74 FA 41 AC 00 00 61 68 22 61 73 62 6F 6B 63 62 69 67 1A 00 01 86 A0"
             " 62 70 69 FB 40 09 21 FB 54 44 2D 18 05 05 07 01 74 82 EB 29",
             want, sizeof want);
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "n1", 1, 7, 5, TS), ETB_OK);
    CHECK_RC(etb_frame_add_float(&f, "t", 21.5f), ETB_OK);
    CHECK_RC(etb_frame_add_int(&f, "h", -3), ETB_OK);
    CHECK_RC(etb_frame_add_string(&f, "s", "ok"), ETB_OK);
    CHECK_RC(etb_frame_add_int(&f, "big", 100000), ETB_OK);
    CHECK_RC(etb_frame_add_double(&f, "pi", 3.141592653589793), ETB_OK);
    CHECK_RC(etb_frame_finish(&f, &len), ETB_OK);
    CHECK_BYTES(buf, len, want, wn);
    /* finish twice, add after finish: refused */
    CHECK_RC(etb_frame_finish(&f, &len), ETB_ERR_INVALID);

    /* the one-shot API writes the same bytes */
    fields[0].name = "t"; fields[0].type = ETB_FIELD_DOUBLE; fields[0].v.d = 21.5;
    fields[1].name = "h"; fields[1].type = ETB_FIELD_INT; fields[1].v.i = -3;
    fields[2].name = "s"; fields[2].type = ETB_FIELD_STRING; fields[2].v.s = "ok";
    fields[3].name = "big"; fields[3].type = ETB_FIELD_DOUBLE; fields[3].v.d = 100000.0;
    fields[4].name = "pi"; fields[4].type = ETB_FIELD_DOUBLE; fields[4].v.d = 3.141592653589793;
    CHECK_RC(etb_encode_frame(again, sizeof again, "n1", 1, 7, 5, TS, NULL, 0, fields, 5, &alen), ETB_OK);
    CHECK_BYTES(again, alen, want, wn);

    /* No fields, smallest values. */
    wn = hex("A7 00 02 01 61 61 02 01 03 00 04 A0 05 01 07 01", want, sizeof want);
    CHECK_RC(etb_encode_frame(buf, sizeof buf, "a", 1, 1, 1, 0, NULL, 0, NULL, 0, &len), ETB_OK);
    CHECK(len == wn + 4 && memcmp(buf, want, wn) == 0);
    CHECK(etb_crc32(0, buf, wn) == ((uint32_t)buf[wn] << 24 | (uint32_t)buf[wn + 1] << 16 |
                                     (uint32_t)buf[wn + 2] << 8 | buf[wn + 3]));
}

static void canonical_numbers(void) {
    static const struct { double v; const char *hex; } cases[] = {
        {0.0, "00"}, {-0.0, "00"}, {23.0, "17"}, {24.0, "18 18"}, {-1.0, "20"}, {-25.0, "38 18"},
        {21.0, "15"}, {21.5, "FA 41 AC 00 00"}, {-0.25, "FA BE 80 00 00"},
        {0.1, "FB 3F B9 99 99 99 99 99 9A"}, {1e300, "FB 7E 37 E4 3C 88 00 75 9C"},
        {9007199254740991.0, "1B 00 1F FF FF FF FF FF FF"},
        {-9007199254740991.0, "3B 00 1F FF FF FF FF FF FE"},
        {9007199254740992.0, "FA 5A 00 00 00"}, /* 2^53: not a safe integer, exact in float32 */
        {4294967296.0, "1B 00 00 00 01 00 00 00 00"},
        {65536.0, "1A 00 01 00 00"}, {65535.0, "19 FF FF"},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t got[16], want[16];
        size_t gn = 0, wn = hex(cases[i].hex, want, sizeof want);
        CHECK_RC(one_value(cases[i].v, got, &gn), ETB_OK);
        CHECK_BYTES(got, gn, want, wn);
    }
    {
        uint8_t got[16];
        size_t gn;
        CHECK_RC(one_value(NAN, got, &gn), ETB_ERR_INVALID);
        CHECK_RC(one_value(INFINITY, got, &gn), ETB_ERR_INVALID);
        CHECK_RC(one_value(-INFINITY, got, &gn), ETB_ERR_INVALID);
    }
}

static void rejects(void) {
    uint8_t buf[ETB_MAX_FRAME_BYTES];
    etb_frame_t f;
    size_t len;
    char name[40], big[200];
    int i;
    /* begin */
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "", 1, 1, 1, 0), ETB_ERR_INVALID);
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "a/b", 1, 1, 1, 0), ETB_ERR_INVALID);
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "abcdefghijklmnopqrstuvwxyz0123456", 1, 1, 1, 0), ETB_ERR_INVALID);
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "abcdefghijklmnopqrstuvwxyz012345", 1, 1, 1, 0), ETB_OK);
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "ok", 0, 1, 1, 0), ETB_ERR_RANGE); /* boot 0 */
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "ok", 1, 0, 1, 0), ETB_ERR_RANGE);
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "ok", 1, 5, 6, 0), ETB_ERR_RANGE);
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "ok", 1, 5, 0, 0), ETB_ERR_RANGE);
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "ok", 1, 5, 5, (uint64_t)ETB_MAX_SAFE_INT + 1), ETB_ERR_RANGE);
    CHECK_RC(etb_frame_add_int(&f, "x", 1), ETB_ERR_RANGE); /* a failed begin is sticky */
    CHECK_RC(etb_frame_finish(&f, &len), ETB_ERR_RANGE);
    CHECK_RC(etb_frame_begin(&f, NULL, 10, "ok", 1, 5, 5, 0), ETB_ERR_INVALID);

    /* names */
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "ok", 1, 1, 1, 0), ETB_OK);
    CHECK_RC(etb_frame_add_int(&f, "", 1), ETB_ERR_INVALID);
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "ok", 1, 1, 1, 0), ETB_OK);
    CHECK_RC(etb_frame_add_int(&f, "9lives", 1), ETB_ERR_INVALID);
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "ok", 1, 1, 1, 0), ETB_OK);
    CHECK_RC(etb_frame_add_int(&f, "a-b", 1), ETB_ERR_INVALID);
    memset(name, 'n', 33); name[33] = '\0';
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "ok", 1, 1, 1, 0), ETB_OK);
    CHECK_RC(etb_frame_add_int(&f, name, 1), ETB_ERR_INVALID);
    name[32] = '\0';
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "ok", 1, 1, 1, 0), ETB_OK);
    CHECK_RC(etb_frame_add_int(&f, name, 1), ETB_OK); /* 32 bytes is the limit */
    CHECK_RC(etb_frame_add_int(&f, name, 2), ETB_ERR_DUPLICATE);
    CHECK_RC(etb_frame_add_int(&f, "other", 2), ETB_ERR_DUPLICATE); /* sticky */
    CHECK_RC(etb_frame_finish(&f, &len), ETB_ERR_DUPLICATE);

    /* values */
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "ok", 1, 1, 1, 0), ETB_OK);
    CHECK_RC(etb_frame_add_int(&f, "x", ETB_MAX_SAFE_INT + 1), ETB_ERR_RANGE);
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "ok", 1, 1, 1, 0), ETB_OK);
    CHECK_RC(etb_frame_add_int(&f, "x", -ETB_MAX_SAFE_INT - 1), ETB_ERR_RANGE);
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "ok", 1, 1, 1, 0), ETB_OK);
    CHECK_RC(etb_frame_add_int(&f, "x", INT64_MIN), ETB_ERR_RANGE);
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "ok", 1, 1, 1, 0), ETB_OK);
    CHECK_RC(etb_frame_add_string(&f, "x", "\xC0\xAF"), ETB_ERR_INVALID); /* overlong */
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "ok", 1, 1, 1, 0), ETB_OK);
    CHECK_RC(etb_frame_add_string(&f, "x", "\xED\xA0\x80"), ETB_ERR_INVALID); /* surrogate */
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "ok", 1, 1, 1, 0), ETB_OK);
    CHECK_RC(etb_frame_add_string(&f, "x", "\xF4\x90\x80\x80"), ETB_ERR_INVALID); /* > U+10FFFF */
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "ok", 1, 1, 1, 0), ETB_OK);
    CHECK_RC(etb_frame_add_string(&f, "x", "\xE2\x82"), ETB_ERR_INVALID); /* cut short */
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "ok", 1, 1, 1, 0), ETB_OK);
    CHECK_RC(etb_frame_add_string(&f, "x", "h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80"), ETB_OK);
    CHECK_RC(etb_frame_add_string(&f, "y", NULL), ETB_ERR_INVALID);
    memset(big, 'v', 129); big[129] = '\0';
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "ok", 1, 1, 1, 0), ETB_OK);
    CHECK_RC(etb_frame_add_string(&f, "x", big), ETB_ERR_TOO_LARGE);
    big[128] = '\0';
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "ok", 1, 1, 1, 0), ETB_OK);
    CHECK_RC(etb_frame_add_string(&f, "x", big), ETB_OK);
    CHECK_RC(etb_frame_finish(&f, &len), ETB_OK);

    /* 16 fields fit, the 17th does not */
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "ok", 1, 1, 1, 0), ETB_OK);
    for (i = 0; i < ETB_MAX_FIELDS; i++) {
        sprintf(name, "f%d", i);
        CHECK_RC(etb_frame_add_int(&f, name, i), ETB_OK);
    }
    CHECK_RC(etb_frame_add_int(&f, "f16", 16), ETB_ERR_TOO_MANY_FIELDS);
    CHECK_RC(etb_frame_finish(&f, &len), ETB_ERR_TOO_MANY_FIELDS);
    CHECK_RC(etb_encode_frame(buf, sizeof buf, "ok", 1, 1, 1, 0, NULL, 0, NULL, 17, &len), ETB_ERR_INVALID);
}

static void sizes(void) {
    uint8_t buf[1024], small[ETB_MAX_FRAME_BYTES];
    etb_frame_t f;
    size_t len = 0, full, cap, n;
    char name[16], value[129];
    int i, rc = ETB_OK;
    /* Frames past 512 bytes are refused even when the buffer is larger. */
    memset(value, 'v', 128); value[128] = '\0';
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "ok", 1, 1, 1, 0), ETB_OK);
    for (i = 0; i < 4 && rc == ETB_OK; i++) {
        sprintf(name, "s%d", i);
        rc = etb_frame_add_string(&f, name, value);
    }
    CHECK_RC(rc, ETB_ERR_TOO_LARGE);
    CHECK(i == 4); /* three 133-byte fields fit beside the header, the fourth does not */

    /* The largest frame: fill to exactly 512 bytes. */
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "ok", 1, 1, 1, 0), ETB_OK);
    for (i = 0; i < 3; i++) {
        sprintf(name, "s%d", i);
        CHECK_RC(etb_frame_add_string(&f, name, value), ETB_OK);
    }
    /* header 13 + 3 * 133 + tail 8 = 420; a 92-byte field ("z" + 88-byte string) makes 512 */
    memset(value, 'w', 88); value[88] = '\0';
    CHECK_RC(etb_frame_add_string(&f, "z", value), ETB_OK);
    CHECK_RC(etb_frame_finish(&f, &full), ETB_OK);
    CHECK(full == ETB_MAX_FRAME_BYTES);

    /* Every smaller caller buffer reports BUFFER_TOO_SMALL and writes nothing past cap. */
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "dev", 1, 9, 9, TS), ETB_OK);
    etb_frame_add_double(&f, "temperature", 21.25);
    etb_frame_add_int(&f, "humidity", 40);
    etb_frame_add_string(&f, "status", "ok");
    CHECK_RC(etb_frame_finish(&f, &full), ETB_OK);
    for (cap = 0; cap < full; cap++) {
        uint8_t *heap_probe = small + sizeof small - cap; /* ASan flags writes past the array end */
        rc = etb_frame_begin(&f, heap_probe, cap, "dev", 1, 9, 9, TS);
        if (rc == ETB_OK) rc = etb_frame_add_double(&f, "temperature", 21.25);
        if (rc == ETB_OK) rc = etb_frame_add_int(&f, "humidity", 40);
        if (rc == ETB_OK) rc = etb_frame_add_string(&f, "status", "ok");
        if (rc == ETB_OK) rc = etb_frame_finish(&f, &n);
        if (rc != ETB_ERR_BUFFER_TOO_SMALL) {
            CHECK_RC(rc, ETB_ERR_BUFFER_TOO_SMALL);
            break;
        }
    }
    CHECK(cap == full);
    CHECK_RC(etb_frame_begin(&f, small, full, "dev", 1, 9, 9, TS), ETB_OK);
    etb_frame_add_double(&f, "temperature", 21.25);
    etb_frame_add_int(&f, "humidity", 40);
    etb_frame_add_string(&f, "status", "ok");
    CHECK_RC(etb_frame_finish(&f, &len), ETB_OK);
    CHECK_BYTES(small, len, buf, full);
}

/* Frames with a MAC: the bytes Node's crypto gives (test/firmware/c-frames.test.ts checks the same). */
static void mac(void) {
    static const uint8_t key[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    uint8_t buf[ETB_MAX_FRAME_BYTES], want[128], big[1024];
    etb_frame_t f;
    size_t len = 0, wn, full;
    char value[129];
    int i;
    wn = hex("A8 00 02 01 62 6E 31 02 07 03 1B 00 00 01 8B CF E5 68 00 04 A5"
             " 61 74 FA 41 AC 00 00 61 68 22 61 73 62 6F 6B 63 62 69 67 1A 00 01 86 A0"
             " 62 70 69 FB 40 09 21 FB 54 44 2D 18 05 05 07 01 08 48 60 0E B2 8B 92 E2 A8 99"
             " D8 82 EA 8B",
             want, sizeof want);
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "n1", 1, 7, 5, TS), ETB_OK);
    CHECK_RC(etb_frame_set_key(&f, key, sizeof key), ETB_OK);
    CHECK_RC(etb_frame_add_float(&f, "t", 21.5f), ETB_OK);
    CHECK_RC(etb_frame_add_int(&f, "h", -3), ETB_OK);
    CHECK_RC(etb_frame_add_string(&f, "s", "ok"), ETB_OK);
    CHECK_RC(etb_frame_add_int(&f, "big", 100000), ETB_OK);
    CHECK_RC(etb_frame_add_double(&f, "pi", 3.141592653589793), ETB_OK);
    CHECK_RC(etb_frame_finish(&f, &len), ETB_OK);
    CHECK_BYTES(buf, len, want, wn);

    /* Key lengths, and a key only before the first field. */
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "n1", 1, 1, 1, 0), ETB_OK);
    CHECK_RC(etb_frame_set_key(&f, key, 15), ETB_ERR_INVALID);
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "n1", 1, 1, 1, 0), ETB_OK);
    CHECK_RC(etb_frame_set_key(&f, NULL, 16), ETB_ERR_INVALID);
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "n1", 1, 1, 1, 0), ETB_OK);
    CHECK_RC(etb_frame_set_key(&f, key, ETB_MAX_KEY_BYTES + 1), ETB_ERR_INVALID);
    CHECK_RC(etb_frame_begin(&f, buf, sizeof buf, "n1", 1, 1, 1, 0), ETB_OK);
    CHECK_RC(etb_frame_add_int(&f, "x", 1), ETB_OK);
    CHECK_RC(etb_frame_set_key(&f, key, sizeof key), ETB_ERR_INVALID);

    /* A keyed frame reserves its 10 MAC bytes: the largest is still exactly 512 bytes. */
    memset(value, 'v', 128); value[128] = '\0';
    CHECK_RC(etb_frame_begin(&f, big, sizeof big, "ok", 1, 1, 1, 0), ETB_OK);
    CHECK_RC(etb_frame_set_key(&f, key, sizeof key), ETB_OK);
    for (i = 0; i < 3; i++) {
        char name[16];
        sprintf(name, "s%d", i);
        CHECK_RC(etb_frame_add_string(&f, name, value), ETB_OK);
    }
    memset(value, 'w', 78); value[78] = '\0';
    CHECK_RC(etb_frame_add_string(&f, "zz", value), ETB_ERR_TOO_LARGE); /* 83 bytes: one too many */
    CHECK_RC(etb_frame_begin(&f, big, sizeof big, "ok", 1, 1, 1, 0), ETB_OK);
    CHECK_RC(etb_frame_set_key(&f, key, sizeof key), ETB_OK);
    for (i = 0; i < 3; i++) {
        char name[16];
        sprintf(name, "s%d", i);
        memset(value, 'v', 128); value[128] = '\0';
        CHECK_RC(etb_frame_add_string(&f, name, value), ETB_OK);
    }
    memset(value, 'w', 77); value[77] = '\0';
    CHECK_RC(etb_frame_add_string(&f, "zz", value), ETB_OK); /* 13 + 399 + 82 + 18 = 512 */
    CHECK_RC(etb_frame_finish(&f, &full), ETB_OK);
    CHECK(full == ETB_MAX_FRAME_BYTES);
}

void test_frame(void) {
    known_bytes();
    mac();
    canonical_numbers();
    rejects();
    sizes();
}
