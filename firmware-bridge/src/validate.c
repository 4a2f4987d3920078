/* Character rules for device ids, field names and string values (docs/sensor-frame.md). */
#include "etb_internal.h"

size_t etb_strnlen(const char *s, size_t max) {
    size_t n = 0;
    while (n <= max && s[n] != '\0') n++;
    return n;
}

static int is_alpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
static int is_digit(char c) { return c >= '0' && c <= '9'; }

int etb_valid_device_id(const char *s, size_t n) {
    size_t i;
    if (n < 1 || n > ETB_MAX_DEVICE_ID_BYTES) return 0;
    for (i = 0; i < n; i++) {
        char c = s[i];
        if (!(is_alpha(c) || is_digit(c) || c == '.' || c == '_' || c == ':' || c == '-')) return 0;
    }
    return 1;
}

int etb_valid_name(const char *s, size_t n) {
    size_t i;
    if (n < 1 || n > ETB_MAX_NAME_BYTES) return 0;
    if (!(is_alpha(s[0]) || s[0] == '_')) return 0;
    for (i = 1; i < n; i++) {
        if (!(is_alpha(s[i]) || is_digit(s[i]) || s[i] == '_')) return 0;
    }
    return 1;
}

/* Well-formed UTF-8 as RFC 3629 and the WHATWG decoder define it: no overlongs, no surrogates,
 * nothing above U+10FFFF - exactly what TextDecoder('utf-8', { fatal: true }) accepts. */
int etb_valid_utf8(const uint8_t *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        size_t more;
        uint8_t lo = 0x80, hi = 0xBF;
        if (c < 0x80) { i++; continue; }
        if (c >= 0xC2 && c <= 0xDF) more = 1;
        else if (c == 0xE0) { more = 2; lo = 0xA0; }
        else if (c == 0xED) { more = 2; hi = 0x9F; }
        else if (c >= 0xE1 && c <= 0xEF) more = 2;
        else if (c == 0xF0) { more = 3; lo = 0x90; }
        else if (c >= 0xF1 && c <= 0xF3) more = 3;
        else if (c == 0xF4) { more = 3; hi = 0x8F; }
        else return 0;
        if (n - i - 1 < more) return 0;
        if (s[i + 1] < lo || s[i + 1] > hi) return 0;
        {
            size_t k;
            for (k = 2; k <= more; k++) {
                if (s[i + k] < 0x80 || s[i + k] > 0xBF) return 0;
            }
        }
        i += more + 1;
    }
    return 1;
}
