import fs from 'node:fs';
import { io } from './io.js';
import os from 'node:os';
import path from 'node:path';
import { createClient, type PanxClient } from '@panx/client';
import { ToolError } from './errors.js';

/**
 * The job environment the helpers read, as dxpy does (dxpy/__init__.py, dxpy/config.py): the API
 * server from DX_APISERVER_PROTOCOL/HOST/PORT, the token from DX_SECURITY_CONTEXT, and the
 * container where new objects go and paths resolve: DX_WORKSPACE_ID inside a job (DX_JOB_ID set),
 * DX_PROJECT_CONTEXT_ID outside one. Missing variables are read from the file `dx login` writes
 * (`$DX_USER_CONF_DIR/environment.json`, default `~/.dnanexus_config/environment.json`).
 */

export const TOOLS_VERSION = '0.1.0';

export interface JobEnvironment {
  apiUrl?: string;
  token?: string;
  jobId?: string;
  workspaceId?: string;
  projectContextId?: string;
  /** The container paths resolve in and new objects go to (workspace in a job, project context outside). */
  defaultContainer?: string;
  /** The current folder (DX_CLI_WD), "/" by default. */
  cwd: string;
  home: string;
}

function savedEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const dir = env.DX_USER_CONF_DIR || path.join(env.HOME || os.homedir(), '.dnanexus_config');
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(path.join(dir, 'environment.json'), 'utf8'));
    if (!parsed || typeof parsed !== 'object') return {};
    return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  } catch {
    return {};
  }
}

export function readEnvironment(env: NodeJS.ProcessEnv = io().env): JobEnvironment {
  const saved = env.DX_APISERVER_HOST && env.DX_SECURITY_CONTEXT ? {} : savedEnvironment(env);
  const get = (key: string): string | undefined => env[key] || saved[key] || undefined;
  const host = get('DX_APISERVER_HOST');
  const protocol = get('DX_APISERVER_PROTOCOL') ?? 'https';
  const port = get('DX_APISERVER_PORT') ?? (protocol === 'http' ? '80' : '443');
  let token: string | undefined;
  const context = get('DX_SECURITY_CONTEXT');
  if (context) {
    try {
      const parsed = JSON.parse(context) as { auth_token?: unknown };
      if (typeof parsed.auth_token === 'string') token = parsed.auth_token;
    } catch {
      throw new ToolError('DX_SECURITY_CONTEXT is not JSON like {"auth_token_type":"Bearer","auth_token":"..."}');
    }
  }
  const jobId = get('DX_JOB_ID');
  const workspaceId = get('DX_WORKSPACE_ID');
  const projectContextId = get('DX_PROJECT_CONTEXT_ID');
  return {
    apiUrl: host ? `${protocol}://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}` : undefined,
    token,
    jobId,
    workspaceId,
    projectContextId,
    defaultContainer: jobId ? workspaceId : projectContextId,
    cwd: get('DX_CLI_WD') ?? '/',
    home: homeDir(env),
  };
}

/** A client for the job's API server and token; fails with a hint when the environment lacks them. */
export function connect(environment: JobEnvironment, command: string): PanxClient {
  if (!environment.apiUrl) throw new ToolError('DX_APISERVER_HOST is not set: run this inside a Panx job, or set DX_APISERVER_* and DX_SECURITY_CONTEXT');
  if (!environment.token) throw new ToolError('DX_SECURITY_CONTEXT is not set: it holds the token the API calls are made with');
  const retries = Number(io().env.DX_RETRIES ?? 6);
  const signal = io().signal;
  return createClient({
    baseUrl: environment.apiUrl,
    token: environment.token,
    retries: Number.isFinite(retries) && retries >= 0 ? retries : 6,
    userAgent: `panx-worker-tools/${TOOLS_VERSION} node/${process.versions.node} ${command}`,
    // In the helper host, a call whose caller is gone stops at its next request.
    ...(signal ? { fetch: (url: string | URL | Request, init?: RequestInit) => fetch(url, { ...init, signal }) } : {}),
  });
}

/** The container for new objects and relative paths; fails when neither variable is set. */
export function requireContainer(environment: JobEnvironment): string {
  if (environment.defaultContainer) return environment.defaultContainer;
  throw new ToolError(
    environment.jobId
      ? 'DX_WORKSPACE_ID is not set (DX_JOB_ID is): the job has no workspace'
      : 'no project: set DX_PROJECT_CONTEXT_ID, or give a path as project-xxxx:/folder',
  );
}

/** The job's home (HOME), where job_input.json, job_output.json, in/ and out/ live. */
export function homeDir(env: NodeJS.ProcessEnv = io().env): string {
  return env.HOME || os.homedir();
}
