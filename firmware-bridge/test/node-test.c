#include <string.h>
#include "check.h"

/* A fake link: records each transmitted datagram (or the serial byte stream), owns the clock,
 * and fails or drops writes on demand. */
typedef struct link {
    uint64_t now;
    int writes;
    int fail_at;      /* fail this write number (1-based); 0 = never */
    int drop_every;   /* silently lose every Nth write; 0 = never */
    uint8_t stream[8192];
    size_t stream_len;
    uint8_t last[ETB_MAX_FRAME_BYTES];
    size_t last_len;
    int delivered[64]; /* per seq, for the lossy-link simulation */
    uint32_t boot;     /* the "persisted" boot counter: link_boot increments it */
    int boot_rc;       /* what link_boot returns */
} link_t;

static uint64_t link_now(void *ctx) { return ((link_t *)ctx)->now; }

static int link_boot(void *ctx, uint32_t *boot) {
    link_t *l = ctx;
    if (l->boot_rc != ETB_OK) return l->boot_rc;
    *boot = ++l->boot;
    return ETB_OK;
}

static int link_write(void *ctx, const uint8_t *d, size_t n) {
    link_t *l = ctx;
    l->writes++;
    if (l->writes == l->fail_at) return ETB_ERR_IO;
    if (l->drop_every && l->writes % l->drop_every == 0) return ETB_OK;
    if (n <= sizeof l->last) { memcpy(l->last, d, n); l->last_len = n; }
    if (n <= sizeof l->stream - l->stream_len) { memcpy(l->stream + l->stream_len, d, n); l->stream_len += n; }
    return ETB_OK;
}

/* base and boot of a raw frame made by this library with small numbers (< 24), no MAC:
 * ... 05 base 07 boot crc32. */
static uint32_t frame_base(const uint8_t *f, size_t len) { return len >= 8 && f[len - 8] == 0x05 ? f[len - 7] : 999; }
static uint32_t frame_boot(const uint8_t *f, size_t len) { return len >= 6 && f[len - 6] == 0x07 ? f[len - 5] : 999; }

static int send_reading(etb_node_t *n, link_t *l, int value, uint32_t *seq) {
    etb_frame_t f;
    int rc = etb_node_begin(n, &f, 1700000000000u + l->now);
    if (rc != ETB_OK) return rc;
    etb_frame_add_int(&f, "v", value);
    return etb_node_send(n, &f, seq);
}

static int ack_boot(etb_node_t *n, const char *device, uint32_t boot, uint32_t seq) {
    uint8_t buf[ETB_MAX_ACK_BYTES];
    size_t len;
    etb_ack_encode(device, boot, seq, buf, sizeof buf, &len);
    return etb_node_handle_ack(n, buf, len);
}

static int ack(etb_node_t *n, const char *device, uint32_t seq) { return ack_boot(n, device, etb_node_boot(n), seq); }

static void datagram(void) {
    static uint8_t mem[ETB_RING_STORAGE_BYTES(4, 64)];
    link_t l;
    etb_port_t port = {0, link_now, link_write, link_boot};
    etb_ring_t ring;
    etb_node_t n;
    uint32_t seq = 0;
    uint8_t bad[ETB_MAX_ACK_BYTES];
    size_t bad_len;

    memset(&l, 0, sizeof l);
    port.ctx = &l;
    etb_ring_init(&ring, mem, sizeof mem, 64);
    CHECK_RC(etb_node_init(&n, &port, &ring, "bad id", ETB_TRANSPORT_DATAGRAM, 1, 100), ETB_ERR_INVALID);
    CHECK_RC(etb_node_init(&n, &port, &ring, "n1", ETB_TRANSPORT_DATAGRAM, 0, 100), ETB_ERR_RANGE);
    {
        etb_port_t no_clock = {0, NULL, link_write, link_boot};
        etb_port_t no_boot = {0, link_now, link_write, NULL};
        CHECK_RC(etb_node_init(&n, &no_clock, &ring, "n1", ETB_TRANSPORT_DATAGRAM, 1, 100), ETB_ERR_INVALID);
        CHECK_RC(etb_node_init(&n, &no_boot, &ring, "n1", ETB_TRANSPORT_DATAGRAM, 1, 100), ETB_ERR_INVALID);
        l.boot_rc = ETB_ERR_IO; /* the boot counter cannot be persisted: no frames under a stale id */
        CHECK_RC(etb_node_init(&n, &port, &ring, "n1", ETB_TRANSPORT_DATAGRAM, 1, 100), ETB_ERR_IO);
        l.boot_rc = ETB_OK;
        l.boot = 0xFFFFFFFFu; /* wraps to 0: refused */
        CHECK_RC(etb_node_init(&n, &port, &ring, "n1", ETB_TRANSPORT_DATAGRAM, 1, 100), ETB_ERR_RANGE);
        l.boot = 0;
    }
    CHECK_RC(etb_node_init(&n, &port, &ring, "n1", ETB_TRANSPORT_DATAGRAM, 1, 100), ETB_OK);

    CHECK_RC(send_reading(&n, &l, 1, &seq), ETB_OK);
    CHECK(seq == 1 && l.writes == 1 && etb_node_pending(&n) == 1);
    CHECK(frame_base(l.last, l.last_len) == 1);
    CHECK(etb_node_boot(&n) == 1 && frame_boot(l.last, l.last_len) == 1);
    l.now = 10;
    CHECK_RC(send_reading(&n, &l, 2, &seq), ETB_OK);
    CHECK_RC(send_reading(&n, &l, 3, &seq), ETB_OK);
    CHECK(seq == 3 && frame_base(l.last, l.last_len) == 1); /* seq 1 still held */

    /* Nothing is resent before the timeout, everything after it, each on its own clock. */
    l.now = 99;
    CHECK(etb_node_poll(&n) == 0);
    l.now = 100;
    CHECK(etb_node_poll(&n) == 1);
    l.now = 110;
    CHECK(etb_node_poll(&n) == 2);
    CHECK(etb_node_poll(&n) == 0);

    /* Acks free a prefix; other devices' and corrupt acks change nothing. */
    CHECK(ack(&n, "n1", 2) == 2);
    CHECK(etb_node_pending(&n) == 1 && etb_node_acked(&n) == 2);
    CHECK_RC(ack(&n, "n2", 3), ETB_ERR_OTHER_DEVICE);
    etb_ack_encode("n1", 1, 3, bad, sizeof bad, &bad_len);
    bad[3] ^= 0x40;
    CHECK_RC(etb_node_handle_ack(&n, bad, bad_len), ETB_ERR_CRC);
    CHECK(etb_node_pending(&n) == 1);
    CHECK(ack(&n, "n1", 1) == 0); /* an old ack is harmless */
    CHECK(etb_node_acked(&n) == 2);
    CHECK_RC(send_reading(&n, &l, 4, &seq), ETB_OK);
    CHECK(frame_base(l.last, l.last_len) == 3);

    /* A failed write keeps the frame; the next poll retries it without waiting. */
    l.fail_at = l.writes + 1;
    CHECK_RC(send_reading(&n, &l, 5, &seq), ETB_ERR_IO);
    CHECK(seq == 5 && etb_node_pending(&n) == 3);
    CHECK(etb_node_poll(&n) == 1);
    CHECK(etb_node_pending(&n) == 3);
    l.fail_at = l.writes + 1;
    l.now += 1000;
    CHECK_RC(etb_node_poll(&n), ETB_ERR_IO);

    /* A full ring refuses new frames until acks come; a bad field consumes no seq. */
    CHECK_RC(send_reading(&n, &l, 6, &seq), ETB_OK);
    CHECK_RC(send_reading(&n, &l, 7, &seq), ETB_ERR_FULL);
    {
        etb_frame_t f;
        CHECK(ack(&n, "n1", 4) == 2);
        CHECK_RC(etb_node_begin(&n, &f, 1), ETB_OK);
        CHECK_RC(etb_frame_add_int(&f, "bad name", 1), ETB_ERR_INVALID);
        CHECK_RC(etb_node_send(&n, &f, &seq), ETB_ERR_INVALID);
        CHECK(etb_node_next_seq(&n) == 7 && etb_node_pending(&n) == 2);
    }
    /* The bridge knows seqs beyond ours (we rebooted): never reuse them. */
    CHECK(ack(&n, "n1", 500) == 2);
    CHECK(etb_node_next_seq(&n) == 501 && etb_node_pending(&n) == 0);
    CHECK_RC(send_reading(&n, &l, 8, &seq), ETB_OK);
    CHECK(seq == 501);
}

static void serial(void) {
    static uint8_t mem[ETB_RING_STORAGE_BYTES(4, 64)];
    link_t l;
    etb_port_t port = {0, link_now, link_write, link_boot};
    etb_ring_t ring;
    etb_node_t n;
    etb_cobs_rx_t rx;
    uint8_t rxbuf[ETB_MAX_COBS_FRAME_BYTES];
    uint32_t seq;
    size_t i;
    int frames = 0;

    memset(&l, 0, sizeof l);
    port.ctx = &l;
    etb_ring_init(&ring, mem, sizeof mem, 64);
    CHECK_RC(etb_node_init(&n, &port, &ring, "uart-node", ETB_TRANSPORT_SERIAL, 1, 100), ETB_OK);
    CHECK_RC(send_reading(&n, &l, 0, &seq), ETB_OK); /* a zero value puts 0x00 bytes in the frame */
    CHECK_RC(send_reading(&n, &l, 1, &seq), ETB_OK);
    etb_cobs_rx_init(&rx, rxbuf, sizeof rxbuf);
    for (i = 0; i < l.stream_len; i++) {
        const uint8_t *msg;
        size_t len;
        etb_ring_entry_t e;
        if (etb_cobs_rx_push(&rx, l.stream[i], &msg, &len) == 1) {
            CHECK_RC(etb_ring_peek(&ring, (size_t)frames, &e), ETB_OK);
            CHECK_BYTES(msg, len, e.frame, e.len);
            frames++;
        }
    }
    CHECK(frames == 2);
    CHECK(l.stream_len > 0 && l.stream[l.stream_len - 1] == 0);
}

/* A link that loses every 3rd write and a bridge that acks the highest seq it has contiguously
 * (skipping what lies below a frame's base): all frames arrive, in bounded time. */
static void lossy(void) {
    static uint8_t mem[ETB_RING_STORAGE_BYTES(8, 64)];
    link_t l;
    etb_port_t port = {0, link_now, link_write, link_boot};
    etb_ring_t ring;
    etb_node_t n;
    uint32_t next = 1, contiguous = 0, s;
    int rounds;

    memset(&l, 0, sizeof l);
    port.ctx = &l;
    l.drop_every = 3;
    etb_ring_init(&ring, mem, sizeof mem, 64);
    etb_node_init(&n, &port, &ring, "lossy", ETB_TRANSPORT_DATAGRAM, 1, 50);
    for (rounds = 0; rounds < 1000 && etb_node_acked(&n) < 60; rounds++) {
        size_t before = l.stream_len;
        while (next <= 60 && send_reading(&n, &l, (int)next, NULL) == ETB_OK) next++;
        etb_node_poll(&n);
        /* bridge side: each datagram that got through is a frame; the test reads seq from it */
        while (before < l.stream_len) {
            etb_ring_entry_t e;
            size_t k;
            for (k = 0; etb_ring_peek(&ring, k, &e) == ETB_OK; k++) {
                if (e.len <= l.stream_len - before && memcmp(e.frame, l.stream + before, e.len) == 0) {
                    if (e.seq < 64) l.delivered[e.seq] = 1;
                    before += e.len;
                    break;
                }
            }
            if (etb_ring_peek(&ring, k, &e) != ETB_OK) break;
        }
        l.stream_len = 0;
        for (s = contiguous + 1; s < 64 && l.delivered[s]; s++) contiguous = s;
        ack(&n, "lossy", contiguous);
        l.now += 20;
    }
    CHECK(etb_node_acked(&n) == 60);
    CHECK(etb_node_pending(&n) == 0);
    for (s = 1; s <= 60; s++) {
        if (!l.delivered[s]) { CHECK(!"frame lost"); break; }
    }
}

/* A node that reboots gets a greater boot id from its port, starts at seq 1 again, and ignores
 * acks addressed to its earlier boot (they speak of seqs it no longer has). */
static void reboot(void) {
    static uint8_t mem[ETB_RING_STORAGE_BYTES(4, 64)];
    link_t l;
    etb_port_t port = {0, link_now, link_write, link_boot};
    etb_ring_t ring;
    etb_node_t n;
    uint32_t seq = 0;

    memset(&l, 0, sizeof l);
    port.ctx = &l;
    etb_ring_init(&ring, mem, sizeof mem, 64);
    CHECK_RC(etb_node_init(&n, &port, &ring, "n1", ETB_TRANSPORT_DATAGRAM, 1, 100), ETB_OK);
    CHECK_RC(send_reading(&n, &l, 1, &seq), ETB_OK);
    CHECK_RC(send_reading(&n, &l, 2, &seq), ETB_OK);
    CHECK(ack(&n, "n1", 2) == 2);

    /* power cycle: RAM (ring, node) is gone, the boot counter survived */
    etb_ring_init(&ring, mem, sizeof mem, 64);
    CHECK_RC(etb_node_init(&n, &port, &ring, "n1", ETB_TRANSPORT_DATAGRAM, 1, 100), ETB_OK);
    CHECK(etb_node_boot(&n) == 2);
    CHECK_RC(send_reading(&n, &l, 3, &seq), ETB_OK);
    CHECK(seq == 1 && frame_boot(l.last, l.last_len) == 2 && frame_base(l.last, l.last_len) == 1);
    /* a late ack of boot 1 (up to 2) neither frees seq 1 of boot 2 nor moves the counter */
    CHECK_RC(ack_boot(&n, "n1", 1, 2), ETB_ERR_OTHER_BOOT);
    CHECK(etb_node_pending(&n) == 1 && etb_node_next_seq(&n) == 2 && etb_node_acked(&n) == 0);
    CHECK(ack(&n, "n1", 1) == 1);
    CHECK(etb_node_pending(&n) == 0 && etb_node_acked(&n) == 1);
}

/* A keyed node's frames carry HMAC-SHA256(key, map bytes before the MAC pair)[0..8). */
static void keyed(void) {
    static uint8_t mem[ETB_RING_STORAGE_BYTES(4, 96)];
    static const uint8_t key[20] = "0123456789abcdefghij";
    link_t l;
    etb_port_t port = {0, link_now, link_write, link_boot};
    etb_ring_t ring;
    etb_node_t n;
    uint8_t mac[ETB_SHA256_BYTES];
    size_t body;

    memset(&l, 0, sizeof l);
    port.ctx = &l;
    etb_ring_init(&ring, mem, sizeof mem, 96);
    CHECK_RC(etb_node_init(&n, &port, &ring, "n1", ETB_TRANSPORT_DATAGRAM, 1, 100), ETB_OK);
    CHECK_RC(etb_node_set_key(&n, key, 15), ETB_ERR_INVALID);
    CHECK_RC(etb_node_set_key(&n, key, sizeof key), ETB_OK);
    CHECK_RC(send_reading(&n, &l, 7, NULL), ETB_OK);
    CHECK(l.last_len > 14 && l.last[0] == 0xA8);
    body = l.last_len - 4 - 2 - ETB_MAC_BYTES;
    CHECK(l.last[body] == 0x08 && l.last[body + 1] == 0x48);
    CHECK_RC(etb_hmac_sha256(key, sizeof key, l.last, body, mac), ETB_OK);
    CHECK_BYTES(l.last + body + 2, ETB_MAC_BYTES, mac, ETB_MAC_BYTES);
    CHECK(etb_crc32(0, l.last, l.last_len - 4) ==
          ((uint32_t)l.last[l.last_len - 4] << 24 | (uint32_t)l.last[l.last_len - 3] << 16 |
           (uint32_t)l.last[l.last_len - 2] << 8 | l.last[l.last_len - 1]));
    /* A keyed node frees frames only for an ack signed with its key. */
    {
        uint8_t a[ETB_MAX_ACK_BYTES];
        size_t alen;
        static const uint8_t wrong[20] = "0123456789abcdefghiX";
        CHECK(etb_node_pending(&n) == 1);
        CHECK_RC(ack(&n, "n1", 1), ETB_ERR_AUTH); /* unsigned: a forger could make the node drop readings */
        etb_ack_encode_mac("n1", 1, 1, wrong, sizeof wrong, a, sizeof a, &alen);
        CHECK_RC(etb_node_handle_ack(&n, a, alen), ETB_ERR_AUTH);
        CHECK(etb_node_pending(&n) == 1 && etb_node_acked(&n) == 0);
        etb_ack_encode_mac("n1", 1, 1, key, sizeof key, a, sizeof a, &alen);
        CHECK(etb_node_handle_ack(&n, a, alen) == 1);
        CHECK(etb_node_pending(&n) == 0 && etb_node_acked(&n) == 1);
    }
    /* no key again: no MAC */
    CHECK_RC(etb_node_set_key(&n, NULL, 0), ETB_OK);
    CHECK_RC(send_reading(&n, &l, 8, NULL), ETB_OK);
    CHECK(l.last[0] == 0xA7 && frame_boot(l.last, l.last_len) == 1);
}

void test_node(void) {
    datagram();
    reboot();
    keyed();
    serial();
    lossy();
}
