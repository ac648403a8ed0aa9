// Runs in every test file: remove the temp memories that file made (MEMTIER_KEEP_TMP=1 keeps them).
import { afterAll } from 'vitest';
import { cleanupTemps } from './helpers.js';

afterAll(() => cleanupTemps());
