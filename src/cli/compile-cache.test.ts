import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import { useCompileCache } from './compile-cache.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-cc-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
fs.writeFileSync(path.join(dir, 'package.json'), '{"type":"commonjs"}');
const load = (file: string) => {
  const required = createRequire(path.join(dir, 'x.js'));
  delete required.cache[path.join(dir, file)];
  return required(`./${file}`) as { n: number; dynamic: () => Promise<{ sep: string }> };
};
const cached = () => fs.readdirSync(path.join(dir, '.v8-cache')).sort();

describe('V8 code cache of the bundle', () => {
  const use = useCompileCache(dir);

  it('compiles a file once, writes its cache, then serves it; an edited file is compiled again', () => {
    fs.writeFileSync(path.join(dir, 'a.js'), 'exports.n = 1; exports.dynamic = () => import("node:path");');
    expect(load('a.js').n).toBe(1);
    expect(use).toMatchObject({ served: 0, compiled: 1 });
    use.save();
    expect(cached()).toEqual([expect.stringMatching(/^a\.[0-9a-z]+-[0-9a-z]+\.bin$/)]);
    expect(load('a.js').n).toBe(1);
    expect(use).toMatchObject({ served: 1, compiled: 1 });
    // the same length, other content: V8 alone would take the old cache (it checks the length)
    fs.writeFileSync(path.join(dir, 'a.js'), 'exports.n = 2; exports.dynamic = () => import("node:path");');
    expect(load('a.js').n).toBe(2);
    expect(use).toMatchObject({ served: 1, compiled: 2 });
    use.save();
    expect(cached()).toHaveLength(2);
  });

  it('an import() of a module outside the bundle works in a file compiled here', async () => {
    expect((await load('a.js').dynamic()).sep).toBe(path.sep);
  });

  it('leaves files outside its folder to Node', () => {
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-cc-other-'));
    fs.writeFileSync(path.join(other, 'b.cjs'), 'exports.n = 3;');
    const before = use.compiled + use.served;
    expect((createRequire(path.join(other, 'x.js'))('./b.cjs') as { n: number }).n).toBe(3);
    expect(use.compiled + use.served).toBe(before);
    fs.rmSync(other, { recursive: true, force: true });
  });
});
