/* SHA-256 (FIPS 180-4 examples) and HMAC-SHA256 (RFC 4231 test cases 1-7). */
#include <string.h>
#include "check.h"

static void sha(const char *msg, size_t repeat, const char *want_hex) {
    etb_sha256_t s;
    uint8_t got[ETB_SHA256_BYTES], want[ETB_SHA256_BYTES];
    size_t i;
    hex(want_hex, want, sizeof want);
    etb_sha256_init(&s);
    for (i = 0; i < repeat; i++) etb_sha256_update(&s, (const uint8_t *)msg, strlen(msg));
    etb_sha256_final(&s, got);
    CHECK_BYTES(got, sizeof got, want, sizeof want);
}

static void hmac(const char *key_hex, size_t key_fill, const char *msg_hex, const char *msg_text,
                 const char *want_hex, size_t want_len) {
    uint8_t key[160], msg[160], want[ETB_SHA256_BYTES], got[ETB_SHA256_BYTES];
    size_t kn, mn;
    if (key_fill) {
        memset(key, 0xAA, key_fill);
        kn = key_fill;
    } else {
        kn = hex(key_hex, key, sizeof key);
    }
    if (msg_text) {
        mn = strlen(msg_text);
        memcpy(msg, msg_text, mn);
    } else {
        mn = hex(msg_hex, msg, sizeof msg);
    }
    hex(want_hex, want, sizeof want);
    CHECK_RC(etb_hmac_sha256(key, kn, msg, mn, got), ETB_OK);
    CHECK_BYTES(got, want_len, want, want_len);
}

void test_sha256(void) {
    uint8_t out[ETB_SHA256_BYTES];
    sha("", 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    sha("abc", 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    sha("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    sha("a", 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    /* 55, 56 and 64 bytes: the padding boundaries (digests from Python's hashlib) */
    sha("0123456789012345678901234567890123456789012345678901234", 1,
        "f34d5a0f80c0cbf84c8c0b90218c22637abd199965249da736a20143c8c9c9d9");
    sha("01234567890123456789012345678901234567890123456789012345", 1,
        "83aa034bda83e458a0dc9cbce0d4e354716aa0ff770ed37ac0ed2b292052e4af");
    sha("0123456789012345678901234567890123456789012345678901234567890123", 1,
        "9674d9e078535b7cec43284387a6ee39956188e735a85452b0050b55341cda56");

    /* RFC 4231 */
    hmac("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", 0, NULL, "Hi There",
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7", 32);
    hmac("4a656665", 0, NULL, "what do ya want for nothing?",
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", 32);
    hmac(NULL, 20, "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd", NULL,
         "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe", 32);
    hmac("0102030405060708090a0b0c0d0e0f10111213141516171819", 0,
         "cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd", NULL,
         "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b", 32);
    hmac("0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c", 0, NULL, "Test With Truncation",
         "a3b6167473100ee06e0c796c2955552b", 16);
    hmac(NULL, 131, NULL, "Test Using Larger Than Block-Size Key - Hash Key First",
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54", 32);
    hmac(NULL, 131, NULL,
         "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.",
         "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2", 32);
    CHECK_RC(etb_hmac_sha256(NULL, 0, NULL, 0, out), ETB_OK); /* empty key and message are valid */
    CHECK_RC(etb_hmac_sha256(NULL, 1, NULL, 0, out), ETB_ERR_INVALID);
}
