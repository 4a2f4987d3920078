/**
 * A change record (stream/change-record.ts) as a DynamoDB Streams `Record`, projected to the
 * stream's view type: KEYS_ONLY -> Keys; NEW_IMAGE -> + NewImage; OLD_IMAGE -> + OldImage;
 * NEW_AND_OLD_IMAGES -> both. SizeBytes is recomputed for the images shown (the stored record
 * may hold more, for sync). A REMOVE done by TTL expiry carries DynamoDB's service userIdentity.
 */
import { toWireItem } from '../model/binary.js';
import { itemSize } from '../model/item-size.js';
import type { ChangeRecord } from '../stream/change-record.js';
import type { StreamViewType } from '../table/table-definition.js';
import { formatSequenceNumber } from './stream-names.js';

export function streamRecordOf(record: ChangeRecord, shard: number, seq: number, viewType: StreamViewType, region: string) {
  const newImage = viewType === 'NEW_IMAGE' || viewType === 'NEW_AND_OLD_IMAGES' ? record.newImage : undefined;
  const oldImage = viewType === 'OLD_IMAGE' || viewType === 'NEW_AND_OLD_IMAGES' ? record.oldImage : undefined;
  const sizeBytes = itemSize(record.keys) + (newImage ? itemSize(newImage) : 0) + (oldImage ? itemSize(oldImage) : 0);
  return {
    eventID: `${shard.toString(16).padStart(8, '0')}${seq.toString(16).padStart(24, '0')}`,
    eventName: record.eventName,
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: region,
    dynamodb: {
      ApproximateCreationDateTime: Math.floor(record.timeMs / 1000),
      Keys: toWireItem(record.keys),
      ...(newImage ? { NewImage: toWireItem(newImage) } : {}),
      ...(oldImage ? { OldImage: toWireItem(oldImage) } : {}),
      SequenceNumber: formatSequenceNumber(seq),
      SizeBytes: sizeBytes,
      StreamViewType: viewType,
    },
    ...(record.ttl ? { userIdentity: { PrincipalId: 'dynamodb.amazonaws.com', Type: 'Service' } } : {}),
  };
}
