/*
 * ack-decode: reads one ack from stdin (raw, or with --cobs COBS + optional trailing 0x00) and
 * prints "device=ID boot=B seq=N" with exit 0, or the library's error name with exit 1.
 */
#include <stdio.h>
#include <string.h>
#include "edgetable_node.h"

int main(int argc, char **argv) {
    uint8_t in[1024], raw[1024];
    size_t n, len;
    etb_ack_t ack;
    int rc, cobs = argc > 1 && strcmp(argv[1], "--cobs") == 0;
    if (argc > 2 || (argc == 2 && !cobs)) {
        fprintf(stderr, "usage: ack-decode [--cobs] < ack-bytes\n");
        return 2;
    }
    n = fread(in, 1, sizeof in, stdin);
    if (cobs) {
        if (n > 0 && in[n - 1] == 0) n--;
        rc = etb_cobs_decode(in, n, raw, sizeof raw, &len);
    } else {
        memcpy(raw, in, n);
        len = n;
        rc = ETB_OK;
    }
    if (rc == ETB_OK) rc = etb_ack_decode(raw, len, &ack);
    if (rc != ETB_OK) {
        printf("%s\n", etb_strerror(rc));
        return 1;
    }
    printf("device=%s boot=%lu seq=%lu\n", ack.device_id, (unsigned long)ack.boot, (unsigned long)ack.seq);
    return 0;
}
