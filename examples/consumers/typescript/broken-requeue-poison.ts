/** BROKEN on purpose (mqlab check must find it: poison-not-parked): a body it cannot parse is nacked with requeue: it comes back for ever. */
import { CORRECT, runConsumer } from './consumer.js';

await runConsumer({ ...CORRECT, poison: 'requeue' });
