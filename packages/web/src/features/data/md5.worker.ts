/// <reference lib="webworker" />
/** md5 of one upload part, off the main thread (the part's bytes are transferred, not copied). */
import SparkMD5 from 'spark-md5';

self.onmessage = (event: MessageEvent<{ id: number; buffer: ArrayBuffer }>) => {
  const { id, buffer } = event.data;
  const md5 = SparkMD5.ArrayBuffer.hash(buffer);
  (self as unknown as Worker).postMessage({ id, md5 });
};
