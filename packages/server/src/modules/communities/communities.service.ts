import {
  COMMUNITY_WIDGETS,
  type CommunityAssets,
  type CommunityDescribe,
  type CommunityWidget,
  DEFAULT_COMMUNITY_ID,
  type OrgLevel,
  type RouteParsedInput,
} from '@panx/contract';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { invalidInput, notFound, permissionDenied } from '../../errors.js';
import { parseJson, toJson } from '../../lib/json.js';
import type { Caller } from '../auth/caller.js';
import { OrgsRepository } from '../orgs/orgs.repository.js';
import { CommunitiesRepository, type CommunityRow, type CommunityTables } from './communities.repository.js';

const DEFAULT_WIDGETS: CommunityWidget[] = [...COMMUNITY_WIDGETS];

/** The platform's own community until administrators brand it (`system/updateCommunity` with id `panx`). */
export const PLATFORM_COMMUNITY_ASSETS: CommunityAssets = {
  headerLogo: null,
  description: 'An open, self-hostable platform for genomics data and analysis: keep data in projects, run tools and workflows, share the results.',
  navigation: [
    { label: 'Projects', href: '/panx/projects' },
    { label: 'Tools', href: '/panx/tools' },
    { label: 'Data', href: '/panx/data' },
  ],
  home: {
    headline: 'Welcome to Panx',
    intro: 'Everything here runs on this installation: your data stays where its administrators keep it.',
    sections: [
      {
        title: 'Start a project',
        body: 'A project holds data, tools and results, and is shared with whom you choose.',
        links: [{ label: 'Your projects', href: '/panx/projects' }],
      },
      {
        title: 'Work from the command line',
        body: 'The px command line (and dxpy) speak the same API as this web app: create an API token in your account settings to use them.',
        links: [{ label: 'Home', href: '/panx/home' }],
      },
    ],
  },
};

const EMPTY_ASSETS: CommunityAssets = { headerLogo: null, description: '', navigation: [], home: {} };

/** `acme`, `org-acme` → `acme`; `panx` stays. */
export function communityIdOf(ref: string): string {
  return ref.startsWith('org-') ? ref.slice(4) : ref;
}

/**
 * Communities (SPEC §3): the platform's own (`panx`, the default context) and one per org that has a
 * community portal, each with its branding assets: header logo, description, navigation and home JSON.
 */
export class CommunitiesService {
  private readonly repo: CommunitiesRepository;
  private readonly orgs: OrgsRepository;

  constructor(
    db: Kysely<Database>,
    private readonly settings: { platformName: string },
  ) {
    this.repo = new CommunitiesRepository(db.withTables<CommunityTables>());
    this.orgs = new OrgsRepository(db);
  }

  async describe(caller: Caller, ref: string): Promise<CommunityDescribe> {
    const id = communityIdOf(ref);
    const row = await this.repo.findById(id);
    if (id === DEFAULT_COMMUNITY_ID) return this.platformCommunity(caller, row);
    if (!row) throw notFound(`The community ${ref} could not be found`);
    return this.toDescribe(caller, row);
  }

  async find(caller: Caller): Promise<{ results: CommunityDescribe[] }> {
    const rows = await this.repo.list();
    const platform = this.platformCommunity(
      caller,
      rows.find((row) => row.id === DEFAULT_COMMUNITY_ID),
    );
    const others = await Promise.all(rows.filter((row) => row.id !== DEFAULT_COMMUNITY_ID).map((row) => this.toDescribe(caller, row)));
    return { results: [platform, ...others] };
  }

  async create(caller: Caller, input: RouteParsedInput<'system/newCommunity'>, now: number): Promise<{ id: string }> {
    if (!caller.isAdmin || caller.scope) throw permissionDenied('Only administrators can create communities');
    if (input.handle === DEFAULT_COMMUNITY_ID)
      throw invalidInput(`"${DEFAULT_COMMUNITY_ID}" is the platform's own community: change it with system/updateCommunity`);
    const orgId = `org-${input.handle}`;
    if (!(await this.orgs.findById(orgId))) throw notFound(`A community belongs to an org: ${orgId} could not be found`);
    const inserted = await this.repo.insert({
      id: input.handle,
      orgId,
      name: input.name,
      widgets: toJson(input.widgets ?? DEFAULT_WIDGETS),
      assets: toJson({ ...EMPTY_ASSETS, ...input.assets }),
      created: now,
      modified: now,
      createdBy: caller.userId,
    });
    if (!inserted) throw invalidInput(`The community "${input.handle}" already exists`);
    return { id: input.handle };
  }

  async update(caller: Caller, input: RouteParsedInput<'system/updateCommunity'>, now: number): Promise<{ id: string }> {
    if (caller.scope) throw permissionDenied('A project-scoped token cannot change communities');
    const id = communityIdOf(input.id);
    const row = await this.repo.findById(id);
    if (id === DEFAULT_COMMUNITY_ID) {
      if (!caller.isAdmin) throw permissionDenied("Only administrators can brand the platform's own community");
      if (!row) {
        const current = this.platformCommunity(caller, undefined);
        await this.repo.insert({
          id,
          orgId: null,
          name: input.name ?? current.name,
          widgets: toJson(input.widgets ?? current.widgets),
          assets: toJson({ ...current.assets, ...input.assets }),
          created: now,
          modified: now,
          createdBy: caller.userId,
        });
        return { id };
      }
    } else {
      if (!row) throw notFound(`The community ${input.id} could not be found`);
      const level = row.orgId ? (await this.orgs.findMember(row.orgId, caller.userId))?.level : undefined;
      if (!caller.isAdmin && level !== 'ADMIN') throw permissionDenied(`Only administrators and ADMINs of ${row.orgId ?? id} can change this community`);
    }
    if (!row) throw notFound(`The community ${input.id} could not be found`);
    const patch: Partial<CommunityRow> = { modified: now };
    if (input.name !== undefined) patch.name = input.name;
    if (input.widgets !== undefined) patch.widgets = toJson(input.widgets);
    if (input.assets !== undefined) patch.assets = toJson({ ...parseJson<CommunityAssets>(row.assets, EMPTY_ASSETS), ...input.assets });
    await this.repo.update(id, patch);
    return { id };
  }

  private platformCommunity(caller: Caller, row: CommunityRow | undefined): CommunityDescribe {
    return {
      id: DEFAULT_COMMUNITY_ID,
      name: row?.name ?? this.settings.platformName,
      org: null,
      level: caller.isAdmin ? 'ADMIN' : 'MEMBER',
      isDefault: true,
      widgets: row ? parseJson<CommunityWidget[]>(row.widgets, DEFAULT_WIDGETS) : DEFAULT_WIDGETS,
      assets: row ? { ...PLATFORM_COMMUNITY_ASSETS, ...parseJson<Partial<CommunityAssets>>(row.assets, {}) } : PLATFORM_COMMUNITY_ASSETS,
      created: row?.created ?? 0,
      modified: row?.modified ?? 0,
    };
  }

  private async toDescribe(caller: Caller, row: CommunityRow): Promise<CommunityDescribe> {
    const membership = row.orgId ? await this.orgs.findMember(row.orgId, caller.userId) : undefined;
    return {
      id: row.id,
      name: row.name,
      org: row.orgId,
      level: (membership?.level as OrgLevel | undefined) ?? null,
      isDefault: false,
      widgets: parseJson<CommunityWidget[]>(row.widgets, DEFAULT_WIDGETS),
      assets: { ...EMPTY_ASSETS, ...parseJson<Partial<CommunityAssets>>(row.assets, {}) },
      created: row.created,
      modified: row.modified,
    };
  }
}
