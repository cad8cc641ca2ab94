// Where a germline stage's time goes: runs the workflow a few times and prints each stage job's log
// lines with the milliseconds since the job started running (log timestamps). By hand:
// `node bench/experiments/germline-trace.mjs [--runs=3]` (PROF=<dir>: a CPU profile of the server there).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, sleep, startPanx } from '../lib.mjs';

const args = parseArgs();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-germline-trace-'));
const server = await startPanx({
  dataDir,
  env: { PANX_ENGINE: 'true', PANX_DEMO_PROJECT: 'true' },
  nodeArgs: process.env.PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROF}`] : [],
});
try {
  const demo = (await server.call('system/findProjects', { name: 'Demo project' })).results[0].id;
  const workflow = (await server.call('system/findDataObjects', { class: 'workflow', name: 'germline_variants', scope: { project: demo } })).results[0].id;
  for (let run = 0; run < Number(args.runs ?? 3); run++) {
    const { id } = await server.call(`${workflow}/run`, { project: demo, input: {}, ignoreReuse: true });
    let analysis;
    do {
      await sleep(50);
      analysis = await server.call(`${id}/describe`, { fields: { state: true, stages: true } });
    } while (!['done', 'failed'].includes(analysis.state));
    if (run === 0) continue;
    console.log(`\n== ${id} ${analysis.state}`);
    for (const { execution } of analysis.stages) {
      const at = (state) => execution.stateTransitions.find((step) => step.newState === state)?.setAt ?? 0;
      const start = at('running');
      const { messages } = await server.call(`${execution.id}/getLog`, { limit: 1000 });
      console.log(`-- ${execution.name}: running → done ${at('done') - start} ms (${execution.id} running at ${start}, done at ${at('done')})`);
      let last = start;
      for (const m of messages) {
        if (m.source === 'STDERR' && !/^(\+T|fastp|Read|Filtering|Duplication|Insert|JSON|HTML|\[M::main\])/.test(m.msg)) continue;
        console.log(`${String(m.timestamp - start).padStart(6)} (+${String(m.timestamp - last).padStart(4)}) ${m.source} ${m.msg.slice(0, 90)}`);
        last = m.timestamp;
      }
      console.log(`${String(at('done') - start).padStart(6)} (+${String(at('done') - last).padStart(4)}) done`);
    }
  }
} finally {
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
