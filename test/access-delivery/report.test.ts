// report.html of an access package: grouped by datastore and entity, every value escaped, no script, and a
// CSP that forbids any; file entries named safely.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileEntryName, renderAccessReport } from '../../src/access-delivery/report.ts';

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

  it('names file entries without path separators', () => {
    const name = fileEntryName('crm', 'id', 'avatar', '../../etc/passwd');
    assert.equal(name, 'files/crm/id/avatar-.._.._etc_passwd');
    assert.equal(name.split('/').length, 4);
  });
});
