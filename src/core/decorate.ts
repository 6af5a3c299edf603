/** An object with some members replaced, the rest its own: how a broken variant decorates a handle (src/lab/variant.ts). */

/** `target` with some members replaced; every other member is the target's own (its methods bound to it) */
export function decorate<T extends object>(target: T, overrides: Partial<T>): T {
  return new Proxy(target, {
    get(t, key) {
      if (Object.hasOwn(overrides, key)) return overrides[key as keyof T];
      const value: unknown = Reflect.get(t, key, t);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(t) : value;
    },
  });
}
