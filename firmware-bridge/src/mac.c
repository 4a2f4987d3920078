/*
 * The MAC pair that ends a keyed frame's or ack's CBOR map (docs/sensor-frame.md, "MAC"):
 *
 *   mac-pair = 08 48 tag                  ; key 8, byte string of ETB_MAC_BYTES
 *   tag      = HMAC-SHA256(key, every map byte before mac-pair)[0..8)
 *   message  = map-bytes mac-pair crc32   ; the CRC covers the MAC too
 */
#include <string.h>
#include "etb_internal.h"

int etb_put_mac(uint8_t *buf, size_t cap, size_t *len, const uint8_t *key, size_t key_len) {
    uint8_t tag[ETB_SHA256_BYTES];
    int rc;
    if (cap < *len || cap - *len < 2u + ETB_MAC_BYTES) return ETB_ERR_BUFFER_TOO_SMALL;
    if ((rc = etb_hmac_sha256(key, key_len, buf, *len, tag)) != ETB_OK) return rc;
    buf[(*len)++] = (uint8_t)ETB_KEY_MAC;
    buf[(*len)++] = (uint8_t)(0x40u | ETB_MAC_BYTES);
    memcpy(buf + *len, tag, ETB_MAC_BYTES);
    *len += ETB_MAC_BYTES;
    return ETB_OK;
}

int etb_mac_matches(const uint8_t *msg, size_t len, const uint8_t *key, size_t key_len) {
    uint8_t tag[ETB_SHA256_BYTES], diff = 0;
    size_t covered, i;
    if (msg == NULL || key == NULL || len < 1u + 2u + ETB_MAC_BYTES + ETB_CRC_BYTES) return 0;
    covered = len - ETB_CRC_BYTES - ETB_MAC_BYTES - 2u;
    if (msg[covered] != ETB_KEY_MAC || msg[covered + 1] != (0x40u | ETB_MAC_BYTES)) return 0;
    if (etb_hmac_sha256(key, key_len, msg, covered, tag) != ETB_OK) return 0;
    for (i = 0; i < ETB_MAC_BYTES; i++) diff |= (uint8_t)(tag[i] ^ msg[covered + 2u + i]); /* constant time */
    return diff == 0;
}
