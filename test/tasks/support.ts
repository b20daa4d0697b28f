// Shared steps of the task tests: a manual system, a signed-in operator, and waiting for a request's tasks.
import assert from 'node:assert/strict';
import type { TestService } from '../helpers/service.ts';

export async function putManualSystem(
  service: TestService,
  key: string,
  system: Record<string, unknown> = {},
): Promise<void> {
  const answer = await service.call('PUT', `/v1/manual-system/${key}`, {
    token: await service.rootToken(),
    json: {
      name: `System ${key}`,
      actions: ['access'],
      fields: [
        { name: 'customer_number', label: 'Customer number' },
        { name: 'notes', label: 'Notes on file' },
      ],
      instructions: 'Look the subject up in the spreadsheet.',
      ...system,
    },
  });
  assert.ok(answer.status === 200 || answer.status === 201, answer.text);
}

export async function signIn(service: TestService, username: string, roles: string[]): Promise<string> {
  const created = await service.call('POST', '/v1/user', {
    token: await service.rootToken(),
    json: { username, password: `password of ${username}`, roles },
  });
  assert.equal(created.status, 201, created.text);
  const login = await service.call('POST', '/v1/login', {
    json: { username, password: `password of ${username}` },
  });
  assert.equal(login.status, 200, login.text);
  return login.body.token_data.access_token as string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- task objects are inspected field by field
export async function tasksOf(service: TestService, id: string): Promise<any[]> {
  const answer = await service.call('GET', `/v1/privacy-request/${id}/task`, {
    token: await service.rootToken(),
  });
  assert.equal(answer.status, 200, answer.text);
  return answer.body;
}
