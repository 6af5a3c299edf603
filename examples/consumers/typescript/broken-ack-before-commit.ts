/** BROKEN on purpose (mqlab check must find it: lost): the ack goes before the commit: a crash or a database error between them loses the message. */
import { CORRECT, runConsumer } from './consumer.js';

await runConsumer({ ...CORRECT, ack: 'before-commit' });
