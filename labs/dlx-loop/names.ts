/**
 * The dlx-loop lab's names and topology.
 *
 * broken:  dlxloop.business ──reject──► dlxloop.dead (direct) ──rk.dead──► dlxloop.business   (no delay)
 * fixed:   dlxloop.fixed.business ──reject──► dlxloop.fixed.dead ──rk.retry──► dlxloop.fixed.retry (TTL)
 *                 ▲                                        └──rk.archive──► dlxloop.fixed.archive
 *                 └──────────── TTL expired (default exchange) ◄──────────────┘
 */
import type { Names, Topology } from '../../src/kit/index.js';

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
  const name = names(n);
  return {
    exchanges: [
      { name: name.dead, type: 'direct' },
      { name: name.fixedDead, type: 'direct' },
    ],
    queues: [
      { name: name.business, args: { 'x-dead-letter-exchange': name.dead, 'x-dead-letter-routing-key': 'rk.dead' } },
      {
        name: name.fixedBusiness,
        args: { 'x-dead-letter-exchange': name.fixedDead, 'x-dead-letter-routing-key': 'rk.retry' },
      },
      {
        name: name.fixedRetry,
        args: {
          'x-message-ttl': RETRY_TTL_MS,
          'x-dead-letter-exchange': '',
          'x-dead-letter-routing-key': name.fixedBusiness,
        },
      },
      { name: name.fixedArchive },
    ],
    bindings: [
      { queue: name.business, exchange: name.dead, key: 'rk.dead' }, // the mistake: the DLX routes back home
      { queue: name.fixedRetry, exchange: name.fixedDead, key: 'rk.retry' },
      { queue: name.fixedArchive, exchange: name.fixedDead, key: 'rk.archive' },
    ],
  };
}
