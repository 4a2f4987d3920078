/*
 * Ring of unacknowledged frames in caller storage: `slots` fixed slots, each
 *   [0..4) seq  [4..6) len  [6] sent flag  [7] unused  [8..16) sent_ms  [16..) frame bytes
 * (host byte order, accessed with memcpy so storage needs no alignment). Entries are ordered by
 * seq, which strictly increases, so an ack frees a prefix.
 */
#include <string.h>
#include "etb_internal.h"

static uint8_t *slot(const etb_ring_t *r, size_t i) {
    return r->mem + ((r->head + i) % r->slots) * (ETB_RING_SLOT_HEADER_BYTES + r->slot_bytes);
}

int etb_ring_init(etb_ring_t *r, uint8_t *storage, size_t storage_len, size_t slot_bytes) {
    if (r == NULL || storage == NULL) return ETB_ERR_INVALID;
    if (slot_bytes < 32 || slot_bytes > ETB_MAX_FRAME_BYTES) return ETB_ERR_INVALID;
    memset(r, 0, sizeof *r);
    r->mem = storage;
    r->slot_bytes = slot_bytes;
    r->slots = storage_len / (ETB_RING_SLOT_HEADER_BYTES + slot_bytes);
    if (r->slots == 0) return ETB_ERR_BUFFER_TOO_SMALL;
    return ETB_OK;
}

size_t etb_ring_count(const etb_ring_t *r) { return r ? r->count : 0; }
size_t etb_ring_capacity(const etb_ring_t *r) { return r ? r->slots : 0; }

int etb_ring_reserve(etb_ring_t *r, uint8_t **buf, size_t *cap) {
    if (r == NULL || buf == NULL || cap == NULL) return ETB_ERR_INVALID;
    if (r->count == r->slots) return ETB_ERR_FULL;
    *buf = slot(r, r->count) + ETB_RING_SLOT_HEADER_BYTES;
    *cap = r->slot_bytes;
    return ETB_OK;
}

int etb_ring_commit(etb_ring_t *r, uint32_t seq, size_t len) {
    uint8_t *s;
    uint16_t len16 = (uint16_t)len;
    uint64_t zero = 0;
    if (r == NULL) return ETB_ERR_INVALID;
    if (r->count == r->slots) return ETB_ERR_FULL;
    if (len == 0 || len > r->slot_bytes) return ETB_ERR_INVALID;
    if (seq <= r->last_seq) return ETB_ERR_INVALID;
    s = slot(r, r->count);
    memcpy(s, &seq, 4);
    memcpy(s + 4, &len16, 2);
    s[6] = 0;
    s[7] = 0;
    memcpy(s + 8, &zero, 8);
    r->count++;
    r->last_seq = seq;
    return ETB_OK;
}

int etb_ring_push(etb_ring_t *r, uint32_t seq, const uint8_t *frame, size_t len) {
    uint8_t *buf;
    size_t cap;
    int rc;
    if (frame == NULL) return ETB_ERR_INVALID;
    if ((rc = etb_ring_reserve(r, &buf, &cap)) != ETB_OK) return rc;
    if (len > cap) return ETB_ERR_BUFFER_TOO_SMALL;
    if (seq <= r->last_seq || len == 0) return ETB_ERR_INVALID;
    memcpy(buf, frame, len);
    return etb_ring_commit(r, seq, len);
}

int etb_ring_peek(const etb_ring_t *r, size_t index, etb_ring_entry_t *out) {
    const uint8_t *s;
    uint16_t len16;
    if (r == NULL || out == NULL) return ETB_ERR_INVALID;
    if (index >= r->count) return ETB_ERR_EMPTY;
    s = slot(r, index);
    memcpy(&out->seq, s, 4);
    memcpy(&len16, s + 4, 2);
    out->len = len16;
    out->sent = s[6];
    memcpy(&out->sent_ms, s + 8, 8);
    out->frame = s + ETB_RING_SLOT_HEADER_BYTES;
    return ETB_OK;
}

int etb_ring_mark_sent(etb_ring_t *r, size_t index, uint64_t now_ms) {
    uint8_t *s;
    if (r == NULL) return ETB_ERR_INVALID;
    if (index >= r->count) return ETB_ERR_EMPTY;
    s = slot(r, index);
    s[6] = 1;
    memcpy(s + 8, &now_ms, 8);
    return ETB_OK;
}

int etb_ring_ack(etb_ring_t *r, uint32_t acked_seq) {
    int freed = 0;
    if (r == NULL) return ETB_ERR_INVALID;
    while (r->count > 0) {
        uint32_t seq;
        memcpy(&seq, slot(r, 0), 4);
        if (seq > acked_seq) break;
        r->head = (r->head + 1) % r->slots;
        r->count--;
        freed++;
    }
    return freed;
}

int etb_ring_drop_oldest(etb_ring_t *r) {
    if (r == NULL) return ETB_ERR_INVALID;
    if (r->count == 0) return ETB_ERR_EMPTY;
    r->head = (r->head + 1) % r->slots;
    r->count--;
    return ETB_OK;
}
