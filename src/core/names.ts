/**
 * --namespace NS prefixes every queue, exchange, policy and table a lab touches.
 * Without a namespace the names are the labs' own (me12.retry.work, retry_effect, …).
 * `namesFor(config)` is the one place a run's names are built; each lab's names.ts turns them
 * into the lab's own resource names.
 */
import type { Config } from './config.js';

export interface Names {
  readonly namespace: string;
  /** queue: 'me12.retry.work' → 'ns.me12.retry.work' */
  q: (name: string) => string;
  /** exchange: same rule as a queue */
  x: (name: string) => string;
  /** table: 'retry_effect' → 'ns_retry_effect' */
  t: (name: string) => string;
  /** policy: 'me12-hold' → 'ns-me12-hold' */
  p: (name: string) => string;
  /** anchored regex for exactly this queue name, for a policy's pattern: ^me12[.]retry[.]hold$ */
  exact: (queue: string) => string;
}

/** the names of a namespace ('' for none) */
export function namespaced(namespace: string): Names {
  const pre = (sep: string) => (name: string) => (namespace ? `${namespace}${sep}${name}` : name);
  return {
    namespace,
    q: pre('.'),
    x: pre('.'),
    t: pre('_'),
    p: pre('-'),
    exact: (queue) => '^' + queue.replace(/[.]/g, '[.]').replace(/[-\\^$*+?()|{}]/g, '\\$&') + '$',
  };
}

/** the run's names from its config (--namespace / MQLAB_NAMESPACE) */
export const namesFor = (config: Pick<Config, 'namespace'>): Names => namespaced(config.namespace);
