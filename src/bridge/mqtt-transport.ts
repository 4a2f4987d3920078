/**
 * MQTT transport: one PUBLISH payload = one raw frame. The bridge subscribes to `topic` (wildcards
 * allowed) at QoS 1 and answers each frame with a raw ack published at QoS 0 (a lost ack is
 * repaired by the next) to:
 *   - the PUBLISH's Response Topic, when the node set one (protocolVersion 5);
 *   - else `<topic the frame arrived on>/ack`.
 * Messages on topics ending in `/ack` are ignored, so `sensors/#` does not feed acks back in.
 * `mqtt` is loaded on first use. (DESIGN.md keeps mqtt in sync/; move this there when the sync
 * transport exists, behind the same two functions.)
 */
import type { FrameSource } from './frame-source.js';
import { log } from '../log/logger.js';

export type MqttOptions = {
  url: string;
  topic: string;
  /** 4 = MQTT 3.1.1 (default: every broker, aedes included), 5 = MQTT 5 (honours Response Topic). */
  protocolVersion?: 4 | 5;
};

export type MqttTransport = { close(): Promise<void> };

export const ACK_TOPIC_SUFFIX = '/ack';

export function ackTopicFor(frameTopic: string, responseTopic?: string): string {
  return responseTopic ?? `${frameTopic}${ACK_TOPIC_SUFFIX}`;
}

export async function openMqttTransport(options: MqttOptions, onFrame: (bytes: Uint8Array, source: FrameSource) => void): Promise<MqttTransport> {
  const { connectAsync } = await import('mqtt');
  const client = await connectAsync(options.url, { protocolVersion: options.protocolVersion ?? 4, reconnectPeriod: 1000, clean: true });
  client.on('error', (err) => log('bridge').error({ err }, `bridge: MQTT broker ${options.url}: ${err.message}`));
  client.on('message', (topic, payload, packet) => {
    if (topic.endsWith(ACK_TOPIC_SUFFIX)) return;
    const replyTo = ackTopicFor(topic, packet.properties?.responseTopic);
    onFrame(payload, {
      id: `mqtt:${topic}`,
      reply(ack) {
        if (!client.connected) return;
        client.publish(replyTo, Buffer.from(ack), { qos: 0 }, (err) => {
          if (err) log('bridge').warn({ err }, `bridge: ack to MQTT ${replyTo} failed: ${err.message}`);
        });
      },
    });
  });
  await client.subscribeAsync(options.topic, { qos: 1 });
  return {
    async close() {
      await client.endAsync();
    },
  };
}
