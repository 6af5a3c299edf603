/**
 * --namespace NS prefixes every queue, exchange, policy and table a lab touches.
 * Without a namespace the names are the seeds' own (me12.retry.work, retry_effect, …).
 */
export interface Names {
  readonly namespace: string;
  /** queue or exchange: 'me12.retry.work' → 'ns.me12.retry.work' */
  q(name: string): string;
  /** table: 'retry_effect' → 'ns_retry_effect' */
  t(name: string): string;
  /** policy: 'me12-hold' → 'ns-me12-hold' */
  p(name: string): string;
  /** anchored regex for exactly this queue name, as the seeds write it: ^me12[.]retry[.]hold$ */
  exact(queue: string): string;
}

export function names(namespace: string): Names {
  const pre = (sep: string) => (name: string) => (namespace ? `${namespace}${sep}${name}` : name);
  return {
    namespace,
    q: pre('.'),
    t: pre('_'),
    p: pre('-'),
    exact: (queue) => '^' + queue.replace(/[.]/g, '[.]').replace(/[-\\^$*+?()|{}]/g, '\\$&') + '$',
  };
}
