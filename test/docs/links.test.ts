// Every relative link of README.md and docs/*.md, and every repository path they name in code spans
// (`src/runtime/app.ts`, `ops/prometheus/`), exists in the working tree: a renamed file or a moved section
// fails here instead of leaving a reader at a dead link. Anchors (#section) are checked against the
// target's headings.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DOCUMENTS = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
/** Top-level folders and files of the repository a code span may name. */
const TOP = readdirSync(ROOT).filter((name) => name !== 'node_modules' && !name.startsWith('.lethe'));

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

function anchors(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchor(match[1] as string)));
}

/** The links and code-span paths of one document, without its fenced code blocks. */
function references(text: string): { links: string[]; paths: string[] } {
  const prose = text.replace(/```[\s\S]*?```/g, '');
  const links = [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] as string);
  const paths = [...prose.matchAll(/`([^`\s]+)`/g)]
    .map((match) => match[1] as string)
    .filter((span) => span.includes('/') && TOP.includes(span.split('/')[0] as string))
    .filter((span) => !/[*<>{}$…]/.test(span));
  return { links, paths };
}

describe('the documentation', () => {
  for (const document of DOCUMENTS)
    it(`${document}: every relative link and named path exists`, () => {
      const { links, paths } = references(readFileSync(path.join(ROOT, document), 'utf8'));
      const missing: string[] = [];
      for (const link of links) {
        if (/^[a-z]+:/i.test(link)) continue;
        const [target = '', fragment] = link.split('#');
        const file =
          target === '' ? path.join(ROOT, document) : path.resolve(ROOT, path.dirname(document), target);
        if (!existsSync(file)) missing.push(`link ${link}`);
        else if (fragment && file.endsWith('.md') && !anchors(file).has(fragment))
          missing.push(`anchor ${link}`);
      }
      for (const named of paths) {
        const file = path.join(ROOT, named);
        if (!existsSync(file)) missing.push(`path ${named}`);
      }
      assert.deepEqual(missing, [], `${document} names what does not exist`);
      assert.ok(links.length + paths.length > 0 || document !== 'README.md');
    });
});
