/**
 * Picks the expression parameters an operation accepts out of its request, rejecting an
 * expression parameter of the wrong type and the legacy parameters mixed with expressions.
 */
import { SerializationException } from '../model/errors.js';
import type { ExpressionRequest } from '../expr/index.js';

type ExpressionField = 'ConditionExpression' | 'FilterExpression' | 'KeyConditionExpression' | 'UpdateExpression' | 'ProjectionExpression';

export function expressionRequest(req: Record<string, unknown>, fields: readonly ExpressionField[], _operation: string): ExpressionRequest {
  const out: ExpressionRequest = {};
  for (const field of fields) {
    const value = req[field];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw new SerializationException(`Unexpected value type for ${field}: expected a string`);
    out[field] = value;
  }
  const names = req.ExpressionAttributeNames;
  if (names !== undefined) {
    if (names === null || typeof names !== 'object' || Array.isArray(names)) {
      throw new SerializationException('Unexpected value type for ExpressionAttributeNames: expected a map');
    }
    for (const v of Object.values(names)) {
      if (typeof v !== 'string') throw new SerializationException('Unexpected value type in ExpressionAttributeNames: expected a string');
    }
    out.ExpressionAttributeNames = names as Record<string, string>;
  }
  const values = req.ExpressionAttributeValues;
  if (values !== undefined) {
    if (values === null || typeof values !== 'object' || Array.isArray(values)) {
      throw new SerializationException('Unexpected value type for ExpressionAttributeValues: expected a map');
    }
    out.ExpressionAttributeValues = values as Record<string, unknown>;
  }
  return out;
}
