// What a rule's targets select and what each masking strategy turns a value into. Pure functions over
// one value or one name: nothing here reads the store, and nothing here may log or return the values it
// is handed (they are personal data).
import { createHmac, randomInt } from 'node:crypto';
import type { Keyring } from '../crypto/keyring.ts';

/** A rule's targets: `*`, `<table>.*` or `<table>.<attribute>` (checked when the rule was stored). */
export interface TargetSelection {
  /** The whole table (every attribute and file of its entities) is selected. */
  selectsTable(table: string): boolean;
  /** At least one attribute of the table is selected (the table's entities are concerned). */
  concernsTable(table: string): boolean;
  selectsAttribute(table: string, attribute: string): boolean;
}

export function parseTargets(targets: readonly string[]): TargetSelection {
  const everything = targets.includes('*');
  const wholeTables = new Set<string>();
  const attributes = new Map<string, Set<string>>();
  for (const target of targets) {
    const dot = target.indexOf('.');
    if (dot < 0) continue;
    const table = target.slice(0, dot);
    const attribute = target.slice(dot + 1);
    if (attribute === '*') wholeTables.add(table);
    else attributes.set(table, (attributes.get(table) ?? new Set()).add(attribute));
  }
  const selectsTable = (table: string) => everything || wholeTables.has(table);
  return {
    selectsTable,
    concernsTable: (table) => selectsTable(table) || attributes.has(table),
    selectsAttribute: (table, attribute) =>
      selectsTable(table) || (attributes.get(table)?.has(attribute) ?? false),
  };
}

/** The union of several rules' targets, as one selection. */
export function unionOfTargets(selections: readonly TargetSelection[]): TargetSelection {
  return {
    selectsTable: (table) => selections.some((selection) => selection.selectsTable(table)),
    concernsTable: (table) => selections.some((selection) => selection.concernsTable(table)),
    selectsAttribute: (table, attribute) =>
      selections.some((selection) => selection.selectsAttribute(table, attribute)),
  };
}

export const VALUE_MASKING_STRATEGIES = ['nullify', 'hash', 'random_string', 'string_rewrite'] as const;
export type ValueMaskingStrategy = (typeof VALUE_MASKING_STRATEGIES)[number];

/** The strategies that rewrite values in place (the others, `delete` and `forget`, remove data). */
export function isValueMaskingStrategy(name: string): name is ValueMaskingStrategy {
  return (VALUE_MASKING_STRATEGIES as readonly string[]).includes(name);
}

export const DEFAULT_RANDOM_STRING_LENGTH = 30;
const RANDOM_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * The key of the `hash` strategy: the Keyring's `masking-hash` key, or, when the rule configures a salt,
 * a key derived from both, so that two rules with different salts give unrelated hashes of one value.
 */
function hashKey(keyring: Keyring, salt: string | undefined): Buffer {
  const base = keyring.key('masking-hash');
  return salt === undefined ? base : createHmac('sha256', base).update(`salt:${salt}`).digest();
}

function randomString(length: number): string {
  let text = '';
  for (let index = 0; index < length; index += 1) text += RANDOM_ALPHABET[randomInt(RANDOM_ALPHABET.length)];
  return text;
}

/**
 * Returns the function that masks one value under a value-masking strategy. A null value stays null
 * under every strategy: there is nothing personal left in it to mask.
 */
export function valueMasker(
  keyring: Keyring,
  strategy: ValueMaskingStrategy,
  configuration: Record<string, unknown>,
): (value: string | null) => string | null {
  switch (strategy) {
    case 'nullify':
      return () => null;
    case 'hash': {
      const key = hashKey(keyring, typeof configuration.salt === 'string' ? configuration.salt : undefined);
      return (value) => (value === null ? null : createHmac('sha256', key).update(value).digest('hex'));
    }
    case 'random_string': {
      const length =
        typeof configuration.length === 'number' ? configuration.length : DEFAULT_RANDOM_STRING_LENGTH;
      return (value) => (value === null ? null : randomString(length));
    }
    case 'string_rewrite': {
      const rewrite = String(configuration.rewrite_value ?? '');
      return (value) => (value === null ? null : rewrite);
    }
  }
}
