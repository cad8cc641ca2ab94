import { createContext, type ReactNode, useContext } from 'react';
import type { AppConfig, DeployManifest } from './config';

/** What the start-up sequence produced, available to every component. */
export interface Runtime {
  config: AppConfig;
  manifest: DeployManifest;
  apiBaseUrl: string;
  /** UI language (SPEC §9): from the browser, falling back to `en`. */
  language: string;
}

const RuntimeContext = createContext<Runtime | null>(null);

export function RuntimeProvider({ runtime, children }: { runtime: Runtime; children: ReactNode }) {
  return <RuntimeContext.Provider value={runtime}>{children}</RuntimeContext.Provider>;
}

export function useRuntime(): Runtime {
  const runtime = useContext(RuntimeContext);
  if (!runtime) throw new Error('useRuntime outside RuntimeProvider');
  return runtime;
}
