import { describe, expect, it } from 'vitest';
import { missingNodeFlags, SERVER_NODE_FLAGS } from './node-flags.js';

describe('missingNodeFlags', () => {
  it('names every recommended option when none is given', () => {
    expect(missingNodeFlags([])).toEqual([...SERVER_NODE_FLAGS]);
    expect(missingNodeFlags(['--enable-source-maps', '--max-old-space-size=4096'])).toEqual([...SERVER_NODE_FLAGS]);
  });

  it('accepts an option given with another value or with underscores, as V8 does', () => {
    expect(missingNodeFlags(SERVER_NODE_FLAGS)).toEqual([]);
    expect(missingNodeFlags(['--initial-old-space-size=512'])).toEqual([]);
    expect(missingNodeFlags(['--initial_old_space_size=256'])).toEqual([]);
  });
});
