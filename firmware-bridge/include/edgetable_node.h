/*
 * edgetable_node.h - the one public header of the edgetable firmware bridge (node side).
 *
 * C99, no heap, no dependencies beyond <stddef.h>/<stdint.h>: the caller supplies every buffer.
 * Byte formats (frame, ack, COBS) are defined in docs/sensor-frame.md; this header and the
 * TypeScript decoder (src/codec/sensor-frame.ts) both follow that page.
 *
 * Every function that can fail returns an int: ETB_OK (0) or a negative ETB_ERR_* code
 * (some return a non-negative count instead of ETB_OK). Structs below are declared here so they can
 * live on the stack or in static storage; their members are private - use the functions.
 */
#ifndef EDGETABLE_NODE_H
#define EDGETABLE_NODE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Format constants (docs/sensor-frame.md, "Limits"). Frozen for format version 2. ---- */
/** Version 2 = version 1 + the node's boot id (key 7) + an optional MAC (key 8). */
#define ETB_FORMAT_VERSION 2
/** Largest raw frame: CBOR map + 4-byte CRC32. */
#define ETB_MAX_FRAME_BYTES 512
/** Largest raw ack: CBOR map + 4-byte CRC32. */
#define ETB_MAX_ACK_BYTES 64
#define ETB_MAX_FIELDS 16
/** Field names: 1..32 bytes of [A-Za-z_][A-Za-z0-9_]*. */
#define ETB_MAX_NAME_BYTES 32
/** Device ids: 1..32 bytes of [A-Za-z0-9._:-]. */
#define ETB_MAX_DEVICE_ID_BYTES 32
/** String field values: 0..128 bytes of valid UTF-8. */
#define ETB_MAX_STRING_VALUE_BYTES 128
/** Integers (field values, timestamps) must lie in +-(2^53 - 1) so a JavaScript number holds them exactly. */
#define ETB_MAX_SAFE_INT INT64_C(9007199254740991)
#define ETB_CRC_BYTES 4
/** The frame MAC: HMAC-SHA256 truncated to its first 8 bytes (docs/sensor-frame.md, "MAC"). */
#define ETB_MAC_BYTES 8
/** Per-node keys are 16..32 bytes. */
#define ETB_MIN_KEY_BYTES 16
#define ETB_MAX_KEY_BYTES 32
#define ETB_SHA256_BYTES 32

/** COBS-encoded length of n bytes, delimiter not included (worst case). */
#define ETB_COBS_MAX_ENCODED(n) ((n) + (n) / 254u + 1u)
/** Largest serial frame on the wire: COBS(raw frame) + the 0x00 delimiter = 516. */
#define ETB_MAX_COBS_FRAME_BYTES (ETB_COBS_MAX_ENCODED(ETB_MAX_FRAME_BYTES) + 1u)
#define ETB_MAX_COBS_ACK_BYTES (ETB_COBS_MAX_ENCODED(ETB_MAX_ACK_BYTES) + 1u)

/* ---- Result codes. Stable: documented in firmware-bridge/README.md. ---- */
enum {
    ETB_OK = 0,
    ETB_ERR_BUFFER_TOO_SMALL = -1, /* a caller-supplied buffer cannot hold the result */
    ETB_ERR_INVALID = -2,          /* bad argument: NULL, bad name/device id, bad UTF-8, NaN, seq order */
    ETB_ERR_RANGE = -3,            /* a number outside its exact range (2^53, uint32 seq, ...) */
    ETB_ERR_TOO_MANY_FIELDS = -4,  /* more than ETB_MAX_FIELDS */
    ETB_ERR_TOO_LARGE = -5,        /* a frame/ack would exceed its ETB_MAX_* size */
    ETB_ERR_DUPLICATE = -6,        /* a field name used twice in one frame */
    ETB_ERR_CRC = -7,              /* CRC32 mismatch: bytes corrupted */
    ETB_ERR_TRUNCATED = -8,        /* input ends too early */
    ETB_ERR_MALFORMED = -9,        /* CRC is fine but the content breaks the format */
    ETB_ERR_VERSION = -10,         /* a format version this library does not speak */
    ETB_ERR_COBS = -11,            /* invalid COBS encoding */
    ETB_ERR_IO = -12,              /* the port's write failed */
    ETB_ERR_FULL = -13,            /* the ring buffer has no free slot */
    ETB_ERR_EMPTY = -14,           /* the ring buffer has no such entry */
    ETB_ERR_OTHER_DEVICE = -15,    /* a valid ack, addressed to another device */
    ETB_ERR_OTHER_BOOT = -16,      /* a valid ack for this device's earlier boot: ignored */
    ETB_ERR_AUTH = -17             /* a keyed node got an ack without a MAC, or with a wrong one */
};

/** Name of a result code ("ETB_ERR_CRC"); never NULL. */
const char *etb_strerror(int rc);

/* ---- Port: the node's only contact with the outside, so tests can inject faults. ---- */
typedef struct etb_port {
    void *ctx;
    /** Monotonic milliseconds (need not be wall time); used for resend timing. */
    uint64_t (*now_ms)(void *ctx);
    /** Write len bytes (a whole datagram, or a piece of a serial stream). ETB_OK or negative. */
    int (*write)(void *ctx, const uint8_t *data, size_t len);
    /**
     * Called once by etb_node_init: stores in *boot this boot's id, 1..2^32-1, greater than the id
     * of every earlier boot of this device id. A counter kept in non-volatile memory (ESP32 NVS,
     * STM32 backup register), read, incremented and written back before returning, is the usual
     * choice; seconds since the epoch at boot also works where the clock is right before the first
     * frame. The bridge treats a greater boot id as a new stream and refuses frames of a smaller one.
     * ETB_OK or negative (init then fails with that code).
     */
    int (*boot_id)(void *ctx, uint32_t *boot);
} etb_port_t;

/* ---- SHA-256 and HMAC-SHA256 (the frame MAC). State on the caller's stack; no heap. ---- */
typedef struct etb_sha256 {
    uint32_t h[8];      /* private */
    uint64_t total;     /* private: bytes hashed */
    size_t fill;        /* private: bytes in block */
    uint8_t block[64];  /* private */
} etb_sha256_t;
void etb_sha256_init(etb_sha256_t *s);
void etb_sha256_update(etb_sha256_t *s, const uint8_t *data, size_t len);
void etb_sha256_final(etb_sha256_t *s, uint8_t out[ETB_SHA256_BYTES]);
/** out = HMAC-SHA256(key, msg) (RFC 2104; any key length). ETB_OK or ETB_ERR_INVALID (NULL). */
int etb_hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *msg, size_t msg_len,
                    uint8_t out[ETB_SHA256_BYTES]);

/* ---- CRC32 (IEEE 802.3, reflected, poly 0xEDB88320), zlib-compatible chaining. ---- */
/** crc = etb_crc32(0, a, n); crc = etb_crc32(crc, b, m); equals etb_crc32(0, a||b, n+m). */
uint32_t etb_crc32(uint32_t crc, const uint8_t *data, size_t len);

/* ---- COBS (Cheshire & Baker), delimiter 0x00 not included unless said. ---- */
/** Encodes in[0..len) into out (no delimiter). out must not overlap in. */
int etb_cobs_encode(const uint8_t *in, size_t len, uint8_t *out, size_t cap, size_t *out_len);
/** Decodes one COBS block (delimiter stripped). out may equal in (in-place); no other overlap. */
int etb_cobs_decode(const uint8_t *in, size_t len, uint8_t *out, size_t cap, size_t *out_len);
/** Streams COBS(data) followed by 0x00 to port->write, without a scratch buffer. */
int etb_cobs_write(const etb_port_t *port, const uint8_t *data, size_t len);

/** Serial receiver: collects bytes up to a 0x00 and decodes them in place. */
typedef struct etb_cobs_rx {
    uint8_t *buf;    /* private */
    size_t cap;      /* private */
    size_t len;      /* private */
    uint8_t overflow; /* private */
} etb_cobs_rx_t;
/** buf holds one encoded message (ETB_MAX_COBS_ACK_BYTES for acks). */
int etb_cobs_rx_init(etb_cobs_rx_t *rx, uint8_t *buf, size_t cap);
/**
 * Feeds one byte. Returns 1 when a message is complete: *msg and *msg_len then point into the rx
 * buffer, valid until the next call. Returns 0 when more bytes are needed (empty messages are
 * skipped), ETB_ERR_TOO_LARGE once for a message longer than the buffer (it is dropped up to
 * the next 0x00), or ETB_ERR_COBS for a message that is not valid COBS.
 */
int etb_cobs_rx_push(etb_cobs_rx_t *rx, uint8_t byte, const uint8_t **msg, size_t *msg_len);

/* ---- Frame builder: writes one raw frame (CBOR map + CRC32) into a caller buffer. ---- */
typedef struct etb_frame {
    uint8_t *buf;          /* private: caller's buffer */
    size_t cap;            /* private: min(caller cap, ETB_MAX_FRAME_BYTES) */
    size_t len;            /* private: bytes written so far */
    size_t fields_at;      /* private: offset of the fields map header */
    uint32_t base;         /* private */
    uint32_t boot;         /* private */
    const uint8_t *key;    /* private: MAC key (NULL = no MAC), owned by the caller */
    size_t key_len;        /* private */
    int err;               /* private: first error, sticky */
    uint8_t nfields;       /* private */
    uint8_t finished;      /* private */
    uint16_t name_at[ETB_MAX_FIELDS];  /* private: offsets of field names, for duplicates */
    uint8_t name_len[ETB_MAX_FIELDS];  /* private */
} etb_frame_t;

/**
 * Starts a frame. boot >= 1 is the node's boot id (see etb_port_t.boot_id); seq >= 1; base is the
 * oldest seq the node still holds (1 <= base <= seq; pass seq when unsure - see the docs on acks).
 * ts_ms <= ETB_MAX_SAFE_INT. The buffer must outlive the builder; the finished frame is
 * buf[0..*len) from etb_frame_finish.
 */
int etb_frame_begin(etb_frame_t *f, uint8_t *buf, size_t cap, const char *device_id, uint32_t boot,
                    uint32_t seq, uint32_t base, uint64_t ts_ms);
/**
 * Makes etb_frame_finish append the frame MAC (HMAC-SHA256 with this key, truncated to
 * ETB_MAC_BYTES). Call right after etb_frame_begin, before any field. key_len is
 * ETB_MIN_KEY_BYTES..ETB_MAX_KEY_BYTES; the key must stay valid until etb_frame_finish.
 */
int etb_frame_set_key(etb_frame_t *f, const uint8_t *key, size_t key_len);
/** Integer field, |v| <= ETB_MAX_SAFE_INT. */
int etb_frame_add_int(etb_frame_t *f, const char *name, int64_t v);
/** Number field. Finite only. Written as an integer when integral and safe, else float32 when
 *  exact, else float64 - the same canonical choice as the TypeScript encoder. */
int etb_frame_add_double(etb_frame_t *f, const char *name, double v);
int etb_frame_add_float(etb_frame_t *f, const char *name, float v);
/** String field: NUL-terminated valid UTF-8, at most ETB_MAX_STRING_VALUE_BYTES bytes. */
int etb_frame_add_string(etb_frame_t *f, const char *name, const char *value);
/**
 * Completes the frame (CRC appended) and stores its length. Returns the first error of any
 * earlier call on this builder (errors are sticky), so a caller may check only here.
 */
int etb_frame_finish(etb_frame_t *f, size_t *out_len);

/** One-shot alternative to the builder. */
typedef enum { ETB_FIELD_INT = 0, ETB_FIELD_DOUBLE = 1, ETB_FIELD_STRING = 2 } etb_field_type_t;
typedef struct etb_field {
    const char *name;
    etb_field_type_t type;
    union {
        int64_t i;
        double d;
        const char *s;
    } v;
} etb_field_t;
/** One-shot alternative to the builder; key NULL (key_len 0) = no MAC. */
int etb_encode_frame(uint8_t *buf, size_t cap, const char *device_id, uint32_t boot, uint32_t seq,
                     uint32_t base, uint64_t ts_ms, const uint8_t *key, size_t key_len,
                     const etb_field_t *fields, size_t nfields, size_t *out_len);

/* ---- Ack: the bridge's "everything up to seq is durable" for one device. ---- */
typedef struct etb_ack {
    char device_id[ETB_MAX_DEVICE_ID_BYTES + 1]; /* NUL-terminated */
    uint32_t boot;                                /* the boot of the device it acknowledges */
    uint32_t seq;                                 /* 0 = nothing durable yet */
    uint8_t has_mac;                              /* 1: ends with a MAC (etb_ack_verify checks it) */
} etb_ack_t;
/** Decodes a raw ack (COBS already removed). ETB_ERR_CRC/TRUNCATED/MALFORMED/VERSION/TOO_LARGE. */
int etb_ack_decode(const uint8_t *buf, size_t len, etb_ack_t *out);
/** Encodes a raw ack (the bridge's job; here for tests and host tools). */
int etb_ack_encode(const char *device_id, uint32_t boot, uint32_t seq, uint8_t *buf, size_t cap,
                   size_t *out_len);
/** The same with the MAC a bridge adds for a keyed device (key 16..32 bytes; NULL/0 = none). */
int etb_ack_encode_mac(const char *device_id, uint32_t boot, uint32_t seq, const uint8_t *key,
                       size_t key_len, uint8_t *buf, size_t cap, size_t *out_len);
/** ETB_OK when the raw ack decodes and carries a MAC made with key; ETB_ERR_AUTH when it does not. */
int etb_ack_verify(const uint8_t *buf, size_t len, const uint8_t *key, size_t key_len);

/* ---- Ring buffer of unacknowledged frames in caller storage (fixed-size slots). ---- */
#define ETB_RING_SLOT_HEADER_BYTES 16u
/** Storage bytes for `slots` slots of `slot_bytes` frame bytes each. */
#define ETB_RING_STORAGE_BYTES(slots, slot_bytes) ((slots) * (ETB_RING_SLOT_HEADER_BYTES + (slot_bytes)))

typedef struct etb_ring {
    uint8_t *mem;      /* private */
    size_t slot_bytes; /* private */
    size_t slots;      /* private */
    size_t head;       /* private: index of the oldest entry */
    size_t count;      /* private */
    uint32_t last_seq; /* private: seq of the newest entry ever committed */
} etb_ring_t;

typedef struct etb_ring_entry {
    uint32_t seq;
    const uint8_t *frame; /* valid until the entry is freed */
    size_t len;
    uint8_t sent;         /* 0 until etb_ring_mark_sent */
    uint64_t sent_ms;     /* time of the last transmission */
} etb_ring_entry_t;

/** slot_bytes in 32..ETB_MAX_FRAME_BYTES; storage must hold at least one slot. */
int etb_ring_init(etb_ring_t *r, uint8_t *storage, size_t storage_len, size_t slot_bytes);
size_t etb_ring_count(const etb_ring_t *r);
size_t etb_ring_capacity(const etb_ring_t *r);
/** Space for the next frame, to build it in place; ETB_ERR_FULL if no slot is free. */
int etb_ring_reserve(etb_ring_t *r, uint8_t **buf, size_t *cap);
/** Commits the reserved slot's first len bytes as frame seq (seq above every earlier seq). */
int etb_ring_commit(etb_ring_t *r, uint32_t seq, size_t len);
/** reserve + copy + commit. */
int etb_ring_push(etb_ring_t *r, uint32_t seq, const uint8_t *frame, size_t len);
/** index 0 = oldest. ETB_ERR_EMPTY past the end. */
int etb_ring_peek(const etb_ring_t *r, size_t index, etb_ring_entry_t *out);
int etb_ring_mark_sent(etb_ring_t *r, size_t index, uint64_t now_ms);
/** Frees every entry with seq <= acked_seq; returns how many were freed. */
int etb_ring_ack(etb_ring_t *r, uint32_t acked_seq);
/** Gives up the oldest entry (e.g. to make room); the bridge learns of the gap from `base`. */
int etb_ring_drop_oldest(etb_ring_t *r);

/* ---- Node: ring + port + sequence numbers + resend timer. ---- */
typedef enum { ETB_TRANSPORT_DATAGRAM = 0, ETB_TRANSPORT_SERIAL = 1 } etb_transport_t;

typedef struct etb_node {
    etb_port_t port;         /* private */
    etb_ring_t *ring;        /* private */
    uint32_t boot;           /* private: from port.boot_id at init */
    uint32_t next_seq;       /* private */
    uint32_t acked;          /* private */
    uint32_t resend_after_ms; /* private */
    uint8_t transport;       /* private */
    uint8_t key_len;         /* private: 0 = frames carry no MAC */
    uint8_t key[ETB_MAX_KEY_BYTES]; /* private */
    char device_id[ETB_MAX_DEVICE_ID_BYTES + 1]; /* private */
} etb_node_t;

/**
 * Calls port->boot_id (required) for this boot's id: every boot is a new stream at the bridge, so
 * first_seq may be 1 after every reboot. Frames that go unacknowledged for resend_after_ms are
 * sent again by etb_node_poll.
 */
int etb_node_init(etb_node_t *n, const etb_port_t *port, etb_ring_t *ring, const char *device_id,
                  etb_transport_t transport, uint32_t first_seq, uint32_t resend_after_ms);
/**
 * Gives the node its key (copied, ETB_MIN_KEY_BYTES..ETB_MAX_KEY_BYTES): every later frame carries
 * a MAC the bridge checks against the key provisioned for this device id, and only acks carrying
 * a MAC made with the same key free frames. NULL/0 = no MAC either way.
 */
int etb_node_set_key(etb_node_t *n, const uint8_t *key, size_t key_len);
uint32_t etb_node_boot(const etb_node_t *n);
/** Starts the next frame directly in a free ring slot. ETB_ERR_FULL: wait for acks (or drop). */
int etb_node_begin(etb_node_t *n, etb_frame_t *f, uint64_t ts_ms);
/**
 * Finishes f, keeps it in the ring and transmits it; *seq_out (may be NULL) gets its seq.
 * ETB_ERR_IO means the frame is kept but its first transmission failed; etb_node_poll retries.
 * Any other error means nothing was kept and the seq is not used.
 */
int etb_node_send(etb_node_t *n, etb_frame_t *f, uint32_t *seq_out);
/** Resends frames unacknowledged for resend_after_ms. Returns frames sent, or ETB_ERR_IO. */
int etb_node_poll(etb_node_t *n);
/**
 * Handles a raw ack (COBS already removed). Returns frames freed (>= 0), ETB_ERR_OTHER_DEVICE
 * for someone else's ack, ETB_ERR_OTHER_BOOT for an ack of an earlier boot, ETB_ERR_AUTH when the
 * node has a key and the ack's MAC is missing or wrong (nothing is freed), or a decode error. An ack above the last seq sent moves next_seq past it.
 */
int etb_node_handle_ack(etb_node_t *n, const uint8_t *ack, size_t len);
uint32_t etb_node_acked(const etb_node_t *n);
uint32_t etb_node_next_seq(const etb_node_t *n);
size_t etb_node_pending(const etb_node_t *n);

#ifdef __cplusplus
}
#endif
#endif /* EDGETABLE_NODE_H */
