/*
 * frame-encode: writes one frame made by the C library to stdout, so other languages' tests
 * decode real C output.
 *   frame-encode [--cobs] [--base N] [--boot N] [--key HEX] DEVICE SEQ TS [name=value ...]
 * value typing: name:i=42 (int), name:d=21.5 (double), name:s=text (string); without a type an
 * integer literal is an int, another finite number a double, anything else a string.
 * --cobs writes COBS(frame) followed by 0x00; --boot defaults to 1; --key (16..32 bytes as
 * hex) appends the frame MAC. Exit 2 on usage errors, 1 on library errors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "edgetable_node.h"

static int usage(void) {
    fprintf(stderr, "usage: frame-encode [--cobs] [--base N] [--boot N] [--key HEX] DEVICE SEQ TS [name[:i|:d|:s]=value ...]\n");
    return 2;
}

static int parse_u64(const char *s, unsigned long long *out) {
    char *end;
    if (*s == '\0' || *s == '-') return 0;
    errno = 0;
    *out = strtoull(s, &end, 10);
    return errno == 0 && *end == '\0';
}

/* Hex text -> bytes; returns the byte count, or 0 when it is not 2*n hex digits that fit. */
static size_t parse_hex(const char *s, uint8_t *out, size_t cap) {
    size_t n = 0;
    unsigned v;
    while (s[0] && s[1] && n < cap && sscanf(s, "%2x", &v) == 1 && strchr("0123456789abcdefABCDEF", s[1])) {
        out[n++] = (uint8_t)v;
        s += 2;
    }
    return *s ? 0 : n;
}

static int parse_i64(const char *s, long long *out) {
    char *end;
    if (*s == '\0') return 0;
    errno = 0;
    *out = strtoll(s, &end, 10);
    return errno == 0 && *end == '\0';
}

static int parse_double(const char *s, double *out) {
    char *end;
    if (*s == '\0') return 0;
    errno = 0;
    *out = strtod(s, &end);
    return *end == '\0' && *out == *out && *out - *out == 0; /* finite */
}

int main(int argc, char **argv) {
    static char names[ETB_MAX_FIELDS + 1][64];
    etb_field_t fields[ETB_MAX_FIELDS + 1];
    uint8_t frame[ETB_MAX_FRAME_BYTES], out[ETB_MAX_COBS_FRAME_BYTES];
    size_t nfields = 0, len = 0, out_len;
    unsigned long long seq, ts, base = 0, boot = 1;
    uint8_t key[ETB_MAX_KEY_BYTES];
    size_t key_len = 0;
    int cobs = 0, i = 1, rc;

    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        if (strcmp(argv[i], "--cobs") == 0) cobs = 1;
        else if (strcmp(argv[i], "--base") == 0 && i + 1 < argc && parse_u64(argv[i + 1], &base)) i++;
        else if (strcmp(argv[i], "--boot") == 0 && i + 1 < argc && parse_u64(argv[i + 1], &boot) && boot <= 0xFFFFFFFFull) i++;
        else if (strcmp(argv[i], "--key") == 0 && i + 1 < argc && (key_len = parse_hex(argv[i + 1], key, sizeof key)) > 0) i++;
        else return usage();
    }
    if (argc - i < 3) return usage();
    if (!parse_u64(argv[i + 1], &seq) || !parse_u64(argv[i + 2], &ts) || seq > 0xFFFFFFFFull ||
        base > 0xFFFFFFFFull)
        return usage();
    for (int a = i + 3; a < argc; a++) {
        char *eq = strchr(argv[a], '=');
        char *colon;
        const char *value;
        etb_field_t *fd;
        long long iv;
        if (eq == NULL || nfields > ETB_MAX_FIELDS || (size_t)(eq - argv[a]) >= sizeof names[0]) return usage();
        fd = &fields[nfields];
        memcpy(names[nfields], argv[a], (size_t)(eq - argv[a]));
        names[nfields][eq - argv[a]] = '\0';
        value = eq + 1;
        colon = strchr(names[nfields], ':');
        fd->name = names[nfields];
        if (colon != NULL) {
            *colon = '\0';
            if (strcmp(colon + 1, "i") == 0) {
                if (!parse_i64(value, &iv)) return usage();
                fd->type = ETB_FIELD_INT;
                fd->v.i = iv;
            } else if (strcmp(colon + 1, "d") == 0) {
                if (!parse_double(value, &fd->v.d)) return usage();
                fd->type = ETB_FIELD_DOUBLE;
            } else if (strcmp(colon + 1, "s") == 0) {
                fd->type = ETB_FIELD_STRING;
                fd->v.s = value;
            } else {
                return usage();
            }
        } else if (parse_i64(value, &iv)) {
            fd->type = ETB_FIELD_INT;
            fd->v.i = iv;
        } else if (parse_double(value, &fd->v.d)) {
            fd->type = ETB_FIELD_DOUBLE;
        } else {
            fd->type = ETB_FIELD_STRING;
            fd->v.s = value;
        }
        nfields++;
    }
    rc = etb_encode_frame(frame, sizeof frame, argv[i], (uint32_t)boot, (uint32_t)seq,
                          base ? (uint32_t)base : (uint32_t)seq, (uint64_t)ts, key_len ? key : NULL, key_len,
                          fields, nfields, &len);
    if (rc != ETB_OK) {
        fprintf(stderr, "frame-encode: %s\n", etb_strerror(rc));
        return 1;
    }
    if (cobs) {
        rc = etb_cobs_encode(frame, len, out, sizeof out - 1, &out_len);
        if (rc != ETB_OK) {
            fprintf(stderr, "frame-encode: %s\n", etb_strerror(rc));
            return 1;
        }
        out[out_len++] = 0;
        fwrite(out, 1, out_len, stdout);
    } else {
        fwrite(frame, 1, len, stdout);
    }
    return fflush(stdout) == 0 ? 0 : 1;
}
