#include "edgetable_node.h"

const char *etb_strerror(int rc) {
    switch (rc) {
    case ETB_OK: return "ETB_OK";
    case ETB_ERR_BUFFER_TOO_SMALL: return "ETB_ERR_BUFFER_TOO_SMALL";
    case ETB_ERR_INVALID: return "ETB_ERR_INVALID";
    case ETB_ERR_RANGE: return "ETB_ERR_RANGE";
    case ETB_ERR_TOO_MANY_FIELDS: return "ETB_ERR_TOO_MANY_FIELDS";
    case ETB_ERR_TOO_LARGE: return "ETB_ERR_TOO_LARGE";
    case ETB_ERR_DUPLICATE: return "ETB_ERR_DUPLICATE";
    case ETB_ERR_CRC: return "ETB_ERR_CRC";
    case ETB_ERR_TRUNCATED: return "ETB_ERR_TRUNCATED";
    case ETB_ERR_MALFORMED: return "ETB_ERR_MALFORMED";
    case ETB_ERR_VERSION: return "ETB_ERR_VERSION";
    case ETB_ERR_COBS: return "ETB_ERR_COBS";
    case ETB_ERR_IO: return "ETB_ERR_IO";
    case ETB_ERR_FULL: return "ETB_ERR_FULL";
    case ETB_ERR_EMPTY: return "ETB_ERR_EMPTY";
    case ETB_ERR_OTHER_DEVICE: return "ETB_ERR_OTHER_DEVICE";
    case ETB_ERR_OTHER_BOOT: return "ETB_ERR_OTHER_BOOT";
    case ETB_ERR_AUTH: return "ETB_ERR_AUTH";
    default: return rc > 0 ? "ETB_OK" : "ETB_ERR_UNKNOWN";
    }
}
