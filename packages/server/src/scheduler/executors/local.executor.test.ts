import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ExecutionSink, ExitStatus, LaunchSpec } from './executor.js';
import { describeExecutorContract } from './executor.contract.js';
import { LocalExecutor } from './local.executor.js';

describeExecutorContract('local', (capacity) => new LocalExecutor({ ...capacity, pollMs: 25, killGraceMs: 500 }));

describe('local executor: oversubscription', () => {
  it('lets reservations share each core and MiB `oversubscribe` times, and never gives one job more than the capacity', async () => {
    const executor = new LocalExecutor({ cores: 2, memoryMB: 1000, oversubscribe: 3, pollMs: 25 });
    expect(executor.total).toEqual({ cores: 6, memoryMB: 3000 });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-oversubscribe-'));
    const exits: Promise<ExitStatus>[] = [];
    const launch = async (n: number) => {
      let exited: (status: ExitStatus) => void = () => {};
      exits.push(new Promise((resolve) => (exited = resolve)));
      const sink: ExecutionSink = { onLog: async () => {}, onExit: async (status) => exited(status) };
      const spec: LaunchSpec = {
        jobId: `job-${n}`,
        try: 0,
        // Clamped to the capacity: reserves 2 cores and 1000 MiB, not 64 cores.
        resources: { cores: 64, memoryMB: 900 },
        command: ['/bin/sh', '-c', 'while [ ! -e ../go ]; do sleep 0.05; done'],
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        workDir: path.join(dir, `job-${n}`),
      };
      await executor.launch(spec, sink);
    };
    try {
      for (let n = 0; n < 3; n++) {
        expect(executor.hasCapacityFor({ cores: 64, memoryMB: 900 })).toBe(true);
        await launch(n);
      }
      expect(executor.hasCapacityFor({ cores: 1, memoryMB: 1 })).toBe(false);
      fs.writeFileSync(path.join(dir, 'go'), '');
      for (const status of await Promise.all(exits)) expect(status.exitCode).toBe(0);
      expect(executor.hasCapacityFor({ cores: 2, memoryMB: 1000 })).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses an oversubscription below 1', () => {
    expect(() => new LocalExecutor({ oversubscribe: 0.5 })).toThrow(/oversubscribe must be a number ≥ 1/);
  });
});
