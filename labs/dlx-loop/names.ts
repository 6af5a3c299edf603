/**
 * The dlx-loop lab's names and topology.
 *
 * broken:  dlxloop.business ──reject──► dlxloop.dead (direct) ──rk.dead──► dlxloop.business   (no delay)
 * fixed:   dlxloop.fixed.business ──reject──► dlxloop.fixed.dead ──rk.retry──► dlxloop.fixed.retry (TTL)
 *                 ▲                                        └──rk.archive──► dlxloop.fixed.archive
 *                 └──────────── TTL expired (default exchange) ◄──────────────┘
 */
import type { Names } from '../../src/names.js';
import type { Topology } from '../../src/broker/topology.js';

export const RETRY_TTL_MS = 200;

export const names = (n: Names) => ({
  business: n.q('dlxloop.business'),
  dead: n.x('dlxloop.dead'),
  fixedBusiness: n.q('dlxloop.fixed.business'),
  fixedDead: n.x('dlxloop.fixed.dead'),
  fixedRetry: n.q('dlxloop.fixed.retry'),
  fixedArchive: n.q('dlxloop.fixed.archive'),
});

export function topology(n: Names): Topology {
  const x = names(n);
  return {
    exchanges: [
      { name: x.dead, type: 'direct' },
      { name: x.fixedDead, type: 'direct' },
    ],
    queues: [
      { name: x.business, args: { 'x-dead-letter-exchange': x.dead, 'x-dead-letter-routing-key': 'rk.dead' } },
      {
        name: x.fixedBusiness,
        args: { 'x-dead-letter-exchange': x.fixedDead, 'x-dead-letter-routing-key': 'rk.retry' },
      },
      {
        name: x.fixedRetry,
        args: {
          'x-message-ttl': RETRY_TTL_MS,
          'x-dead-letter-exchange': '',
          'x-dead-letter-routing-key': x.fixedBusiness,
        },
      },
      { name: x.fixedArchive },
    ],
    bindings: [
      { queue: x.business, exchange: x.dead, key: 'rk.dead' }, // the mistake: the DLX routes back home
      { queue: x.fixedRetry, exchange: x.fixedDead, key: 'rk.retry' },
      { queue: x.fixedArchive, exchange: x.fixedDead, key: 'rk.archive' },
    ],
  };
}
