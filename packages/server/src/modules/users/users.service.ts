import { hash as argonHash, verify as argonVerify } from '@node-rs/argon2';
import type { DescribeOptions, RouteParsedInput, UserDescribe } from '@panx/contract';
import type { Stores } from '../../db/stores.js';
import { ApiError, invalidInput, notFound, permissionDenied } from '../../errors.js';
import { fieldSelector, pickFields } from '../../lib/describe-fields.js';
import { parseJson, toJson } from '../../lib/json.js';
import { nameMatcher } from '../../lib/name-match.js';
import type { Caller } from '../auth/caller.js';
import type { UserRow } from './users.repository.js';

const DEFAULT_FIELDS = [
  'id',
  'class',
  'handle',
  'first',
  'middle',
  'last',
  'fullName',
  'email',
  'created',
  'modified',
  'billTo',
  'orgs',
  'securityLevel',
  'otpEnabled',
  'admin',
  'disabled',
  'sshPublicKey',
  'sessionData',
  'currency',
  'defaultRegion',
  'permittedRegions',
  'isProvisioned',
  'createdBy',
  'appsInstalled',
  'roles',
] as const;

export type NewUserInput = RouteParsedInput<'user/new'>;

export class UsersService {
  constructor(
    private readonly stores: Stores,
    private readonly options: { selfSignUp: boolean; onAccountChange: () => void },
  ) {}

  /** Administrators create accounts; anyone may when self sign-up is on (but never an admin account). */
  async create(caller: Caller | undefined, input: NewUserInput, now: number): Promise<{ id: string }> {
    if (!caller?.isAdmin) {
      if (!this.options.selfSignUp) {
        throw caller
          ? permissionDenied('Only administrators can create users')
          : new ApiError('InvalidAuthentication', 'Sign-up is disabled: ask an administrator for an account');
      }
      if (input.admin) throw permissionDenied('Only administrators can create administrator accounts');
    }
    const id = `user-${input.username}`;
    const taken = () => invalidInput(`The username "${input.username}" is already taken`);
    if (await this.stores.users.findById(id)) throw taken();
    const passwordHash = await argonHash(input.password);
    const row: UserRow = {
      id,
      handle: input.username,
      email: input.email,
      first: input.first,
      middle: input.middle ?? '',
      last: input.last,
      passwordHash,
      isAdmin: input.admin ? 1 : 0,
      disabled: 0,
      securityLevel: 'normal',
      otpSecret: null,
      otpEnabled: 0,
      otpLastStep: null,
      sshPublicKey: null,
      sessionData: '{}',
      billTo: id,
      created: now,
      modified: now,
      createdBy: caller?.userId ?? id,
    };
    try {
      await this.stores.users.insert(row);
    } catch (error) {
      // Two sign-ups racing for one handle: the loser hits the unique key, which is the same answer.
      if (await this.stores.users.findById(id)) throw taken();
      throw error;
    }
    return { id };
  }

  async requireUser(id: string): Promise<UserRow> {
    const user = await this.stores.users.findById(id);
    if (!user) throw notFound(`The user ${id} could not be found`);
    return user;
  }

  async describe(caller: Caller, id: string, options: DescribeOptions): Promise<UserDescribe> {
    const user = await this.requireUser(id);
    const self = caller.userId === id || caller.isAdmin;
    const want = fieldSelector(options, DEFAULT_FIELDS);
    const orgs = self ? (await this.stores.orgs.membershipsOfUser(id)).map((m) => m.orgId) : [];
    const described = pickFields((field) => want(field) && (self || PUBLIC_FIELDS.has(field)), {
      id: () => user.id,
      class: () => 'user',
      handle: () => user.handle,
      first: () => user.first,
      middle: () => user.middle,
      last: () => user.last,
      fullName: () => [user.first, user.middle, user.last].filter(Boolean).join(' '),
      email: () => user.email,
      created: () => user.created,
      modified: () => user.modified,
      billTo: () => user.billTo,
      orgs: () => orgs,
      securityLevel: () => user.securityLevel,
      otpEnabled: () => user.otpEnabled === 1,
      admin: () => user.isAdmin === 1,
      disabled: () => user.disabled === 1,
      sshPublicKey: () => user.sshPublicKey,
      sessionData: () => parseJson(user.sessionData, {}),
      currency: () => ({ code: 'USD', symbol: '$' }),
      defaultRegion: () => 'aws:us-east-1',
      permittedRegions: () => ['aws:us-east-1'],
      isProvisioned: () => user.createdBy !== user.id,
      createdBy: () => user.createdBy,
      appsInstalled: () => ({}),
      roles: () => (user.isAdmin ? ['admin'] : []),
    });
    return described as UserDescribe;
  }

  async update(caller: Caller, id: string, input: RouteParsedInput<'user-xxxx/update'>, now: number): Promise<{ id: string }> {
    const user = await this.requireUser(id);
    const self = caller.userId === id;
    if (caller.scope) throw permissionDenied('A project-scoped token cannot change accounts');
    if (!self && !caller.isAdmin) throw permissionDenied(`You may only update your own account, not ${id}`);
    if ((input.disabled !== undefined || input.admin !== undefined) && !caller.isAdmin) {
      throw permissionDenied('Only administrators can disable accounts or change administrator rights');
    }
    if (caller.isAdmin && self && (input.disabled === true || input.admin === false)) {
      throw invalidInput('Administrators cannot disable themselves or drop their own administrator rights');
    }
    const patch: Partial<UserRow> = { modified: now };
    if (input.first !== undefined) patch.first = input.first;
    if (input.middle !== undefined) patch.middle = input.middle;
    if (input.last !== undefined) patch.last = input.last;
    if (input.email !== undefined) patch.email = input.email;
    if (input.securityLevel !== undefined) patch.securityLevel = input.securityLevel;
    if (input.sshPublicKey !== undefined) patch.sshPublicKey = input.sshPublicKey;
    if (input.sessionData !== undefined) patch.sessionData = toJson({ ...parseJson<object>(user.sessionData, {}), ...input.sessionData });
    if (input.disabled !== undefined) patch.disabled = input.disabled ? 1 : 0;
    if (input.admin !== undefined) patch.isAdmin = input.admin ? 1 : 0;
    if (input.password) {
      if (!caller.isAdmin || self) {
        if (!input.password.current || !(await argonVerify(user.passwordHash, input.password.current))) {
          throw permissionDenied('The current password is not correct');
        }
      }
      patch.passwordHash = await argonHash(input.password.new);
    }
    await this.stores.users.update(id, patch);
    if (input.disabled || input.password) {
      await this.stores.tokens.revokeAllOfUser(id);
    }
    this.options.onAccountChange();
    return { id };
  }

  async find(caller: Caller, input: RouteParsedInput<'system/findUsers'>) {
    const limit = input.limit ?? 100;
    const matcher = input.name ? nameMatcher(input.name) : undefined;
    const results: { id: string; describe?: UserDescribe }[] = [];
    let afterId = typeof input.starting === 'string' ? input.starting : undefined;
    for (;;) {
      const batch = await this.stores.users.listPage({ ids: input.id, includeDisabled: caller.isAdmin && input.includeDisabled === true, afterId, limit: 500 });
      for (const user of batch) {
        afterId = user.id;
        const fullName = `${user.first} ${user.last}`;
        if (matcher && !matcher.test(user.handle) && !matcher.test(fullName)) continue;
        results.push({
          id: user.id,
          ...(input.describe ? { describe: await this.describe(caller, user.id, input.describe === true ? {} : input.describe) } : {}),
        });
        if (results.length === limit) return { results, next: user.id };
      }
      if (batch.length < 500) return { results, next: null };
    }
  }
}

const PUBLIC_FIELDS = new Set(['id', 'class', 'handle', 'first', 'middle', 'last', 'fullName', 'created', 'modified']);
