/**
 * The sensor-logging workload every contender runs: deterministic (seeded) readings, so all
 * contenders store and look up identical data, and the per-workload operation counts.
 *
 * Data: SENSORS sensors, each reporting every READING_INTERVAL_MS; reading i of sensor s has
 * ts = T0 + i * interval + s (ms), so a sensor's readings are evenly spaced and unique per sensor.
 */

export const SENSORS = 1000;
export const READING_INTERVAL_MS = 60_000;
const T0 = 1_700_000_000_000;

/** One reading as plain values; each contender maps it to its own input form outside the timing. */
export interface Reading {
  sensorId: string;
  ts: number;
  temperature: number;
  humidity: number;
  pressure: number;
  battery: number;
  rssi: number;
  status: string;
  firmware: string;
  location: string;
  gateway: string;
  model: string;
}

export interface Sizes {
  /** Readings per sensor loaded by the BatchWriteItem workload. */
  readingsPerSensor: number;
  /**
   * Durable single puts per round (the time budget stops a slower disk sooner). Enough readings
   * per sensor to cover several fill-and-split cycles of its newest leaf: with every sensor in
   * step, bytes per put over one or two readings per sensor are a phase of that cycle, not a cost
   * (docs/decisions/018-benchmark-method.md).
   */
  putItem: number;
  /** Single puts per round in each contender's no-flush-per-commit mode (the same budget stops it). */
  putNoFlush: number;
  getItem: number;
  scanPasses: number;
  /** Items one scan pass reads from the table's start (all of it when the table is smaller). */
  scanItems: number;
  queryLatest: number;
  queryWindow: number;
  /** Queries of the ~1,000-item window. */
  queryWideWindow: number;
  updateItem: number;
  conditionalPut: number;
  compile: number;
}

/**
 * Full run: 1,000,000 readings (1,000 sensors x 1,000). The counts keep every read round of a
 * contender to seconds at that size (the time budgets stop slower ones), so the loads dominate
 * the run (docs/decisions/023-benchmark-at-sensor-scale.md).
 */
export const FULL: Sizes = {
  readingsPerSensor: 1000,
  putItem: 20_000,
  putNoFlush: 20_000,
  getItem: 100_000,
  scanPasses: 1,
  scanItems: 1_000_000,
  queryLatest: 20_000,
  queryWindow: 3_000,
  queryWideWindow: 300,
  updateItem: 2000,
  conditionalPut: 2000,
  compile: 100_000,
};

export const QUICK: Sizes = {
  readingsPerSensor: 30,
  putItem: 300,
  putNoFlush: 300,
  getItem: 20_000,
  scanPasses: 1,
  scanItems: 1_000_000,
  queryLatest: 2000,
  queryWindow: 500,
  queryWideWindow: 100,
  updateItem: 300,
  conditionalPut: 300,
  compile: 10_000,
};

/** A smoke test of the whole run (`npm run bench -- --size tiny`): proves it works, measures little. */
export const TINY: Sizes = {
  readingsPerSensor: 5,
  putItem: 50,
  putNoFlush: 50,
  getItem: 2000,
  scanPasses: 1,
  scanItems: 1_000_000,
  queryLatest: 200,
  queryWindow: 50,
  queryWideWindow: 20,
  updateItem: 50,
  conditionalPut: 50,
  compile: 1000,
};

/** Readings per window query: ~100 consecutive readings of one sensor (a dashboard's last hours). */
export const WINDOW_READINGS = 100;
/** Readings per wide window query: ~1,000 (a sensor's day at one reading a minute is 1,440). */
export const WIDE_WINDOW_READINGS = 1000;
export const BATCH_SIZE = 25;
export const SCAN_PAGE_ITEMS = 1000;
export const LATEST_COUNT = 10;

/** mulberry32: small, fast, seeded; the same seed gives every contender the same sequence. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const formatSensorId = (s: number): string => `sensor-${String(s).padStart(4, '0')}`;
/** One string per sensor, shared by every key and reading: a run's prepared keys do not each hold a copy. */
const SENSOR_IDS = Array.from({ length: SENSORS }, (_, s) => formatSensorId(s));

export function sensorId(s: number): string {
  return SENSOR_IDS[s] ?? formatSensorId(s);
}

export function timestamp(s: number, i: number): number {
  return T0 + i * READING_INTERVAL_MS + s;
}

const MODELS = ['envsense-th200', 'envsense-th210', 'airnode-pro-3'];
const STATUSES = ['ok', 'ok', 'ok', 'ok', 'degraded', 'low-battery'];

/** Reading i of sensor s; the values depend only on (s, i). */
export function reading(s: number, i: number): Reading {
  const r = rng(s * 1_000_003 + i);
  return {
    sensorId: sensorId(s),
    ts: timestamp(s, i),
    temperature: round(15 + r() * 15, 2),
    humidity: round(30 + r() * 40, 1),
    pressure: round(990 + r() * 40, 2),
    battery: Math.floor(20 + r() * 80),
    rssi: -Math.floor(40 + r() * 50),
    status: STATUSES[Math.floor(r() * STATUSES.length)] ?? 'ok',
    firmware: `v2.${s % 4}.${s % 7}`,
    location: `site-${String(s % 17).padStart(2, '0')}/building-${s % 5}/room-${100 + (s % 40)}`,
    gateway: `gw-site-${String(s % 17).padStart(2, '0')}-north`,
    model: MODELS[s % MODELS.length] ?? 'envsense-th200',
  };
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/**
 * The load order of a logger: round by round, every sensor's reading of that round, for reading
 * indexes fromIndex <= i < readingsPerSensor (a part of the load starts past 0).
 */
export function* loadOrder(readingsPerSensor: number, fromIndex = 0): Generator<Reading> {
  for (let i = fromIndex; i < readingsPerSensor; i++) for (let s = 0; s < SENSORS; s++) yield reading(s, i);
}

/** `count` readings with new keys, starting at reading index `firstIndex`, spread over sensors. */
export function newReadings(firstIndex: number, count: number): Reading[] {
  const out: Reading[] = [];
  for (let k = 0; k < count; k++) out.push(reading(k % SENSORS, firstIndex + Math.floor(k / SENSORS)));
  return out;
}

export interface KeyRef {
  sensorId: string;
  ts: number;
}

/** `count` random existing keys among the loaded readings. */
export function randomKeys(seed: number, count: number, readingsPerSensor: number): KeyRef[] {
  const r = rng(seed);
  const out: KeyRef[] = [];
  for (let k = 0; k < count; k++) {
    const s = Math.floor(r() * SENSORS);
    const i = Math.floor(r() * readingsPerSensor);
    out.push({ sensorId: sensorId(s), ts: timestamp(s, i) });
  }
  return out;
}

export interface Window {
  sensorId: string;
  from: number;
  to: number;
}

/** Time windows covering `readings` readings of one sensor (fewer when the sensor has fewer). */
export function randomWindows(seed: number, count: number, readingsPerSensor: number, readings = WINDOW_READINGS): Window[] {
  const r = rng(seed);
  const span = Math.min(readings, readingsPerSensor);
  const out: Window[] = [];
  for (let k = 0; k < count; k++) {
    const s = Math.floor(r() * SENSORS);
    const i = Math.floor(r() * (readingsPerSensor - span + 1));
    out.push({ sensorId: sensorId(s), from: timestamp(s, i), to: timestamp(s, i + span - 1) });
  }
  return out;
}

export function randomSensors(seed: number, count: number): string[] {
  const r = rng(seed);
  return Array.from({ length: count }, () => sensorId(Math.floor(r() * SENSORS)));
}
