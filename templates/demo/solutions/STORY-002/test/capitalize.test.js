import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capitalize } from '../src/capitalize.js';

test('capitalize upper-cases each word', () => {
  assert.equal(capitalize('ralph loop'), 'Ralph Loop');
  assert.equal(capitalize(''), '');
});
