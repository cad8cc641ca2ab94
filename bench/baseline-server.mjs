// The ceiling for the API throughput benchmark: a trivial server that answers every
// `POST /<subject>/<method>` with one constant JSON document (read from a file, so that it can be a
// real Panx answer and the bytes on the wire match). It reads and parses the request body, as the
// API does, and nothing else.
//
//   node bench/baseline-server.mjs <fastify|node> <port> <response.json>
import fs from 'node:fs';
import http from 'node:http';

const [mode = 'fastify', portText = '0', responseFile] = process.argv.slice(2);
const response = responseFile ? JSON.parse(fs.readFileSync(responseFile, 'utf8')) : { id: 'project-xxxx', class: 'project' };
const port = Number(portText);

if (mode === 'node') {
  const server = http.createServer((request, reply) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      const text = JSON.stringify(response);
      reply.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      reply.end(text);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(port, '127.0.0.1');
} else {
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false });
  app.post('/:subject/:method', async () => response);
  app.get('/health', async () => ({ status: 'ok' }));
  await app.listen({ port, host: '127.0.0.1' });
}
