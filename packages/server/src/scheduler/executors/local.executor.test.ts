import { describeExecutorContract } from './executor.contract.js';
import { LocalExecutor } from './local.executor.js';

describeExecutorContract('local', (capacity) => new LocalExecutor({ ...capacity, pollMs: 25, killGraceMs: 500 }));
