import cluster from 'node:cluster';

/**
 * Events that every API process of one server must hear, when the server runs as several processes
 * (`processes` > 1, see supervisor.ts): a log line stored by the process that runs the jobs wakes the
 * live-log websockets held by the others; a revoked token leaves every process's verification cache.
 * The supervisor relays each process's events to all the others over the cluster's IPC channels.
 * In a server of one process this is a plain local emitter.
 */
export type ClusterEvent = { type: 'log-appended'; jobId: string } | { type: 'auth-invalidated' };

const TAG = 'panx-cluster-event';

export interface ClusterBus {
  /** Tells the other processes (never this one's own listeners). */
  publish(event: ClusterEvent): void;
  /** Events from the other processes. */
  subscribe(listener: (event: ClusterEvent) => void): () => void;
}

interface Envelope {
  tag: typeof TAG;
  event: ClusterEvent;
}

export function isEnvelope(message: unknown): message is Envelope {
  return typeof message === 'object' && message !== null && (message as { tag?: unknown }).tag === TAG;
}

export function envelope(event: ClusterEvent): Envelope {
  return { tag: TAG, event };
}

/** The bus of this process: over IPC in a cluster worker, a no-op otherwise. */
export function createClusterBus(): ClusterBus {
  if (!cluster.isWorker || !process.send) {
    return { publish: () => {}, subscribe: () => () => {} };
  }
  const listeners = new Set<(event: ClusterEvent) => void>();
  const onMessage = (message: unknown) => {
    if (!isEnvelope(message)) return;
    for (const listener of listeners) listener(message.event);
  };
  process.on('message', onMessage);
  return {
    publish(event) {
      if (process.connected) process.send?.(envelope(event));
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
