// Shared steps of the Area B tests: a datastore and an API key issued over the real management API, and
// calls to /api with that key.
import http from 'node:http';
import type { CallResult, TestService } from './service.ts';

export interface ApiClient {
  key: string;
  keyId: string;
  datastore: string;
  call(
    path: string,
    options?: { json?: unknown; body?: BodyInit; headers?: Record<string, string>; method?: string },
  ): Promise<CallResult>;
}

export async function createDatastore(service: TestService, name: string): Promise<void> {
  const answer = await service.call('POST', '/v1/datastore', {
    token: await service.rootToken(),
    json: { name },
  });
  if (answer.status !== 201) throw new Error(`datastore ${name}: ${answer.status} ${answer.text}`);
}

export async function issueKey(
  service: TestService,
  datastores: string[],
  extra: { rate_limit_per_minute?: number } = {},
): Promise<{ id: string; key: string }> {
  const answer = await service.call('POST', '/v1/api-key', {
    token: await service.rootToken(),
    json: { name: 'test key', datastores, ...extra },
  });
  if (answer.status !== 201) throw new Error(`api key: ${answer.status} ${answer.text}`);
  return { id: answer.body.id, key: answer.body.key };
}

export async function apiClient(
  service: TestService,
  datastore: string,
  extra: { rate_limit_per_minute?: number } = {},
): Promise<ApiClient> {
  await createDatastore(service, datastore);
  const { id, key } = await issueKey(service, [datastore], { rate_limit_per_minute: 100_000, ...extra });
  return {
    key,
    keyId: id,
    datastore,
    call: async (path, options = {}) => {
      const method = options.method ?? 'POST';
      const headers = { 'api-key': key, datastore, ...options.headers };
      if (method === 'GET' && (options.json !== undefined || options.body !== undefined)) {
        return getWithBody(service.url + path, headers, options.json, options.body);
      }
      return service.call(method, path, { json: options.json, body: options.body, headers });
    },
  };
}

/** fetch refuses a GET with a body; the seed's request lines are exactly that, so send it over node:http. */
async function getWithBody(
  url: string,
  headers: Record<string, string>,
  json: unknown,
  body: BodyInit | undefined,
): Promise<CallResult> {
  const encoded = json !== undefined ? new Response(JSON.stringify(json)) : new Response(body);
  const contentType =
    json !== undefined
      ? 'application/json'
      : (encoded.headers.get('content-type') ?? 'application/octet-stream');
  const bytes = Buffer.from(await encoded.arrayBuffer());
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: 'GET', headers: { 'content-type': contentType, 'content-length': bytes.length, ...headers } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (typeof value === 'string') responseHeaders.set(name, value);
          }
          const isJson = responseHeaders.get('content-type')?.includes('json') && text;
          resolve({
            status: response.statusCode ?? 0,
            headers: responseHeaders,
            text,
            body: isJson ? JSON.parse(text) : text,
          });
        });
      },
    );
    request.on('error', reject);
    request.end(bytes);
  });
}

/** Counts rows of the subject tables of one datastore, straight from the store. */
export async function rowCounts(service: TestService, datastore: string) {
  const { rows } = await service.services.db.query<Record<string, number>>(
    `SELECT (SELECT count(*) FROM entities WHERE datastore = $1)::int AS entities,
            (SELECT count(*) FROM entity_attributes WHERE datastore = $1)::int AS attributes,
            (SELECT count(*) FROM entity_attributes WHERE datastore = $1 AND blind_index IS NOT NULL)::int AS index_entries,
            (SELECT count(*) FROM entity_references WHERE datastore = $1)::int AS references,
            (SELECT count(*) FROM entity_files WHERE datastore = $1)::int AS files,
            (SELECT count(*) FROM entity_file_chunks c JOIN entity_files f ON f.id = c.file_id WHERE f.datastore = $1)::int AS chunks`,
    [datastore],
  );
  return rows[0] as {
    entities: number;
    attributes: number;
    index_entries: number;
    references: number;
    files: number;
    chunks: number;
  };
}
