/**
 * Checks for the options every factory takes, so that a bad value throws an
 * OptionError from the factory itself (JavaScript callers and options read
 * from config files get no help from the types) instead of failing later, or
 * not at all, in the middle of a stream.
 */
import { OptionError } from './errors.js';

/** A boolean option: its value, `fallback` when absent. */
export function booleanOption(name: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new OptionError(name, value, 'a boolean');
  return value;
}

/** An option that is one of `choices`: its value, `fallback` when absent. */
export function choiceOption<T extends string>(name: string, value: unknown, choices: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!choices.includes(value as T)) throw new OptionError(name, value, oneOf(choices));
  return value as T;
}

/** `'a', 'b' or 'c'` */
function oneOf(choices: readonly string[]): string {
  const quoted = choices.map((c) => `'${c}'`);
  return quoted.length === 1 ? quoted[0]! : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)!}`;
}

/** A callback option: the function, or undefined when absent. */
export function functionOption<F extends (...args: never[]) => unknown>(name: string, value: F | undefined): F | undefined {
  if (value !== undefined && typeof value !== 'function') throw new OptionError(name, value, 'a function');
  return value;
}

/** An AbortSignal option: the signal, or undefined when absent. */
export function signalOption(value: unknown): AbortSignal | undefined {
  if (value === undefined) return undefined;
  if (!(value instanceof AbortSignal)) throw new OptionError('signal', typeof value === 'object' ? String(value) : value, 'an AbortSignal');
  return value;
}

/** The options argument itself: an object, or absent (`{}`); `createStream('final')` must not pass for events mode. */
export function optionsObject<T extends object>(value: T | undefined): T {
  if (value === undefined) return {} as T;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new OptionError('options', value, 'an object', 'the options argument');
  return value;
}

/**
 * The option names of T, checked both ways at compile time: naming a key T
 * lacks, or leaving one of T's keys out, is a type error, so the runtime list
 * that refuses unknown names cannot drift from the documented interface.
 */
export function optionKeys<T extends object>() {
  return <const K extends readonly (keyof T & string)[]>(
    keys: K & ([Exclude<keyof T & string, K[number]>] extends [never] ? unknown : { missing: Exclude<keyof T & string, K[number]> }),
  ): readonly string[] => keys;
}

/**
 * Refuses an option name that is not in `known` with an OptionError naming
 * the closest known one: a misspelt option (`outptu`) would otherwise be
 * ignored and its default used without a word.
 */
export function knownOptions(options: object, known: readonly string[], where: string): void {
  for (const name of Object.keys(options)) {
    if (known.includes(name)) continue;
    const near = closest(name, known);
    throw OptionError.unknown(name, where, near);
  }
}

/**
 * The options argument of a public factory: an object (or absent) whose
 * names are all in `known`. Returns it, `{}` when absent.
 */
export function checkOptions<T extends object>(options: T | undefined, known: readonly string[], where: string): T {
  const checked = optionsObject(options);
  knownOptions(checked, known, where);
  return checked;
}

/** The known name nearest to `name` (case-insensitive edit distance), when it is near enough to be a likely typo. */
function closest(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const k of known) {
    const d = editDistance(lower, k.toLowerCase());
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours each cost 1. */
function editDistance(a: string, b: string): number {
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      row.push(d);
    }
    prev2 = prev;
    prev = row;
  }
  return prev[b.length]!;
}

/** `type/subtype` and `;name=value` parameters (RFC 2045 tokens; a value may be quoted). */
const MIME_TYPE = /^audio\/[\w!#$&^.+-]+(?:\s*;\s*[\w!#$&^.+-]+=(?:"[^"]*"|[\w!#$&^.+-]+))*\s*$/i;

/**
 * `audioFormat`: an audio MIME type (`audio/pcm;rate=24000`, `audio/PCMU`),
 * or undefined when absent. Its `rate=` and `channels=` must be whole
 * numbers above 0 when given: a WAV header is built from them.
 */
export function audioFormatOption(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const expected = "an audio MIME type such as 'audio/pcm;rate=24000'";
  if (typeof value !== 'string' || !MIME_TYPE.test(value)) throw new OptionError('audioFormat', value, expected);
  for (const m of value.matchAll(/;\s*(rate|channels)\s*=\s*"?([^";]*)"?/gi)) {
    if (!/^\d{1,9}$/.test(m[2]!.trim()) || Number(m[2]) === 0) throw new OptionError('audioFormat', value, `${expected}, its ${m[1]!.toLowerCase()} a whole number above 0`);
  }
  return value.trim();
}
