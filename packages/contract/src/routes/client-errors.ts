import { z } from 'zod';
import { systemRoute } from '../route.js';

/** Where a web-app error happened (SPEC §8): a render error, a failed background task, or the start-up sequence. */
export const CLIENT_ERROR_KINDS = ['render', 'background', 'boot'] as const;

export const clientErrorRoutes = {
  'system/reportClientError': systemRoute('reportClientError', {
    summary: "Report an error of the web app (a render error or a failed background task) to the server's log",
    extension:
      'The DNAnexus web app sends such reports to an error-reporting service; Panx logs them on the API server. Names and e-mail addresses are masked before logging.',
    input: z.object({
      kind: z.enum(CLIENT_ERROR_KINDS),
      message: z.string().max(4000),
      stack: z.string().max(16_000).optional(),
      /** The app path where it happened, without the query string. */
      url: z.string().max(2000).optional(),
      userAgent: z.string().max(512).optional(),
      /** The web app's version (deploy manifest). */
      release: z.string().max(64).optional(),
    }),
    output: z.object({}),
  }),
};
