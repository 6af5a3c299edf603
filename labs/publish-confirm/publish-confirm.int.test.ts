import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectLabPasses, mqlab, runLabJson, useNamespace, useServices } from '../../test/helpers.js';

const LINE =
  'publish-confirm: mandatoryFrames=return,ack plainFrames=ack unroutedInQueues=0 boundedFrames=ack,nack,ack resendLanded=1 ' +
  'producerExit=137 attempt1=unknown publishAttempts=1,2 deliveryAttempts=2,2 businessEffects=1 duplicatesSkipped=1';
const NS = useNamespace(import.meta.url).namespace;
const ns = ['--namespace', NS];
const lab = 'publish-confirm';

describe('publish-confirm against the real broker and database', () => {
  const s = useServices();

  it('passes twice in a row; one business effect in the database, every queue empty after', async () => {
    await expectLabPasses([lab, ...ns], {
      line: LINE,
      check: async () => {
        const effects = await s.db`SELECT event_id, publish_attempt FROM ${s.db(`${NS}_confirm_effect`)}`;
        expect(effects).toHaveLength(1);
        for (const q of ['orders', 'bounded', 'events'])
          expect(await s.broker.depth(`${NS}.me12.confirm.${q}`)).toBe(0);
        // the unroutable key stays unbound
        expect(await s.mgmt.hasBinding(`${NS}.me12.confirm.x`, `${NS}.me12.confirm.orders`, 'nowhere')).toBe(false);
      },
    });
  });

  it('logs eventId, publishAttempt and deliveryAttempt apart; writes JUnit with one testcase per check', async () => {
    const { code, report } = await runLabJson(lab, ns);
    expect(code).toBe(0);
    expect(report.facts.returned).toEqual({ replyCode: 312, replyText: 'NO_ROUTE' });
    const received = report.events.filter(
      (e: Record<string, string>) => e.source === 'consumer' && e.status === 'received',
    );
    expect(
      received.map((e: Record<string, string>) => `${e.eventId}/${e.publishAttempt}/${e.deliveryAttempt}`).sort(),
    ).toEqual(['evt-publish-retry/1/1', 'evt-publish-retry/1/2', 'evt-publish-retry/2/1', 'evt-publish-retry/2/2']);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-')), 'pc.xml');
    const r = await mqlab([lab, ...ns, '--junit', file]);
    expect(r.code).toBe(0);
    expect(fs.readFileSync(file, 'utf8').match(/<testcase /g)).toHaveLength(11);
  });
});
