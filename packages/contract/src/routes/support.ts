import { z } from 'zod';
import { limitSchema, pageSchema, timeRangeSchema, timestampSchema } from '../common.js';
import { systemRoute } from '../route.js';

/** Lines of the log's tail a failure report keeps, and the longest line kept. */
export const FAILURE_REPORT_LOG_LINES = 200;
export const FAILURE_REPORT_LOG_LINE_MAX = 2000;
/** Failure reports a user may send per hour (the support inbox is not a chat). */
export const FAILURE_REPORTS_PER_HOUR = 20;

const executionIdSchema = z.string().regex(/^(job|analysis)-[0-9A-Za-z]{24}$/, 'execution must be a job or analysis id');

/** What the web app knows of the browser the user reports from: helps support reproduce a display problem. */
export const reportBrowserSchema = z.object({
  userAgent: z.string().max(512).optional(),
  language: z.string().max(64).optional(),
  platform: z.string().max(128).optional(),
  /** `1280x800@2` */
  screen: z.string().max(32).optional(),
  timeZone: z.string().max(64).optional(),
  /** The app path the report was sent from, without query string. */
  url: z.string().max(2000).optional(),
});
export type ReportBrowser = z.infer<typeof reportBrowserSchema>;

export const failureReportSchema = z.object({
  id: z.string(),
  created: timestampSchema,
  /** The user who reported. */
  reporter: z.string(),
  execution: z.string(),
  /** As the server saw the execution when the report arrived. */
  executionName: z.string(),
  project: z.string(),
  state: z.string(),
  failureReason: z.string().nullable(),
  failureMessage: z.string().nullable(),
  tryNumber: z.number().int().nullable(),
  /** The user's words (plain text: clients must escape it). */
  message: z.string(),
  logTail: z.array(z.string()),
  browser: reportBrowserSchema,
});
export type FailureReport = z.infer<typeof failureReportSchema>;

export const supportRoutes = {
  'system/reportFailure': systemRoute('reportFailure', {
    summary:
      "Report a problem with an execution to the platform's support inbox: the user's message, the tail of its log and the browser; the execution's state, failure reason and message are read by the server",
    extension:
      'DNAnexus forwards failure reports from its web app to its support desk; Panx keeps them on the server, where administrators read them with system/findFailureReports. The caller must be able to see the execution.',
    input: z.object({
      execution: executionIdSchema,
      message: z.string().trim().min(1, 'message must say what went wrong').max(10_000, 'message must be at most 10,000 characters'),
      /** The try the user was looking at. */
      try: z.number().int().min(0).optional(),
      logTail: z
        .array(z.string().max(FAILURE_REPORT_LOG_LINE_MAX * 4))
        .max(FAILURE_REPORT_LOG_LINES, `logTail must have at most ${FAILURE_REPORT_LOG_LINES} lines`)
        .optional(),
      browser: reportBrowserSchema.optional(),
    }),
    output: z.object({ id: z.string() }),
  }),
  'system/findFailureReports': systemRoute('findFailureReports', {
    summary: 'The failure reports of the support inbox, newest first (administrators only)',
    extension: 'The reading side of system/reportFailure (a Panx addition).',
    input: z.object({
      execution: executionIdSchema.optional(),
      reporter: z.string().max(200).optional(),
      created: timeRangeSchema.optional(),
      /** `next` of the previous page. */
      starting: z.string().max(200).optional(),
      limit: limitSchema.optional(),
    }),
    output: pageSchema(failureReportSchema),
  }),
};
