/** BROKEN on purpose (mqlab check must find it: duplicated): no dedupe row: a redelivery or a second publish applies the effect again. */
import { CORRECT, runConsumer } from './consumer.js';

await runConsumer({ ...CORRECT, dedupe: false });
