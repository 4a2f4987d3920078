/*
 * SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104) for the frame MAC (docs/sensor-frame.md, "MAC").
 * Self-contained C99: no heap, no tables beyond the 64 round constants, state in the caller's
 * etb_sha256_t. Tested against FIPS 180-4 / RFC 4231 vectors and Node's crypto.
 */
#include <string.h>
#include "etb_internal.h"

static const uint32_t K[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
    0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
    0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
    0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
    0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
    0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
    0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u,
};

#define ROTR(x, n) (((x) >> (n)) | ((x) << (32u - (n))))

static void compress(uint32_t h[8], const uint8_t block[64]) {
    uint32_t w[64], a, b, c, d, e, f, g, hh, t1, t2;
    unsigned i;
    for (i = 0; i < 16; i++)
        w[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 | (uint32_t)block[4 * i + 2] << 8 | block[4 * i + 3];
    for (i = 16; i < 64; i++) {
        uint32_t s0 = ROTR(w[i - 15], 7) ^ ROTR(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ROTR(w[i - 2], 17) ^ ROTR(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    a = h[0]; b = h[1]; c = h[2]; d = h[3]; e = h[4]; f = h[5]; g = h[6]; hh = h[7];
    for (i = 0; i < 64; i++) {
        t1 = hh + (ROTR(e, 6) ^ ROTR(e, 11) ^ ROTR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
        t2 = (ROTR(a, 2) ^ ROTR(a, 13) ^ ROTR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        hh = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

void etb_sha256_init(etb_sha256_t *s) {
    static const uint32_t iv[8] = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
                                   0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u};
    memcpy(s->h, iv, sizeof iv);
    s->total = 0;
    s->fill = 0;
}

void etb_sha256_update(etb_sha256_t *s, const uint8_t *data, size_t len) {
    while (len > 0) {
        size_t take = 64u - s->fill;
        if (take > len) take = len;
        memcpy(s->block + s->fill, data, take);
        s->fill += take;
        s->total += take;
        data += take;
        len -= take;
        if (s->fill == 64u) {
            compress(s->h, s->block);
            s->fill = 0;
        }
    }
}

void etb_sha256_final(etb_sha256_t *s, uint8_t out[ETB_SHA256_BYTES]) {
    uint64_t bits = s->total * 8u;
    unsigned i;
    s->block[s->fill++] = 0x80u;
    if (s->fill > 56u) {
        memset(s->block + s->fill, 0, 64u - s->fill);
        compress(s->h, s->block);
        s->fill = 0;
    }
    memset(s->block + s->fill, 0, 56u - s->fill);
    for (i = 0; i < 8; i++) s->block[56 + i] = (uint8_t)(bits >> (56u - 8u * i));
    compress(s->h, s->block);
    for (i = 0; i < 8; i++) {
        out[4 * i] = (uint8_t)(s->h[i] >> 24);
        out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
        out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
        out[4 * i + 3] = (uint8_t)s->h[i];
    }
}

int etb_hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *msg, size_t msg_len,
                    uint8_t out[ETB_SHA256_BYTES]) {
    etb_sha256_t s;
    uint8_t k[64], pad[64], inner[ETB_SHA256_BYTES];
    unsigned i;
    if ((key == NULL && key_len) || (msg == NULL && msg_len) || out == NULL) return ETB_ERR_INVALID;
    memset(k, 0, sizeof k);
    if (key_len > sizeof k) {
        etb_sha256_init(&s);
        etb_sha256_update(&s, key, key_len);
        etb_sha256_final(&s, k);
    } else if (key_len) {
        memcpy(k, key, key_len);
    }
    for (i = 0; i < 64; i++) pad[i] = (uint8_t)(k[i] ^ 0x36u);
    etb_sha256_init(&s);
    etb_sha256_update(&s, pad, sizeof pad);
    if (msg_len) etb_sha256_update(&s, msg, msg_len);
    etb_sha256_final(&s, inner);
    for (i = 0; i < 64; i++) pad[i] = (uint8_t)(k[i] ^ 0x5cu);
    etb_sha256_init(&s);
    etb_sha256_update(&s, pad, sizeof pad);
    etb_sha256_update(&s, inner, sizeof inner);
    etb_sha256_final(&s, out);
    memset(k, 0, sizeof k);
    memset(pad, 0, sizeof pad);
    return ETB_OK;
}
