import { describe, expect, it } from 'vitest';
import type { Catalogue, LabMeta } from '../lab/lab.js';
import { connectAhead } from './connect-ahead.js';

// a lab whose meta says it has a tool; loading it is the only thing these command lines may do
let loads = 0;
const meta = { name: 'lab1', database: false, tools: [{ name: 'replay' }] } as unknown as LabMeta;
const catalogue: Catalogue = [{ name: 'lab1', title: 'Lab 1', load: () => (loads++, Promise.resolve(meta)) }];

describe('connections begun ahead of the CLI', () => {
  it.each([
    [['list']],
    [['all']],
    [['nolab']],
    [['lab1', '--help']],
    [['lab1', '--names']],
    [['lab1', '--amqp-url', 'amqp://x/lab']],
    [['lab1', '--pg-url=postgres://x/lab']],
  ])('none for %j', async (args) => {
    await expect(connectAhead(catalogue, args)).resolves.toBeNull();
    expect(loads).toBe(0);
  });

  it("none for one of the lab's tools", async () => {
    await expect(connectAhead(catalogue, ['lab1', 'replay'])).resolves.toBeNull();
    expect(loads).toBe(1);
  });
});
