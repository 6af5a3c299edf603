/**
 * The command-line program: the engine's main (src/cli/main.ts) with this folder's catalogue of labs.
 * The composition root: the engine gets the labs from here and never imports them. bin/mqlab.js
 * runs it as bundled by `npm run build` (dist/cli/mqlab.js, scripts/bundle.ts).
 */
import { main } from '../src/cli/main.js';
import { catalogue } from './catalogue.js';

await main(catalogue);
