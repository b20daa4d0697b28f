// HTTP calls to a Lethe child process that never wait past a bound: an answer that does not come in time
// is recorded as a hang (status 0), a refused or reset connection as a transport error (status -1).
export interface TimedAnswer {
  status: number;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are inspected field by field
  body: any;
  startedAt: number;
  endedAt: number;
  error?: string;
}

export interface TimedCallOptions {
  json?: unknown;
  body?: BodyInit;
  token?: string;
  headers?: Record<string, string>;
  boundMs?: number;
}

export async function timedCall(
  baseUrl: string,
  method: string,
  urlPath: string,
  options: TimedCallOptions = {},
): Promise<TimedAnswer> {
  const headers: Record<string, string> = { ...options.headers };
  let body = options.body;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  }
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const startedAt = Date.now();
  try {
    const response = await fetch(`${baseUrl}${urlPath}`, {
      method,
      headers,
      body,
      signal: AbortSignal.timeout(options.boundMs ?? 15_000),
    });
    const text = await response.text();
    let parsed: unknown = text;
    if (response.headers.get('content-type')?.includes('json') && text) parsed = JSON.parse(text);
    return { status: response.status, text, body: parsed, startedAt, endedAt: Date.now() };
  } catch (error) {
    const hang = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return {
      status: hang ? 0 : -1,
      text: '',
      body: undefined,
      startedAt,
      endedAt: Date.now(),
      error: hang ? 'no answer within the bound' : (cause?.code ?? cause?.message ?? String(error)),
    };
  }
}

export async function managementToken(
  baseUrl: string,
  clientId: string,
  clientSecret: string,
): Promise<string> {
  const answer = await timedCall(baseUrl, 'POST', '/v1/oauth/token', {
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    }),
  });
  if (answer.status !== 200) throw new Error(`token: ${answer.status} ${answer.text}`);
  return answer.body.access_token as string;
}
