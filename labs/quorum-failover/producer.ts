/**
 * The stream: ids 1…n published with confirms through a ReconnectingPublisher, at most `window`
 * awaiting their confirm. Once `killAfter` are confirmed, the lab's pause, then `kill()` runs (the
 * lab SIGKILLs the leader's node). On the loss the producer reconnects to a surviving node and resends every id
 * the ledger holds no confirm for (`steps`: lab.ts).
 */
import {
  type LabContext,
  PublishLost,
  ReconnectingPublisher,
  maskUrl,
  LabError,
  settledOrIdle,
} from '../../src/kit/index.js';
import type { QuorumFailoverOptions } from './options.js';
import type { FailoverSteps } from './steps.js';
import type { History } from '../../src/kit/cluster/index.js';

interface StreamResult {
  confirmed: Set<number>;
  unconfirmedAtKill: Set<number>;
  resent: number;
  /** publishes the broker nacked and the producer sent again (3.10 nacks while the queue has no leader) */
  renacked: number;
  /** fresh channels opened after nacks (RabbitMQ 3.10: a nacked channel stays nacked; capabilities.ts) */
  channelsRenewed: number;
  /** the ids the broker nacked at least once: unconfirmed as well, a copy of them may be in the queue */
  nackedIds: Set<number>;
  /** when kill() began (Date.now) */
  killAt: number | null;
  /** first confirm over a connection opened after the loss (Date.now) */
  firstConfirmAfter: number | null;
  reconnectedTo: string | null;
}

/**
 * `beforeKill` (the lab's pause) holds the stream: no new publish until it returns, so a --step pause
 * shows the stream as the kill will find it, not finished (2000 confirmed during a pause, nothing left
 * to fail over); then `kill` runs beside the stream and resolves with the time (Date.now) the signal
 * was sent. Every publish and its outcome go into `history`
 */
export async function stream(
  ctx: LabContext<QuorumFailoverOptions>,
  steps: FailoverSteps,
  urls: string[],
  queue: string,
  beforeKill: () => Promise<void>,
  kill: (confirmed: number) => Promise<number>,
  history: History,
  nodeOf: (url: string | null) => string,
): Promise<StreamResult> {
  const { messages, killAfter, window, failoverBoundMs } = ctx.options;
  const pub = await ReconnectingPublisher.open({
    urls,
    maxWaitMs: failoverBoundMs + 30_000,
    onAttempt: (u, cause) => ctx.progress(`producer: ${maskUrl(u)} refused: ${cause}`),
  });
  const r: StreamResult = {
    confirmed: new Set(),
    unconfirmedAtKill: new Set(),
    resent: 0,
    renacked: 0,
    channelsRenewed: 0,
    nackedIds: new Set(),
    killAt: null,
    firstConfirmAfter: null,
    reconnectedTo: null,
  };
  const inflight = new Set<Promise<void>>();
  let killing: Promise<void> | null = null; // runs beside the stream: publishes are in flight when the node dies
  // every publish is answered (confirm, nack, or lost with its connection): one that stays unanswered while
  // nothing else moves for the reconnect budget is the broker's silence, reported, not waited out forever
  const idleBoundMs = failoverBoundMs + 30_000;
  let lastAnswer = ctx.now();
  const answered = async (what: Promise<unknown>) => {
    if (await settledOrIdle(what, () => lastAnswer, idleBoundMs, ctx)) {
      throw new LabError(
        `${inflight.size} publish(es) to ${queue} were neither confirmed, nacked nor lost with their connection for ${idleBoundMs / 1000} s (--failover-bound + 30 s)`,
      );
    }
  };
  const publish = (id: number) => {
    const connection = pub.connections;
    const node = nodeOf(pub.url);
    history.publish(id, node);
    const count = () => {
      r.confirmed.add(id);
      history.confirm(id, node);
    };
    const p = steps.countConfirm(pub.publish('', queue, String(id), { messageId: String(id) }), count).then(
      () => {
        if (connection > 1 && r.firstConfirmAfter === null) r.firstConfirmAfter = Date.now();
      },
      (err) => {
        if (err instanceof PublishLost) return history.lost(id, node); // resent after the reconnect
        // a nack: the queue had no leader yet (3.10 nacks then, 4.3 waits); publish it again shortly
        if (!(err instanceof LabError) || Date.now() - (r.killAt ?? Date.now()) > failoverBoundMs + 30_000) throw err;
        history.nack(id, node);
        nacked.push(id);
        r.nackedIds.add(id);
      },
    );
    inflight.add(p);
    void p.finally(() => (inflight.delete(p), (lastAnswer = ctx.now()))).catch(() => {});
  };
  const nacked: number[] = [];
  let next = 1;
  try {
    for (;;) {
      if (nacked.length && pub.url) {
        await answered(Promise.all(inflight)); // every publish on this channel answered: none is lost with it
        await ctx.sleep(200);
        if (!pub.url) continue; // the connection died meanwhile: recover() resends the nacked ids too
        // 3.10: this channel nacks every later publish to the queue (capabilities.ts): a fresh one
        if (ctx.caps.quorumPublishNackSticksToChannel && (await pub.renewChannel())) {
          r.channelsRenewed++;
          ctx.progress(
            `producer: ${nacked.length} publishes nacked; RabbitMQ ${ctx.caps.version} nacks every later one on that channel (its first publish found the leader's node down): a fresh channel, sent again`,
          );
        }
        r.renacked += nacked.length;
        for (const id of nacked.splice(0)) publish(id);
      }
      if (!pub.url) {
        await answered(Promise.all(inflight));
        nacked.length = 0; // recover() resends every id the ledger holds no confirm for, nacked ones too
        await recover(ctx, steps, pub, r, publish);
        continue;
      }
      if (next > messages) {
        await answered(Promise.all(inflight));
        if (pub.url && nacked.length === 0) break;
        continue;
      }
      while (inflight.size >= window && pub.url) await answered(Promise.race(inflight));
      if (!pub.url) continue;
      publish(next++);
      if (!killing && r.confirmed.size >= killAfter) {
        await beforeKill();
        killing = kill(r.confirmed.size).then((at) => void (r.killAt = at));
      }
    }
    await killing;
  } finally {
    await pub.close();
  }
  return r;
}

/** after the loss: reconnect to the next node and resend what has no confirm */
async function recover(
  ctx: LabContext<QuorumFailoverOptions>,
  steps: FailoverSteps,
  pub: ReconnectingPublisher,
  r: StreamResult,
  publish: (id: number) => void,
): Promise<void> {
  const lost = pub.unconfirmed().map(Number);
  if (r.unconfirmedAtKill.size === 0) for (const id of lost) r.unconfirmedAtKill.add(id);
  ctx.log.emit('producer', { status: 'connection_lost', unconfirmed: lost.length });
  r.reconnectedTo = await steps.reconnect(pub);
  ctx.progress(
    `producer: connection lost with ${lost.length} publishes unconfirmed; reconnected to ${maskUrl(r.reconnectedTo)}`,
  );
  const resend = steps.resend(lost, r.confirmed);
  ctx.log.emit('producer', { status: 'resending', ids: resend.length, to: maskUrl(r.reconnectedTo) });
  r.resent += resend.length;
  for (const id of resend) publish(id);
}
