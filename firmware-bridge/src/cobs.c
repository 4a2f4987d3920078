/*
 * COBS (Consistent Overhead Byte Stuffing, Cheshire & Baker 1999).
 *
 *   encoded = block*          ; no 0x00 inside
 *   block   = code data       ; code = 0x01..0xFF, data = code - 1 non-zero bytes
 * A block with code < 0xFF is followed by an implied 0x00 unless it ends the message; 0xFF
 * blocks have no implied zero. The encoder writes the usual minimal form: input ending right
 * after a full 0xFF block gets no extra 01 block (254 non-zero bytes -> FF d1..d254); decoders
 * also accept the longer form with the 01. Size <= n + n/254 + 1 (ETB_COBS_MAX_ENCODED).
 * On serial every message is followed by one 0x00 delimiter.
 */
#include "etb_internal.h"

int etb_cobs_encode(const uint8_t *in, size_t len, uint8_t *out, size_t cap, size_t *out_len) {
    size_t i, o = 1, code_at = 0;
    int pending = 1; /* a code byte is reserved at code_at */
    uint8_t code = 1;
    if ((in == NULL && len) || out == NULL || out_len == NULL) return ETB_ERR_INVALID;
    if (cap < 1) return ETB_ERR_BUFFER_TOO_SMALL;
    for (i = 0; i < len; i++) {
        if (in[i] == 0) {
            out[code_at] = code;
            if (o >= cap) return ETB_ERR_BUFFER_TOO_SMALL;
            code_at = o++;
            code = 1;
        } else {
            if (o >= cap) return ETB_ERR_BUFFER_TOO_SMALL;
            out[o++] = in[i];
            if (++code == 0xFF) {
                out[code_at] = code;
                code = 1;
                pending = i + 1 < len;
                if (pending) {
                    if (o >= cap) return ETB_ERR_BUFFER_TOO_SMALL;
                    code_at = o++;
                }
            }
        }
    }
    if (pending) out[code_at] = code;
    *out_len = o;
    return ETB_OK;
}

int etb_cobs_decode(const uint8_t *in, size_t len, uint8_t *out, size_t cap, size_t *out_len) {
    size_t i = 0, o = 0;
    if ((in == NULL && len) || out == NULL || out_len == NULL) return ETB_ERR_INVALID;
    while (i < len) {
        uint8_t code = in[i++];
        size_t k;
        if (code == 0) return ETB_ERR_COBS;
        if ((size_t)(code - 1u) > len - i) return ETB_ERR_COBS;
        for (k = 1; k < code; k++) {
            uint8_t b = in[i++];
            if (b == 0) return ETB_ERR_COBS;
            if (o >= cap) return ETB_ERR_BUFFER_TOO_SMALL;
            out[o++] = b;
        }
        if (code < 0xFF && i < len) {
            if (o >= cap) return ETB_ERR_BUFFER_TOO_SMALL;
            out[o++] = 0;
        }
    }
    *out_len = o;
    return ETB_OK;
}

/* Same bytes as etb_cobs_encode followed by 0x00, written block by block straight from data. */
int etb_cobs_write(const etb_port_t *port, const uint8_t *data, size_t len) {
    size_t i = 0;
    static const uint8_t delimiter = 0;
    if (port == NULL || port->write == NULL || (data == NULL && len)) return ETB_ERR_INVALID;
    for (;;) {
        size_t k = 0;
        uint8_t code;
        while (i + k < len && data[i + k] != 0 && k < 254) k++;
        code = (uint8_t)(k + 1);
        if (port->write(port->ctx, &code, 1) < 0) return ETB_ERR_IO;
        if (k && port->write(port->ctx, data + i, k) < 0) return ETB_ERR_IO;
        i += k;
        if (i == len) break; /* the message ends here (after a 0xFF block: no 01 block) */
        if (k == 254) continue; /* 0xFF block: no implied zero */
        i++;                    /* skip the real zero this block stands for */
    }
    if (port->write(port->ctx, &delimiter, 1) < 0) return ETB_ERR_IO;
    return ETB_OK;
}

int etb_cobs_rx_init(etb_cobs_rx_t *rx, uint8_t *buf, size_t cap) {
    if (rx == NULL || buf == NULL || cap < 1) return ETB_ERR_INVALID;
    rx->buf = buf;
    rx->cap = cap;
    rx->len = 0;
    rx->overflow = 0;
    return ETB_OK;
}

int etb_cobs_rx_push(etb_cobs_rx_t *rx, uint8_t byte, const uint8_t **msg, size_t *msg_len) {
    if (byte == 0) {
        size_t n = rx->len, out = 0;
        int rc;
        rx->len = 0;
        if (rx->overflow) {
            rx->overflow = 0;
            return 0;
        }
        if (n == 0) return 0;
        rc = etb_cobs_decode(rx->buf, n, rx->buf, rx->cap, &out);
        if (rc != ETB_OK) return ETB_ERR_COBS;
        *msg = rx->buf;
        *msg_len = out;
        return 1;
    }
    if (rx->overflow) return 0;
    if (rx->len == rx->cap) {
        rx->overflow = 1;
        rx->len = 0;
        return ETB_ERR_TOO_LARGE;
    }
    rx->buf[rx->len++] = byte;
    return 0;
}
