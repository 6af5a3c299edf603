/**
 * The "Add a lab" recipe (docs/developing.md), tested without writing to the tree: what
 * `npm run new-lab NAME` writes is type-checked in memory with the TypeScript compiler over the real
 * tree (its lab typed by its meta, its variants by both, its catalogue line by the real catalogue's
 * helper, its tests by the real test helpers), and it meets the lab convention labs/conventions.test.ts
 * keeps: the files, every check failed by a declared variant, every variant wired, the page's markers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { refusal, skeleton, withCatalogueLine } from './new-lab.js';
import { between, checkpointsBody, faultTestFile, variantsBody } from './lab-pages.js';
import { gaps } from './fault-proofs.js';
import type { LabSpec } from '../src/lab/lab.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NAME = 'echo-probe';
const files = skeleton(NAME);
/** the same lab with a misspelt check name in its lab.ts, beside it in the same program */
const BAD = 'echo-probe-misspelt';
const bad = new Map(
  [...skeleton(BAD)].map(([rel, text]) => [
    rel,
    rel.endsWith('/lab.ts') ? text.replace("check('echoed'", "check('echoedd'") : text,
  ]),
);

/** the real catalogue's head (its helper) with the new lab's line alone: as labs/catalogue.ts would hold it */
function catalogueProbe(): string {
  const real = fs.readFileSync(path.join(ROOT, 'labs', 'catalogue.ts'), 'utf8');
  const start = real.indexOf('export const catalogue: Catalogue = [');
  expect(start, 'labs/catalogue.ts declares the catalogue').toBeGreaterThan(0);
  return withCatalogueLine(`${real.slice(0, start)}export const catalogue: Catalogue = [\n];\n`, NAME);
}

/** the compiler's diagnostics for `overlay` (path under the root → text) on top of the real tree */
function diagnostics(overlay: Map<string, string>): string[] {
  const configFile = path.join(ROOT, 'tsconfig.test.json');
  const config = ts.readConfigFile(configFile, (f) => ts.sys.readFile(f));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT, { noEmit: true }, configFile);
  const mine = new Map(
    [...overlay].filter(([rel]) => rel.endsWith('.ts')).map(([rel, text]) => [path.join(ROOT, rel), text]),
  );
  const host = ts.createCompilerHost(options);
  const directoryExists = host.directoryExists?.bind(host) ?? ((d: string) => ts.sys.directoryExists(d));
  const real = {
    getSourceFile: host.getSourceFile.bind(host),
    fileExists: host.fileExists.bind(host),
    readFile: host.readFile.bind(host),
    directoryExists,
  };
  host.fileExists = (f) => mine.has(f) || real.fileExists(f);
  host.directoryExists = (d) => [...mine.keys()].some((f) => f.startsWith(d + path.sep)) || real.directoryExists(d);
  host.readFile = (f) => mine.get(f) ?? real.readFile(f);
  host.getSourceFile = (f, language, ...rest) => {
    const text = mine.get(f);
    return text === undefined ? real.getSourceFile(f, language, ...rest) : ts.createSourceFile(f, text, language);
  };
  const program = ts.createProgram([...mine.keys()], options, host);
  // the new files checked against the real tree they import; the rest of the tree is `npm run
  // typecheck`'s (checking every file of the program was 20-40 s of CPU, 137 s in CI)
  const own = [...mine.keys()].flatMap((f) => program.getSourceFile(f) ?? []);
  return [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...own.flatMap((f) => [...program.getSyntacticDiagnostics(f), ...program.getSemanticDiagnostics(f)]),
  ].map(
    (d) =>
      `${d.file ? path.relative(ROOT, d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
  );
}

/** the meta the skeleton declares, evaluated (defineLab is the identity) */
function metaOf(text: string): LabSpec {
  const js = ts.transpileModule(text, { compilerOptions: { module: ts.ModuleKind.CommonJS } }).outputText;
  const exports: { meta?: LabSpec } = {};
  const kit = { defineLab: (m: LabSpec) => m };
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the generated meta, evaluated with a stub kit
  const evaluate = new Function('exports', 'require', js) as (e: typeof exports, require: () => typeof kit) => void;
  evaluate(exports, () => kit);
  if (!exports.meta) throw new Error('the skeleton exports no meta');
  return exports.meta;
}

describe('npm run new-lab NAME (the "Add a lab" recipe)', () => {
  it('refuses a name that is no lab name, or one that exists, in one line', () => {
    expect(refusal(ROOT, 'echo-probe')).toBeNull();
    expect(refusal(ROOT, undefined)).toMatch(/^usage: npm run new-lab NAME/);
    expect(refusal(ROOT, 'Echo')).toMatch(/is not a lab name/);
    expect(refusal(ROOT, 'echo--x')).toMatch(/is not a lab name/);
    expect(refusal(ROOT, 'retry')).toBe('labs/retry exists already: choose another name');
  });

  it("writes the lab's files and its page: with the catalogue line, at most 7 to write by hand", () => {
    const dir = `labs/${NAME}`;
    expect([...files.keys()].sort()).toEqual(
      [
        `${dir}/meta.ts`,
        `${dir}/names.ts`,
        `${dir}/lab.ts`,
        `${dir}/variants.ts`,
        `${dir}/${NAME}.int.test.ts`,
        faultTestFile(ROOT, NAME),
        `docs/labs/${NAME}.md`,
      ].sort(),
    );
    // hand-written (docs/developing.md): meta, names, lab, variants, the fault test, the page, the catalogue line
    const handWritten = [...files.keys()].filter((f) => !f.endsWith(`${NAME}.int.test.ts`)).length + 1;
    expect(handWritten).toBeLessThanOrEqual(7);
  });

  it(
    'type-checks over the real tree, its catalogue line too; a misspelt check name does not',
    // CPU-bound: 2 s on an idle machine, ten times that at a load of 40
    { timeout: 180_000 },
    () => {
      // one program: the skeleton, and beside it a copy
      // whose lab.ts returns a check its meta does not declare
      const found = diagnostics(new Map([...files, ...bad, ['labs/catalogue-probe.ts', catalogueProbe()]]));
      expect(found.filter((d) => !d.startsWith(`labs/${BAD}/`))).toEqual([]);
      expect(found.filter((d) => d.startsWith(`labs/${BAD}/lab.ts:`)).join('\n')).toContain('"echoedd"');
    },
  );

  it('meets the lab convention: every check failed by a variant, every variant wired, the page fills in', () => {
    const meta = metaOf(files.get(`labs/${NAME}/meta.ts`)!);
    expect(meta.name).toBe(NAME);
    const g = gaps(meta, true);
    expect([g.unproven, g.badVariants]).toEqual([[], []]);
    for (const text of [meta.title, meta.summary, ...Object.values(meta.checkpoints)]) expect(text).not.toContain('\n');
    // every declared variant has its entry in variants.ts, and the fault test runs each
    const variants = files.get(`labs/${NAME}/variants.ts`)!;
    const faultTest = files.get(faultTestFile(ROOT, NAME))!;
    for (const fault of Object.keys(meta.faults)) {
      expect(variants).toContain(`'${fault}': (`);
      expect(faultTest).toContain(`'${fault}'`);
    }
    // nothing but the catalogue loads the variants
    for (const [rel, text] of files)
      if (!rel.endsWith('variants.ts')) expect(text, rel).not.toContain("'./variants.js'");
    // `npm run docs` fills the page's two generated sections
    const page = files.get(`docs/labs/${NAME}.md`)!;
    const filled = between(
      between(page, 'checkpoints', checkpointsBody(meta)),
      'broken variants',
      variantsBody(meta, faultTestFile(ROOT, NAME)),
    );
    expect(filled).toContain('- `published` — ');
    expect(filled).toContain('| `publish-twice` |');
  });
});
