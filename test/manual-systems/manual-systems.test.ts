// Manual systems over real HTTP on a real database: create, replace, read, list and delete; every bound of
// the input (unique field names, 1 to 50 fields, instructions up to 10,000 characters, an assignee who is
// an operator, translations only of the instructions and only into a language with a catalogue) answered
// 422 naming the field and changing nothing; a viewer reads but does not write.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';

const system = {
  name: 'Paper archive',
  actions: ['access', 'erasure'],
  fields: [
    { name: 'box', label: 'Box number' },
    { name: 'notes', label: 'What the file holds' },
  ],
  instructions: 'Ask the archivist on the second floor.',
  assignee: 'clara',
};

async function signIn(service: TestService, username: string, roles: string[]): Promise<string> {
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

describe('manual systems', () => {
  let service: TestService;
  let token: string;
  let viewer: string;

  before(async () => {
    service = await startTestService();
    token = await service.rootToken();
    await signIn(service, 'clara', ['contributor']);
    viewer = await signIn(service, 'vera', ['viewer']);
  });
  after(() => service.stop());

  it('creates (201), replaces (200), reads, lists and deletes a system', async () => {
    const created = await service.call('PUT', '/v1/manual-system/archive', { token, json: system });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.key, 'archive');
    assert.deepEqual(created.body.fields, system.fields);
    assert.equal(created.body.assignee, 'clara');
    assert.equal(created.body.respondent_email, null);
    assert.deepEqual(created.body.identities, []);
    assert.deepEqual(created.body.translations, {});

    const replaced = await service.call('PUT', '/v1/manual-system/archive', {
      token,
      json: {
        ...system,
        actions: ['erasure'],
        respondent_email: 'archivist@vendor.example',
        identities: ['email', 'loyalty_id'],
        translations: { de: { instructions: 'Fragen Sie die Archivarin im zweiten Stock.' } },
      },
    });
    assert.equal(replaced.status, 200, replaced.text);
    assert.deepEqual(replaced.body.actions, ['erasure']);
    assert.deepEqual(replaced.body.identities, ['email', 'loyalty_id']);
    assert.deepEqual(replaced.body.translations, {
      de: { instructions: 'Fragen Sie die Archivarin im zweiten Stock.' },
    });

    const read = await service.call('GET', '/v1/manual-system/archive', { token: viewer });
    assert.equal(read.status, 200);
    assert.equal(read.body.respondent_email, 'archivist@vendor.example');
    assert.equal(read.body.translations.de.instructions, 'Fragen Sie die Archivarin im zweiten Stock.');
    const listed = await service.call('GET', '/v1/manual-system', { token: viewer });
    assert.deepEqual(
      listed.body.map((item: { key: string }) => item.key),
      ['archive'],
    );

    const removed = await service.call('DELETE', '/v1/manual-system/archive', { token });
    assert.equal(removed.status, 204);
    assert.equal((await service.call('GET', '/v1/manual-system/archive', { token })).status, 404);
    assert.equal((await service.call('DELETE', '/v1/manual-system/archive', { token })).status, 404);
  });

  it('answers 422 naming the field for bad input, and stores nothing', async () => {
    const cases: [unknown, RegExp][] = [
      [{ ...system, fields: [system.fields[0], { name: 'box', label: 'Again' }] }, /box is used twice/],
      [{ ...system, fields: [] }, /fields/],
      [
        { ...system, fields: Array.from({ length: 51 }, (_, index) => ({ name: `f${index}`, label: 'x' })) },
        /fields/,
      ],
      [{ ...system, instructions: 'x'.repeat(10_001) }, /instructions/],
      [{ ...system, assignee: 'nobody.here' }, /assignee: no operator named "nobody.here"/],
      [{ ...system, actions: ['rectify'] }, /actions/],
      [{ ...system, fields: [{ name: 'Bad Name', label: 'x' }] }, /fields/],
      [{ ...system, surprise: true }, /surprise/],
      [{ ...system, respondent_email: 'not an email' }, /respondent_email/],
      [{ ...system, identities: ['E-mail'] }, /identities/],
      [{ ...system, identities: ['email', 'email'] }, /identities/],
      [
        { ...system, translations: { xx: { instructions: 'x' } } },
        /manual system\.translations: "xx" is not a language Lethe has a catalogue for/,
      ],
      [
        { ...system, translations: { de: { title: 'Archiv' } } },
        /manual system\.translations\.de: "title" is not a translatable text \(instructions\)/,
      ],
      [{ ...system, translations: { de: { instructions: 'x'.repeat(10_001) } } }, /translations/],
    ];
    for (const [json, detail] of cases) {
      const answer = await service.call('PUT', '/v1/manual-system/bad', { token, json });
      assert.equal(answer.status, 422, `${JSON.stringify(json).slice(0, 80)}: ${answer.text}`);
      assert.match(answer.body.detail, detail);
    }
    const fifty = Array.from({ length: 50 }, (_, index) => ({ name: `f${index}`, label: 'x' }));
    const most = await service.call('PUT', '/v1/manual-system/wide', {
      token,
      json: { ...system, fields: fifty, instructions: 'y'.repeat(10_000) },
    });
    assert.equal(most.status, 201, most.text);
    assert.equal((await service.call('GET', '/v1/manual-system/bad', { token })).status, 404);
  });

  it('lets a viewer read but not write (403)', async () => {
    const put = await service.call('PUT', '/v1/manual-system/viewer', { token: viewer, json: system });
    assert.equal(put.status, 403);
    const del = await service.call('DELETE', '/v1/manual-system/wide', { token: viewer });
    assert.equal(del.status, 403);
    assert.equal((await service.call('GET', '/v1/manual-system/viewer', { token })).status, 404);
  });

  it('records every change in the configuration audit', async () => {
    const answer = await service.call('GET', '/v1/audit-log?action=manual-system&size=100', { token });
    assert.equal(answer.status, 200);
    const actions = answer.body.items.map((entry: { action: string }) => entry.action).sort();
    assert.deepEqual(actions, [
      'manual-system.create',
      'manual-system.create',
      'manual-system.delete',
      'manual-system.update',
    ]);
  });
});
