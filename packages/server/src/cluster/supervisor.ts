import cluster, { type Worker } from 'node:cluster';
import { isEnvelope } from './cluster-bus.js';

/**
 * A server of several processes on one machine (`processes` > 1; `PANX_PROCESSES`): Node's cluster
 * module shares the listening port, so each process takes its share of the connections and the
 * server uses every core. This primary process only supervises:
 *
 * - the **leader** starts first: migrations, the administrator and demo data, the job scheduler and
 *   the background work (file recovery sweeps) run there and only there;
 * - once it listens, the **API processes** start: the same server without the engine or background
 *   work (as an API-only server beside others on one PostgreSQL), on the same database and storage;
 * - a process that dies is started again (the leader's jobs are re-attached by the new leader, as
 *   after any restart); events that all processes must hear are relayed (cluster-bus.ts);
 * - SIGTERM or SIGINT stops them all, each finishing what it serves.
 */

export type ClusterRole = 'leader' | 'api';
export const ROLE_VARIABLE = 'PANX_CLUSTER_ROLE';

const RESTART_DELAY_MS = 1_000;

export function runSupervisor(processes: number, log: (message: string) => void): void {
  let stopping = false;
  const roles = new Map<Worker, ClusterRole>();
  let apiStarted = false;

  const start = (role: ClusterRole): Worker => {
    const worker = cluster.fork({ [ROLE_VARIABLE]: role });
    roles.set(worker, role);
    worker.on('message', (message: unknown) => {
      if (!isEnvelope(message)) return;
      for (const other of roles.keys()) if (other !== worker && other.isConnected()) other.send(message);
    });
    if (role === 'leader' && !apiStarted) {
      worker.once('listening', () => {
        apiStarted = true;
        for (let i = 1; i < processes; i++) start('api');
      });
    }
    return worker;
  };

  cluster.on('exit', (worker, code, signal) => {
    const role = roles.get(worker);
    roles.delete(worker);
    if (stopping || !role) return;
    log(`the ${role} process ${worker.process.pid} exited (${signal ?? `code ${code}`}); starting another`);
    setTimeout(() => {
      if (!stopping) start(role);
    }, RESTART_DELAY_MS).unref();
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      stopping = true;
      // API processes first, the leader (which may hold jobs' state) last.
      const workers = [...roles.entries()].sort(([, a], [, b]) => (a === b ? 0 : a === 'leader' ? 1 : -1)).map(([worker]) => worker);
      for (const worker of workers) worker.process.kill('SIGTERM');
      const check = setInterval(() => {
        if (roles.size === 0) process.exit(0);
      }, 50);
      check.unref();
      setTimeout(() => process.exit(0), 30_000).unref();
    });
  }
  cluster.on('exit', () => {
    if (stopping && roles.size === 0) process.exit(0);
  });

  start('leader');
}
