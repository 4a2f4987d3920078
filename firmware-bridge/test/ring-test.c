#include <string.h>
#include "check.h"

void test_ring(void) {
    uint8_t mem[ETB_RING_STORAGE_BYTES(3, 32) + 5], frame[40], *buf;
    etb_ring_t r;
    etb_ring_entry_t e;
    size_t cap;
    uint32_t seq;
    int i;

    CHECK_RC(etb_ring_init(&r, mem, 10, 32), ETB_ERR_BUFFER_TOO_SMALL);
    CHECK_RC(etb_ring_init(&r, mem, sizeof mem, 31), ETB_ERR_INVALID);
    CHECK_RC(etb_ring_init(&r, mem, sizeof mem, ETB_MAX_FRAME_BYTES + 1), ETB_ERR_INVALID);
    CHECK_RC(etb_ring_init(&r, mem, sizeof mem, 32), ETB_OK);
    CHECK(etb_ring_capacity(&r) == 3 && etb_ring_count(&r) == 0);
    CHECK_RC(etb_ring_peek(&r, 0, &e), ETB_ERR_EMPTY);
    CHECK_RC(etb_ring_drop_oldest(&r), ETB_ERR_EMPTY);
    CHECK(etb_ring_ack(&r, 100) == 0);

    memset(frame, 0xAB, sizeof frame);
    CHECK_RC(etb_ring_push(&r, 1, frame, 33), ETB_ERR_BUFFER_TOO_SMALL);
    CHECK_RC(etb_ring_push(&r, 0, frame, 10), ETB_ERR_INVALID); /* seq starts at 1 */
    CHECK_RC(etb_ring_push(&r, 1, frame, 0), ETB_ERR_INVALID);
    for (seq = 1; seq <= 3; seq++) {
        frame[0] = (uint8_t)seq;
        CHECK_RC(etb_ring_push(&r, seq * 10, frame, seq), ETB_OK);
    }
    CHECK_RC(etb_ring_push(&r, 40, frame, 4), ETB_ERR_FULL);
    CHECK_RC(etb_ring_reserve(&r, &buf, &cap), ETB_ERR_FULL);
    CHECK(etb_ring_count(&r) == 3);
    for (i = 0; i < 3; i++) {
        CHECK_RC(etb_ring_peek(&r, (size_t)i, &e), ETB_OK);
        CHECK(e.seq == (uint32_t)(i + 1) * 10 && e.len == (size_t)i + 1 && e.frame[0] == i + 1 && !e.sent);
    }
    CHECK_RC(etb_ring_mark_sent(&r, 1, 777), ETB_OK);
    CHECK_RC(etb_ring_peek(&r, 1, &e), ETB_OK);
    CHECK(e.sent && e.sent_ms == 777);
    CHECK_RC(etb_ring_mark_sent(&r, 3, 1), ETB_ERR_EMPTY);

    /* An ack frees a prefix: everything <= the acked seq. */
    CHECK(etb_ring_ack(&r, 9) == 0);
    CHECK(etb_ring_ack(&r, 25) == 2);
    CHECK(etb_ring_count(&r) == 1);
    CHECK_RC(etb_ring_peek(&r, 0, &e), ETB_OK);
    CHECK(e.seq == 30 && e.frame[0] == 3);
    CHECK(etb_ring_ack(&r, 25) == 0); /* repeated ack: nothing more */

    /* Wrap around the end of the storage, in-place reserve/commit. */
    CHECK_RC(etb_ring_push(&r, 30, frame, 4), ETB_ERR_INVALID); /* not above the newest */
    for (seq = 31; seq <= 32; seq++) {
        CHECK_RC(etb_ring_reserve(&r, &buf, &cap), ETB_OK);
        CHECK(cap == 32);
        memset(buf, (int)seq, cap);
        CHECK_RC(etb_ring_commit(&r, seq, 32), ETB_OK);
    }
    CHECK_RC(etb_ring_commit(&r, 33, 1), ETB_ERR_FULL);
    CHECK_RC(etb_ring_peek(&r, 2, &e), ETB_OK);
    CHECK(e.seq == 32 && e.len == 32 && e.frame[31] == 32);
    CHECK_RC(etb_ring_drop_oldest(&r), ETB_OK);
    CHECK_RC(etb_ring_peek(&r, 0, &e), ETB_OK);
    CHECK(e.seq == 31 && e.frame[0] == 31);
    CHECK(etb_ring_ack(&r, 0xFFFFFFFFu) == 2);
    CHECK(etb_ring_count(&r) == 0);

    /* Many cycles keep order and contents: fill, check the oldest, ack it. */
    for (seq = 100; seq < 1100; seq++) {
        uint8_t v[4];
        memcpy(v, &seq, 4);
        if (etb_ring_push(&r, seq, v, 4) != ETB_OK) { CHECK(!"push"); break; }
        if (etb_ring_count(&r) == etb_ring_capacity(&r)) {
            uint32_t got;
            if (etb_ring_peek(&r, 0, &e) != ETB_OK) { CHECK(!"peek"); break; }
            memcpy(&got, e.frame, 4);
            if (got != e.seq || e.seq != seq - 2) { CHECK(!"contents"); break; }
            etb_ring_ack(&r, e.seq);
        }
    }
    CHECK(etb_ring_count(&r) == 2);
}
