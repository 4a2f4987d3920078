/**
 * The Mosquitto ACL of docs/sync.md ("Securing a shared broker"), built from the Topics of the
 * namespace (src/sync/protocol/topics.ts builds every sync topic, so the ACL cannot drift from them): each
 * device (login = its certificate's CN = its device id) writes only its own batches, schemas and
 * down-direction control messages (subscriptions, acks), and reads only its own acks and down
 * topic; the hub reads every device's topics and writes acks, down messages and (to clear them)
 * schemas, and reads and writes the hubs' presence records. Mosquitto substitutes the login for
 * `%u`, and `+` is one level of any device or table.
 */
import { Topics } from '../../../src/sync/protocol/topics.js';

/** `<namespace>/v1`; the default namespace gives TOPIC_ROOT. */
export function topicRoot(namespace?: string): string {
  return new Topics(namespace).root;
}

export function deviceAcl(options: { namespace?: string; hubUser?: string; shareGroup?: string } = {}): string {
  const t = new Topics(options.namespace);
  const hub = options.hubUser ?? 'hub';
  return [
    '# every device (username = its certificate CN = its device id)',
    `pattern write ${t.root}/%u/+/+`, // its batches <table>/<shard>; the same shape covers the three below, listed to be read
    `pattern write ${t.schema('%u', '+')}`,
    `pattern write ${t.downSubscribe('%u')}`,
    `pattern write ${t.downAck('%u')}`,
    `pattern read ${t.ack('%u')}`,
    `pattern read ${t.down('%u')}`,
    '',
    '# the hub',
    `user ${hub}`,
    `topic read ${t.hubSubscription}`, // batches, schemas, down subscriptions and down acks of every device
    ...(options.shareGroup ? [`topic read ${t.sharedHubSubscription(options.shareGroup)}`] : []),
    `topic write ${t.ack('+')}`,
    `topic write ${t.down('+')}`,
    `topic write ${t.schema('+', '+')}`,
    `topic readwrite ${t.presenceSubscription}`, // hub presence: every hub's record and its own (its last will clears it)
    '',
  ].join('\n');
}
