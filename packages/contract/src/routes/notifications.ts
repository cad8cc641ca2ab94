import { z } from 'zod';
import { timestampSchema } from '../common.js';
import { classRoute } from '../route.js';

/** What a notification is about. Later kinds (access and transfer requests) will be added here. */
export const NOTIFICATION_KINDS = ['projectShared', 'executionDone', 'executionFailed', 'executionTerminated'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];
/** `notifications/get` answers at most this many per call. */
export const NOTIFICATIONS_GET_MAX = 100;

export const notificationSchema = z.object({
  id: z.string(),
  kind: z.enum(NOTIFICATION_KINDS),
  /** One line, plain text. */
  title: z.string(),
  /** Plain text (clients must escape it). */
  message: z.string(),
  /** Where the web app takes the user: a path under /panx, or null. */
  link: z.string().nullable(),
  /** The id the notification is about (a project, a job or an analysis). */
  subject: z.string().nullable(),
  /** Who caused it (a user id), when someone did. */
  actor: z.string().nullable(),
  created: timestampSchema,
  unread: z.boolean(),
});
export type Notification = z.infer<typeof notificationSchema>;

export const notificationRoutes = {
  'notifications/get': classRoute('notifications', 'get', {
    summary: "The caller's notifications, newest first, with the number of unread ones",
    input: z.object({
      limit: z.number().int().min(1).max(NOTIFICATIONS_GET_MAX).optional(),
      /** `next` of the previous page. */
      starting: z.string().max(200).optional(),
      unreadOnly: z.boolean().optional(),
    }),
    output: z.object({ notifications: z.array(notificationSchema), unreadCount: z.number().int(), next: z.string().nullable() }),
  }),
  'notifications/markRead': classRoute('notifications', 'markRead', {
    summary: "Mark some of the caller's notifications read (`ids`), or all of them (`all`); answers the unread count left",
    input: z
      .object({
        ids: z.array(z.string().max(64)).max(1000).optional(),
        all: z.boolean().optional(),
        /** With `all`: only those created at or before this time (what the user has seen). */
        before: timestampSchema.optional(),
      })
      .refine((input) => input.ids !== undefined || input.all === true, 'send "ids" or "all": true'),
    output: z.object({ unreadCount: z.number().int() }),
  }),
};
