/// <reference lib="webworker" />
/**
 * md5 of one upload part, off the main thread (the part's bytes are transferred, not copied). Uses
 * hash-wasm's WebAssembly md5 (several times faster than JavaScript) when the worker may compile
 * WebAssembly, and spark-md5 otherwise.
 */
import { createMD5 } from 'hash-wasm';
import SparkMD5 from 'spark-md5';

type Hasher = Awaited<ReturnType<typeof createMD5>>;
let wasm: Promise<Hasher | undefined> | undefined;

function wasmHasher(): Promise<Hasher | undefined> {
  wasm ??= createMD5().catch(() => undefined);
  return wasm;
}

self.onmessage = async (event: MessageEvent<{ id: number; buffer: ArrayBuffer }>) => {
  const { id, buffer } = event.data;
  const hasher = await wasmHasher();
  let md5: string;
  if (hasher) {
    hasher.init();
    hasher.update(new Uint8Array(buffer));
    md5 = hasher.digest('hex');
  } else {
    md5 = SparkMD5.ArrayBuffer.hash(buffer);
  }
  (self as unknown as Worker).postMessage({ id, md5, engine: hasher ? 'wasm' : 'js' });
};
