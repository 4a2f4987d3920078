/* Node: numbers frames, keeps them in the ring until acked, resends them on a timer. */
#include <string.h>
#include "etb_internal.h"

int etb_node_init(etb_node_t *n, const etb_port_t *port, etb_ring_t *ring, const char *device_id,
                  etb_transport_t transport, uint32_t first_seq, uint32_t resend_after_ms) {
    size_t dn;
    if (n == NULL || port == NULL || ring == NULL || device_id == NULL) return ETB_ERR_INVALID;
    uint32_t boot = 0;
    int rc;
    if (port->write == NULL || port->now_ms == NULL || port->boot_id == NULL) return ETB_ERR_INVALID;
    if (transport != ETB_TRANSPORT_DATAGRAM && transport != ETB_TRANSPORT_SERIAL) return ETB_ERR_INVALID;
    dn = etb_strnlen(device_id, ETB_MAX_DEVICE_ID_BYTES);
    if (!etb_valid_device_id(device_id, dn)) return ETB_ERR_INVALID;
    if (first_seq == 0) return ETB_ERR_RANGE;
    if ((rc = port->boot_id(port->ctx, &boot)) != ETB_OK) return rc < 0 ? rc : ETB_ERR_IO;
    if (boot == 0) return ETB_ERR_RANGE;
    memset(n, 0, sizeof *n);
    n->boot = boot;
    n->port = *port;
    n->ring = ring;
    n->next_seq = first_seq;
    n->resend_after_ms = resend_after_ms;
    n->transport = (uint8_t)transport;
    memcpy(n->device_id, device_id, dn);
    return ETB_OK;
}

int etb_node_set_key(etb_node_t *n, const uint8_t *key, size_t key_len) {
    if (n == NULL) return ETB_ERR_INVALID;
    if (key == NULL && key_len == 0) {
        memset(n->key, 0, sizeof n->key);
        n->key_len = 0;
        return ETB_OK;
    }
    if (key == NULL || key_len < ETB_MIN_KEY_BYTES || key_len > ETB_MAX_KEY_BYTES) return ETB_ERR_INVALID;
    memcpy(n->key, key, key_len);
    n->key_len = (uint8_t)key_len;
    return ETB_OK;
}

int etb_node_begin(etb_node_t *n, etb_frame_t *f, uint64_t ts_ms) {
    uint8_t *buf;
    size_t cap;
    uint32_t base;
    etb_ring_entry_t oldest;
    int rc;
    if (n == NULL || f == NULL) return ETB_ERR_INVALID;
    if (n->next_seq == 0) return ETB_ERR_RANGE; /* sequence space used up */
    if ((rc = etb_ring_reserve(n->ring, &buf, &cap)) != ETB_OK) return rc;
    base = etb_ring_peek(n->ring, 0, &oldest) == ETB_OK ? oldest.seq : n->next_seq;
    rc = etb_frame_begin(f, buf, cap, n->device_id, n->boot, n->next_seq, base, ts_ms);
    if (rc == ETB_OK && n->key_len) rc = etb_frame_set_key(f, n->key, n->key_len);
    return rc;
}

static int transmit(etb_node_t *n, size_t index) {
    etb_ring_entry_t e;
    int rc = etb_ring_peek(n->ring, index, &e);
    if (rc != ETB_OK) return rc;
    if (n->transport == ETB_TRANSPORT_SERIAL) rc = etb_cobs_write(&n->port, e.frame, e.len);
    else rc = n->port.write(n->port.ctx, e.frame, e.len) < 0 ? ETB_ERR_IO : ETB_OK;
    if (rc != ETB_OK) return ETB_ERR_IO; /* stays unsent: the next poll retries at once */
    return etb_ring_mark_sent(n->ring, index, n->port.now_ms(n->port.ctx));
}

int etb_node_send(etb_node_t *n, etb_frame_t *f, uint32_t *seq_out) {
    size_t len;
    uint32_t seq;
    int rc;
    if (n == NULL || f == NULL) return ETB_ERR_INVALID;
    if ((rc = etb_frame_finish(f, &len)) != ETB_OK) return rc;
    seq = n->next_seq;
    if ((rc = etb_ring_commit(n->ring, seq, len)) != ETB_OK) return rc;
    n->next_seq++;
    if (seq_out) *seq_out = seq;
    return transmit(n, etb_ring_count(n->ring) - 1);
}

int etb_node_poll(etb_node_t *n) {
    size_t i;
    int sent = 0;
    uint64_t now;
    if (n == NULL) return ETB_ERR_INVALID;
    now = n->port.now_ms(n->port.ctx);
    for (i = 0; i < etb_ring_count(n->ring); i++) {
        etb_ring_entry_t e;
        if (etb_ring_peek(n->ring, i, &e) != ETB_OK) break;
        if (e.sent && now - e.sent_ms < n->resend_after_ms) continue;
        if (transmit(n, i) != ETB_OK) return ETB_ERR_IO;
        sent++;
    }
    return sent;
}

int etb_node_handle_ack(etb_node_t *n, const uint8_t *ack, size_t len) {
    etb_ack_t a;
    int rc;
    if (n == NULL) return ETB_ERR_INVALID;
    if ((rc = etb_ack_decode(ack, len, &a)) != ETB_OK) return rc;
    if (strcmp(a.device_id, n->device_id) != 0) return ETB_ERR_OTHER_DEVICE;
    /* A keyed node frees frames only on the bridge's word: an unsigned or forged ack could make it
     * drop readings the bridge never stored. */
    if (n->key_len && (!a.has_mac || !etb_mac_matches(ack, len, n->key, n->key_len))) return ETB_ERR_AUTH;
    if (a.boot != n->boot) return ETB_ERR_OTHER_BOOT; /* our seqs restarted: an old boot's ack says nothing */
    rc = etb_ring_ack(n->ring, a.seq);
    if (a.seq > n->acked) n->acked = a.seq;
    /* The bridge holds seqs we have not sent (a reboot reset our counter): never reuse them. */
    if (n->next_seq != 0 && a.seq >= n->next_seq) n->next_seq = a.seq + 1u;
    return rc;
}

uint32_t etb_node_boot(const etb_node_t *n) { return n ? n->boot : 0; }
uint32_t etb_node_acked(const etb_node_t *n) { return n ? n->acked : 0; }
uint32_t etb_node_next_seq(const etb_node_t *n) { return n ? n->next_seq : 0; }
size_t etb_node_pending(const etb_node_t *n) { return n ? etb_ring_count(n->ring) : 0; }
