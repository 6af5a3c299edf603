/**
 * A value read from outside the program (an AMQP header, a management-API field, an error's code)
 * as text: null and undefined as `fallback`, a plain object as its JSON (where String() would say
 * "[object Object]"), anything else as String() writes it (an array as 1,2, a Buffer as its UTF-8).
 */
export function text(v: unknown, fallback = ''): string {
  if (v === undefined || v === null) return fallback;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (typeof v === 'symbol') return v.toString();
  const own = (v as { toString?: unknown }).toString;
  if (typeof own === 'function' && own !== Object.prototype.toString) return (own as (this: object) => string).call(v);
  return JSON.stringify(v);
}
