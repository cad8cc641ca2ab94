import type { Generated } from 'kysely';

/**
 * Typed schema of the metadata database. Timestamps are ms since the epoch (bigint), booleans are
 * 0/1 integers and structured values are JSON text, so that SQLite and PostgreSQL store the same thing.
 */
export interface UsersTable {
  id: string;
  handle: string;
  email: string;
  first: string;
  middle: string;
  last: string;
  passwordHash: string;
  isAdmin: number;
  disabled: number;
  securityLevel: string;
  otpSecret: string | null;
  otpEnabled: number;
  /** The TOTP step of the last code used to sign in (codes of that step and earlier are refused). */
  otpLastStep: number | null;
  sshPublicKey: string | null;
  sessionData: string;
  billTo: string;
  created: number;
  modified: number;
  createdBy: string;
}

export interface TokensTable {
  id: string;
  userId: string;
  secretHash: string;
  kind: string;
  label: string;
  scope: string | null;
  securityLevel: string | null;
  created: number;
  expires: number;
  lastUsed: number | null;
  revoked: number;
}

export interface OrgsTable {
  id: string;
  handle: string;
  name: string;
  policies: string;
  phiFeaturesEnabled: number;
  defaultRegion: string;
  permittedRegions: string;
  created: number;
  modified: number;
  createdBy: string;
}

export interface OrgMembersTable {
  orgId: string;
  userId: string;
  level: string;
  allowBillableActivities: number;
  appAccess: number;
  projectAccess: string;
  created: number;
}

export interface ProjectsTable {
  id: string;
  class: string;
  name: string;
  billTo: string;
  region: string;
  containsPHI: number;
  settings: string;
  summary: string;
  description: string;
  tags: string;
  properties: string;
  pendingTransfer: string | null;
  createdBy: string;
  created: number;
  modified: number;
  version: number;
  /** Bytes of closed files with a copy here (maintained by the objects repository; `dataUsage`). */
  closedBytes: number;
}

export interface ProjectMembersTable {
  projectId: string;
  memberId: string;
  level: string;
  created: number;
}

export interface FoldersTable {
  projectId: string;
  path: string;
}

export interface ObjectsTable {
  id: string;
  class: string;
  state: string;
  media: string;
  size: number | null;
  blobKey: string | null;
  /** Multipart upload id while a file is open (S3 upload id, or the local staging id). */
  uploadId: string | null;
  content: string;
  createdBy: string;
  created: number;
  stateChanged: number;
}

export interface ObjectCopiesTable {
  projectId: string;
  objectId: string;
  class: string;
  name: string;
  folder: string;
  hidden: number;
  tags: string;
  types: string;
  properties: string;
  details: string;
  created: number;
  modified: number;
}

export interface FilePartsTable {
  fileId: string;
  partIndex: number;
  size: number;
  md5: string;
  /** What the blob store answered for the part (an S3 ETag, or the local part's name). */
  partRef: string;
  created: number;
}

export interface NoncesTable {
  route: string;
  nonce: string;
  callerId: string;
  bodyHash: string;
  response: string;
  created: number;
}

/** Blobs whose objects are gone; deleted after commit and retried at start-up (crash safety). */
export interface BlobDeletionsTable {
  id: Generated<number>;
  blobKey: string;
  /** Set when the key names a multipart upload to abort rather than an object. */
  uploadOf: string | null;
  created: number;
}

/** One job (and, later, analysis). Columns that are queried or updated on their own are columns; the rest is `spec` JSON. */
export interface JobsTable {
  id: string;
  class: string;
  name: string;
  state: string;
  executable: string;
  executableName: string;
  function: string;
  project: string;
  folder: string;
  workspace: string;
  rootExecution: string;
  originJob: string;
  parentJob: string | null;
  /** The parent's try when this subjob was created (a restarted parent ignores its earlier children). */
  parentTry: number | null;
  launchedBy: string;
  billTo: string;
  region: string;
  instanceType: string;
  cores: number;
  memoryMB: number;
  pricePerHour: number;
  priority: string;
  /** high 2, normal 1, low 0: the scheduler starts higher ranks first. */
  priorityRank: number;
  try: number;
  created: number;
  modified: number;
  stateChanged: number;
  startedRunning: number | null;
  stoppedRunning: number | null;
  /** When a running try exceeds its timeout policy. */
  deadline: number | null;
  /** Price of the finished running periods of every try (the current one accrues on top). */
  accruedPrice: number;
  costLimit: number | null;
  failureReason: string | null;
  failureMessage: string | null;
  failureFrom: string | null;
  tokenId: string | null;
  /** The engine server whose executor runs the job. */
  claimedBy: string | null;
  executorHandle: string | null;
  reuseKey: string | null;
  input: string;
  output: string | null;
  /** What the runner reported (output or error, exit status), applied when the process has exited. */
  outcome: string | null;
  stateTransitions: string;
  tries: string;
  logOffsets: string;
  tags: string;
  properties: string;
  details: string;
  spec: string;
}

export interface JobLogsTable {
  id: Generated<number>;
  jobId: string;
  try: number;
  timestamp: number;
  source: string;
  level: string;
  msg: string;
}

export interface EngineServersTable {
  id: string;
  started: number;
  heartbeat: number;
}

/** One version of an app. */
export interface AppsTable {
  id: string;
  name: string;
  version: string;
  /** When it was published (0: not published). */
  published: number;
  deleted: number;
  createdBy: string;
  billTo: string;
  /** The container holding the app's resources (bundledDepends). */
  resources: string | null;
  tags: string;
  spec: string;
  created: number;
  modified: number;
}

/** What all versions of an app share. */
export interface AppNamesTable {
  name: string;
  categories: string;
  authorizedUsers: string;
  developers: string;
  created: number;
}

export interface AppInstallsTable {
  name: string;
  userId: string;
  created: number;
}

export interface Database {
  users: UsersTable;
  tokens: TokensTable;
  orgs: OrgsTable;
  orgMembers: OrgMembersTable;
  projects: ProjectsTable;
  projectMembers: ProjectMembersTable;
  folders: FoldersTable;
  objects: ObjectsTable;
  objectCopies: ObjectCopiesTable;
  fileParts: FilePartsTable;
  nonces: NoncesTable;
  blobDeletions: BlobDeletionsTable;
  jobs: JobsTable;
  jobLogs: JobLogsTable;
  engineServers: EngineServersTable;
  apps: AppsTable;
  appNames: AppNamesTable;
  appInstalls: AppInstallsTable;
}
