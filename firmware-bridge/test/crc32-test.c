#include <string.h>
#include "check.h"

void test_crc32(void) {
    const char *check = "123456789";
    const char *fox = "The quick brown fox jumps over the lazy dog";
    uint8_t zeros[32] = {0};
    uint32_t c;
    /* The catalogue "check" value of CRC-32/ISO-HDLC, and zlib's results. */
    CHECK(etb_crc32(0, (const uint8_t *)check, 9) == 0xCBF43926u);
    CHECK(etb_crc32(0, (const uint8_t *)fox, strlen(fox)) == 0x414FA339u);
    CHECK(etb_crc32(0, (const uint8_t *)"", 0) == 0);
    CHECK(etb_crc32(0, (const uint8_t *)"a", 1) == 0xE8B7BE43u);
    CHECK(etb_crc32(0, zeros, sizeof zeros) == 0x190A55ADu);
    /* Chaining equals one pass. */
    c = etb_crc32(0, (const uint8_t *)fox, 10);
    c = etb_crc32(c, (const uint8_t *)fox + 10, strlen(fox) - 10);
    CHECK(c == 0x414FA339u);
    CHECK(etb_crc32(0x1234u, NULL, 5) == 0x1234u);
}
