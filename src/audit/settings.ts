/**
 * A queue's setting as the broker resolves it: its `x-` argument, the key of its policy in effect,
 * or both resolved per key and queue type (queue-types.ts RESOLVE) — with where it came from, which
 * decides the fix (an argument is changed by redeclaring the queue, a policy by `set_policy`).
 */
import { text } from '../core/text.js';
import { resolveRule } from './queue-types.js';
import type { AuditQueue } from './snapshot.js';
import type { Version } from './target.js';

export interface Setting {
  value: unknown;
  /** "argument x-overflow", "policy 'dlx'", "operator policy 'limits'", or how both resolved */
  from: string;
}

const set = (v: unknown) => v !== undefined && v !== null;
const num = (v: unknown) => (typeof v === 'number' ? v : Number.NaN);

/** where the policy's key came from: the policy, the operator policy, or both (merged) */
function policySource(
  q: Pick<AuditQueue, 'policyName' | 'operatorPolicyName' | 'policyKeys' | 'operatorKeys'>,
  key: string,
): string {
  const [pol, op] = [q.policyName, q.operatorPolicyName];
  if (q.operatorKeys && q.policyKeys) {
    const [inPol, inOp] = [q.policyKeys.includes(key), q.operatorKeys.includes(key)];
    if (inPol && inOp) return `policy '${pol}' and operator policy '${op}' (merged)`;
    if (inOp) return `operator policy '${op}'`;
  }
  if (pol && op && !q.operatorKeys) return `policy '${pol}' or operator policy '${op}'`;
  if (pol) return `policy '${pol}'`;
  return op ? `operator policy '${op}'` : 'the policy in effect';
}

export function setting(q: AuditQueue, key: string, v: Version): Setting | null {
  const arg = q.arguments[`x-${key}`];
  const pol = q.policy?.[key];
  if (!set(arg) && !set(pol)) return null;
  const argFrom = `argument x-${key}`;
  if (!set(pol)) return { value: arg, from: argFrom };
  const polFrom = policySource(q, key);
  if (!set(arg)) return { value: pol, from: polFrom };
  switch (resolveRule(q.type, key, v)) {
    case 'policy':
      return { value: pol, from: `${polFrom} (it wins over ${argFrom} = ${text(arg)})` };
    case 'min':
    case 'delivery-limit': {
      const [p, a] = [num(pol), num(arg)];
      if (Number.isNaN(p) || Number.isNaN(a)) return { value: arg, from: argFrom };
      const rule = resolveRule(q.type, key, v);
      const value = rule === 'delivery-limit' && (p < 0 || a < 0) ? Math.max(p, a) : Math.min(p, a);
      const both = `${argFrom} = ${a} and ${polFrom} = ${p}`;
      const how =
        rule === 'delivery-limit' && (p < 0 || a < 0)
          ? `the larger of ${both}, one being negative`
          : `the lower of ${both}`;
      return { value, from: `${value === a ? argFrom : polFrom} (${how})` };
    }
    default:
      // the argument wins (the dead-letter keys of both types, classic overflow), or the type reads no policy for it
      return { value: arg, from: `${argFrom} (it wins over ${polFrom} = ${text(pol)})` };
  }
}

/** the value alone, or undefined */
export const valueOf = (q: AuditQueue, key: string, v: Version): unknown => setting(q, key, v)?.value;
