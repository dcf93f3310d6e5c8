#!/usr/bin/env node
'use strict';
// The `railyard` command (`npx railyard` in the repository). tsx's CommonJS hook only: it starts in
// a fraction of the time of the ESM loader, which runs in a thread of its own (docs/benchmarks.md).
require('tsx/cjs');
require('../src/main.ts');
