/*
 * esp32-serial: an ESP32 sensor node that sends readings to the edgetable bridge over its USB
 * serial port (COBS frames, docs/sensor-frame.md) and frees them when the bridge acknowledges.
 *
 * Build: copy firmware-bridge/include/edgetable_node.h and the files of firmware-bridge/src/ next to
 * this file (Arduino compiles every .c in the sketch folder), or install firmware-bridge as a
 * library (see firmware-bridge/README.md). Board: any ESP32 with the Arduino-ESP32 core.
 *
 * Serial carries only frames and acks: print nothing else on it. The ROM bootloader's text at
 * reset reaches the bridge as garbage, which it drops (crc/malformed) and counts.
 */
#include <Arduino.h>
#include <Preferences.h>
#include <sys/time.h>

#include "edgetable_node.h"

static const char *const DEVICE_ID = "esp32-demo";
static const uint32_t READ_EVERY_MS = 5000;
static const uint32_t RESEND_AFTER_MS = 2000;
/* This node's key, as provisioned in the bridge's keys file (docs/bridge.md); 16..32 bytes.
 * A real build reads it from NVS or flash encryption, not from the source. */
static const uint8_t NODE_KEY[16] = {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
                                     0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f};

static uint8_t ring_mem[ETB_RING_STORAGE_BYTES(16, 128)]; /* 16 unacked frames of <= 128 bytes */
static uint8_t rx_mem[ETB_MAX_COBS_ACK_BYTES];
static etb_ring_t ring;
static etb_node_t node;
static etb_cobs_rx_t rx;
static Preferences prefs;
static uint32_t last_read_ms;

/* millis() wraps after 49 days; the library wants a monotonic 64-bit clock. */
static uint64_t port_now_ms(void *ctx) {
  static uint32_t last = 0;
  static uint64_t high = 0;
  (void)ctx;
  uint32_t now = millis();
  if (now < last) high += (uint64_t)1 << 32;
  last = now;
  return high + now;
}

static int port_write(void *ctx, const uint8_t *data, size_t len) {
  (void)ctx;
  return Serial.write(data, len) == len ? ETB_OK : ETB_ERR_IO;
}

/* Wall-clock ms since the epoch: right once SNTP or an RTC has set the clock (else ms since boot). */
static uint64_t wall_ms() {
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  return (uint64_t)tv.tv_sec * 1000u + (uint64_t)tv.tv_usec / 1000u;
}

/* Each boot is a new stream at the bridge: the boot counter lives in NVS, written once per boot
 * (seqs restart at 1, so nothing is written per frame). */
static int port_boot_id(void *ctx, uint32_t *boot) {
  (void)ctx;
  uint32_t next = prefs.getUInt("boot", 0) + 1;
  if (next == 0 || prefs.putUInt("boot", next) != sizeof next) return ETB_ERR_IO;
  *boot = next;
  return ETB_OK;
}

void setup() {
  Serial.begin(115200);
  prefs.begin("edgetable", false);

  const etb_port_t port = {nullptr, port_now_ms, port_write, port_boot_id};
  etb_ring_init(&ring, ring_mem, sizeof ring_mem, 128);
  etb_node_init(&node, &port, &ring, DEVICE_ID, ETB_TRANSPORT_SERIAL, 1, RESEND_AFTER_MS);
  etb_node_set_key(&node, NODE_KEY, sizeof NODE_KEY);
  etb_cobs_rx_init(&rx, rx_mem, sizeof rx_mem);
  Serial.write((uint8_t)0); /* ends any half-sent message on the line */
}

static void send_reading() {
  etb_frame_t f;
  int rc = etb_node_begin(&node, &f, wall_ms());
  if (rc == ETB_ERR_FULL) {
    /* The bridge is away and the ring is full: keep the newest readings. The next frame's base
     * tells the bridge not to wait for the dropped one. */
    etb_ring_drop_oldest(&ring);
    rc = etb_node_begin(&node, &f, wall_ms());
  }
  if (rc != ETB_OK) return;
  etb_frame_add_float(&f, "temperature", temperatureRead()); /* the chip's own sensor, deg C */
  etb_frame_add_int(&f, "light", analogRead(34));
  etb_frame_add_int(&f, "free_heap", (int64_t)ESP.getFreeHeap());
  etb_frame_add_string(&f, "fw", "esp32-serial/1");
  /* Errors here are sticky and reported by send; ETB_ERR_IO still keeps the frame for resend. */
  etb_node_send(&node, &f, nullptr);
}

void loop() {
  while (Serial.available() > 0) {
    const uint8_t *msg;
    size_t len;
    if (etb_cobs_rx_push(&rx, (uint8_t)Serial.read(), &msg, &len) == 1) {
      etb_node_handle_ack(&node, msg, len); /* corrupt acks and other devices' acks are ignored */
    }
  }
  uint32_t now = millis();
  if (now - last_read_ms >= READ_EVERY_MS) {
    last_read_ms = now;
    send_reading();
  }
  etb_node_poll(&node); /* resends frames unacknowledged for RESEND_AFTER_MS */
  delay(5);
}
