/* Internal helpers shared by the library's .c files. Not installed; not part of the API. */
#ifndef ETB_INTERNAL_H
#define ETB_INTERNAL_H

#include "edgetable_node.h"

/* CBOR map keys (docs/sensor-frame.md). One namespace for frames and acks. */
enum {
    ETB_KEY_VERSION = 0,
    ETB_KEY_DEVICE = 1,
    ETB_KEY_SEQ = 2,
    ETB_KEY_TS = 3,
    ETB_KEY_FIELDS = 4,
    ETB_KEY_BASE = 5,
    ETB_KEY_ACKED = 6,
    ETB_KEY_BOOT = 7,
    ETB_KEY_MAC = 8,
    /* Keys >= this are optional extensions that a decoder skips; smaller unknown keys are errors. */
    ETB_KEY_FIRST_EXTENSION = 16
};

/* Appends a CBOR head (major type, argument) at buf[*len], preferred (shortest) form. */
int etb_cbor_put_head(uint8_t *buf, size_t cap, size_t *len, uint8_t major, uint64_t arg);
/* Appends a CBOR text string. */
int etb_cbor_put_text(uint8_t *buf, size_t cap, size_t *len, const char *s, size_t n);
/* Bytes a head with this argument takes. */
size_t etb_cbor_head_size(uint64_t arg);

/* Appends the big-endian CRC32 of buf[0..*len). */
int etb_put_crc(uint8_t *buf, size_t cap, size_t *len);
/* 1 if the last 4 bytes of buf[0..len) are the CRC32 of the bytes before them (len >= 4). */
int etb_crc_matches(const uint8_t *buf, size_t len);

/* Appends the MAC pair (08 48 tag) over buf[0..*len) (src/mac.c). */
int etb_put_mac(uint8_t *buf, size_t cap, size_t *len, const uint8_t *key, size_t key_len);
/* 1 if msg[0..len) (CRC included) ends its map with a MAC pair made with key. Constant time. */
int etb_mac_matches(const uint8_t *msg, size_t len, const uint8_t *key, size_t key_len);

/* Validators: 1 if valid. */
int etb_valid_device_id(const char *s, size_t n);
int etb_valid_name(const char *s, size_t n);
int etb_valid_utf8(const uint8_t *s, size_t n);

/* Bounded strlen: returns max + 1 if no NUL within max bytes. */
size_t etb_strnlen(const char *s, size_t max);

#endif
