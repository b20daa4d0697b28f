// The masking strategies of erasure rules, registered once: each strategy's name, what it does, the
// configuration it accepts and, for those that rewrite values in place, the function that masks one value.
// The policy schema and its checks, the rule run and the console's menu (GET /v1/masking/strategy) are all
// derived from this registry, so a strategy is added or changed here and nowhere else. Nothing here reads
// the store, and nothing may log or return the values it is handed (they are personal data).
import { createHmac, randomInt } from 'node:crypto';
import Type from 'typebox';
import type { Keyring } from '../crypto/keyring.ts';

/** What a strategy does to the data its rule targets. */
export type StrategyEffect = 'rewrite' | 'delete' | 'forget';

type Masker = (value: string | null) => string | null;

interface StrategyDefinition<Configuration extends Type.TSchema> {
  description: string;
  effect: StrategyEffect;
  configuration: Configuration;
  /** The function that masks one value (rewrite strategies only); a null value stays null. */
  masker?: (keyring: Keyring, configuration: Type.Static<Configuration>) => Masker;
}

const define = <Configuration extends Type.TSchema>(definition: StrategyDefinition<Configuration>) =>
  definition;

const NoConfiguration = Type.Object({}, { additionalProperties: false });
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

export const MASKING_STRATEGIES = {
  nullify: define({
    description: 'Sets each targeted attribute to null; entities and files stay.',
    effect: 'rewrite',
    configuration: NoConfiguration,
    masker: () => () => null,
  }),
  delete: define({
    description: 'Deletes the targeted attributes and files; the entities stay.',
    effect: 'delete',
    configuration: NoConfiguration,
  }),
  forget: define({
    description:
      'Forgets each matched entity whose table is targeted, with its attributes, files and descendants.',
    effect: 'forget',
    configuration: NoConfiguration,
  }),
  hash: define({
    description: 'Replaces each targeted value by its keyed HMAC-SHA-256 (hex); equal values stay equal.',
    effect: 'rewrite',
    configuration: Type.Object(
      {
        salt: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 500,
            description: 'hash under this salt instead of the service key',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    masker: (keyring, configuration) => {
      const key = hashKey(keyring, configuration.salt);
      return (value) => (value === null ? null : createHmac('sha256', key).update(value).digest('hex'));
    },
  }),
  random_string: define({
    description: 'Replaces each targeted value by random letters and digits.',
    effect: 'rewrite',
    configuration: Type.Object(
      {
        length: Type.Optional(
          Type.Integer({ minimum: 1, maximum: 256, description: 'characters, 1 to 256 (default 30)' }),
        ),
      },
      { additionalProperties: false },
    ),
    masker: (_keyring, configuration) => {
      const length = configuration.length ?? DEFAULT_RANDOM_STRING_LENGTH;
      return (value) => (value === null ? null : randomString(length));
    },
  }),
  string_rewrite: define({
    description: 'Replaces each targeted value by the configured text.',
    effect: 'rewrite',
    configuration: Type.Object(
      { rewrite_value: Type.String({ maxLength: 10000, description: 'the text every value becomes' }) },
      { additionalProperties: false },
    ),
    masker: (_keyring, configuration) => {
      const rewrite = configuration.rewrite_value;
      return (value) => (value === null ? null : rewrite);
    },
  }),
};

export type MaskingStrategyName = keyof typeof MASKING_STRATEGIES;

/** The strategies' names, in the registry's order (the order the console offers them). */
export const MASKING_STRATEGY_NAMES = Object.keys(MASKING_STRATEGIES) as MaskingStrategyName[];

export function isMaskingStrategyName(name: string): name is MaskingStrategyName {
  return Object.hasOwn(MASKING_STRATEGIES, name);
}

export function strategyEffect(name: MaskingStrategyName): StrategyEffect {
  return MASKING_STRATEGIES[name].effect;
}

/**
 * The function that masks one value under a rewrite strategy, with a configuration the policy's checks
 * accepted (a configuration the strategy's schema would refuse is a programming error here).
 */
export function valueMasker(
  keyring: Keyring,
  name: MaskingStrategyName,
  configuration: Record<string, unknown>,
): Masker {
  const definition: StrategyDefinition<Type.TSchema> = MASKING_STRATEGIES[name];
  if (!definition.masker) throw new Error(`The strategy ${name} does not rewrite values.`);
  return definition.masker(keyring, configuration);
}

/**
 * The registry as GET /v1/masking/strategy shows it, in Fides' shape (name, description, configurations:
 * each field's key, whether it is optional, what it means) with each strategy's effect.
 */
export function describeMaskingStrategies() {
  return MASKING_STRATEGY_NAMES.map((name) => {
    const { description, effect, configuration } = MASKING_STRATEGIES[name];
    const shape = configuration as unknown as {
      properties: Record<string, { type?: string; description?: string }>;
      required?: string[];
    };
    return {
      name,
      description,
      effect,
      configurations: Object.entries(shape.properties).map(([key, property]) => ({
        key,
        optional: !(shape.required ?? []).includes(key),
        description: property.description ?? property.type ?? '',
      })),
    };
  });
}
