#!/usr/bin/env node
// The composition root: the engine (dist/src) gets the labs (dist/labs) from here, never imports them.
import { main } from '../dist/src/main.js';
import { catalogue } from '../dist/labs/catalogue.js';

await main(catalogue);
