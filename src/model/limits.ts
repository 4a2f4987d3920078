/**
 * DynamoDB's limits, one place, unit in the name (../shared/spec/DYNAMODB.md §6.1, §1).
 * Binary units: KB = 1,024 bytes, MB = 1,048,576 bytes.
 */
export const MAX_ITEM_BYTES = 400 * 1024;
export const MAX_PARTITION_KEY_BYTES = 2048;
export const MAX_SORT_KEY_BYTES = 1024;
export const MAX_ATTRIBUTE_NAME_BYTES = 65_535;
export const MAX_KEY_ATTRIBUTE_NAME_BYTES = 255;
export const MAX_NESTING_DEPTH = 32;
export const MAX_NUMBER_DIGITS = 38;
/** Largest decimal exponent of the leading digit: 9.99...E+125. */
export const MAX_NUMBER_EXPONENT = 125;
/** Smallest decimal exponent of the leading digit: 1E-130. */
export const MIN_NUMBER_EXPONENT = -130;
export const MAX_PAGE_BYTES = 1024 * 1024;
export const MAX_BATCH_GET_KEYS = 100;
/**
 * BatchGetItem's response cap, "16 MB", counted in decimal megabytes: the documented example
 * (100 items of 300 KB -> 52 returned, spec §6.5) only works out for a cap between 52 and 53
 * items of 307,200 bytes, i.e. 15,974,400..16,281,599 bytes; 16 x 1,048,576 would give 54.
 */
export const MAX_BATCH_GET_RESPONSE_BYTES = 16_000_000;
export const MAX_BATCH_WRITE_REQUESTS = 25;
export const MAX_TRANSACT_ITEMS = 100;
export const MAX_TRANSACT_BYTES = 4 * 1024 * 1024;
export const CLIENT_REQUEST_TOKEN_TTL_MS = 10 * 60 * 1000;
export const MAX_CLIENT_REQUEST_TOKEN_CHARS = 36;
export const MAX_EXPRESSION_BYTES = 4096;
export const MAX_EXPRESSION_OPERATORS = 300;
export const MAX_IN_OPERANDS = 100;
/** One `#name` or `:value` placeholder, sigil included (spec §1.3). */
export const MAX_PLACEHOLDER_BYTES = 255;
/** ExpressionAttributeNames and ExpressionAttributeValues of one request together (spec §6.1). */
export const MAX_EXPRESSION_PARAMETERS_BYTES = 2 * 1024 * 1024;
export const MAX_LIST_TABLES_LIMIT = 100;
export const MIN_TABLE_NAME_CHARS = 3;
export const MAX_TABLE_NAME_CHARS = 255;
/** A data-plane TableName (a name or a table ARN), before the name rules (2026 captures). */
export const MIN_TABLE_ARN_CHARS = 1;
export const MAX_TABLE_ARN_CHARS = 1024;
export const MAX_LOCAL_SECONDARY_INDEXES = 5;
export const MAX_GLOBAL_SECONDARY_INDEXES = 20;
export const MAX_PROJECTED_ATTRIBUTES = 100;
export const READ_UNIT_BYTES = 4096;
export const WRITE_UNIT_BYTES = 1024;
export const PARTITION_READ_UNITS = 3000;
export const PARTITION_WRITE_UNITS = 1000;
/** LMDB's compiled key limit (MDB_MAXKEYSIZE = 511): longer full keys are stored as overflow keys (codec/item-key.ts). */
export const MAX_STORED_KEY_BYTES = 511;
/** Sensor frames and acks of the firmware bridge (docs/sensor-frame.md, "Limits"; the same
 * numbers are ETB_MAX_* in firmware-bridge/include/edgetable_node.h). Raw sizes include the CRC. */
export const MAX_SENSOR_FRAME_BYTES = 512;
export const MAX_SENSOR_ACK_BYTES = 64;
export const MAX_SENSOR_FIELDS = 16;
export const MAX_SENSOR_FIELD_NAME_BYTES = 32;
export const MAX_SENSOR_DEVICE_ID_BYTES = 32;
export const MAX_SENSOR_STRING_VALUE_BYTES = 128;
/** COBS(512-byte frame) = at most 515 bytes, plus the 0x00 delimiter. */
export const MAX_SENSOR_COBS_FRAME_BYTES = 516;
/** Largest HTTP request body the server accepts (DynamoDB caps a request at 16 MB, spec §6.1). */
export const MAX_REQUEST_BODY_BYTES = 16 * 1024 * 1024;
/** Firmware bridge: durable seqs kept per device above its contiguous `settled` seq (dedup window). */
export const MAX_BRIDGE_DURABLE_SEQS = 4096;
/** Firmware bridge: the status snapshot file is rewritten at most this often. */
export const BRIDGE_STATUS_INTERVAL_MS = 1000;
/** TTL values further than this in the past are ignored (spec §6.9: five years). */
export const TTL_MAX_PAST_SECONDS = 5 * 365 * 24 * 60 * 60;
/** TTL attribute names: 1..255 characters (UpdateTimeToLive's constraint). */
export const MAX_TTL_ATTRIBUTE_NAME_CHARS = 255;

/** Tags on one table (TagResource, CreateTable). */
export const MAX_TAGS_PER_RESOURCE = 50;
