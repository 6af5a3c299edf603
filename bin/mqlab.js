#!/usr/bin/env node
// labs/cli.ts (the engine's main with the labs' catalogue), bundled by `npm run build` (scripts/bundle.ts);
// CommonJS, like the bundle (bin/package.json): no ES module loader is started for it. The code cache
// (src/cli/compile-cache.ts) first, so the entry's own file is served from it too.
const cli = require('node:path').join(__dirname, '..', 'dist', 'cli');
require(`${cli}/compile-cache.js`).useCompileCache(cli);
require(`${cli}/mqlab.js`);
