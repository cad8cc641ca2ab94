import { z } from 'zod';
import { orgLevelSchema, timestampSchema } from '../common.js';
import { HANDLE_PATTERN } from '../ids.js';
import { systemRoute } from '../route.js';

/** The platform's own community: the default context (SPEC §3), always there, branded by the administrators. */
export const DEFAULT_COMMUNITY_ID = 'panx';
/** What a community landing page can show besides its branding. */
export const COMMUNITY_WIDGETS = ['quickActions', 'projects', 'notifications'] as const;
export type CommunityWidget = (typeof COMMUNITY_WIDGETS)[number];
/** A header logo as a data: URL is at most this long (about 48 KB of image). */
export const COMMUNITY_LOGO_MAX_LENGTH = 65_536;

/** Links lead into the app (`/panx/…`) or to an https:// site: never `javascript:` nor other schemes. */
const hrefSchema = z
  .string()
  .max(2000)
  .refine((href) => /^\/panx(\/|$)/.test(href) || /^https:\/\/[^\s/]+/.test(href), 'links must be paths under /panx/ or https:// addresses');

export const communityLinkSchema = z.object({ label: z.string().min(1).max(80), href: hrefSchema });

/** The home JSON asset: what the landing page says below the header. */
export const communityHomeSchema = z.object({
  headline: z.string().max(200).optional(),
  intro: z.string().max(4000).optional(),
  sections: z
    .array(
      z.object({
        title: z.string().min(1).max(200),
        body: z.string().max(4000).optional(),
        links: z.array(communityLinkSchema).max(20).optional(),
      }),
    )
    .max(12)
    .optional(),
});

const logoSchema = z
  .string()
  .max(COMMUNITY_LOGO_MAX_LENGTH)
  .refine(
    (logo) => /^data:image\/(png|jpeg|gif|webp|svg\+xml);base64,[A-Za-z0-9+/]+=*$/.test(logo) || /^\/panx\/[^\s]*$/.test(logo),
    'the header logo is a data:image/(png|jpeg|gif|webp|svg+xml);base64 URL or a path under /panx/',
  );

/** Branding assets (SPEC §3): header logo, description, navigation and home JSON. */
export const communityAssetsSchema = z.object({
  headerLogo: logoSchema.nullable(),
  /** Plain text (escaped when shown). */
  description: z.string().max(4000),
  /** The navigation JSON: links shown under the community's header. */
  navigation: z.array(communityLinkSchema).max(20),
  home: communityHomeSchema,
});
export type CommunityAssets = z.infer<typeof communityAssetsSchema>;

export const communityDescribeSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** The org whose members make up the community; null for the platform's own. */
  org: z.string().nullable(),
  /** The caller's level: their level in the org (administrators are ADMIN of the platform's own); null for outsiders. */
  level: orgLevelSchema.nullable(),
  isDefault: z.boolean(),
  widgets: z.array(z.enum(COMMUNITY_WIDGETS)),
  assets: communityAssetsSchema,
  created: timestampSchema,
  modified: timestampSchema,
});
export type CommunityDescribe = z.infer<typeof communityDescribeSchema>;

/** A community id of a URL: the org's handle (`acme`), its org id (`org-acme`), or `panx`. */
const communityRefSchema = z.string().min(1).max(80);

const EXTENSION = 'The DNAnexus community records are not part of the public API; Panx keeps them on the API server.';

export const communityRoutes = {
  'system/newCommunity': systemRoute('newCommunity', {
    summary: 'Create the community of an org, with its branding (administrators)',
    extension: EXTENSION,
    input: z.object({
      /** The org's handle: the community of `org-acme` is `acme`. */
      handle: z.string().regex(HANDLE_PATTERN, 'community handles are org handles: 3-64 characters, lower-case letters, digits, "." and "_"'),
      name: z.string().min(1).max(256),
      widgets: z.array(z.enum(COMMUNITY_WIDGETS)).max(COMMUNITY_WIDGETS.length).optional(),
      assets: communityAssetsSchema.partial().optional(),
    }),
    output: z.object({ id: z.string() }),
  }),
  'system/updateCommunity': systemRoute('updateCommunity', {
    summary: "Change a community's name, widgets or branding assets (administrators, or ADMINs of its org); `panx` is the platform's own",
    extension: EXTENSION,
    input: z.object({
      id: communityRefSchema,
      name: z.string().min(1).max(256).optional(),
      widgets: z.array(z.enum(COMMUNITY_WIDGETS)).max(COMMUNITY_WIDGETS.length).optional(),
      assets: communityAssetsSchema.partial().optional(),
    }),
    output: z.object({ id: z.string() }),
  }),
  'system/describeCommunity': systemRoute('describeCommunity', {
    summary: 'A community with its branding assets (`panx`, or an org handle or id)',
    extension: EXTENSION,
    input: z.object({ id: communityRefSchema }),
    output: communityDescribeSchema,
  }),
  'system/findCommunities': systemRoute('findCommunities', {
    summary: "Every community, the platform's own first",
    extension: EXTENSION,
    input: z.object({}).loose(),
    output: z.object({ results: z.array(communityDescribeSchema) }),
  }),
};
