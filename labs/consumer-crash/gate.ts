/**
 * The seed's replay gate: a named checkpoint in the consumer, logged `status=waiting` and then
 * `status=released`. The line has the seed's exact shape (no level/service/lab fields); the token
 * is <run id>-<consumer index>-<checkpoint>-<messageId>-<sequence within the process>.
 */
import { eventFields, formatEvent } from '../../src/log/events.js';

export const gateToken = (run: string, checkpoint: string, messageId: string, seq: number) => `${run}-1-${checkpoint}-${messageId}-${seq}`;

export function gateLine(checkpoint: string, messageId: string, token: string, status: 'waiting' | 'released'): string {
  return formatEvent({ source: 'replay-gate', fields: eventFields({}, { checkpoint, messageId, token, status }) });
}
