/**
 * One DynamoDB JSON 1.0 call to a local `edgetable serve` over fetch, with the SigV4-shaped
 * Authorization header serve wants (not verified unless configured), as the SDK sends it; throws
 * on any status but 200. For the suites that load a server without the SDK in their own process.
 */
export function dynamoCaller(port: number): (operation: string, body: unknown) => Promise<void> {
  return async (operation, body) => {
    const r = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': `DynamoDB_20120810.${operation}`,
        'x-amz-date': '20260101T000000Z',
        authorization: 'AWS4-HMAC-SHA256 Credential=bench/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00',
      },
      body: JSON.stringify(body),
    });
    if (r.status !== 200) throw new Error(`${operation}: ${r.status} ${await r.text()}`);
    await r.arrayBuffer();
  };
}
