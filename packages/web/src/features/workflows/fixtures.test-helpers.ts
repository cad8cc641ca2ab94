import type { ExecutableInfo, StageModel, WorkflowModel } from './model';

/** Two applets (a producer of a file, a consumer of a file and of an array of files) and a workflow of their stages. */
export const PRODUCER: ExecutableInfo = {
  id: 'applet-producer',
  name: 'producer',
  title: 'Producer',
  inputSpec: [{ name: 'n', class: 'int', optional: true }],
  outputSpec: [
    { name: 'out', class: 'file', optional: false },
    { name: 'count', class: 'int', optional: false },
  ],
};
export const CONSUMER: ExecutableInfo = {
  id: 'applet-consumer',
  name: 'consumer',
  title: 'Consumer',
  inputSpec: [
    { name: 'reads', class: 'file', optional: false },
    { name: 'extra', class: 'array:file', optional: true },
    { name: 'label', class: 'string', optional: true },
  ],
  outputSpec: [{ name: 'result', class: 'file', optional: false }],
};
export const INFOS = new Map([PRODUCER, CONSUMER].map((info) => [info.id, info]));

export function stage(id: string, executable: string, input: Record<string, unknown> = {}, name: string | null = null): StageModel {
  return { id, executable, name, folder: null, input, systemRequirements: {}, executionPolicy: {} };
}

export function workflow(stages: StageModel[], editVersion = 3): WorkflowModel {
  return { id: 'workflow-1', project: 'project-1', name: 'wf', title: null, state: 'open', editVersion, outputFolder: null, stages };
}
