/*
 * Acks. Byte grammar (docs/sensor-frame.md):
 *
 *   ack      = cbor-map crc32                 ; <= ETB_MAX_ACK_BYTES in all
 *   cbor-map = A4 00 02                       ; 0: format version = 2
 *                 01 text(device-id)          ; 1: the device being acknowledged
 *                 06 uint(acked)              ; 6: every seq <= acked is settled, 0..2^32-1
 *                 07 uint(boot)               ; 7: the boot of the device it acknowledges
 *               [ 08 48 tag ]                 ; 8: MAC when the bridge holds the device's key (A5)
 * The encoder writes exactly this. The decoder takes the keys in any order, skips well-formed
 * extension keys >= 16 and rejects anything else (indefinite lengths, unknown keys < 16,
 * duplicates, frame keys 2..5). Checks run in the order: size, CRC, CBOR shape, version, rest.
 */
#include <string.h>
#include "etb_internal.h"

int etb_ack_encode(const char *device_id, uint32_t boot, uint32_t seq, uint8_t *buf, size_t cap,
                   size_t *out_len) {
    return etb_ack_encode_mac(device_id, boot, seq, NULL, 0, buf, cap, out_len);
}

int etb_ack_encode_mac(const char *device_id, uint32_t boot, uint32_t seq, const uint8_t *key,
                       size_t key_len, uint8_t *buf, size_t cap, size_t *out_len) {
    size_t dn, len = 0;
    int rc = ETB_OK;
    if (device_id == NULL || buf == NULL || out_len == NULL) return ETB_ERR_INVALID;
    dn = etb_strnlen(device_id, ETB_MAX_DEVICE_ID_BYTES);
    if (!etb_valid_device_id(device_id, dn)) return ETB_ERR_INVALID;
    if (boot == 0) return ETB_ERR_RANGE;
    if ((key == NULL) != (key_len == 0) || (key && (key_len < ETB_MIN_KEY_BYTES || key_len > ETB_MAX_KEY_BYTES)))
        return ETB_ERR_INVALID;
    if (cap > ETB_MAX_ACK_BYTES) cap = ETB_MAX_ACK_BYTES; /* the largest ack is exactly 64 bytes */
    if (rc == ETB_OK) rc = etb_cbor_put_head(buf, cap, &len, 5, key ? 5 : 4);
    if (rc == ETB_OK) rc = etb_cbor_put_head(buf, cap, &len, 0, ETB_KEY_VERSION);
    if (rc == ETB_OK) rc = etb_cbor_put_head(buf, cap, &len, 0, ETB_FORMAT_VERSION);
    if (rc == ETB_OK) rc = etb_cbor_put_head(buf, cap, &len, 0, ETB_KEY_DEVICE);
    if (rc == ETB_OK) rc = etb_cbor_put_text(buf, cap, &len, device_id, dn);
    if (rc == ETB_OK) rc = etb_cbor_put_head(buf, cap, &len, 0, ETB_KEY_ACKED);
    if (rc == ETB_OK) rc = etb_cbor_put_head(buf, cap, &len, 0, seq);
    if (rc == ETB_OK) rc = etb_cbor_put_head(buf, cap, &len, 0, ETB_KEY_BOOT);
    if (rc == ETB_OK) rc = etb_cbor_put_head(buf, cap, &len, 0, boot);
    if (rc == ETB_OK && key) rc = etb_put_mac(buf, cap, &len, key, key_len);
    if (rc == ETB_OK) rc = etb_put_crc(buf, cap, &len);
    if (rc != ETB_OK) return rc;
    *out_len = len;
    return ETB_OK;
}

typedef struct reader {
    const uint8_t *p;
    const uint8_t *end;
} reader_t;

/* Reads one head. Definite lengths only; additional info 28..31 is malformed here. */
static int read_head(reader_t *r, uint8_t *major, uint64_t *arg) {
    uint8_t ib, info;
    size_t n, i;
    if (r->p >= r->end) return ETB_ERR_MALFORMED;
    ib = *r->p++;
    *major = (uint8_t)(ib >> 5);
    info = (uint8_t)(ib & 0x1Fu);
    if (info < 24) {
        *arg = info;
        return ETB_OK;
    }
    if (info > 27) return ETB_ERR_MALFORMED;
    n = (size_t)1u << (info - 24);
    if ((size_t)(r->end - r->p) < n) return ETB_ERR_MALFORMED;
    *arg = 0;
    for (i = 0; i < n; i++) *arg = (*arg << 8) | *r->p++;
    return ETB_OK;
}

/* Skips one well-formed item, at most 8 levels deep. Each item consumes >= 1 byte, so the
 * loops end when the input does, whatever counts a hostile head claims. */
static int skip_item(reader_t *r, int depth) {
    uint8_t major;
    uint64_t arg, i;
    int rc;
    if (depth > 8) return ETB_ERR_MALFORMED;
    if ((rc = read_head(r, &major, &arg)) != ETB_OK) return rc;
    switch (major) {
    case 0: case 1: case 7: return ETB_OK;
    case 2: case 3:
        if ((uint64_t)(r->end - r->p) < arg) return ETB_ERR_MALFORMED;
        r->p += (size_t)arg;
        return ETB_OK;
    case 4: case 5:
        if (major == 5) {
            if (arg > (uint64_t)(r->end - r->p)) return ETB_ERR_MALFORMED;
            arg *= 2;
        }
        for (i = 0; i < arg; i++) {
            if ((rc = skip_item(r, depth + 1)) != ETB_OK) return rc;
        }
        return ETB_OK;
    default: /* 6: tag */
        return skip_item(r, depth + 1);
    }
}

int etb_ack_decode(const uint8_t *buf, size_t len, etb_ack_t *out) {
    reader_t r;
    uint8_t major;
    uint64_t npairs, i, key, v;
    uint64_t version = 0;
    int seen_version = 0, seen_device = 0, seen_acked = 0, seen_boot = 0, late = ETB_OK, rc;
    uint64_t last_key = 0;
    unsigned seen_keys = 0;
    if (buf == NULL || out == NULL) return ETB_ERR_INVALID;
    if (len > ETB_MAX_ACK_BYTES) return ETB_ERR_TOO_LARGE;
    if (len < 1 + ETB_CRC_BYTES) return ETB_ERR_TRUNCATED;
    if (!etb_crc_matches(buf, len)) return ETB_ERR_CRC;
    memset(out, 0, sizeof *out);
    r.p = buf;
    r.end = buf + len - ETB_CRC_BYTES;
    if ((rc = read_head(&r, &major, &npairs)) != ETB_OK) return rc;
    if (major != 5) return ETB_ERR_MALFORMED;
    for (i = 0; i < npairs; i++) {
        if ((rc = read_head(&r, &major, &key)) != ETB_OK) return rc;
        if (major != 0) return ETB_ERR_MALFORMED;
        last_key = key;
        if (key < ETB_KEY_FIRST_EXTENSION) {
            if (seen_keys & (1u << key)) return ETB_ERR_MALFORMED;
            seen_keys |= 1u << key;
        }
        if (key == ETB_KEY_VERSION) {
            if ((rc = read_head(&r, &major, &version)) != ETB_OK) return rc;
            if (major != 0) return ETB_ERR_MALFORMED;
            seen_version = 1;
        } else if (key == ETB_KEY_DEVICE) {
            if ((rc = read_head(&r, &major, &v)) != ETB_OK) return rc;
            if (major != 3 || v > (uint64_t)(r.end - r.p)) return ETB_ERR_MALFORMED;
            if (!etb_valid_device_id((const char *)r.p, (size_t)v)) late = ETB_ERR_MALFORMED;
            else memcpy(out->device_id, r.p, (size_t)v);
            r.p += (size_t)v;
            seen_device = 1;
        } else if (key == ETB_KEY_ACKED) {
            if ((rc = read_head(&r, &major, &v)) != ETB_OK) return rc;
            if (major != 0) return ETB_ERR_MALFORMED;
            if (v > 0xFFFFFFFFu) late = ETB_ERR_MALFORMED;
            out->seq = (uint32_t)v;
            seen_acked = 1;
        } else if (key == ETB_KEY_BOOT) {
            if ((rc = read_head(&r, &major, &v)) != ETB_OK) return rc;
            if (major != 0) return ETB_ERR_MALFORMED;
            if (v == 0 || v > 0xFFFFFFFFu) late = ETB_ERR_MALFORMED;
            out->boot = (uint32_t)v;
            seen_boot = 1;
        } else if (key == ETB_KEY_MAC) {
            /* exactly 48 <8 bytes>, and the last pair: etb_ack_verify checks the tag */
            if ((size_t)(r.end - r.p) < 1u + ETB_MAC_BYTES || *r.p != (0x40u | ETB_MAC_BYTES)) return ETB_ERR_MALFORMED;
            r.p += 1u + ETB_MAC_BYTES;
            out->has_mac = 1;
        } else {
            if (key < ETB_KEY_FIRST_EXTENSION) late = ETB_ERR_MALFORMED;
            if ((rc = skip_item(&r, 1)) != ETB_OK) return rc;
        }
    }
    if (r.p != r.end) return ETB_ERR_MALFORMED;
    if (!seen_version) return ETB_ERR_MALFORMED;
    if (out->has_mac && last_key != ETB_KEY_MAC) late = ETB_ERR_MALFORMED;
    if (version != ETB_FORMAT_VERSION) return ETB_ERR_VERSION;
    if (late != ETB_OK) return late;
    if (!seen_device || !seen_acked || !seen_boot) return ETB_ERR_MALFORMED;
    return ETB_OK;
}

int etb_ack_verify(const uint8_t *buf, size_t len, const uint8_t *key, size_t key_len) {
    etb_ack_t a;
    int rc;
    if (key == NULL || key_len < ETB_MIN_KEY_BYTES || key_len > ETB_MAX_KEY_BYTES) return ETB_ERR_INVALID;
    if ((rc = etb_ack_decode(buf, len, &a)) != ETB_OK) return rc;
    return a.has_mac && etb_mac_matches(buf, len, key, key_len) ? ETB_OK : ETB_ERR_AUTH;
}
