import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two cores: integration files each start a server (and a moto or PostgreSQL database).
    maxWorkers: 2,
    minWorkers: 1,
  },
});
