/**
 * `npm run build`'s second step (after tsc): the program bin/mqlab.js runs, bundled from dist/ into
 * dist/cli/ as CommonJS — its entry (labs/cli.ts: dist/cli/mqlab.js) and each process a lab starts
 * (the child scripts: dist/cli/labs/<lab>/<script>.js, where the lab's new URL('./consumer.js',
 * import.meta.url) finds them), with the modules they share and those loaded on demand (a lab, the
 * --html writer, `mqlab up`) in dist/cli/chunks/. Each entry first installs V8's code cache
 * (src/cli/compile-cache.ts).
 *
 * Why: a start loaded ~70 modules and three packages through Node 20's ES module loader, and compiled
 * all of them. Measured on `mqlab compensate` (2 cores, paired runs, wall time): an ES module bundle
 * 0.95 × the separate modules, CommonJS chunks 0.88 × that bundle, the code cache 0.93 × that again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'rolldown';
import { parseAst } from 'rolldown/parseAst';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = path.join(root, 'dist');
const out = path.join(dist, 'cli');

/**
 * The program, and every script a lab runs as a process of its own (runChild): each is one whose
 * code starts with the child runtime (src/kit/child/runtime.ts), so a new lab's needs no line here.
 */
function entries(distDir: string): Record<string, string> {
  const children = fs
    .readdirSync(path.join(distDir, 'labs'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) =>
      fs
        .readdirSync(path.join(distDir, 'labs', d.name))
        .filter((f) => f.endsWith('.js') && !f.endsWith('.test.js'))
        .map((f) => `labs/${d.name}/${f}`),
    )
    .filter((rel) =>
      fs.readFileSync(path.join(distDir, rel), 'utf8').includes("from '../../src/kit/child/runtime.js'"),
    );
  return Object.fromEntries(
    ['labs/cli.js', ...children].map((rel) => [rel === 'labs/cli.js' ? 'mqlab' : rel.replace(/\.js$/, ''), rel]),
  );
}

/** the chunk name of a lab's variants.ts (dist/labs/<lab>/variants.js): variants-<lab>; null for any other module */
function variantsChunk(id: string): string | null {
  const m = /[\\/]labs[\\/]([^\\/]+)[\\/]variants\.js$/.exec(id);
  return m ? `variants-${m[1]}` : null;
}

const TOKEN = '__mqlab_module_url__';

/**
 * import.meta.url as each module had it, wherever the bundle puts its code: a module of dist/<rel>
 * gets the URL of dist/cli/<rel> (the child scripts are there; config.ts and version.ts look for the
 * project above it). The module's path is known when it is transformed, its chunk's only when the
 * chunk is rendered: a token in between.
 */
const moduleUrls: Plugin = {
  name: 'mqlab-module-urls',
  transform(code, id) {
    if (!id.startsWith(dist + path.sep) || !code.includes('import.meta.url')) return null;
    const rel = path.relative(dist, id).split(path.sep).join('/');
    return { code: code.replaceAll('import.meta.url', JSON.stringify(`${TOKEN}${rel}`)) };
  },
  renderChunk(code, chunk) {
    if (!code.includes(TOKEN)) return null;
    const from = path.posix.dirname(chunk.fileName);
    return code.replace(new RegExp(`"${TOKEN}([^"]+)"`, 'g'), (_, rel: string) => {
      const to = path.posix.relative(from, rel);
      return `new URL(${JSON.stringify(to.startsWith('.') ? to : `./${to}`)}, require("node:url").pathToFileURL(__filename)).href`;
    });
  },
};

/**
 * An entry's top-level await (`const rt = await childRuntime()`: the child scripts read as scripts)
 * has no CommonJS form: what follows the imports runs in an async function instead. Its rejection
 * ends the process as the top-level one did (Node prints it, exit code 1).
 */
function topLevelAwait(entryFiles: Set<string>): Plugin {
  return {
    name: 'mqlab-top-level-await',
    transform(code, id) {
      if (!entryFiles.has(id)) return null;
      const body = parseAst(code).body;
      const imports = body.filter((n) => n.type === 'ImportDeclaration');
      const end = imports.length ? Math.max(...imports.map((n) => n.end)) : 0;
      if (body.some((n) => n.start >= end && n.type.startsWith('Export')))
        throw new Error(`${id}: an entry exports nothing (it runs as a process)`);
      return { code: `${code.slice(0, end)}\n(async () => {\n${code.slice(end)}\n})();\n` };
    },
  };
}

fs.rmSync(out, { recursive: true, force: true });
const input = Object.fromEntries(Object.entries(entries(dist)).map(([name, rel]) => [name, path.join(dist, rel)]));
const entryFiles = new Set(Object.values(input));

// the code cache's own file first, alone: each entry requires it before anything else
await build({
  input: path.join(dist, 'src', 'cli', 'compile-cache.js'),
  platform: 'node',
  logLevel: 'warn',
  output: { file: path.join(out, 'compile-cache.js'), format: 'cjs', strict: true },
});
await build({
  input,
  platform: 'node',
  logLevel: 'warn',
  plugins: [moduleUrls, topLevelAwait(entryFiles)],
  // mqlab's own modules declare and export, and do nothing when imported (only the entries run): an
  // import of the kit's face loads only the modules whose exports the importer uses
  treeshake: { moduleSideEffects: (id: string) => !(id.startsWith(dist + path.sep) && !entryFiles.has(id)) },
  output: {
    dir: out,
    format: 'cjs',
    strict: true, // the modules were ES modules: strict mode, as they were written
    entryFileNames: '[name].js',
    // a lab's broken variants (TEST ONLY), imported only when MQLAB_FAULT names the lab, are a chunk of
    // their own: chunks/variants-<lab>-*.js, shipped (a teacher runs them from the package too)
    chunkFileNames: (chunk) => `chunks/${variantsChunk(chunk.facadeModuleId ?? '') ?? '[name]'}-[hash].js`,
    // before the entry's own requires: every chunk it loads is compiled (or not) through the cache
    intro: (chunk) => {
      if (!chunk.isEntry) return '';
      const up = path.posix.relative(path.posix.dirname(chunk.fileName), '.') || '.';
      return `require(${JSON.stringify(`${up}/compile-cache.js`)}).useCompileCache(require("node:path").join(__dirname, ${JSON.stringify(up)}));`;
    },
  },
});
// the files here are CommonJS, in a package whose other .js files are ES modules
fs.writeFileSync(path.join(out, 'package.json'), JSON.stringify({ type: 'commonjs' }) + '\n');
