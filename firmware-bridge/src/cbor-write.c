/* The CBOR subset the node writes (RFC 8949): heads in preferred (shortest) form, text strings.
 * Floats are written by frame.c. Nothing here allocates. */
#include <string.h>
#include "etb_internal.h"

size_t etb_cbor_head_size(uint64_t arg) {
    if (arg < 24u) return 1;
    if (arg <= 0xFFu) return 2;
    if (arg <= 0xFFFFu) return 3;
    if (arg <= 0xFFFFFFFFu) return 5;
    return 9;
}

int etb_cbor_put_head(uint8_t *buf, size_t cap, size_t *len, uint8_t major, uint64_t arg) {
    size_t n = etb_cbor_head_size(arg), i;
    uint8_t *p;
    if (*len > cap || cap - *len < n) return ETB_ERR_BUFFER_TOO_SMALL;
    p = buf + *len;
    major = (uint8_t)(major << 5);
    switch (n) {
    case 1: p[0] = (uint8_t)(major | arg); break;
    case 2: p[0] = (uint8_t)(major | 24u); break;
    case 3: p[0] = (uint8_t)(major | 25u); break;
    case 5: p[0] = (uint8_t)(major | 26u); break;
    default: p[0] = (uint8_t)(major | 27u); break;
    }
    for (i = 1; i < n; i++) p[i] = (uint8_t)(arg >> (8u * (n - 1u - i)));
    *len += n;
    return ETB_OK;
}

int etb_cbor_put_text(uint8_t *buf, size_t cap, size_t *len, const char *s, size_t n) {
    size_t start = *len;
    int rc = etb_cbor_put_head(buf, cap, len, 3, n);
    if (rc != ETB_OK) return rc;
    if (cap - *len < n) {
        *len = start;
        return ETB_ERR_BUFFER_TOO_SMALL;
    }
    if (n) memcpy(buf + *len, s, n);
    *len += n;
    return ETB_OK;
}
