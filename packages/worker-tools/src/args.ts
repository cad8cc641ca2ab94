import { UsageError } from './errors.js';

/**
 * A small argparse look-alike (commander and friends cost start-up time in every helper call):
 * `--name value`, `--name=value`, `-n value`, `-nvalue` (so `-iname=value` works as in dx), repeated
 * options collected into lists, `--` to end the options, and `-`/negative numbers as positionals.
 */

export interface OptionSpec {
  /** `--long` and `-s` spellings. */
  names: string[];
  key: string;
  /** flag: no value; value: the last one wins; list: every value; rest: all following non-option words. */
  kind: 'flag' | 'value' | 'list' | 'rest';
  /** For flags that set a key to false (`--sequential` against `--parallel`). */
  negates?: boolean;
}

export class ParsedArgs {
  constructor(
    private readonly values: Map<string, string | boolean | string[]>,
    readonly positionals: string[],
  ) {}

  flag(key: string): boolean {
    return this.values.get(key) === true;
  }

  has(key: string): boolean {
    return this.values.has(key);
  }

  value(key: string): string | undefined {
    const value = this.values.get(key);
    return typeof value === 'string' ? value : undefined;
  }

  list(key: string): string[] {
    const value = this.values.get(key);
    return Array.isArray(value) ? value : [];
  }
}

const looksLikePositional = (word: string) => word === '-' || /^-\d/.test(word) || !word.startsWith('-');

export function parseArgs(argv: string[], specs: OptionSpec[]): ParsedArgs {
  const byName = new Map<string, OptionSpec>();
  for (const spec of specs) for (const name of spec.names) byName.set(name, spec);
  const values = new Map<string, string | boolean | string[]>();
  const positionals: string[] = [];
  const store = (spec: OptionSpec, value: string) => {
    if (spec.kind === 'value') values.set(spec.key, value);
    else values.set(spec.key, [...((values.get(spec.key) as string[] | undefined) ?? []), value]);
  };
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    if (word === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (looksLikePositional(word)) {
      positionals.push(word);
      continue;
    }
    let spec: OptionSpec | undefined;
    let attached: string | undefined;
    if (word.startsWith('--')) {
      const cut = word.indexOf('=');
      spec = byName.get(cut > 0 ? word.slice(0, cut) : word);
      if (cut > 0) attached = word.slice(cut + 1);
    } else {
      spec = byName.get(word.slice(0, 2));
      if (word.length > 2) attached = word.slice(2).replace(/^=/, '');
    }
    if (!spec) throw new UsageError(`unrecognized argument: ${word}`);
    if (spec.kind === 'flag') {
      if (attached !== undefined) throw new UsageError(`${word}: this option takes no value`);
      values.set(spec.key, !spec.negates);
      continue;
    }
    if (spec.kind === 'rest') {
      const words: string[] = attached !== undefined ? [attached] : [];
      while (i + 1 < argv.length && looksLikePositional(argv[i + 1] as string) && argv[i + 1] !== '-') words.push(argv[++i] as string);
      values.set(spec.key, [...((values.get(spec.key) as string[] | undefined) ?? []), ...words]);
      continue;
    }
    if (attached === undefined) {
      if (i + 1 >= argv.length) throw new UsageError(`${word} expects a value`);
      attached = argv[++i] as string;
    }
    store(spec, attached);
  }
  return new ParsedArgs(values, positionals);
}

/** Fails unless exactly `min`..`max` positionals were given. */
export function expectPositionals(args: ParsedArgs, min: number, max: number, usage: string): string[] {
  if (args.positionals.length < min || args.positionals.length > max) throw new UsageError(`usage: ${usage}`);
  return args.positionals;
}
