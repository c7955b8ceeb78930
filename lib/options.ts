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

/** The options argument itself: an object, or absent (`{}`); `createStream('final')` must not pass for events mode. */
export function optionsObject<T extends object>(value: T | undefined): T {
  if (value === undefined) return {} as T;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new OptionError('options', value, 'an object', 'the options argument');
  return value;
}
