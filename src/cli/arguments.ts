// The one way a `lethe` command reads its arguments: node:util parseArgs in strict mode, and every
// problem (an unknown option, a missing value, a bad argument) a ConfigError that carries the command's
// usage text, which the entry point prints with exit status 2.
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { ConfigError } from '../config.ts';

/** An error for a bad command line: the problem, then the command's usage. */
export function usageError(usage: string, problem: string): ConfigError {
  return new ConfigError(`${problem}\n${usage}`);
}

/** Parses `argv` against `options` (positionals allowed); a parse failure is a usageError. */
export function parseCommandArguments<Options extends NonNullable<ParseArgsConfig['options']>>(
  argv: string[],
  options: Options,
  usage: string,
) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, strict: true, options });
  } catch (error) {
    throw usageError(usage, (error as Error).message);
  }
}
