import type { HandlerTable } from '../../http/handler.js';
import type { FilesService } from './files.service.js';

export function fileHandlers(files: FilesService): HandlerTable<'file/new' | 'file-xxxx/upload' | 'file-xxxx/close' | 'file-xxxx/download'> {
  return {
    'file/new': (ctx, input) => files.create(ctx.caller, input, ctx.now),
    'file-xxxx/upload': (ctx, input, id) => files.uploadUrl(ctx.caller, id, input, ctx.now),
    'file-xxxx/close': (ctx, _input, id) => files.close(ctx.caller, id, ctx.now),
    'file-xxxx/download': (ctx, input, id) => files.downloadUrl(ctx.caller, id, input, ctx.now),
  };
}
