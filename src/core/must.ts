/**
 * A value the code cannot go on without (a row an aggregate always returns, an element an earlier
 * length check guarantees): the value, or an Error naming what was missing, never a default.
 */
export function must<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`missing ${what}`);
  return value;
}
