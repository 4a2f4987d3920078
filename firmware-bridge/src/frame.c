/*
 * Frame builder. Byte grammar (docs/sensor-frame.md is the normative page):
 *
 *   frame    = cbor-map crc32                 ; <= ETB_MAX_FRAME_BYTES in all
 *   crc32    = 4 bytes, big-endian CRC32 (IEEE) of cbor-map
 *   cbor-map = A7 | A8                        ; map of 7 pairs (8 with a MAC), keys in this order:
 *              00 02                          ; 0: format version = 2
 *              01 text(device-id)             ; 1: [A-Za-z0-9._:-]{1,32}
 *              02 uint(seq)                   ; 2: 1..2^32-1
 *              03 uint(ts-ms)                 ; 3: ms since the Unix epoch, <= 2^53-1
 *              04 map(n){ text(name) value }  ; 4: 0..16 fields, n in the head byte (A0..B0)
 *              05 uint(base)                  ; 5: oldest seq the node still holds, 1..seq
 *              07 uint(boot)                  ; 7: the node's boot id, 1..2^32-1
 *            [ 08 48 mac ]                    ; 8: bytes(8) = HMAC-SHA256(key, every cbor-map
 *                                             ;    byte before this pair)[0..8), when keyed
 *   value    = uint | nint                    ; integer, |v| <= 2^53-1
 *            | FA float32 | FB float64        ; finite non-integral numbers
 *            | text                           ; <= 128 bytes of UTF-8
 * Integers and lengths use CBOR's shortest head. The builder writes fields in call order.
 */
#include <float.h>
#include <string.h>
#include "etb_internal.h"

/* Bytes kept free at the end for key 5 + base, key 7 + boot, the MAC pair if keyed, and the CRC. */
#define MAC_PAIR_BYTES (2u + ETB_MAC_BYTES)
static size_t tail_bytes(const etb_frame_t *f) {
    return 2u + etb_cbor_head_size(f->base) + etb_cbor_head_size(f->boot) + (f->key ? MAC_PAIR_BYTES : 0u) +
           ETB_CRC_BYTES;
}

static int space_error(const etb_frame_t *f) {
    return f->cap >= ETB_MAX_FRAME_BYTES ? ETB_ERR_TOO_LARGE : ETB_ERR_BUFFER_TOO_SMALL;
}

static int fail(etb_frame_t *f, int rc) {
    if (f->err == ETB_OK) f->err = rc;
    return rc;
}

int etb_frame_begin(etb_frame_t *f, uint8_t *buf, size_t cap, const char *device_id, uint32_t boot,
                    uint32_t seq, uint32_t base, uint64_t ts_ms) {
    size_t dn, limit;
    int rc = ETB_OK;
    if (f == NULL) return ETB_ERR_INVALID;
    memset(f, 0, sizeof *f);
    f->finished = 1; /* until begin succeeds, nothing may be added */
    if (buf == NULL || device_id == NULL) return fail(f, ETB_ERR_INVALID);
    dn = etb_strnlen(device_id, ETB_MAX_DEVICE_ID_BYTES);
    if (!etb_valid_device_id(device_id, dn)) return fail(f, ETB_ERR_INVALID);
    if (boot == 0 || seq == 0 || base == 0 || base > seq) return fail(f, ETB_ERR_RANGE);
    if (ts_ms > (uint64_t)ETB_MAX_SAFE_INT) return fail(f, ETB_ERR_RANGE);
    f->buf = buf;
    f->cap = cap < ETB_MAX_FRAME_BYTES ? cap : ETB_MAX_FRAME_BYTES;
    f->base = base;
    f->boot = boot;
    limit = f->cap;
    /* Room for everything but the fields must exist now, so finish cannot fail for space. */
    if (limit < tail_bytes(f)) return fail(f, space_error(f));
    limit -= tail_bytes(f);
    if (rc == ETB_OK) rc = etb_cbor_put_head(buf, limit, &f->len, 5, 7); /* A8 once keyed */
    if (rc == ETB_OK) rc = etb_cbor_put_head(buf, limit, &f->len, 0, ETB_KEY_VERSION);
    if (rc == ETB_OK) rc = etb_cbor_put_head(buf, limit, &f->len, 0, ETB_FORMAT_VERSION);
    if (rc == ETB_OK) rc = etb_cbor_put_head(buf, limit, &f->len, 0, ETB_KEY_DEVICE);
    if (rc == ETB_OK) rc = etb_cbor_put_text(buf, limit, &f->len, device_id, dn);
    if (rc == ETB_OK) rc = etb_cbor_put_head(buf, limit, &f->len, 0, ETB_KEY_SEQ);
    if (rc == ETB_OK) rc = etb_cbor_put_head(buf, limit, &f->len, 0, seq);
    if (rc == ETB_OK) rc = etb_cbor_put_head(buf, limit, &f->len, 0, ETB_KEY_TS);
    if (rc == ETB_OK) rc = etb_cbor_put_head(buf, limit, &f->len, 0, ts_ms);
    if (rc == ETB_OK) rc = etb_cbor_put_head(buf, limit, &f->len, 0, ETB_KEY_FIELDS);
    if (rc == ETB_OK) {
        f->fields_at = f->len;
        rc = etb_cbor_put_head(buf, limit, &f->len, 5, 0); /* patched by finish */
    }
    if (rc != ETB_OK) return fail(f, space_error(f));
    f->finished = 0;
    return ETB_OK;
}

int etb_frame_set_key(etb_frame_t *f, const uint8_t *key, size_t key_len) {
    if (f == NULL) return ETB_ERR_INVALID;
    if (f->err != ETB_OK) return f->err;
    if (f->finished || f->nfields > 0 || f->key != NULL || key == NULL) return fail(f, ETB_ERR_INVALID);
    if (key_len < ETB_MIN_KEY_BYTES || key_len > ETB_MAX_KEY_BYTES) return fail(f, ETB_ERR_INVALID);
    if (f->cap - f->len < tail_bytes(f) + MAC_PAIR_BYTES) return fail(f, space_error(f));
    f->key = key;
    f->key_len = key_len;
    f->buf[0] = 0xA8u; /* one more pair: the MAC */
    return ETB_OK;
}

/* Common prologue of the add functions: state, name, duplicates, count; writes the name. */
static int add_name(etb_frame_t *f, const char *name, size_t *start) {
    size_t n, i;
    if (f->err != ETB_OK) return f->err;
    if (f->finished) return fail(f, ETB_ERR_INVALID);
    if (name == NULL) return fail(f, ETB_ERR_INVALID);
    n = etb_strnlen(name, ETB_MAX_NAME_BYTES);
    if (!etb_valid_name(name, n)) return fail(f, ETB_ERR_INVALID);
    for (i = 0; i < f->nfields; i++) {
        if (f->name_len[i] == n && memcmp(f->buf + f->name_at[i], name, n) == 0)
            return fail(f, ETB_ERR_DUPLICATE);
    }
    if (f->nfields >= ETB_MAX_FIELDS) return fail(f, ETB_ERR_TOO_MANY_FIELDS);
    *start = f->len;
    if (etb_cbor_put_text(f->buf, f->cap - tail_bytes(f), &f->len, name, n) != ETB_OK)
        return fail(f, space_error(f));
    f->name_at[f->nfields] = (uint16_t)(*start + 1); /* names are < 24 bytes or 1-byte heads */
    if (n >= 24) f->name_at[f->nfields]++;
    f->name_len[f->nfields] = (uint8_t)n;
    return ETB_OK;
}

/* Common epilogue: commit the field, or roll the name back and record the error. */
static int add_done(etb_frame_t *f, size_t start, int rc) {
    if (rc != ETB_OK) {
        f->len = start;
        return fail(f, rc == ETB_ERR_BUFFER_TOO_SMALL ? space_error(f) : rc);
    }
    f->nfields++;
    return ETB_OK;
}

static int put_int(etb_frame_t *f, int64_t v) {
    size_t limit = f->cap - tail_bytes(f);
    if (v > ETB_MAX_SAFE_INT || v < -ETB_MAX_SAFE_INT) return ETB_ERR_RANGE;
    if (v >= 0) return etb_cbor_put_head(f->buf, limit, &f->len, 0, (uint64_t)v);
    return etb_cbor_put_head(f->buf, limit, &f->len, 1, (uint64_t)(-(v + 1)));
}

static int put_bytes_be(etb_frame_t *f, uint8_t initial, uint64_t bits, size_t n) {
    size_t limit = f->cap - tail_bytes(f), i;
    if (f->len > limit || limit - f->len < n + 1) return ETB_ERR_BUFFER_TOO_SMALL;
    f->buf[f->len++] = initial;
    for (i = 0; i < n; i++) f->buf[f->len++] = (uint8_t)(bits >> (8u * (n - 1u - i)));
    return ETB_OK;
}

static int put_number(etb_frame_t *f, double v) {
    if (v != v || v > DBL_MAX || v < -DBL_MAX) return ETB_ERR_INVALID; /* NaN, +-inf */
    if (v >= -(double)ETB_MAX_SAFE_INT && v <= (double)ETB_MAX_SAFE_INT && (double)(int64_t)v == v)
        return put_int(f, (int64_t)v);
    if (v >= -FLT_MAX && v <= FLT_MAX && (double)(float)v == v) {
        float fv = (float)v;
        uint32_t bits;
        memcpy(&bits, &fv, sizeof bits);
        return put_bytes_be(f, 0xFA, bits, 4);
    }
#if DBL_MANT_DIG > FLT_MANT_DIG
    {
        uint64_t bits;
        memcpy(&bits, &v, sizeof bits);
        return put_bytes_be(f, 0xFB, bits, 8);
    }
#else
    return ETB_ERR_RANGE; /* unreachable where double is float (AVR) */
#endif
}

int etb_frame_add_int(etb_frame_t *f, const char *name, int64_t v) {
    size_t start;
    int rc;
    if (f == NULL) return ETB_ERR_INVALID;
    if ((rc = add_name(f, name, &start)) != ETB_OK) return rc;
    return add_done(f, start, put_int(f, v));
}

int etb_frame_add_double(etb_frame_t *f, const char *name, double v) {
    size_t start;
    int rc;
    if (f == NULL) return ETB_ERR_INVALID;
    if ((rc = add_name(f, name, &start)) != ETB_OK) return rc;
    return add_done(f, start, put_number(f, v));
}

int etb_frame_add_float(etb_frame_t *f, const char *name, float v) {
    return etb_frame_add_double(f, name, (double)v);
}

int etb_frame_add_string(etb_frame_t *f, const char *name, const char *value) {
    size_t start, n;
    int rc;
    if (f == NULL) return ETB_ERR_INVALID;
    if ((rc = add_name(f, name, &start)) != ETB_OK) return rc;
    if (value == NULL) return add_done(f, start, ETB_ERR_INVALID);
    n = etb_strnlen(value, ETB_MAX_STRING_VALUE_BYTES);
    if (n > ETB_MAX_STRING_VALUE_BYTES) return add_done(f, start, ETB_ERR_TOO_LARGE);
    if (!etb_valid_utf8((const uint8_t *)value, n)) return add_done(f, start, ETB_ERR_INVALID);
    return add_done(f, start, etb_cbor_put_text(f->buf, f->cap - tail_bytes(f), &f->len, value, n));
}

int etb_frame_finish(etb_frame_t *f, size_t *out_len) {
    int rc;
    if (f == NULL || out_len == NULL) return ETB_ERR_INVALID;
    if (f->err != ETB_OK) return f->err;
    if (f->finished) return fail(f, ETB_ERR_INVALID);
    f->buf[f->fields_at] = (uint8_t)(0xA0u | f->nfields);
    /* begin (and set_key) reserved tail_bytes(f), so these cannot fail */
    rc = etb_cbor_put_head(f->buf, f->cap, &f->len, 0, ETB_KEY_BASE);
    if (rc == ETB_OK) rc = etb_cbor_put_head(f->buf, f->cap, &f->len, 0, f->base);
    if (rc == ETB_OK) rc = etb_cbor_put_head(f->buf, f->cap, &f->len, 0, ETB_KEY_BOOT);
    if (rc == ETB_OK) rc = etb_cbor_put_head(f->buf, f->cap, &f->len, 0, f->boot);
    if (rc == ETB_OK && f->key != NULL) rc = etb_put_mac(f->buf, f->cap, &f->len, f->key, f->key_len);
    if (rc == ETB_OK) rc = etb_put_crc(f->buf, f->cap, &f->len);
    if (rc != ETB_OK) return fail(f, rc);
    f->finished = 1;
    *out_len = f->len;
    return ETB_OK;
}

int etb_encode_frame(uint8_t *buf, size_t cap, const char *device_id, uint32_t boot, uint32_t seq,
                     uint32_t base, uint64_t ts_ms, const uint8_t *key, size_t key_len,
                     const etb_field_t *fields, size_t nfields, size_t *out_len) {
    etb_frame_t f;
    size_t i;
    int rc = etb_frame_begin(&f, buf, cap, device_id, boot, seq, base, ts_ms);
    if (rc != ETB_OK) return rc;
    if (key != NULL || key_len) rc = etb_frame_set_key(&f, key, key_len);
    if (rc != ETB_OK) return rc;
    if (fields == NULL && nfields) return ETB_ERR_INVALID;
    if (nfields > ETB_MAX_FIELDS) return ETB_ERR_TOO_MANY_FIELDS;
    for (i = 0; i < nfields && rc == ETB_OK; i++) {
        const etb_field_t *fd = &fields[i];
        switch (fd->type) {
        case ETB_FIELD_INT: rc = etb_frame_add_int(&f, fd->name, fd->v.i); break;
        case ETB_FIELD_DOUBLE: rc = etb_frame_add_double(&f, fd->name, fd->v.d); break;
        case ETB_FIELD_STRING: rc = etb_frame_add_string(&f, fd->name, fd->v.s); break;
        default: rc = ETB_ERR_INVALID; break;
        }
    }
    if (rc != ETB_OK) return rc;
    return etb_frame_finish(&f, out_len);
}
