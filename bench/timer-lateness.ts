/**
 * How late a 1 ms interval timer fires while `work` runs: the worst and the 99th-percentile
 * lateness, in ms. What a flush on the event loop costs every other callback (MQTT keepalives,
 * HTTP requests, bridge acks).
 */
export async function withTimer<T>(work: () => Promise<T>): Promise<{ result: T; worstMs: number; p99Ms: number }> {
  const late: number[] = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    late.push(Math.max(0, now - last - 1));
    last = now;
  }, 1);
  try {
    const result = await work();
    late.sort((a, b) => a - b);
    return { result, worstMs: late[late.length - 1] ?? 0, p99Ms: late[Math.floor(late.length * 0.99)] ?? 0 };
  } finally {
    clearInterval(timer);
  }
}
