import type { AccessSpec, IoSpecItem, RunSpec } from '@panx/contract';
import { invalidInput } from '../../errors.js';
import { checkAgainstSpec, objectRefOf } from '../jobs/job-io.js';
import type { InstanceTypes } from '../jobs/instance-types.js';

/** The processed dxapp.json an applet keeps in its object content and an app version in its row. */
export interface ExecutableSpec {
  title?: string;
  summary?: string;
  description?: string;
  developerNotes?: string;
  dxapi: string;
  inputSpec: IoSpecItem[] | null;
  outputSpec: IoSpecItem[] | null;
  runSpec: RunSpec;
  access: AccessSpec;
  ignoreReuse?: boolean;
  httpsApp?: unknown;
  treeTurnaroundTimeThreshold?: number;
}

/** An executable as the engine runs it. */
export interface Executable {
  id: string;
  kind: 'applet' | 'app';
  name: string;
  spec: ExecutableSpec;
  /** Where the applet was found (its bundled files are copied from there), or the app's resources container. */
  container: string | null;
  /** The app version's number (apps only). */
  version?: string;
}

/**
 * A project's `allowedExecutables` rule (SPEC §6): null allows everything; otherwise the executable's
 * id or its class-name combination must be listed (`applet-<name>`, `workflow-<name>`, `app-<name>` for
 * every version of an app, `app-<name>/<version>` for one). The stages of an allowed workflow may run.
 */
export function isExecutableAllowed(
  allowed: readonly string[] | null | undefined,
  executable: { id: string; kind: Executable['kind'] | 'workflow'; name: string; version?: string },
): boolean {
  if (!allowed) return true;
  if (allowed.includes(executable.id) || allowed.includes(`${executable.kind}-${executable.name}`)) return true;
  return executable.kind === 'app' && executable.version !== undefined && allowed.includes(`app-${executable.name}/${executable.version}`);
}

const SPEC_KEYS = [
  'title',
  'summary',
  'description',
  'developerNotes',
  'dxapi',
  'inputSpec',
  'outputSpec',
  'runSpec',
  'access',
  'ignoreReuse',
  'httpsApp',
  'treeTurnaroundTimeThreshold',
] as const;

/**
 * The spec of a new executable from what `dx build` sent: checked (field names unique, defaults of
 * the right class, instance types known in `region`) and normalized (`runSpec.file` dropped).
 */
export function buildExecutableSpec(input: Record<string, unknown> & { runSpec: RunSpec }, instanceTypes: InstanceTypes, region: string): ExecutableSpec {
  const picked: Record<string, unknown> = {};
  for (const key of SPEC_KEYS) if (input[key] !== undefined) picked[key] = input[key];
  const { file: _file, ...runSpec } = input.runSpec as RunSpec & { file?: unknown };
  const spec: ExecutableSpec = {
    ...(picked as Partial<ExecutableSpec>),
    dxapi: typeof input.dxapi === 'string' ? input.dxapi : '1.0.0',
    inputSpec: (input.inputSpec as IoSpecItem[] | null | undefined) ?? null,
    outputSpec: (input.outputSpec as IoSpecItem[] | null | undefined) ?? null,
    runSpec: runSpec as RunSpec,
    access: (input.access as AccessSpec | undefined) ?? {},
  };
  for (const [which, items] of [
    ['inputSpec', spec.inputSpec],
    ['outputSpec', spec.outputSpec],
  ] as const) {
    const seen = new Set<string>();
    for (const item of items ?? []) {
      if (seen.has(item.name)) throw invalidInput(`${which} names the field "${item.name}" twice`);
      seen.add(item.name);
      if (item.default !== undefined) {
        try {
          checkAgainstSpec([item], { [item.name]: item.default }, { what: 'input', applyDefaults: false });
        } catch (error) {
          throw invalidInput(`${which} field "${item.name}": its default does not fit: ${(error as Error).message}`);
        }
      }
    }
  }
  for (const [entry, requirement] of Object.entries(runSpec.systemRequirements ?? {})) {
    if (requirement.instanceType && !instanceTypes.find(region, requirement.instanceType)) {
      throw invalidInput(
        `runSpec.systemRequirements.${entry}.instanceType: unknown instance type "${requirement.instanceType}" in ${region} (known: ${instanceTypes
          .list(region)
          .map((type) => type.name)
          .join(', ')})`,
      );
    }
  }
  for (const [index, depend] of (runSpec.bundledDepends ?? []).entries()) {
    if (!bundledFileOf(depend)) throw invalidInput(`runSpec.bundledDepends[${index}].id must link to a file`);
  }
  return spec;
}

/** The file (and the project it was named in) a bundledDepends entry links to. */
export function bundledFileOf(depend: { id: unknown }): { id: string; project?: string } | undefined {
  const ref = typeof depend.id === 'string' ? (/^file-/.test(depend.id) ? { id: depend.id } : undefined) : objectRefOf(depend.id);
  return ref?.id.startsWith('file-') ? ref : undefined;
}

/** What describe shows of a spec: everything but the code (which `get` returns). */
export function describableSpec(spec: ExecutableSpec): Record<string, unknown> {
  const { code: _code, ...runSpec } = spec.runSpec;
  return { ...spec, runSpec };
}
