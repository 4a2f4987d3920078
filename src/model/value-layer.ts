/**
 * Which of DynamoDB's two attribute-value checkers an operation runs. They accept and refuse the
 * same values but word some refusals differently, so every conversion that can fail takes one.
 * Captured in four regions, 2026-10 (paritysuite/dynamodb-conformance valueLayers):
 *
 *   current  PutItem, UpdateItem, DeleteItem, GetItem, BatchGetItem, Query. A value that cannot
 *            be a number echoes it (`...numeric value: abc`, `...numeric value: ` for ""); an
 *            exponent is read in full, so 1e2147483647 overflows; duplicate set members are
 *            listed quoted, in sorted order up to the first repeat; an ExpressionAttributeValues
 *            value's error is reported as it is, with no wrapper.
 *   older    BatchWriteItem, TransactWriteItems, TransactGetItems, Scan. Numbers are read as
 *            Java's BigDecimal reads them (an exponent past a 32-bit integer cannot be
 *            converted; 1e2147483647 wraps to an underflow; "" is refused without the echo);
 *            duplicate members are listed as sent; an ExpressionAttributeValues value's error is
 *            wrapped in `ExpressionAttributeValues contains invalid value: <error> for key <k>`.
 *
 * One region (eu-west-2) runs the current layer on transactions too; edgetable follows the other
 * three.
 */
export type ValueLayer = 'current' | 'older';
