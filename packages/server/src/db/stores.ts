import type { Kysely, Transaction } from 'kysely';
import { AppsRepository } from '../modules/executables/apps.repository.js';
import { JobsRepository } from '../modules/jobs/jobs.repository.js';
import { OrgsRepository } from '../modules/orgs/orgs.repository.js';
import { ProjectsRepository } from '../modules/projects/projects.repository.js';
import { ObjectsRepository } from '../modules/data-objects/objects.repository.js';
import { NoncesRepository } from '../modules/nonces/nonces.repository.js';
import { TokensRepository } from '../modules/auth/tokens.repository.js';
import { UsersRepository } from '../modules/users/users.repository.js';
import { WorkflowsRepository } from '../modules/workflows/workflows.repository.js';
import type { Dialect } from './database.js';
import type { Database } from './schema.js';

export type Executor = Kysely<Database> | Transaction<Database>;

/** Every repository, bound to one executor (the pool, or one transaction). Services only see this. */
export class Stores {
  readonly users: UsersRepository;
  readonly tokens: TokensRepository;
  readonly orgs: OrgsRepository;
  readonly projects: ProjectsRepository;
  readonly objects: ObjectsRepository;
  readonly nonces: NoncesRepository;
  readonly jobs: JobsRepository;
  readonly apps: AppsRepository;
  readonly workflows: WorkflowsRepository;

  constructor(
    private readonly db: Kysely<Database>,
    readonly dialect: Dialect,
    executor: Executor = db,
  ) {
    this.users = new UsersRepository(executor);
    this.tokens = new TokensRepository(executor);
    this.orgs = new OrgsRepository(executor);
    this.projects = new ProjectsRepository(executor);
    this.objects = new ObjectsRepository(executor, dialect);
    this.nonces = new NoncesRepository(executor);
    this.jobs = new JobsRepository(executor);
    this.apps = new AppsRepository(executor);
    this.workflows = new WorkflowsRepository(executor);
  }

  /** Runs `work` in one transaction; everything it writes commits together or not at all. */
  transaction<T>(work: (stores: Stores) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => work(new Stores(this.db, this.dialect, trx)));
  }
}
