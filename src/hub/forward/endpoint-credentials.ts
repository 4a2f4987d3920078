/** Keys the forwarder signs its requests with (else the AWS SDK's default chain finds them). */
export type EndpointCredentials = { readonly accessKeyId: string; readonly secretAccessKey: string; readonly sessionToken?: string };
