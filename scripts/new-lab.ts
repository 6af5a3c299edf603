/**
 * `npm run new-lab NAME`: a working lab in retry's shape, step 1 of docs/developing.md's "Add a lab" —
 * labs/NAME/ with meta.ts, names.ts, lab.ts, variants.ts, NAME.int.test.ts and NAME.faults.int.test.ts,
 * the page docs/labs/NAME.md (its generated sections empty until `npm run docs`), and the lab's line at
 * the end of labs/catalogue.ts. The lab publishes one message with a confirm, takes it back and acks
 * it; two broken variants show its two checks failing. Replace the experiment, keep the shape.
 * scripts/new-lab.test.ts type-checks what it writes over the real tree.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** a lab's name: lower case words joined by '-' (the folder, the command, the MQLAB_FAULT prefix) */
const NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/** why `name` cannot be a new lab under `root` (null: it can) */
export function refusal(root: string, name: string | undefined): string | null {
  if (!name) return 'usage: npm run new-lab NAME (lower case words joined by -, e.g. echo or late-ack)';
  if (!NAME.test(name)) return `'${name}' is not a lab name: lower case words joined by -, e.g. echo or late-ack`;
  if (fs.existsSync(path.join(root, 'labs', name))) return `labs/${name} exists already: choose another name`;
  return null;
}

/** `late-ack` → `LateAck` (the lab's steps type) */
const pascal = (name: string) => name.replace(/(^|-)([a-z0-9])/g, (_, _d: string, c: string) => c.toUpperCase());

/** the files the lab is, by path under the root (the catalogue line apart: `withCatalogueLine`) */
export function skeleton(name: string): Map<string, string> {
  const Steps = `${pascal(name)}Steps`;
  const dir = `labs/${name}`;
  const files = new Map<string, string>();
  files.set(
    `${dir}/meta.ts`,
    `/** The ${name} lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, type FaultName } from '../../src/kit/index.js';

export const meta = defineLab({
  name: '${name}',
  title: 'a message published with a confirm comes back as it was sent',
  summary: 'one message published with a confirm, taken back and acked: the body as sent, the queue empty after',
  proves:
    'A message published with a publisher confirm to a quorum queue is there once the confirm arrives: taken ' +
    'back with basic.get and acked, it carries the body as sent, and the queue is empty afterwards.',
  // the waits the experiment itself needs (TTLs, recovery windows) with default options, for the bench
  floorMs: 0,
  // no database in this process: a run of this lab opens no connection to PostgreSQL
  database: false,
  options: {},
  checks: ['echoed', 'queueDepthAfter'],
  // the broken variants (MQLAB_FAULT=${name}:<name>): what each breaks, and the checks that must print FAIL
  faults: {
    'wrong-body': { breaks: 'the producer publishes another body than the one it means to', fails: ['echoed'] },
    'publish-twice': {
      breaks: 'the producer publishes the message twice: one copy stays in the queue',
      fails: ['queueDepthAfter'],
    },
  },
  // the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses)
  checkpoints: {
    published: 'the message is confirmed: the broker holds it in the queue, nobody has taken it yet',
  },
});

/** a broken variant of ${name} */
export type Fault = FaultName<typeof meta.faults>;
`,
  );
  files.set(
    `${dir}/names.ts`,
    `/**
 * The ${name} lab's names and topology (every name through \`n\`, so --namespace prefixes it).
 *
 *   producer ── confirmed publish ──▶ ${name}.queue (quorum) ── basic.get, ack ──▶ the lab
 */
import type { Names, Topology } from '../../src/kit/index.js';

export const BODY = 'hello';
export const MESSAGE_ID = '${name}-1';

export const names = (n: Names) => ({
  queue: n.q('${name}.queue'),
});

export function topology(n: Names): Topology {
  return { queues: [{ name: names(n).queue }] };
}
`,
  );
  files.set(
    `${dir}/lab.ts`,
    `/**
 * ${name} — a message published with a confirm comes back as it was sent (docs/labs/${name}.md; the
 * queue is drawn in names.ts).
 */
import { type Delivery, check, labCode } from '../../src/kit/index.js';
import { meta } from './meta.js';
import { BODY, MESSAGE_ID, names, topology } from './names.js';

/** the steps of the experiment a broken variant may replace (variants.ts, TEST ONLY) */
export interface ${Steps} {
  /** the producer publishes \`body\` and waits for the broker's confirm */
  publish(body: string): Promise<void>;
  /** how the message taken back is settled: acked */
  settle(m: Delivery): void;
}

export const lab = labCode(meta, {
  topology,

  async run(ctx) {
    const name = names(ctx.names);
    const { broker, log } = ctx;
    // the experiment's steps, as taught
    const steps = ctx.steps<${Steps}>({
      publish: (body) => broker.sendConfirmed(name.queue, body, { messageId: MESSAGE_ID }),
      settle: (m) => m.ack(),
    });

    await steps.publish(BODY);
    log.emit('producer', { messageId: MESSAGE_ID, destination: name.queue, status: 'confirmed' });
    await ctx.checkpoint('published', { messageId: MESSAGE_ID });

    const m = await broker.get(name.queue);
    if (m) steps.settle(m);
    log.emit('consumer', { messageId: m?.messageId ?? 'none', destination: name.queue, status: m ? 'acked' : 'missing' });
    const depth = await broker.depth(name.queue);

    return {
      lines: [\`${name}: echoed=\${m?.body ?? 'nothing'} queueDepthAfter=\${depth}\`],
      checks: [check('echoed', BODY, m?.body ?? 'nothing'), check('queueDepthAfter', 0, depth)],
      facts: { messageId: m?.messageId ?? null, redelivered: m?.redelivered ?? null },
    };
  },
});
`,
  );
  files.set(
    `${dir}/variants.ts`,
    `/**
 * TEST ONLY: ${name}'s broken variants (declared in meta.ts; MQLAB_FAULT=${name}:<name>, src/lab/fault.ts),
 * loaded only when a run asks for one: each replaces a step of the experiment lab.ts runs (\`${Steps}\`).
 * lab.ts reads as the correct experiment. (Other forms: an action on an event the lab logs, the broker
 * handle decorated, the topology changed: docs/developing.md.)
 */
import type { VariantsOf } from '../../src/kit/index.js';
import type { meta } from './meta.js';
import type { ${Steps} } from './lab.js';

export const variants: VariantsOf<typeof meta, ${Steps}> = {
  'wrong-body': (s) => ({ publish: (body) => s.publish(body.toUpperCase()) }),
  'publish-twice': (s) => ({
    publish: async (body) => {
      await s.publish(body);
      await s.publish(body);
    },
  }),
};
`,
  );
  files.set(
    `${dir}/${name}.int.test.ts`,
    `import { describe, it } from 'vitest';
import { expectLabPasses, useNamespace } from '../../test/helpers.js';

useNamespace(import.meta.url);

describe('${name} lab against the real broker', () => {
  it('passes twice in a row and prints its summary line and its checks', async () => {
    await expectLabPasses(['${name}'], {
      line: '${name}: echoed=hello queueDepthAfter=0',
      pass: { echoed: 'hello', queueDepthAfter: '0' },
    });
  });
});
`,
  );
  files.set(
    `${dir}/${name}.faults.int.test.ts`,
    `/** ${name}, broken on purpose (MQLAB_FAULT, src/lab/fault.ts): each check is shown failing when what it observes goes wrong. */
import { describeFaults } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';
import { meta } from './meta.js';

describeFaults(meta, useNamespace(import.meta.url).namespace, [
  { title: 'another body published than meant', faults: ['wrong-body'], only: true },
  { title: 'the message published twice: one copy stays in the queue', faults: ['publish-twice'], only: true },
]);
`,
  );
  const generated = (what: string) =>
    `<!-- ${what}: generated from the labs' meta.ts by \`npm run docs\`; edit the meta, not here -->\n\n<!-- end of the generated section -->`;
  files.set(
    `docs/labs/${name}.md`,
    `# \`mqlab ${name}\` — a message published with a confirm comes back as it was sent

## What it proves

A message published with a publisher confirm to a quorum queue is there once the confirm arrives:
taken back with \`basic.get\` and acked, it carries the body as sent, and the queue is empty afterwards.

## Topology

\`${name}.queue\`, a quorum queue (names.ts).

## Reading the output

\`\`\`
${name}: echoed=hello queueDepthAfter=0
PASS echoed: hello
PASS queueDepthAfter: 0
\`\`\`

## Checkpoints

${generated('checkpoints')}

## Broken variants

${generated('broken variants')}
`,
  );
  return files;
}

/** labs/catalogue.ts with the lab's line at the end of the catalogue */
export function withCatalogueLine(catalogue: string, name: string): string {
  const end = catalogue.lastIndexOf('];');
  if (end < 0) throw new Error('labs/catalogue.ts: no end of the catalogue (`];`)');
  const line = `  lab('${name}', {
    meta: () => import('./${name}/meta.js'),
    code: () => import('./${name}/lab.js'),
    variants: () => import('./${name}/variants.js'),
  }),
`;
  return catalogue.slice(0, end) + line + catalogue.slice(end);
}

function main() {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  const name = process.argv[2];
  const refused = refusal(root, name);
  if (refused || !name) {
    process.stderr.write(`new-lab: ${refused}\n`);
    process.exitCode = 2;
    return;
  }
  for (const [rel, text] of skeleton(name)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
    process.stdout.write(`new-lab: ${rel} written\n`);
  }
  const catalogue = path.join(root, 'labs', 'catalogue.ts');
  fs.writeFileSync(catalogue, withCatalogueLine(fs.readFileSync(catalogue, 'utf8'), name));
  process.stdout.write(
    `new-lab: its line is at the end of labs/catalogue.ts (move it where the lab belongs in \`mqlab all\`)\n` +
      `new-lab: next: npm run docs (the page's lists, the README tables, the title), then npm run test:unit and npx vitest run labs/${name}/\n`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) main();
