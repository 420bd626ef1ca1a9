#!/usr/bin/env node
// `node dist/cli/bin.js` keeps working (hook commands written by earlier versions name it): it
// hands over to the launcher, dist/cli/bin.cjs, which is what the package's `ralph` runs.
import { createRequire } from 'node:module';

createRequire(import.meta.url)('./bin.cjs');
