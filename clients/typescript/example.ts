// A typed call with the generated types (lethe-api.d.ts, from /openapi.json by openapi-typescript; see
// docs/openapi.md): the body and the answer are checked by the compiler against the served document.
import type { components, operations } from './lethe-api.d.ts';

export type PrivacyRequest = components['schemas']['PrivacyRequest'];
type CreateBody = operations['createPrivacyRequests']['requestBody']['content']['application/json'];
type CreateAnswer = operations['createPrivacyRequests']['responses']['200']['content']['application/json'];

/** Creates privacy requests; `baseUrl` is the server of the document, `token` from createAccessToken. */
export async function createPrivacyRequests(
  baseUrl: string,
  token: string,
  requests: CreateBody,
): Promise<CreateAnswer> {
  const response = await fetch(`${baseUrl}/v1/privacy-request`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(requests),
  });
  if (!response.ok) {
    const error = (await response.json()) as components['schemas']['Error'];
    throw new Error(`Lethe answered ${response.status}: ${error.detail}`);
  }
  return (await response.json()) as CreateAnswer;
}
