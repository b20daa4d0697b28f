// report.html of an access package: grouped by datastore and entity, every value escaped, no script, and a
// CSP that forbids any; file entries named safely; dates in words, entity labels, files linked.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { localIsoDateTime, renderDataCsv } from '../../src/access-delivery/data-csv.ts';
import { reportTimeZone } from '../../src/access-delivery/download.ts';
import { fileEntryName, readableDate, renderAccessReport } from '../../src/access-delivery/report.ts';

describe('the access report', () => {
  it('groups by datastore and entity and escapes every value', () => {
    const html = renderAccessReport(
      {
        privacy_request_id: 'pri_1',
        policy_key: 'default_access_policy',
        generated_at: '2026-01-01T00:00:00.000Z',
        rules: [],
        datastores: [
          {
            name: 'crm',
            matched_entities: 1,
            entities: [
              {
                id: '00000000-0000-4000-8000-000000000001',
                name: 'users',
                references: [],
                attributes: [
                  { name: 'bio', value: '<script>alert(1)</script>' },
                  { name: 'nickname', value: null },
                ],
                files: [{ name: 'avatar', fileName: '../../x.png', contentType: 'image/png', size: 3 }],
                createdAt: '2026-01-01T00:00:00.000Z',
              },
            ],
          },
          { name: 'empty', matched_entities: 0, entities: [] },
        ],
      },
      'Example <Ltd>',
    );
    assert.ok(!/<script/i.test(html), 'no script');
    assert.match(html, /Content-Security-Policy" content="default-src 'none'/);
    assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.match(html, /<h2>crm<\/h2>/);
    assert.match(html, /<h3>users /);
    assert.ok(!html.includes('<h2>empty</h2>'), 'a datastore without data is not listed');
    assert.match(html, /Example &lt;Ltd&gt;/);
  });

  it('reads as a page for a person: dates in words, labels for names, files linked, no files sentence without files', () => {
    const entity = {
      id: '00000000-0000-4000-8000-000000000002',
      name: 'users',
      references: [],
      attributes: [{ name: 'email', value: 'ada@example.com' }],
      files: [] as { name: string; fileName: string; contentType: string; size: number }[],
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    const accessPackage = {
      privacy_request_id: 'pri_2',
      policy_key: 'default_access_policy',
      generated_at: '2026-03-04T05:06:07.000Z',
      rules: [],
      datastores: [{ name: 'crm', matched_entities: 1, entities: [entity] }],
    };
    const plain = renderAccessReport(accessPackage, 'Example Ltd');
    assert.match(plain, /gathered March 4, 2026 at 5:06 AM UTC\./);
    assert.ok(!plain.includes('2026-03-04T05:06:07'), 'no ISO timestamp');
    assert.ok(!/files/.test(plain.replace(/data\.json/g, '')), 'no sentence about files when there are none');
    assert.match(plain, /<h3>users <small>/, 'the name when there is no label');

    const labelled = renderAccessReport(
      {
        ...accessPackage,
        datastores: [
          {
            name: 'crm',
            matched_entities: 1,
            entities: [
              {
                ...entity,
                files: [{ name: 'avatar', fileName: 'me.png', contentType: 'image/png', size: 3 }],
              },
            ],
          },
        ],
      },
      'Example Ltd',
      { labels: new Map([['crm', { users: 'Your <account>' }]]), language: 'de' },
    );
    assert.match(labelled, /<html lang="de">/);
    assert.match(labelled, /zusammengestellt am 4\. März 2026 um 05:06 UTC/);
    assert.match(labelled, /<h1>Ihre personenbezogenen Daten bei Example Ltd<\/h1>/);
    assert.match(labelled, /<h3>Your &lt;account&gt; <small>/);
    assert.match(labelled, /Ihre Dateien liegen im Ordner <code>files<\/code>/);
    assert.match(labelled, /<dt>Wozu wir sie verwenden<\/dt><dd><em>nicht angegeben<\/em><\/dd>/);
    assert.match(
      labelled,
      /<a href="files\/crm\/00000000-0000-4000-8000-000000000002\/avatar-me\.png">me\.png<\/a> \(3 Bytes, image\/png\)/,
    );
    assert.match(readableDate('not a date'), /^not a date$/);
  });

  it('labels attributes by <entity>.<attribute>, and writes ISO dates among the values in words', () => {
    const html = renderAccessReport(
      {
        privacy_request_id: 'pri_3',
        policy_key: 'default_access_policy',
        generated_at: '2026-03-04T05:06:07.000Z',
        rules: [],
        datastores: [
          {
            name: 'crm',
            matched_entities: 1,
            entities: [
              {
                id: '00000000-0000-4000-8000-000000000003',
                name: 'users',
                references: [],
                attributes: [
                  { name: 'joined', value: '2025-03-04' },
                  { name: 'last_seen', value: '2026-01-02T03:04:00Z' },
                  { name: 'code', value: '2025-13-45x' },
                ],
                files: [],
                createdAt: '2026-01-01T00:00:00.000Z',
              },
            ],
          },
        ],
      },
      'Example Ltd',
      { labels: new Map([['crm', { users: 'Your account', 'users.joined': 'Member since' }]]) },
    );
    assert.match(
      html,
      /<th scope="row">Member since<\/th><td><time datetime="2025-03-04">March 4, 2025<\/time><\/td>/,
    );
    assert.match(
      html,
      /<th scope="row">last_seen<\/th><td><time datetime="2026-01-02T03:04:00Z">January 2, 2026 at 3:04 AM UTC<\/time>/,
    );
    assert.match(html, /<th scope="row">code<\/th><td>2025-13-45x<\/td>/);
  });

  it('names file entries without path separators', () => {
    const name = fileEntryName('crm', 'id', 'avatar', '../../etc/passwd');
    assert.equal(name, 'files/crm/id/avatar-.._.._etc_passwd');
    assert.equal(name.split('/').length, 4);
  });

  it("writes its moments in the request's local zone, never UTC, and calendar dates as they are", () => {
    const html = renderAccessReport(
      {
        privacy_request_id: 'pri_4',
        policy_key: 'default_access_policy',
        generated_at: '2026-03-04T23:30:00.000Z',
        rules: [],
        datastores: [
          {
            name: 'crm',
            matched_entities: 1,
            entities: [
              {
                id: '00000000-0000-4000-8000-000000000004',
                name: 'users',
                references: [],
                attributes: [
                  { name: 'joined', value: '2025-03-04' },
                  { name: 'last_seen', value: '2026-01-02T23:04:00Z' },
                ],
                files: [],
                createdAt: '2026-01-01T00:00:00.000Z',
              },
            ],
          },
        ],
      },
      'Example Ltd',
      { timeZone: reportTimeZone({ location: 'FR', jurisdiction: 'EU' }, 'UTC') },
    );
    // 23:04 UTC is the next day in Paris: the person reads their own day and hour, with the zone named.
    assert.match(html, /<time datetime="2026-01-02T23:04:00Z">January 3, 2026 at 12:04 AM GMT\+1<\/time>/);
    assert.match(html, /March 5, 2026 at 12:30 AM GMT\+1/);
    assert.doesNotMatch(html, /UTC/);
    assert.match(html, /<time datetime="2025-03-04">March 4, 2025<\/time>/);
  });

  it("takes the zone of the person's place under the request's law, else the installation's LETHE_TIME_ZONE", () => {
    assert.equal(reportTimeZone({ location: 'US-CA', jurisdiction: 'US-CA' }, 'UTC'), 'America/Los_Angeles');
    assert.equal(reportTimeZone({ location: 'DE', jurisdiction: 'EU' }, 'UTC'), 'Europe/Berlin');
    assert.equal(reportTimeZone({ location: 'US-OR', jurisdiction: 'US-OR' }, 'UTC'), 'America/Boise');
    assert.equal(reportTimeZone({ location: null, jurisdiction: null }, 'Europe/Madrid'), 'Europe/Madrid');
    // No location: the EU's clock counts in Reunion's zone (the most conservative), which is no one's local
    // time; the report takes the installation's.
    assert.equal(reportTimeZone({ location: null, jurisdiction: 'EU' }, 'Europe/Madrid'), 'Europe/Madrid');
    assert.equal(reportTimeZone({ location: 'JP', jurisdiction: null }, 'Europe/Madrid'), 'Europe/Madrid');
    assert.equal(reportTimeZone(undefined, 'Europe/Madrid'), 'Europe/Madrid');
  });

  it('writes data.csv date-times as the same moment in local time with its offset, other values as stored', () => {
    const csv = renderDataCsv(
      {
        privacy_request_id: 'pri_5',
        policy_key: 'default_access_policy',
        generated_at: '2026-03-04T23:30:00.000Z',
        rules: [],
        datastores: [
          {
            name: 'crm',
            matched_entities: 1,
            entities: [
              {
                id: 'e1',
                name: 'users',
                references: [],
                attributes: [
                  { name: 'joined', value: '2025-03-04' },
                  { name: 'last_seen', value: '2026-01-02T23:04:00Z' },
                  { name: 'note', value: '2026-01-02T23:04:00Z is when' },
                ],
                files: [],
                createdAt: '2026-01-01T00:00:00.000Z',
              },
            ],
          },
        ],
      },
      'en',
      'Europe/Paris',
    );
    assert.match(csv, /"last_seen","2026-01-03T00:04:00\+01:00"/);
    assert.match(csv, /"joined","2025-03-04"/);
    assert.match(csv, /"note","2026-01-02T23:04:00Z is when"/);
    assert.equal(
      localIsoDateTime('2026-07-02T23:04:00.5Z', 'America/Los_Angeles'),
      '2026-07-02T16:04:00.500-07:00',
    );
    assert.equal(
      Date.parse(localIsoDateTime('2026-01-02T23:04:00Z', 'Asia/Kolkata')),
      Date.parse('2026-01-02T23:04:00Z'),
      'the same moment',
    );
  });
});
