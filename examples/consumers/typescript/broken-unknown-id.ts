/** BROKEN on purpose (mqlab check must find it: unexpected): a body it cannot parse gets a row under the id 'unknown' before it is parked. */
import { CORRECT, runConsumer } from './consumer.js';

await runConsumer({ ...CORRECT, poison: 'record-and-park' });
