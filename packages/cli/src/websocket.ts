import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';

/**
 * A small WebSocket client (RFC 6455), enough for the job log stream: text frames both ways,
 * ping/pong, close with code and reason. Node 20 has no WebSocket of its own, and the CLI keeps to
 * its two dependencies.
 */
export interface WebSocketHandlers {
  onText(text: string): void;
  onClose(code: number, reason: string): void;
}

export interface WebSocketConnection {
  sendText(text: string): void;
  close(code?: number): void;
}

function frame(opcode: number, payload: Buffer): Buffer {
  const mask = randomBytes(4);
  const length = payload.length;
  const header = length < 126 ? Buffer.alloc(2) : length < 65_536 ? Buffer.alloc(4) : Buffer.alloc(10);
  header[0] = 0x80 | opcode;
  if (length < 126) header[1] = 0x80 | length;
  else if (length < 65_536) {
    header[1] = 0x80 | 126;
    header.writeUInt16BE(length, 2);
  } else {
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  const masked = Buffer.alloc(length);
  for (let i = 0; i < length; i++) masked[i] = (payload[i] as number) ^ (mask[i % 4] as number);
  return Buffer.concat([header, mask, masked]);
}

export function connectWebSocket(url: string, handlers: WebSocketHandlers): Promise<WebSocketConnection> {
  const target = new URL(url);
  const secure = target.protocol === 'wss:' || target.protocol === 'https:';
  const key = randomBytes(16).toString('base64');
  return new Promise((resolve, reject) => {
    const request = (secure ? https : http).request({
      hostname: target.hostname,
      port: target.port || (secure ? 443 : 80),
      path: `${target.pathname}${target.search}`,
      headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': key },
      // dx watch does not verify certificates either (reference §7.4); a self-signed server still works.
      rejectUnauthorized: false,
    });
    request.once('error', reject);
    request.once('response', (response) => reject(new Error(`the server refused the log stream: HTTP ${response.statusCode}`)));
    request.once('upgrade', (_response, socket: Duplex, head: Buffer) => {
      let buffer = Buffer.from(head);
      let fragments: Buffer[] = [];
      let closed = false;
      const finish = (code: number, reason: string) => {
        if (closed) return;
        closed = true;
        handlers.onClose(code, reason);
        socket.end();
      };
      socket.on('data', (chunk: Buffer) => {
        buffer = Buffer.concat([buffer, chunk]);
        for (;;) {
          if (buffer.length < 2) return;
          const first = buffer[0] as number;
          const second = buffer[1] as number;
          let length = second & 0x7f;
          let offset = 2;
          if (length === 126) {
            if (buffer.length < 4) return;
            length = buffer.readUInt16BE(2);
            offset = 4;
          } else if (length === 127) {
            if (buffer.length < 10) return;
            length = Number(buffer.readBigUInt64BE(2));
            offset = 10;
          }
          if (buffer.length < offset + length) return;
          const payload = buffer.subarray(offset, offset + length);
          buffer = buffer.subarray(offset + length);
          const opcode = first & 0x0f;
          if (opcode === 0x8) {
            const code = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
            socket.write(frame(0x8, payload.subarray(0, 2)));
            finish(code, payload.subarray(2).toString('utf8'));
            return;
          }
          if (opcode === 0x9) socket.write(frame(0xa, Buffer.from(payload)));
          if (opcode === 0x1 || opcode === 0x0) {
            fragments.push(Buffer.from(payload));
            if (first & 0x80) {
              handlers.onText(Buffer.concat(fragments).toString('utf8'));
              fragments = [];
            }
          }
        }
      });
      socket.on('close', () => finish(1006, 'the connection was lost'));
      socket.on('error', () => finish(1006, 'the connection was lost'));
      resolve({
        sendText: (text) => socket.write(frame(0x1, Buffer.from(text, 'utf8'))),
        close: (code = 1000) => {
          const payload = Buffer.alloc(2);
          payload.writeUInt16BE(code, 0);
          socket.write(frame(0x8, payload));
        },
      });
    });
    request.end();
  });
}
