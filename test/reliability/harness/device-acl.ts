/**
 * The Mosquitto ACL of docs/sync.md ("Securing a shared broker"), built from the sync topic root
 * so it follows the topic namespace: each device (login = its certificate's CN = its device id)
 * writes only its own batches, schemas and down-direction control messages, and reads only its
 * own acks and down topic; the hub reads every device's topics and writes acks, down messages and
 * (to clear them) schemas.
 */
import { TOPIC_ROOT } from '../../../src/sync/topics.js';

/** `<namespace>/v1`; the default namespace gives TOPIC_ROOT. */
export function topicRoot(namespace?: string): string {
  return namespace === undefined ? TOPIC_ROOT : `${namespace}/v1`;
}

export function deviceAcl(options: { namespace?: string; hubUser?: string; shareGroup?: string } = {}): string {
  const root = topicRoot(options.namespace);
  const hub = options.hubUser ?? 'hub';
  return [
    '# every device (username = its certificate CN = its device id)',
    `pattern write ${root}/%u/+/+`,
    `pattern read ${root}/%u/ack`,
    `pattern read ${root}/%u/down`,
    '',
    '# the hub',
    `user ${hub}`,
    `topic read ${root}/+/+/+`,
    ...(options.shareGroup ? [`topic read $share/${options.shareGroup}/${root}/+/+/+`] : []),
    `topic write ${root}/+/ack`,
    `topic write ${root}/+/down`,
    `topic write ${root}/+/+/schema`,
    '',
  ].join('\n');
}
