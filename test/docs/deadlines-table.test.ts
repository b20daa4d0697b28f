// docs/deadlines.md's table of jurisdictions is the data file's (src/deadlines/jurisdictions.ts), written by
// scripts/deadlines-table.ts: a rule changed without `npm run docs:deadlines` fails here, so the docs never
// promise a deadline the code does not keep.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { DOC, jurisdictionTable, withGeneratedTable } from '../../scripts/deadlines-table.ts';
import { JURISDICTIONS } from '../../src/deadlines/jurisdictions.ts';

describe('docs/deadlines.md', () => {
  it('holds the table generated from the jurisdictions, one row per rule with its citation', () => {
    const document = readFileSync(DOC, 'utf8');
    assert.equal(document, withGeneratedTable(document), 'run npm run docs:deadlines');
    const table = jurisdictionTable();
    for (const rule of JURISDICTIONS) {
      assert.ok(table.includes(`\`${rule.code}\``), rule.code);
      assert.ok(table.includes(rule.citation), rule.citation);
    }
  });

  it('fails when a rule and the table differ', () => {
    const document = readFileSync(DOC, 'utf8');
    const edited = document.replace('Va. Code §59.1-577', 'Va. Code §59.1-578');
    assert.notEqual(edited, document);
    assert.notEqual(edited, withGeneratedTable(edited));
  });
});
