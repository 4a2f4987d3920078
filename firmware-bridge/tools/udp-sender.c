/*
 * udp-sender: a host stand-in for a sensor node on UDP.
 *   udp-sender [--boot N] [--key HEX] [--ts0 MS] HOST PORT DEVICE_ID COUNT [TIMEOUT_MS]
 * Sends readings seq 1..COUNT (temperature, humidity) as raw frames, one datagram each, keeps
 * them in the library's ring until acked, resends after RESEND_MS, and exits 0 once COUNT is
 * acknowledged. Exits 1 with a message if that has not happened within TIMEOUT_MS (default
 * 20000), 2 on usage errors. --boot is the boot id its port reports (default 1), --key the
 * node's key as hex (frames then carry a MAC), --ts0 the ts of seq 0 (default: wall clock at start).
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include "edgetable_node.h"

#define RESEND_MS 300u
#define SLOTS 32u
#define SLOT_BYTES 128u

typedef struct udp_ctx {
    int fd;
    uint32_t boot;
} udp_ctx_t;

static int boot_id(void *ctx, uint32_t *boot) {
    *boot = ((udp_ctx_t *)ctx)->boot;
    return ETB_OK;
}

static size_t parse_hex(const char *s, uint8_t *out, size_t cap) {
    size_t n = 0;
    unsigned v;
    while (s[0] && s[1] && n < cap && sscanf(s, "%2x", &v) == 1 && strchr("0123456789abcdefABCDEF", s[1])) {
        out[n++] = (uint8_t)v;
        s += 2;
    }
    return *s ? 0 : n;
}

static uint64_t clock_ms(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint64_t now_ms(void *ctx) {
    (void)ctx;
    return clock_ms(CLOCK_MONOTONIC);
}

static int udp_write(void *ctx, const uint8_t *data, size_t len) {
    udp_ctx_t *u = ctx;
    return send(u->fd, data, len, 0) == (ssize_t)len ? ETB_OK : ETB_ERR_IO;
}

static int parse_ulong(const char *s, unsigned long max, unsigned long *out) {
    char *end;
    if (*s == '\0' || *s == '-') return 0;
    errno = 0;
    *out = strtoul(s, &end, 10);
    return errno == 0 && *end == '\0' && *out <= max;
}

int main(int argc, char **argv) {
    static uint8_t ring_mem[ETB_RING_STORAGE_BYTES(SLOTS, SLOT_BYTES)];
    struct addrinfo hints, *ai = NULL;
    udp_ctx_t u;
    etb_port_t port;
    etb_ring_t ring;
    etb_node_t node;
    unsigned long count, timeout = 20000, boot = 1;
    unsigned long long ts0 = 0;
    uint64_t deadline, wall_start;
    uint8_t key[ETB_MAX_KEY_BYTES];
    size_t key_len = 0;
    int rc, gai;

    for (; argc > 1 && strncmp(argv[1], "--", 2) == 0; argc -= 2, argv += 2) {
        char *end;
        if (argc > 2 && strcmp(argv[1], "--boot") == 0 && parse_ulong(argv[2], 0xFFFFFFFFul, &boot) && boot) continue;
        if (argc > 2 && strcmp(argv[1], "--key") == 0 && (key_len = parse_hex(argv[2], key, sizeof key)) > 0) continue;
        if (argc > 2 && strcmp(argv[1], "--ts0") == 0 && (ts0 = strtoull(argv[2], &end, 10)) > 0 && *end == '\0') continue;
        argc = 0; /* usage */
        break;
    }
    if (argc < 5 || argc > 6 || !parse_ulong(argv[4], 0xFFFFFFFEul, &count) ||
        (argc == 6 && !parse_ulong(argv[5], 3600000ul, &timeout))) {
        fprintf(stderr, "usage: udp-sender [--boot N] [--key HEX] [--ts0 MS] HOST PORT DEVICE_ID COUNT [TIMEOUT_MS]\n");
        return 2;
    }
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_DGRAM;
    if ((gai = getaddrinfo(argv[1], argv[2], &hints, &ai)) != 0) {
        fprintf(stderr, "udp-sender: %s:%s: %s\n", argv[1], argv[2], gai_strerror(gai));
        return 2;
    }
    u.fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
    if (u.fd < 0 || connect(u.fd, ai->ai_addr, ai->ai_addrlen) != 0) {
        perror("udp-sender: socket");
        freeaddrinfo(ai);
        return 1;
    }
    freeaddrinfo(ai);
    port.ctx = &u;
    port.now_ms = now_ms;
    port.write = udp_write;
    port.boot_id = boot_id;
    u.boot = (uint32_t)boot;
    if ((rc = etb_ring_init(&ring, ring_mem, sizeof ring_mem, SLOT_BYTES)) != ETB_OK ||
        (rc = etb_node_init(&node, &port, &ring, argv[3], ETB_TRANSPORT_DATAGRAM, 1, RESEND_MS)) != ETB_OK ||
        (key_len && (rc = etb_node_set_key(&node, key, key_len)) != ETB_OK)) {
        fprintf(stderr, "udp-sender: %s\n", etb_strerror(rc));
        return 2;
    }
    wall_start = ts0 ? (uint64_t)ts0 : clock_ms(CLOCK_REALTIME);
    deadline = now_ms(NULL) + timeout;

    while (etb_node_acked(&node) < count) {
        uint64_t now = now_ms(NULL);
        struct pollfd pfd;
        if (now >= deadline) {
            fprintf(stderr, "udp-sender: timeout after %lu ms: %lu of %lu acknowledged, %lu pending\n",
                    timeout, (unsigned long)etb_node_acked(&node), count,
                    (unsigned long)etb_node_pending(&node));
            return 1;
        }
        /* Fill the ring with new readings; a full ring waits for acks. */
        while (etb_node_next_seq(&node) <= count) {
            etb_frame_t f;
            uint32_t seq = etb_node_next_seq(&node);
            if (etb_node_begin(&node, &f, wall_start + seq) == ETB_ERR_FULL) break;
            etb_frame_add_double(&f, "temperature", 20.0 + (double)(seq % 100) / 8.0);
            etb_frame_add_int(&f, "humidity", (int64_t)(40 + seq % 20));
            rc = etb_node_send(&node, &f, NULL);
            if (rc != ETB_OK && rc != ETB_ERR_IO) {
                fprintf(stderr, "udp-sender: seq %lu: %s\n", (unsigned long)seq, etb_strerror(rc));
                return 1;
            }
        }
        pfd.fd = u.fd;
        pfd.events = POLLIN;
        pfd.revents = 0;
        if (poll(&pfd, 1, 20) > 0) {
            uint8_t buf[ETB_MAX_ACK_BYTES + 1];
            ssize_t n;
            while ((n = recv(u.fd, buf, sizeof buf, MSG_DONTWAIT)) >= 0) {
                rc = etb_node_handle_ack(&node, buf, (size_t)n);
                if (rc < 0 && rc != ETB_ERR_OTHER_DEVICE && rc != ETB_ERR_OTHER_BOOT)
                    fprintf(stderr, "udp-sender: ignored ack: %s\n", etb_strerror(rc));
            }
        }
        etb_node_poll(&node); /* resend what timed out; a failed send is retried next round */
    }
    close(u.fd);
    return 0;
}
