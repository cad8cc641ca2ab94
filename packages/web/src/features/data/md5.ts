import SparkMD5 from 'spark-md5';

/**
 * md5 of a part's bytes (file-xxxx/upload wants it): in a worker when the browser allows one, else on
 * the main thread. Workers are created lazily, at most two (the machine's parallel parts).
 */
const workers: Worker[] = [];
const waiting = new Map<number, (md5: string) => void>();
let nextId = 1;
let next = 0;
let workersBroken = false;

function worker(): Worker | undefined {
  if (workersBroken || typeof Worker === 'undefined') return undefined;
  try {
    if (workers.length < 2) {
      const created = new Worker(new URL('./md5.worker.ts', import.meta.url), { type: 'module' });
      created.onmessage = (event: MessageEvent<{ id: number; md5: string }>) => {
        waiting.get(event.data.id)?.(event.data.md5);
        waiting.delete(event.data.id);
      };
      created.onerror = () => {
        workersBroken = true;
      };
      workers.push(created);
    }
    next = (next + 1) % workers.length;
    return workers[next];
  } catch {
    workersBroken = true;
    return undefined;
  }
}

/** md5 (hex) of a Blob's bytes: read, then hashed in a worker (the buffer is transferred, not copied). */
export async function md5Of(blob: Blob): Promise<string> {
  const bytes = await blob.arrayBuffer();
  const target = worker();
  if (!target) return SparkMD5.ArrayBuffer.hash(bytes);
  const id = nextId++;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      // A worker that never answers (blocked by policy): hash here instead, from a fresh read.
      if (!waiting.has(id)) return;
      waiting.delete(id);
      workersBroken = true;
      void blob.arrayBuffer().then((again) => resolve(SparkMD5.ArrayBuffer.hash(again)));
    }, 30_000);
    waiting.set(id, (md5) => {
      clearTimeout(timer);
      resolve(md5);
    });
    target.postMessage({ id, buffer: bytes }, [bytes]);
  });
}
