/**
 * The executor contract against a real Slurm cluster (the single node of scripts/ensure-slurm.sh in
 * CI). Without `sbatch` on PATH the suite fails, saying so, unless PANX_SKIP_SLURM=1.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeExecutorContract, RecordingSink } from './executor.contract.js';
import { parseSinfoNodes, SlurmExecutor, statusFromSlurm } from './slurm.executor.js';

function slurmProblem(): string | null {
  try {
    execFileSync('sbatch', ['--version'], { stdio: 'ignore' });
  } catch {
    return 'sbatch is not on PATH: run scripts/ensure-slurm.sh (as root) to install and start a single-node Slurm, or set PANX_SKIP_SLURM=1 to skip the Slurm executor suite';
  }
  try {
    execFileSync('sinfo', ['-h', '-o', '%T'], { stdio: 'pipe', timeout: 10_000 });
  } catch (error) {
    return `Slurm is installed but its controller does not answer (${(error as Error).message.split('\n')[0]}): run scripts/ensure-slurm.sh, or set PANX_SKIP_SLURM=1`;
  }
  return null;
}

describe('Slurm executor helpers', () => {
  it('reads exit statuses from scontrol', () => {
    expect(statusFromSlurm('FAILED', '3:0')).toEqual({ exitCode: 3, signal: null });
    expect(statusFromSlurm('COMPLETED', '0:0')).toEqual({ exitCode: 0, signal: null });
    expect(statusFromSlurm('CANCELLED', '0:15')).toEqual({ exitCode: null, signal: 'SIGTERM' });
    expect(statusFromSlurm('CANCELLED', '143:0')).toEqual({ exitCode: null, signal: 'SIGTERM' });
    expect(statusFromSlurm('NODE_FAIL', '0:0')).toMatchObject({ exitCode: null, lost: true });
  });

  it('takes the nodes of the chosen or default partition from sinfo', () => {
    const output = 'n1|debug*|2|8000\nn2|debug*|4|16000\nn2|big|4|16000\nn3|big|64|512000\n';
    expect(parseSinfoNodes(output).map((node) => node.name)).toEqual(['n1', 'n2']);
    expect(parseSinfoNodes(output, 'big')).toEqual([
      { name: 'n2', cpus: 4, memoryMB: 16000 },
      { name: 'n3', cpus: 64, memoryMB: 512000 },
    ]);
  });
});

const problem = slurmProblem();
if (problem && process.env.PANX_SKIP_SLURM === '1') {
  describe.skip('executor contract: slurm (PANX_SKIP_SLURM=1)', () => {
    it('needs Slurm', () => {});
  });
} else if (problem) {
  describe('executor contract: slurm', () => {
    it('needs a Slurm cluster', () => {
      throw new Error(problem);
    });
  });
} else {
  describe('Slurm executor on the cluster', () => {
    it('calls a job Slurm has forgotten lost, unless its exit-status file tells how it ended', async () => {
      const executor = await SlurmExecutor.create({ pollMs: 50, statePollMs: 200 });
      const root = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-slurm-'));
      try {
        const spec = (name: string) => ({
          jobId: `job-${name}`,
          try: 0,
          resources: { cores: 1, memoryMB: 64 },
          command: ['/bin/true'],
          env: {},
          workDir: path.join(root, name),
        });
        const lost = new RecordingSink();
        const forgotten = JSON.stringify({ slurmJobId: '999999999', dir: path.join(root, 'a', '.executor') });
        expect(await executor.attach(forgotten, spec('a'), lost, {})).toBe('exited');
        expect(await lost.exited).toEqual({ exitCode: null, signal: null, lost: true });

        fs.mkdirSync(path.join(root, 'b', '.executor'), { recursive: true });
        fs.writeFileSync(path.join(root, 'b', '.executor', 'exit_status'), '7');
        fs.writeFileSync(path.join(root, 'b', '.executor', 'stdout.log'), 'seen\nlast');
        const ended = new RecordingSink();
        const handle = JSON.stringify({ slurmJobId: '999999998', dir: path.join(root, 'b', '.executor') });
        expect(await executor.attach(handle, spec('b'), ended, { stdout: 5 })).toBe('exited');
        expect(await ended.exited).toEqual({ exitCode: 7, signal: null });
        expect(ended.texts()).toEqual(['last']);
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    });
  });

  describeExecutorContract('slurm', (capacity) =>
    SlurmExecutor.create({
      maxCores: capacity.cores,
      maxMemoryMB: capacity.memoryMB,
      totalCores: capacity.cores,
      totalMemoryMB: capacity.memoryMB,
      pollMs: 100,
      statePollMs: 500,
      killGraceMs: 5000,
    }),
  );
}
