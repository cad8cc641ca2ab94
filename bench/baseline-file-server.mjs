// The baseline of the transfer benchmark: a plain local HTTP server that `curl` uploads to and
// downloads from. PUT /<name> writes the body to <dir>/<name> (PUT /<name>?fsync=1 also fsyncs it
// before answering, as Panx's local blob store does); GET /<name> streams that file back.
//
//   node bench/baseline-file-server.mjs <port> <dir>
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

const [portText = '0', dir = '.'] = process.argv.slice(2);

const server = http.createServer(async (request, response) => {
  const name = path.basename(decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname));
  const file = path.join(dir, name || 'index');
  try {
    if (request.method === 'PUT') {
      await pipeline(request, fs.createWriteStream(file));
      if (new URL(request.url ?? '/', 'http://x').searchParams.get('fsync') === '1') {
        const handle = await fs.promises.open(file, 'r+');
        await handle.sync();
        await handle.close();
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ size: fs.statSync(file).size }));
    } else if (request.method === 'GET' && name) {
      const { size } = fs.statSync(file);
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': size });
      await pipeline(fs.createReadStream(file), response);
    } else {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    }
  } catch (error) {
    if (!response.headersSent) response.writeHead(500).end(String(error));
    else response.destroy();
  }
});
server.requestTimeout = 0;
server.listen(Number(portText), '127.0.0.1');
